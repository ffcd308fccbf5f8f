"""What the distilled vectors' vocabulary size, dimensions and word weighting change, untrained:
python benchmarks/distill_sweep.py [--corpus data/corpus] [--sizes 10000 20000 0] [--dims 64 128 256 384]
                                   [--sif none 1e-2 3e-3 1e-3 1e-4 1e-5]

The teacher (word_vectors.distilled.teacher) encodes every training-corpus word and the WordPiece pieces they lack
once (the `distill` stage's vocabulary with `subwords`, none taken from the evaluation sets); then, for each
vocabulary size (the N most frequent words, 0 for all, and the teacher's pieces those lack), PCA dimensions (384:
the teacher's width, centred only) and Zipf coefficient (none: no weighting), the vectors are reduced and weighted as
`distill` does and scored untrained under avg on our sets: STS 2016 (the selection, as the pipeline selects) and
the 22-set mean Pearson. The one STS 2016 picks is marked, and the one params.yaml names (pages/readme.py
marks it again from the params.yaml of the day when it writes the table into the docs).
Writes benchmarks/results/distill_sweep.{json,md}.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from measured import commit, publish  # noqa: E402


def coefficient(text: str) -> float | None:
    return None if text.lower() == "none" else float(text)


def configured(row: dict, settings: dict) -> bool:
    """Whether ``row`` is the configuration ``word_vectors.distilled`` names (the fair vocabulary with the teacher's
    pieces, every word, its dims and coefficient)."""
    return (settings["subwords"] and not settings["evaluation_words"] and settings["max_words"] is None
            and row["words"] == row["all_words"] and row["dims"] == settings["dims"]
            and row["sif_coefficient"] == settings["sif_coefficient"])


def markdown(result: dict, settings: dict) -> str:
    """One row per vocabulary size and width, one column per Zipf coefficient: "STS 2016 / 22-set mean"; the best
    STS 2016 in bold, the configuration ``settings`` (``word_vectors.distilled``) names in italics."""
    rows = [{**row, "all_words": result["words"]} for row in result["rows"]]
    coefficients = list(dict.fromkeys(row["sif_coefficient"] for row in rows))
    named = [("none" if c is None else f"{c:g}") for c in coefficients]
    lines = ["The distilled vectors untrained (averaged, our scorer), by vocabulary size (the most frequent training "
             "words, then the teacher's pieces they lack), PCA dimensions and Zipf coefficient (none: no weighting): "
             "STS 2016 / 22-set mean, Pearson × 100. **Bold**: the best STS 2016 (the selection); *italic*: the "
             f"configuration params.yaml names. Teacher outputs for {result['words']:,} words and "
             f"{result['pieces']:,} pieces computed once in {result['teacher_seconds']:.0f} s.", "",
             "| words | pieces | dims | " + " | ".join(f"Zipf {name}" for name in named) + " |",
             "|---:|---:|---:|" + "---:|" * len(coefficients)]
    for (words, pieces, dims) in dict.fromkeys((row["words"], row["pieces"], row["dims"]) for row in rows):
        cells = []
        for c in coefficients:
            row = next(r for r in rows if (r["words"], r["dims"], r["sif_coefficient"]) == (words, dims, c))
            cell = f"{row['selection_pearson']:.2f} / {row['transfer_pearson']:.2f}"
            cells.append(f"**{cell}**" if row["selected"] else f"*{cell}*" if configured(row, settings) else cell)
        lines.append(f"| {words:,} | {pieces:,} | {dims} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\nMeasured at {result['commit']} by `benchmarks/distill_sweep.py`.\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO / "data/corpus",
                        help="simpwiki.parquet, ppdb.parquet and eval.parquet (default: %(default)s)")
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 20_000, 0],
                        help="vocabulary sizes in words (0: every training word)")
    parser.add_argument("--dims", type=int, nargs="+", default=[64, 128, 256, 384])
    parser.add_argument("--sif", type=coefficient, nargs="+", default=[None, 1e-2, 3e-3, 1e-3, 1e-4, 1e-5],
                        help="Zipf coefficients (none: no weighting)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "distill_sweep",
                        help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    from transformers import AutoTokenizer

    from paraphrastic.configuration import params as cfg
    from paraphrastic.data.corpus import read_table, token_lists
    from paraphrastic.data.distill import (
        distillation_vocabulary,
        reduce_and_weight,
        teacher_outputs,
        teacher_pieces,
        with_special_rows,
    )
    from paraphrastic.data.static_tokenizer import WordSplitter, build_tokenizer, read_with
    from paraphrastic.data.transformer_folders import transformer_folder
    from paraphrastic.evaluation.similarity import score_sets, summarize
    from paraphrastic.models.encoders import build_model

    torch.set_num_threads(args.threads)
    config = cfg.load(args.params)
    settings = config["word_vectors"]["distilled"]
    selection = cfg.selection_ids(config)
    # the text as the distill stage reads it: cut by the static model's tokenizer, which reads the sets' text too
    kind = config["word_vectors"]["tokenizer"]
    split = WordSplitter(kind)
    training = [tokens for name in ("simpwiki", "ppdb")
                for tokens in token_lists(split.read(read_table(args.corpus / f"{name}.parquet")))]
    evaluation = read_table(args.corpus / "eval.parquet")
    words = distillation_vocabulary(training)
    teacher = transformer_folder(settings["teacher"], where="word_vectors.distilled.teacher")
    start = time.perf_counter()
    entries, outputs = teacher_outputs(words, teacher, subwords=True, reachable=split.reaches)
    teacher_seconds = time.perf_counter() - start
    row_of = {entry: i for i, entry in enumerate(entries)}
    tokenizer = AutoTokenizer.from_pretrained(str(teacher), use_fast=True)

    rows = []
    for size in args.sizes:
        kept = words[:size] if size else words
        # a piece that is a less frequent word has that word's output
        pieces, _ = teacher_pieces(tokenizer, kept, split.reaches)
        chosen = outputs[[row_of[entry] for entry in kept + pieces]]
        for dims, sif in itertools.product(args.dims, args.sif):
            vectors = reduce_and_weight(chosen, dims=dims, sif_coefficient=sif)
            vocab, matrix = with_special_rows(kept + pieces, vectors, subwords=True)
            table = read_with(evaluation, build_tokenizer(kind, vocab.index))
            summary = summarize(score_sets(build_model("avg", torch.from_numpy(matrix)), vocab, table), selection)
            rows.append({"words": len(kept), "pieces": len(pieces), "dims": dims, "sif_coefficient": sif,
                         "selection_pearson": summary["selection_pearson"],
                         "transfer_pearson": summary["transfer_pearson"]})
            print(rows[-1], flush=True)
    best = max(rows, key=lambda row: row["selection_pearson"])
    for row in rows:
        row["selected"] = row is best
    result = {"commit": commit(), "corpus": str(args.corpus), "teacher": settings["teacher"], "words": len(words),
              "pieces": len(entries) - len(words), "teacher_seconds": teacher_seconds, "threads": args.threads,
              "sizes": args.sizes, "dims": args.dims, "sif": args.sif, "rows": rows}
    publish(args.out, result, markdown(result, settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
