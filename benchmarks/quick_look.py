"""The quick look's time, as a newcomer meets it: python benchmarks/quick_look.py [--no-first-run] [--out DIR]

Runs the README's third command, ``bash scripts/quick-look.sh``, twice. First as a newcomer's first run: in a new
clone of this checkout beside it (so the tiny config's ``../shared`` resolves as in the checkout), whose set-up makes
and installs its ``.venv`` (from pip's cache, as on a machine that installed once before); the set-up's own seconds
come from its last line. Then from nothing but an empty folder (a new ``QUICK_LOOK_DIR``; the environment already set
up). It records both wall times, the CPUs, the load on them when each started (the target, 5 minutes from an empty
folder, is for 2 idle cores) and where the second run's time went: each rule's job time from Snakemake's benchmark
files. It refuses a run that did not end in a whole report: every section of the report present, each capped table
headed "tiny config", no ``nan``. ``pages/readme.py`` writes the README's sentence from the record.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from measured import publish  # noqa: E402

TARGET_S = 300  # the aim: the whole graph in 5 minutes on 2 idle cores


def rule_seconds(folder: Path) -> dict[str, dict]:
    """Each rule's jobs and their summed wall time (logs/benchmarks/<rule>/<job>.tsv, Snakemake's ``benchmark:``)."""
    rules: dict[str, dict] = defaultdict(lambda: {"jobs": 0, "seconds": 0.0})
    for path in sorted((folder / "logs" / "benchmarks").rglob("*.tsv")):
        with open(path, newline="") as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        rule = path.relative_to(folder / "logs" / "benchmarks").parts[0]
        rules[rule]["jobs"] += 1
        rules[rule]["seconds"] = round(rules[rule]["seconds"] + float(row["s"]), 1)
    return dict(sorted(rules.items(), key=lambda item: -item[1]["seconds"]))


def check_report(folder: Path) -> dict:
    """The report is whole: both files written, every table heading of a capped section says "tiny config", and
    no statistic printed as ``nan``. Returns what was checked."""
    report = folder / "data" / "report"
    for name in ("report.md", "report.html", "metrics.json"):
        if not (report / name).is_file():
            raise SystemExit(f"{report / name}: missing: the quick look did not end in a whole report")
    text = (report / "report.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    marked = [line for line in headings if "tiny config" in line]
    if not marked:
        raise SystemExit(f"{report / 'report.md'}: no heading says 'tiny config'")
    if re.search(r"\bnan\b", text):
        raise SystemExit(f"{report / 'report.md'}: prints nan")
    return {"sections": len(headings), "sections_marked_tiny": len(marked)}


def git_commit() -> str | None:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or None


def measure(folder: Path) -> dict:
    load = os.getloadavg()[0]
    env = dict(os.environ, QUICK_LOOK_DIR=str(folder))
    log = folder.parent / "quick-look.log"
    start = time.perf_counter()
    with open(log, "w") as out:
        done = subprocess.run(["bash", str(REPO / "scripts" / "quick-look.sh")], env=env, stdout=out,
                              stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"scripts/quick-look.sh failed ({done.returncode}); see {log}")
    return {"commit": git_commit(), "seconds": round(seconds, 1), "target_s": TARGET_S, "cpus": os.cpu_count(),
            "load_at_start": round(load, 2), "machine": f"{platform.machine()}, Python {platform.python_version()}",
            "report": check_report(folder), "rules": rule_seconds(folder)}


SETUP_DONE = re.compile(r"^setup: ready in (\d+) s$", re.M)  # scripts/setup-env.sh's last line


def first_run(clone: Path) -> dict:
    """The quick look as a newcomer's first run: a new clone (no .venv) at ``clone``, its whole wall time and its
    set-up's (from the set-up's last line)."""
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    if (REPO.parent / "shared").exists():  # the mirror and the papers' tables, where the tiny config looks for them
        (clone.parent / "shared").symlink_to(REPO.parent / "shared")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "QUICK_LOOK_DIR", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(str(REPO)))
    load, log = os.getloadavg()[0], clone.parent / "quick-look-first-run.log"
    start = time.perf_counter()
    with open(log, "w") as out:
        done = subprocess.run(["bash", "scripts/quick-look.sh"], cwd=clone, env=env, stdout=out,
                              stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"scripts/quick-look.sh in a new clone failed ({done.returncode}); see {log}")
    setup = SETUP_DONE.search(log.read_text(errors="replace"))
    if setup is None:
        raise SystemExit(f"{log}: no 'setup: ready in N s' line: the set-up did not say when it was done")
    check_report(clone / "quick")
    return {"seconds": round(seconds, 1), "setup_seconds": int(setup.group(1)), "load_at_start": round(load, 2)}


def markdown(record: dict) -> str:
    minutes = record["seconds"] / 60
    verdict = "within" if record["seconds"] <= record["target_s"] else "over"
    top = ", ".join(f"{rule} {row['seconds']:,.0f} s ({row['jobs']} job{'s' if row['jobs'] != 1 else ''})"
                    for rule, row in list(record["rules"].items())[:4])
    first = record.get("first_run")
    opening = (f"A first quick look, in a new clone, took **{first['seconds'] / 60:.1f} min**, of which the set-up "
               f"(making `.venv` and installing into it from pip's cache, saying what it installs as it goes) took "
               f"{first['setup_seconds'] / 60:.1f} min. The" if first else "The")
    return (f"{opening} quick look took **{minutes:.1f} min** from an empty folder on {record['cpus']} CPUs "
            f"(commit {record['commit']}, load average {record['load_at_start']:.1f} when it started; `python "
            f"benchmarks/quick_look.py`), {verdict} its aim of {record['target_s'] / 60:.0f} min on 2 idle cores. "
            f"Its report has {record['report']['sections']} sections, {record['report']['sections_marked_tiny']} "
            f"of them headed \"tiny config\". The jobs that took longest, summed by rule: {top}.\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "results", help="where quick_look.{json,md} go")
    parser.add_argument("--no-first-run", action="store_true", help="only the run from an empty folder")
    args = parser.parse_args(argv)
    first = None
    if not args.no_first_run:  # beside the checkout, as a newcomer's clone is beside ../shared
        with tempfile.TemporaryDirectory(prefix=".quick-look-first-run-", dir=REPO.parent) as scratch:
            first = first_run(Path(scratch) / REPO.name)
    with tempfile.TemporaryDirectory(prefix="quick-look-") as scratch:
        record = measure(Path(scratch) / "quick")
    if first:
        record["first_run"] = first
    publish(args.out / "quick_look", record, markdown(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
