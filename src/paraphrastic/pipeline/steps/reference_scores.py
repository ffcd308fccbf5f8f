"""reference-scores: sentence-transformers' all-MiniLM-L6-v2 on the evaluation sets and MTEB's STS tasks, scored as
ours are, and its speed on the CPU: what the encoder comparison and the static model's card put beside ours."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.evaluation.compare_encoders import reference_scores


def run(config: dict, *, eval, out, threads=None) -> None:
    result = reference_scores(config, Path(eval), Path(out), threads=threads)
    print(f"{result['model']}: {result['summary']['transfer_sets']}-set r {result['summary']['transfer_pearson']:.1f}, "
          f"{result['sentences_per_second']:.0f} sentences/s ({result['threads']} threads) -> {out}")
