"""compare-encoders: Table 4's models and the untrained vectors on the same sets with the same scorer as
sentence-transformers' all-MiniLM-L6-v2 (reference-scores), and their encoding speed beside its on the CPU; MTEB's STS
tasks for each, beside the published scores."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.evaluation.compare_encoders import compare


def run(config: dict, *, data_dir, reference, out, published=None, threads=None) -> None:
    result = compare(config, Path(data_dir), Path(out), reference_path=Path(reference), threads=threads,
                     published_path=published)
    ref = result["reference"]
    print(f"{ref['model']}: {ref['summary']['transfer_sets']}-set r {ref['summary']['transfer_pearson']:.1f}, "
          f"{ref['sentences_per_second']:.0f} sentences/s; " + "; ".join(
              f"{label}: r {o['summary']['transfer_pearson']:.1f}, {o['sentences_per_second']:.0f} sentences/s"
              for label, o in result["ours"].items()) + f" ({result['threads']} threads) -> {out}")
