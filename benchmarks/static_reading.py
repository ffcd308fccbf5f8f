"""What the training text's reading costs the static encoder, beyond the paper (``word_vectors.reading``):
python benchmarks/static_reading.py [--data data] [--params params.yaml] [--readings ours authors] [--work WORK]
                                   [--threads 1] [--table]

The static encoder's stages read the training text with a reading of their own, ``word_vectors.reading`` (``ours``
by default, as the static model tokenises what it encodes), whatever ``data.reading`` gives the paper's rows. For
each reading, ``distill``, ``teacher_targets``, ``distill_sentences`` and the two vector folders' ``baseline``
scoring run as the pipeline runs them, with ``word_vectors.reading`` set, into WORK/READING/ (a data folder of its
own, with copies of the run's training and evaluation tables, DATA/corpus, and treebank sentences,
DATA/siamese/corpus). The table gives each folder's STS 2016 mean and 22-set mean Pearson under both readings and
the difference (authors − ours); the sentence-distilled vectors are what the static model exports. A reading whose
scores WORK holds is not made again, so the readings can run in two processes (``--readings``) and the table be
assembled afterwards (``--table``). Writes benchmarks/results/static_reading.{json,md}; docs/fidelity.md shows it
(benchmarks/readme.py).
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
from paraphrastic.data.tokens import READINGS  # noqa: E402
from paraphrastic.provenance import data_folder, read_result  # noqa: E402

RESULTS = HERE / "results" / "static_reading"
FOLDERS = {"distilled": "word vectors distilled from the teacher",
           "sentence_distilled": "those trained towards its sentence embeddings, the static model's"}
MADE_AT = "made_at.txt"  # in WORK/READING: the commit whose code made its folders, for the table's footer


def scores_of(out: Path, folder: str) -> Path:
    return out / "results" / f"baseline_{folder}.json"


def make(config: dict, reading: str, data: Path, out: Path, threads: int) -> None:
    """WORK/READING's distilled and sentence-distilled vectors and their scores, as the pipeline's stages make them
    with ``word_vectors.reading`` set to ``reading``."""
    from paraphrastic.pipeline.steps import baseline, distill, distill_sentences, teacher_targets

    if all(scores_of(out, folder).is_file() for folder in FOLDERS):
        return
    settings = copy.deepcopy(config)
    settings["word_vectors"]["reading"] = reading
    corpus, targets = out / "corpus", out / "sentence_distilled"
    corpus.mkdir(parents=True, exist_ok=True)
    write_text(out / MADE_AT, commit() + "\n")
    for name in ("simpwiki.parquet", "ppdb.parquet", "eval.parquet"):
        shutil.copyfile(data / "corpus" / name, corpus / name)
    shutil.copytree(data / "siamese" / "corpus", out / "siamese" / "corpus", dirs_exist_ok=True)
    with data_folder(out):
        distill.run(settings, corpus=corpus, out_dir=out / "distilled", device="cpu", threads=threads)
        teacher_targets.run(settings, raw=data / "raw", corpus=corpus,
                            treebank=out / "siamese" / "corpus" / "corpus.parquet", out=targets / "targets.parquet",
                            embeddings=targets / "targets.npy", stats=targets / "targets.json", device="cpu",
                            threads=threads)
        distill_sentences.run(settings, distilled=out / "distilled", targets=targets / "targets.parquet",
                              target_embeddings=targets / "targets.npy", eval=corpus / "eval.parquet", corpus=corpus,
                              out_dir=targets, checkpoints=out / "checkpoints" / "sentence_distilled", device="cpu",
                              threads=threads)
        for folder in FOLDERS:
            baseline.run(settings, vocab_dir=out / folder, eval=corpus / "eval.parquet", out=scores_of(out, folder),
                         device="cpu", threads=threads)


def scores(out: Path) -> dict:
    """Each vector folder's STS 2016 and 22-set means in WORK/READING."""
    found = {}
    for folder in FOLDERS:
        path = scores_of(out, folder)
        if not path.is_file():
            raise SystemExit(f"{path}: not made (run this reading first: --readings without --table)")
        with data_folder(out):
            result = read_result(path)
        found[folder] = {key: result["summary"][key] for key in ("selection_pearson", "transfer_pearson")}
    made_at = out / MADE_AT
    return {"scores": found, "made_at": made_at.read_text().strip() if made_at.is_file() else "unrecorded"}


def markdown(result: dict) -> str:
    """A row per vector folder: each reading's STS 2016 and 22-set means, the differences (authors − ours)."""
    readings = result["readings"]
    lines = ["The static encoder's stages (`distill`, `teacher_targets`, `distill_sentences`) run on the training "
             "text read each way (`word_vectors.reading`), each vector folder scored as the `baseline` stage scores it "
             "(the words' vectors averaged) on the same evaluation sets: Pearson × 100, the STS 2016 mean and the "
             "22-set mean, and the differences (authors − ours).", "",
             "| vectors | " + " | ".join(f"{reading}: STS16 | {reading}: 22-set" for reading in readings)
             + " | difference: STS16 | difference: 22-set |",
             "|---|" + "---:|" * (2 * len(readings) + 2)]
    for folder, what in FOLDERS.items():
        values = {reading: result["readings"][reading]["scores"][folder] for reading in readings}
        cells = [f"{values[r]['selection_pearson']:.2f} | {values[r]['transfer_pearson']:.2f}" for r in readings]
        differences = [values["authors"][key] - values["ours"][key] for key in ("selection_pearson",
                                                                                 "transfer_pearson")]
        lines.append(f"| {folder}: {what} | " + " | ".join(cells)
                     + f" | {differences[0]:+.2f} | {differences[1]:+.2f} |")
    made = sorted({result["readings"][reading]["made_at"] for reading in readings})
    return "\n".join(lines) + (f"\n\nMade at {', '.join(made)}, tabled at {result['commit']} by "
                               "`benchmarks/static_reading.py`.\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "data", help="a run's data folder (default: %(default)s)")
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml",
                        help="the config the stages read, word_vectors.reading aside (default: %(default)s)")
    parser.add_argument("--readings", nargs="*", choices=READINGS, default=list(READINGS),
                        help="make these readings' folders (default: both)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "static_reading",
                        help="each reading's data folder (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    parser.add_argument("--table", action="store_true", help="only assemble the table from WORK's scores")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    needed = ("raw/FETCHED.json", "corpus/simpwiki.parquet", "corpus/ppdb.parquet", "corpus/eval.parquet",
              "siamese/corpus/corpus.parquet")
    for name in needed if not args.table else ():
        if not (args.data / name).is_file():
            parser.error(f"{args.data / name}: no such file (run `snakemake --cores 2 data/corpus/ppdb.parquet "
                         "data/corpus/eval.parquet data/siamese/corpus/corpus.parquet` first)")
    config = cfg.load(args.params)
    for reading in [] if args.table else args.readings:
        make(config, reading, args.data, args.work / reading, args.threads)
    if args.table or set(args.readings) == set(READINGS):
        result = {"commit": commit(), "readings": {reading: scores(args.work / reading) for reading in READINGS}}
        publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
