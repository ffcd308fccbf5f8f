"""The authors' code on our data, beside ours:
python fidelity/run.py CHECKOUT [--rows ROW ...] [--runs RUN ...] [--seeds 1 2 3] [--work WORK] [--raw]
                                         [--lasagne SOURCE] [--ours JOBS] [--out OUT] [--add] [--table]

CHECKOUT is a local checkout of jwieting/acl2017 (the project never vendors it). The harness

1. installs their environment into WORK/py2-site: a ``python2.7`` (on PATH, or pyenv's) with numpy < 1.17,
   scipy < 1.3 and Theano 1.0.5 from PyPI, and Lasagne from SOURCE (default: the GitHub archive of the Lasagne
   commit below, the 0.2.dev1 their layers are written against: PyPI's only Lasagne, 0.1, lacks
   ``only_return_final`` and ``shared_axes``; a local checkout's path works as SOURCE offline);
2. copies their ``main/`` folder to WORK/main and writes our data beside it (convert.py: WORK/data; with ``--raw``,
   the profile's raw SimpWiki files and whole word vector file, for their code to read itself);
3. trains each run of each grid ROW (default: Table 4's rows, params.yaml's ``report.table4``; the grids thinned
   as the offline profile thins them) with each seed through shim.py, their ``train.py`` unmodified but for the
   seed and the evaluation sets (shim.py says how), and scores every evaluation point their code makes (before
   training, each quarter of an epoch, each epoch's end) on our evaluation sets;
4. selects, as our pipeline selects, the point with the best STS 2016 mean and reports its 22-set mean, beside
   our own job of the same run and seed where JOBS holds it (its models/RUN/seedK/train.json; default: the
   ``--data`` folder; reading.py's WORK/READING holds its jobs so too), in OUT.{json,md} (default
   fidelity/results/authors_code, which docs/fidelity.md shows).

Their code needs Python 2.7 and a C++ compiler (Theano compiles its kernels); it does not run in CI. What runs
in CI: convert.py's tests (tests/test_authors_code.py) and the flags and selection below.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish, published  # noqa: E402

from fidelity import convert  # noqa: E402
from paraphrastic.atomic import write_json  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.jobs import JobTables  # noqa: E402
from paraphrastic.configuration.settings import TransferSettings, experiment  # noqa: E402
from paraphrastic.data.datasets import EVAL_SETS  # noqa: E402
from paraphrastic.evaluation.similarity import summarize  # noqa: E402
from paraphrastic.layout import DataLayout  # noqa: E402
from paraphrastic.training.epochs import best_of  # noqa: E402

LASAGNE_COMMIT = "5d3c63cb315c50b1cbd27a6bc8664b406f34dd99"  # Lasagne/Lasagne master, 2019-11-20 (0.2.dev1)
LASAGNE = f"https://github.com/Lasagne/Lasagne/archive/{LASAGNE_COMMIT}.zip"
PYTHON2_PACKAGES = ["numpy<1.17", "scipy<1.3", "Theano==1.0.5"]  # the last releases for Python 2.7
THEANO_FLAGS = "mode=FAST_RUN,device=cpu,floatX=float32"  # their train.sh's
MODELS = {"avg": ["-model", "wordaverage"], "lstm": ["-model", "lstm"], "lstmavg": ["-model", "lstmavg"],
          "bilstm": ["-model", "bilstm"], "bilstmavg": ["-model", "bilstmavg"], "bigran": ["-model", "bigran"],
          **{f"gran{k}" if k > 1 else "gran": ["-model", "gran", "-gran_type", str(k)] for k in range(1, 6)}}
MARK = "AUTHORS_POINT "  # shim.py's evaluation lines


def table4_rows(config: dict) -> list[str]:
    """Table 4's grid rows (avg, LSTMavg and GRAN: ``report.table4``), in the grids' order."""
    table4 = set(config["report"]["table4"].values())
    return [row["id"] for row in config.get("grids") or [] if row["id"] in table4]


def their_flags(settings: TransferSettings, dim: int) -> list[str]:
    """Their train.py's command-line flags for one of our transfer runs; a setting their code has no flag for is
    an error naming it, never dropped."""
    if settings.model not in MODELS:
        raise SystemExit(f"{settings.name}: the authors' code has no model {settings.model!r}")
    unsupported = {"tags": settings.tags != "none", "length_buckets": settings.length_buckets is not None,
                   "max_pairs": settings.max_pairs is not None, "hidden_dim": settings.hidden_dim not in (None, dim),
                   "layers": settings.layers is not None, "activation": settings.activation is not None,
                   "combine (their -sumlayer flag is never read as false: train.py:69)":
                       settings.combine not in (None, "sum"),
                   "word_vectors": settings.word_vectors != "pretrained",
                   "negative_pass (theirs chooses on a deterministic pass)": settings.negative_pass != "deterministic",
                   "word_dropout_rescale (Lasagne's rescales)": not settings.word_dropout_rescale,
                   "gate_init (their GRAN layer's is normal)": settings.gate_init != "normal",
                   "gran5_readout (theirs reads the last token)": settings.gran5_readout != "last",
                   "gate_per_direction (their BiGRAN gates each direction)": not settings.gate_per_direction,
                   "halve_penalties (theirs applies ½λ)": not settings.halve_penalties,
                   "adam_epsilon (Lasagne's adam adds ε to the uncorrected second moment's root)":
                       settings.adam_epsilon != "uncorrected"}
    named = [key for key, differs in unsupported.items() if differs]
    if named:
        raise SystemExit(f"{settings.name}: the authors' train.py has no equivalent of {', '.join(named)}")
    if settings.train_set != "simpwiki":
        raise SystemExit(f"{settings.name}: the harness writes SimpWiki pairs only (train_set {settings.train_set!r})")
    flags = [*MODELS[settings.model], "-wordfile", "../data/vectors.txt", "-dim", str(dim),
             "-epochs", str(settings.epochs), "-batchsize", str(settings.batch_size),
             "-eta", repr(settings.learning_rate), "-margin", repr(settings.margin),
             "-LW", repr(settings.lambda_w), "-LC", repr(settings.lambda_c),
             "-samplingtype", settings.sampling.upper(), "-scramble", repr(settings.scramble),
             "-dropout", repr(settings.dropout), "-word_dropout", repr(settings.word_dropout)]
    if settings.output_gate is False:
        flags += ["-outgate", "False"]
    return flags


def points(log: str, selection: list[str]) -> list[dict]:
    """The evaluation points shim.py printed, each with our summary (correlations x 100, as ours; ``selection``:
    the STS 2016 sets whose mean selects)."""
    found = []
    for line in log.splitlines():
        if line.startswith(MARK):
            point = json.loads(line[len(MARK):])
            results = {name: {"pearson": 100 * r, "spearman": math.nan} for name, r in point["pearson"].items()}
            found.append({"point": point["point"], "per_dataset": {k: v["pearson"] for k, v in results.items()},
                          **summarize(results, selection), **({"loss": point["loss"]} if "loss" in point else {})})
    return found


POINTS_PER_EPOCH = 4  # their check_quarter's three points and the epoch's end


def selected(history: list[dict], every: str = "quarter") -> dict:
    """Their point with the best STS 2016 mean among those a job of ours selects among (``every``: its
    evaluate_every; never the start, point 0, which they score before training), by the rule ours selects with."""
    ends = every == "epoch"
    return best_of([h for h in history if h["point"] > 0 and not (ends and h["point"] % POINTS_PER_EPOCH)],
                   "selection_pearson")


@functools.cache
def python2() -> str:
    """A Python 2.7 that runs: the one on PATH, else pyenv's (pyenv's shim on PATH fails where 2.7 is not the
    selected version)."""
    candidates = [shutil.which("python2.7"), *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/"
                                                                                  "python2.7")))]
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2] == (2, 7))"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return candidate
    raise SystemExit("no working python2.7 on PATH or under ~/.pyenv/versions/2.7*: the authors' code needs 2.7")


def install(work: Path, lasagne: str) -> dict:
    """WORK/py2-site: their libraries for python2.7; returns the versions installed."""
    site, interpreter = work / "py2-site", python2()
    if not (site / "lasagne").is_dir():
        subprocess.run([interpreter, "-m", "pip", "install", "--quiet", "--target", str(site), *PYTHON2_PACKAGES,
                        lasagne], check=True)
    script = ("import json, sys, numpy, scipy, theano, lasagne; print(json.dumps({'python': sys.version.split()[0], "
              "'numpy': numpy.__version__, 'scipy': scipy.__version__, 'theano': theano.__version__, "
              "'lasagne': lasagne.__version__}))")
    out = subprocess.run([interpreter, "-c", script], env=environment(work), capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1]) | {"lasagne_source": lasagne}


def environment(work: Path, **extra: str) -> dict:
    """Their interpreter's environment: WORK's libraries and Theano's compile cache, by absolute paths, as their
    code runs in WORK/main, where a relative WORK would name another folder."""
    work = work.resolve()
    return dict(os.environ, PYTHONPATH=str(work / "py2-site"), PYTHONDONTWRITEBYTECODE="1",
                THEANO_FLAGS=f"{THEANO_FLAGS},base_compiledir={work / 'theano'}", **extra)


def train_theirs(work: Path, settings: TransferSettings, seed: int, dim: int, sets: list[str],
                 selection: list[str], data: str | None = None) -> list[dict]:
    """One run of theirs with one seed: its evaluation points (WORK/logs/RUN.seedK.log keeps the output, and
    WORK/points/RUN.seedK.json the points, so a harness stopped midway trains only what it had not finished, on
    the same flags, sets and ``data``: the training files' and vectors' digests)."""
    done = work / "points" / f"{settings.name}.seed{seed}.json"
    flags = their_flags(settings, dim)
    if done.exists():
        kept = json.loads(done.read_text())
        if kept["flags"] == flags and kept["sets"] == sets and kept.get("data") == data:
            return kept["points"]
    log = work / "logs" / f"{settings.name}.seed{seed}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [python2(), str(HERE / "shim.py"), *flags]
    proc = subprocess.run(command, cwd=work / "main", capture_output=True, text=True,
                          env=environment(work, AUTHORS_SEED=str(seed), AUTHORS_EVAL_SETS=" ".join(sets)))
    log.write_text(" ".join(command) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode:
        raise SystemExit(f"their train.py failed for {settings.name} seed {seed}; see {log}:\n{proc.stderr[-2000:]}")
    found = points(proc.stdout, selection)
    if not found:
        raise SystemExit(f"their train.py printed no evaluation point for {settings.name} seed {seed}; see {log}")
    done.parent.mkdir(parents=True, exist_ok=True)
    write_json(done, {"flags": flags, "sets": sets, "data": data, "points": found})
    return found


def ours(data: Path, run: str, seed: int) -> dict | None:
    """Our job's selected epoch, as its train.json records it (None where DATA does not hold the job)."""
    info = DataLayout(data).job(run, seed) / "train.json"
    return json.loads(info.read_text()) if info.exists() else None


def our_reading(jobs: Path, train_set: str) -> str | None:
    """How our jobs in ``jobs`` read their training text (``data.reading``, as prepare_train recorded it in
    corpus/train_stats.json), or None where the folder has no record."""
    stats = jobs / "corpus" / "train_stats.json"
    return json.loads(stats.read_text()).get(train_set, {}).get("reading") if stats.is_file() else None


def markdown(rows: list[dict], versions: dict, reading: str | None = None) -> str:
    """The table of every job, and of each run with seeds on both sides; ``reading``: our jobs' ``data.reading``
    (named in the opening sentence, with how theirs read the text: our tokens, or the raw files with ``--raw``)."""
    code = (f"The authors' code (python {versions['python']}, Theano {versions['theano']}, Lasagne "
            f"{versions['lasagne']})")
    if any(r.get("raw") for r in rows):
        data = (" reading the profile's raw SimpWiki files and word vector file itself, as they ran it, and ours on "
                f"SimpWiki read as `data.reading: {reading or 'unrecorded'}` reads it")
    else:
        data = " and ours on the same data" + (f" (SimpWiki read as `data.reading: {reading}` reads it)"
                                               if reading else "")
    lines = [code + data + ": each run's 22-set mean Pearson at its STS 2016-selected point (both among the points "
             "ours selects among: with `evaluate_every: quarter`, each quarter of an epoch and its end; `points` "
             "counts those theirs scored, the start included).", "",
             "| row | run | seed | theirs: STS16 | theirs: 22-set | points | ours: STS16 | ours: 22-set |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        mine = r["ours"]
        lines.append(f"| {r['row']} | {r['run']} | {r['seed']} | {r['theirs']['selection_pearson']:.2f} | "
                     f"{r['theirs']['transfer_pearson']:.2f} | {r['points']} | "
                     + (f"{mine['selection_pearson']:.2f} | {mine['transfer_pearson']:.2f} |" if mine else "– | – |"))
    summary = compared_runs(rows)
    if summary:
        lines += ["", "Per run, the seeds' 22-set means (mean ± sample sd), the difference (ours − theirs), whether it "
                  "lies within the seeds' spread (the larger of the two sides' sd), and the difference in standard "
                  "errors of a difference of two means (Welch's t):", "",
                  "| run | seeds | theirs | ours | difference | within the spread | t |",
                  "|---|---:|---:|---:|---:|---|---:|"]
        for c in summary:
            lines.append(f"| {c['run']} | {c['seeds']} | {c['theirs']:.2f} ± {c['theirs_sd']:.2f} | {c['ours']:.2f} ± "
                         f"{c['ours_sd']:.2f} | {c['difference']:+.2f} | {'yes' if c['within'] else 'no'} | "
                         f"{c['t']:+.1f} |")
        lines += ["", agreement(summary, "Runs with two seeds or more a side")]
    return "\n".join(lines) + "\n"


def compared_seeds(theirs: list[float], ours: list[float]) -> dict:
    """Two sides' seeds (22-set means, at least two a side): their means and sds, the difference (ours − theirs),
    whether it lies within the larger sd (the noise it is read against) and Welch's t."""
    sides = {"theirs": theirs, "ours": ours}
    mean = {side: statistics.mean(values) for side, values in sides.items()}
    sd = {side: statistics.stdev(values) for side, values in sides.items()}
    difference = mean["ours"] - mean["theirs"]
    error = math.sqrt(sum(sd[side] ** 2 / len(values) for side, values in sides.items()))
    return {"theirs": mean["theirs"], "theirs_sd": sd["theirs"], "ours": mean["ours"], "ours_sd": sd["ours"],
            "difference": difference, "within": abs(difference) <= max(sd.values()),
            "t": difference / error if error else math.copysign(math.inf, difference)}


def spread(values: list[float]) -> str:
    """Seeds' scores as a table shows them: the one score, or mean ± sample sd; "–" for none."""
    if not values:
        return "–"
    sd = f" ± {statistics.stdev(values):.2f}" if len(values) > 1 else ""
    return f"{statistics.mean(values):.2f}{sd}"


def agreement(compared: list[dict], what: str) -> str:
    """One sentence, written from compared_seeds' results (each with its ``run``), for the pages to state instead of
    a claim written by hand: how many of ``what`` lie within the seeds' spread, and which lie outside it."""
    if not compared:
        return f"{what}: none yet."
    outside = [c for c in compared if not c["within"]]
    text = f"{what}: {len(compared) - len(outside)} of {len(compared)} within the seeds' spread"
    if outside:
        text += "; outside it: " + "; ".join(f"{c['run']} ({c['difference']:+.2f}, t {c['t']:+.1f})" for c in outside)
    return text + "."


def compared_runs(rows: list[dict]) -> list[dict]:
    """Each run with at least two seeds on both sides: compared_seeds of the jobs both sides trained."""
    runs: dict[str, list[dict]] = {}
    for r in rows:
        if r["ours"]:
            runs.setdefault(r["run"], []).append(r)
    return [{"run": run, "seeds": len(seeds), **compared_seeds(*([r[side]["transfer_pearson"] for r in seeds]
                                                                   for side in ("theirs", "ours")))}
            for run, seeds in runs.items() if len(seeds) >= 2]


def kept_rows(earlier: Path, rows: list[dict], versions: dict, raw: bool) -> list[dict]:
    """``--add``: the rows of an earlier OUT.json for the jobs not run now, from the same versions of their code and
    the same kind of run (with or without --raw); anything else is an error naming the file."""
    if not earlier.is_file():
        return []
    old = json.loads(earlier.read_text())
    if {k: v for k, v in old["versions"].items() if k != "lasagne_source"} != {
            k: v for k, v in versions.items() if k != "lasagne_source"}:
        raise SystemExit(f"--add: {earlier} was measured with other versions of their code ({old['versions']})")
    if any(bool(row.get("raw")) != raw for row in old["rows"]):
        raise SystemExit(f"--add: {earlier} holds runs {'without' if raw else 'with'} --raw")
    now = {(row["run"], row["seed"]) for row in rows}
    # a row keeps the commit it was measured at (an earlier table's rows have only the table's)
    return [{**row, "commit": row.get("commit", old.get("commit"))} for row in old["rows"]
            if (row["run"], row["seed"]) not in now]


def harness_jobs(rows: list[str], seeds: list[int], also: list[list[str]],
                 grid_rows: dict[str, list[str]]) -> list[tuple[str, str, int]]:
    """(row, run, seed) to train theirs for: every run of ``rows`` with ``seeds``, and each ``also`` entry's run
    (one of those rows' runs) with its own seeds too; in the rows' order, then by run and seed."""
    jobs = {(row, run, seed) for row in rows for run in grid_rows[row] for seed in seeds}
    for run, *more in also:
        row = next((row for row in rows if run in grid_rows[row]), None)
        if row is None or not more or not all(seed.isdigit() for seed in more):
            raise SystemExit(f"--also {run} {' '.join(more)}: a run of the rows {rows} and its seeds are needed")
        jobs |= {(row, run, int(seed)) for seed in more}
    return sorted(jobs, key=lambda job: (rows.index(job[0]), job[1], job[2]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?", help="a checkout of jwieting/acl2017 (holds main/train.py; "
                        "not needed with --table)")
    parser.add_argument("--rows", nargs="+", help="grid rows (default: Table 4's, params.yaml's report.table4)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--also", nargs="+", action="append", default=[], metavar=("RUN", "SEED"),
                        help="more seeds for one run of the rows (repeatable): --also t3-gran__870dcf5f 4 5 6")
    parser.add_argument("--runs", nargs="+", help="only these runs of the rows (default: all of them)")
    parser.add_argument("--data", type=Path, default=Path("data"), help="the project's data folder")
    parser.add_argument("--work", type=Path, default=Path("authors_code"), help="where everything goes")
    parser.add_argument("--raw", action="store_true", help="their code reads the profile's raw SimpWiki files and "
                        "whole word vector file itself (convert.py --raw), as they ran it")
    parser.add_argument("--ours", type=Path, help="a folder holding our jobs as models/RUN/seedK/train.json, to put "
                        "beside theirs (default: --data; reading.py's WORK/READING for a reading of its own)")
    parser.add_argument("--lasagne", default=LASAGNE, help="Lasagne to install: a pip source (default: %(default)s)")
    parser.add_argument("--add", action="store_true", help="keep OUT.json's rows of the jobs not run now (more "
                        "runs or seeds for the table without training the others again)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "authors_code",
                        help="writes OUT.json and OUT.md, the table docs/fidelity.md shows (default: %(default)s)")
    parser.add_argument("--table", action="store_true", help="only write OUT.md again from OUT.json's rows")
    args = parser.parse_args(argv)
    if args.table:
        kept = json.loads(published(args.out, ".json").read_text())
        publish(args.out, kept, markdown(kept["rows"], kept["versions"], kept.get("ours_reading")))
        return 0
    if args.checkout is None or not (args.checkout / "main" / "train.py").is_file():
        raise SystemExit(f"{args.checkout}: no main/train.py (a checkout of jwieting/acl2017 is needed)")
    config = cfg.load(REPO / "params.yaml")
    tables = JobTables.of(config)
    args.rows = args.rows or table4_rows(config)
    unknown = [row for row in args.rows if row not in tables.rows]
    if unknown:
        raise SystemExit(f"--rows: no grid row {unknown[0]!r} in params.yaml")
    jobs = harness_jobs(args.rows, args.seeds, args.also, tables.rows)
    if args.runs:
        unknown = set(args.runs) - {run for _, run, _ in jobs}
        if unknown:
            raise SystemExit(f"--runs: {sorted(unknown)[0]!r} is no run of the rows {args.rows}")
        jobs = [job for job in jobs if job[1] in args.runs]
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    versions = install(work, args.lasagne)
    shutil.copytree(args.checkout / "main", work / "main", dirs_exist_ok=True)
    record = convert.convert(work, data=args.data, raw=args.raw, config=config)
    dim = record["vectors"]["dim"]
    data = " ".join(part["sha256"] for part in [*record["training_pairs"], record["vectors"]])
    sets = [spec.id for spec in EVAL_SETS if spec.id in {e["dataset"] for e in record["eval_sets"]}]
    jobs_folder = args.ours or args.data
    measured_at = commit()
    rows = []
    for row, run, seed in jobs:
        # any seed: theirs need not be among the seeds params.yaml trains ours with (ours is then "–")
        settings = dataclasses.replace(experiment(config, run, tables.runs), seed=seed)
        history = train_theirs(work, settings, seed, dim, sets, config["evaluation"]["selection"], data)
        rows.append({"row": row, "run": run, "seed": seed, "raw": args.raw, "commit": measured_at,
                     "points": len(history),
                     "theirs": selected(history, settings.evaluate_every), "history": history,
                     "ours": ours(jobs_folder, run, seed)})
        print(markdown(rows[-1:], versions).splitlines()[-1], flush=True)
    reading = our_reading(jobs_folder, record["train_set"])
    rows = kept_rows(published(args.out, ".json"), rows, versions, args.raw) + rows if args.add else rows
    publish(args.out, {"versions": versions, "commit": measured_at, "ours_reading": reading, "rows": rows},
            markdown(rows, versions, reading))
    return 0


if __name__ == "__main__":
    sys.exit(main())
