"""What the static model's tokenizer costs or gains, beyond the paper (``word_vectors.tokenizer``):
python benchmarks/static_tokenizer.py [--data data] [--params params.yaml] [--tokenizers treebank_like bert]
                                     [--work WORK] [--threads 1] [--table]

The static model's stages read every text, training and evaluation alike, with the tokenizer the export ships
(src/paraphrastic/data/static_tokenizer.py). For each tokenizer, ``distill``, ``distill_sentences``, the
sentence-distilled folder's ``baseline`` and ``static_model`` run as the pipeline runs them, with
``word_vectors.tokenizer`` set, into WORK/TOKENIZER/ (a data folder of its own, with copies of the run's training
and evaluation tables, DATA/corpus). All of them train on the run's teacher targets (DATA/sentence_distilled/
targets.*): the texts and the teacher's embeddings of them, which no tokenizer changes. The table gives, for each
tokenizer, the project's own score of the vectors (the ``baseline`` stage: STS 2016, the selection, and the 22-set
mean Pearson) beside the export's as model2vec and sentence-transformers load it (the ``static_model`` stage: the
22-set mean and MTEB's STS12–16 mean Spearman), and the largest difference between the project's and a library's
score over the 22 sets. A tokenizer whose scores WORK holds is not made again, so the tokenizers can run in two
processes (``--tokenizers``) and the table be assembled afterwards (``--table``). Writes
benchmarks/results/static_tokenizer.{json,md}; docs/fidelity.md shows it (pages/readme.py).
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from measured import commit, publish  # noqa: E402

from paraphrastic.atomic import write_text  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.data.static_tokenizer import TOKENIZERS  # noqa: E402
from paraphrastic.evaluation.mteb_sts import mean_over_tasks  # noqa: E402
from paraphrastic.provenance import data_folder, read_result  # noqa: E402

RESULTS = HERE / "results" / "static_tokenizer"
MADE_AT = "made_at.txt"  # in WORK/TOKENIZER: the commit whose code made its folders, for the table's footer
LIBRARIES = ("model2vec", "sentence_transformers")


def baseline_of(out: Path) -> Path:
    return out / "results" / "baseline_sentence_distilled.json"


def loaded_of(out: Path) -> Path:
    return out / "results" / "static_model.json"


def make(config: dict, tokenizer: str, data: Path, out: Path, threads: int) -> None:
    """WORK/TOKENIZER's distilled and sentence-distilled vectors, the project's score of the latter and its export's
    as loaded, as the pipeline's stages make them with ``word_vectors.tokenizer`` set to ``tokenizer``."""
    from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS
    from paraphrastic.pipeline.steps import baseline, distill, distill_sentences, static_model

    if baseline_of(out).is_file() and loaded_of(out).is_file():
        return
    settings = copy.deepcopy(config)
    settings["word_vectors"]["tokenizer"] = tokenizer
    corpus, vectors = out / "corpus", out / "sentence_distilled"
    corpus.mkdir(parents=True, exist_ok=True)
    vectors.mkdir(parents=True, exist_ok=True)
    write_text(out / MADE_AT, commit() + "\n")
    for name in ("simpwiki.parquet", "ppdb.parquet", "eval.parquet"):
        shutil.copyfile(data / "corpus" / name, corpus / name)
    targets = data / "sentence_distilled"
    for name in ("targets.parquet", "targets.npy", "targets.json"):
        shutil.copyfile(targets / name, vectors / name)
    with data_folder(out):
        distill.run(settings, corpus=corpus, out_dir=out / "distilled", device="cpu", threads=threads)
        distill_sentences.run(settings, distilled=out / "distilled", targets=vectors / "targets.parquet",
                              target_embeddings=vectors / "targets.npy", eval=corpus / "eval.parquet", corpus=corpus,
                              out_dir=vectors, checkpoints=out / "checkpoints" / "sentence_distilled", device="cpu",
                              threads=threads)
        baseline.run(settings, vocab_dir=vectors, eval=corpus / "eval.parquet", out=baseline_of(out), device="cpu",
                     threads=threads)
        static_model.run(settings, vectors=vectors, distilled=out / "distilled", eval=corpus / "eval.parquet",
                         published_scores=REPO / PUBLISHED_MTEB_STS, out_dir=out / "static_model",
                         scores=loaded_of(out), threads=threads)


def scores(out: Path) -> dict:
    """WORK/TOKENIZER's scores: the project's (STS 2016, 22 sets), each library's as loaded (22 sets, MTEB), and the
    largest difference between the project's and a library's score over the 22 sets."""
    for path in (baseline_of(out), loaded_of(out)):
        if not path.is_file():
            raise SystemExit(f"{path}: not made (run this tokenizer first: --tokenizers without --table)")
    with data_folder(out):
        ours, loaded = read_result(baseline_of(out)), read_result(loaded_of(out))
    per_set = ours["datasets"]
    gap = max(abs(loaded[library]["per_dataset"][name]["pearson"] - per_set[name]["pearson"])
              for library in LIBRARIES for name in loaded[library]["per_dataset"])
    made_at = out / MADE_AT
    return {"project": {key: ours["summary"][key] for key in ("selection_pearson", "transfer_pearson")},
            "loaded": {library: {"transfer_pearson": loaded[library]["summary"]["transfer_pearson"],
                                 "mteb": mean_over_tasks(loaded[library]["mteb"])} for library in LIBRARIES},
            "largest_difference": gap, "made_at": made_at.read_text().strip() if made_at.is_file() else "unrecorded"}


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def markdown(result: dict) -> str:
    """A row per tokenizer: the project's STS 2016 and 22-set means, each library's 22-set and MTEB means as loaded,
    the largest per-set difference between the project's score and a library's."""
    lines = ["The static model's stages (`distill`, `distill_sentences`, the sentence-distilled `baseline` and "
             "`static_model`) run with each tokenizer (`word_vectors.tokenizer`) on the same teacher targets. The "
             "project's score reads the sets' text with the folder's tokenizer.json (Pearson × 100: STS 2016, the "
             "selection, and the 22-set mean); model2vec and sentence-transformers load the export and score raw "
             "text (the 22-set mean, and MTEB's STS12–16 mean Spearman × 100). The last column: the largest "
             "difference, over the 22 sets and both libraries, between a library's Pearson and the project's.", "",
             "| tokenizer | project: STS16 | project: 22 sets | model2vec: 22 sets | model2vec: MTEB | "
             "sentence-transformers: 22 sets | sentence-transformers: MTEB | largest difference |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for tokenizer, found in result["tokenizers"].items():
        loaded = found["loaded"]
        lines.append(f"| {tokenizer} | {found['project']['selection_pearson']:.2f} | "
                     f"{found['project']['transfer_pearson']:.2f} | "
                     + " | ".join(f"{loaded[library]['transfer_pearson']:.2f} | {_cell(loaded[library]['mteb'])}"
                                  for library in LIBRARIES)
                     + f" | {found['largest_difference']:.4f} |")
    made = sorted({found["made_at"] for found in result["tokenizers"].values()})
    found = result["tokenizers"]
    largest = max(one["largest_difference"] for one in found.values())
    pick = max(found, key=lambda tokenizer: found[tokenizer]["project"]["selection_pearson"])
    summary = (f"From the rows: the largest difference between the project's score and a library's as loaded, over "
               f"the sets, both libraries and every tokenizer, is {largest:.4f}; STS 2016 picks `{pick}`.")
    return "\n".join(lines) + (f"\n\n{summary}\n\nMade at {', '.join(made)}, tabled at {result['commit']} by "
                               "`benchmarks/static_tokenizer.py`.\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "data", help="a run's data folder (default: %(default)s)")
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml",
                        help="the config the stages read, word_vectors.tokenizer aside (default: %(default)s)")
    parser.add_argument("--tokenizers", nargs="*", choices=TOKENIZERS, default=list(TOKENIZERS),
                        help="make these tokenizers' folders (default: all)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "static_tokenizer",
                        help="each tokenizer's data folder (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    parser.add_argument("--table", action="store_true", help="only assemble the table from WORK's scores")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    needed = ("corpus/simpwiki.parquet", "corpus/ppdb.parquet", "corpus/eval.parquet",
              "sentence_distilled/targets.parquet", "sentence_distilled/targets.npy", "sentence_distilled/targets.json")
    for name in needed if not args.table else ():
        if not (args.data / name).is_file():
            parser.error(f"{args.data / name}: no such file (run `snakemake --cores 2 "
                         "data/sentence_distilled/targets.npy` first)")
    config = cfg.load(args.params)
    for tokenizer in [] if args.table else args.tokenizers:
        make(config, tokenizer, args.data, args.work / tokenizer, args.threads)
    if args.table or set(args.tokenizers) == set(TOKENIZERS):
        result = {"commit": commit(),
                  "tokenizers": {tokenizer: scores(args.work / tokenizer) for tokenizer in TOKENIZERS}}
        publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
