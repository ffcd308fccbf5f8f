"""What the training text's reading costs on Table 4's runs, trained by our code (``data.reading``):
python fidelity/reading.py [--data data] [--rows ROW ...] [--runs RUN ...] [--seeds 1 2 3]
                                          [--readings ours authors] [--work WORK] [--threads 1] [--table]
                                          [--rewrite]

For each reading, ``prepare_train`` and ``vocab`` run as the pipeline runs them, with ``data.reading`` set, into
WORK/READING/ (the evaluation table stays the pipeline's own, DATA/corpus/eval.parquet); then each run of each ROW
(default: Table 4's rows, params.yaml's ``report.table4``, as the authors' code harness; ``--runs``: only these of
their runs) trains with each seed by the transfer trainer, as the ``train`` stage does, into
WORK/READING/models/RUN/seedK/. The table gives each run's STS 2016-selected 22-set mean Pearson per seed under both
readings (every seed WORK holds finished under both, so more seeds for one run are added by training them, and
every seed the table written before holds, though WORK no longer holds its jobs), their
means ± sample sd and the difference (authors − ours), and the share of each reading's SimpWiki tokens without a
word vector. A job found finished is not trained again, so the readings can run in two processes (``--readings``)
and the table be assembled afterwards (``--table``). Writes fidelity/results/reading.{json,md}; docs/fidelity.md
shows it (pages/readme.py).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish, published  # noqa: E402

from fidelity.run import spread, table4_rows  # noqa: E402
from paraphrastic.atomic import write_text  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.data.tokens import READINGS  # noqa: E402

RESULTS = HERE / "results" / "reading"
TRAINED_AT = "trained_at.txt"  # beside a job's train.json: the commit whose code trained it


def prepare(config: dict, reading: str, data: Path, out: Path) -> None:
    """WORK/READING's corpus and vocabulary, as prepare_train and vocab write them with ``data.reading``."""
    from paraphrastic.pipeline.steps import prepare_train, vocab

    corpus, vectors = out / "corpus", out / "vocab"
    if not (vectors / "coverage.json").is_file():
        settings = copy.deepcopy(config)
        settings["data"]["reading"] = reading
        prepare_train.run(settings, raw=data / "raw", out_dir=corpus)
        shutil.copyfile(data / "corpus" / "eval.parquet", corpus / "eval.parquet")
        vocab.run(settings, raw=data / "raw", corpus=corpus, out_dir=vectors)


def coverage(out: Path) -> dict:
    """The share of WORK/READING's SimpWiki tokens without a word vector (its vocab's coverage.json)."""
    path = out / "vocab" / "coverage.json"
    if not path.is_file():
        raise SystemExit(f"{path}: not prepared (run this reading first: --readings without --table)")
    return {"simpwiki_tokens_without_a_vector": 1 - json.loads(path.read_text())["coverage"]["simpwiki"]
            ["token_coverage"]}


def train_job(config: dict, all_runs: dict, run: str, seed: int, data: Path, out: Path, threads: int,
              tables: Path | None = None) -> dict:
    """One job (run, seed) on WORK/READING's tables (``tables``' corpus/ and vocab/ where given), into OUT/models, as
    the train stage trains it (``all_runs``: ``grids.expand(config)[0]``); its train.json."""
    from paraphrastic.configuration.settings import experiment
    from paraphrastic.training.transfer import train

    folder = out / "models" / run / f"seed{seed}"
    if not (folder / "train.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        write_text(folder / TRAINED_AT, commit() + "\n")  # the code that trains it, for the table's footer
        settings = replace(experiment(config, run, all_runs), seed=seed)
        tables = tables or out
        train(settings, train_path=tables / "corpus" / f"{settings.train_set}.parquet", vocab_dir=tables / "vocab",
              eval_path=data / "corpus" / "eval.parquet", selection=cfg.selection_ids(config), out_dir=folder,
              checkpoint_dir=out / "checkpoints" / run / f"seed{seed}", device="cpu", threads=threads,
              progress=False, eval_batch_size=config["evaluation"]["batch_size"])
    return json.loads((folder / "train.json").read_text())


def finished_seeds(run: str, seeds: list[int], work: Path) -> list[int]:
    """``seeds`` and every other seed of ``run`` WORK holds finished under both readings, in order."""
    found = set(seeds)
    for folder in (work / READINGS[0] / "models" / run).glob("seed*"):
        seed = folder.name.removeprefix("seed")
        if seed.isdigit() and all((work / reading / "models" / run / folder.name / "train.json").is_file()
                                  for reading in READINGS):
            found.add(int(seed))
    return sorted(found)


def trained_at(run: str, seed: int, out: Path, earlier: dict) -> str:
    """The commit whose code trained a job: its TRAINED_AT file, else the table's earlier result (jobs trained
    before the file was written), else "unrecorded"."""
    stamp = out / "models" / run / f"seed{seed}" / TRAINED_AT
    if stamp.is_file():
        return stamp.read_text().strip()
    reading = out.name
    if str(seed) in earlier.get("runs", {}).get(run, {}).get(reading, {}):
        return earlier.get("trained_at", {}).get(run, {}).get(reading, {}).get(str(seed), earlier["commit"])
    return "unrecorded"


def finished(run: str, seed: int, out: Path) -> dict:
    path = out / "models" / run / f"seed{seed}" / "train.json"
    if not path.is_file():
        raise SystemExit(f"{path}: no finished job (train it first: --readings without --table)")
    return json.loads(path.read_text())


def tabled_seeds(run: str, earlier: dict) -> set[int]:
    """The seeds of ``run`` the table written before holds under both readings."""
    held = earlier.get("runs", {}).get(run, {})
    return set.intersection(*({int(seed) for seed in held.get(reading, {})} for reading in READINGS))


def transfer_pearson(run: str, seed: int, out: Path, earlier: dict) -> float:
    """A job's 22-set mean: WORK's, else the table's earlier result's (a job WORK no longer holds)."""
    reading = out.name
    if not (out / "models" / run / f"seed{seed}" / "train.json").is_file() and seed in tabled_seeds(run, earlier):
        return earlier["runs"][run][reading][str(seed)]
    return finished(run, seed, out)["transfer_pearson"]


def markdown(result: dict) -> str:
    """A row per run: each reading's 22-set means per seed, mean ± sd, the difference of the means."""
    readings = result["readings"]
    lines = ["Each run's STS 2016-selected 22-set mean Pearson (× 100), trained by our code on SimpWiki read our way "
             "and as the authors' code reads it (`data.reading`), with the same evaluation sets; the seeds' mean ± "
             "sample sd and the difference of the means (authors − ours). SimpWiki's tokens without a word vector: "
             + ", ".join(f"{reading} {100 * result['prepared'][reading]['simpwiki_tokens_without_a_vector']:.2f}%"
                         for reading in readings) + ".", "",
             "| run | seeds | ours: per seed | authors: per seed | ours | authors | difference |",
             "|---|---:|---|---|---:|---:|---:|"]
    for run, jobs in result["runs"].items():
        ours, theirs = (list(jobs[reading].values()) for reading in READINGS)
        lines.append(f"| {run} | {len(ours)} | {', '.join(f'{v:.2f}' for v in ours)} | "
                     f"{', '.join(f'{v:.2f}' for v in theirs)} | {spread(ours)} | {spread(theirs)} | "
                     f"{statistics.mean(theirs) - statistics.mean(ours):+.2f} |")
    moved = []
    for run, jobs in result["runs"].items():
        ours, theirs = (list(jobs[reading].values()) for reading in READINGS)
        if len(ours) >= 2 and len(theirs) >= 2:
            difference = statistics.mean(theirs) - statistics.mean(ours)
            beyond = abs(difference) > max(statistics.stdev(ours), statistics.stdev(theirs))
            moved.append(f"{run} {difference:+.2f} ({'beyond' if beyond else 'within'} its seeds' spread)")
    commits = sorted({c for jobs in result.get("trained_at", {}).values() for seeds in jobs.values()
                      for c in seeds.values()}) or [result["commit"]]
    summary = ("\n\nWhat their reading does to each run, from the rows (authors − ours): " + "; ".join(moved) + "."
               if moved else "")
    return "\n".join(lines) + summary + f"\n\nTrained at {', '.join(commits)}, tabled at {result['commit']} by " \
                                         "`fidelity/reading.py`.\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "data", help="a run's data folder (default: %(default)s)")
    parser.add_argument("--rows", nargs="*", help="grid rows (default: Table 4's, params.yaml's report.table4)")
    parser.add_argument("--runs", nargs="*", help="only these runs of the rows (default: all of them)")
    parser.add_argument("--seeds", nargs="*", type=int, default=[1, 2, 3],
                        help="train these seeds (default: %(default)s); the table also has any other seed WORK holds")
    parser.add_argument("--readings", nargs="*", choices=READINGS, default=list(READINGS),
                        help="train these readings' jobs (default: both)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "reading",
                        help="each reading's tables and jobs (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads a job (default: %(default)s)")
    parser.add_argument("--table", action="store_true", help="only assemble the table (WORK's jobs and the seeds "
                        "the table holds)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    parser.add_argument("--rewrite", action="store_true", help="only write OUT.md again from OUT.json (no WORK)")
    args = parser.parse_args(argv)
    if args.rewrite:
        kept = json.loads(published(args.out, ".json").read_text())
        publish(args.out, kept, markdown(kept))
        return 0
    for needed in ("raw/FETCHED.json", "corpus/eval.parquet"):
        if not (args.data / needed).is_file():
            parser.error(f"{args.data / needed}: no such file (run `snakemake --cores 2 data/vocab/vocab.txt` first)")
    config = cfg.load(REPO / "params.yaml")
    from paraphrastic.configuration import grids

    all_runs, rows = grids.expand(config)
    runs = [run for row in args.rows or table4_rows(config) for run in rows[row]]
    if args.runs:
        unknown = sorted(set(args.runs) - set(runs))
        if unknown:
            parser.error(f"--runs: {unknown[0]!r} is no run of the rows {args.rows or table4_rows(config)}")
        runs = [run for run in runs if run in args.runs]
    for reading in [] if args.table else args.readings:
        prepare(config, reading, args.data, args.work / reading)
        for run in runs:
            for seed in args.seeds:
                info = train_job(config, all_runs, run, seed, args.data, args.work / reading, args.threads)
                print(f"{reading} {run} seed {seed}: 22 sets {info['transfer_pearson']:.2f}", flush=True)
    if args.table or set(args.readings) == set(READINGS):
        prepared = {reading: coverage(args.work / reading) for reading in READINGS}
        earlier_path = published(args.out, ".json")
        earlier = json.loads(earlier_path.read_text()) if earlier_path.is_file() else {}
        # WORK's jobs, and the seeds the table written before holds though WORK no longer does (a fresh WORK)
        seeds = {run: sorted({*finished_seeds(run, args.seeds, args.work), *tabled_seeds(run, earlier)})
                 for run in runs}
        result = {"commit": commit(), "readings": list(READINGS), "prepared": prepared,
                  "runs": {run: {reading: {str(seed): transfer_pearson(run, seed, args.work / reading, earlier)
                                           for seed in seeds[run]} for reading in READINGS} for run in runs},
                  "trained_at": {run: {reading: {str(seed): trained_at(run, seed, args.work / reading, earlier)
                                                 for seed in seeds[run]} for reading in READINGS} for run in runs}}
        publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
