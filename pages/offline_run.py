"""The last whole offline run, committed beside the docs: python pages/offline_run.py RUN [--out docs/offline]

RUN is the working directory of a finished run of the offline profile (``bash scripts/reproduce.sh``, or
``snakemake`` with the committed params.yaml). This copies into OUT what its report stage wrote, and its config:

- ``report.md`` and the figures it shows (the site's page "The offline report"; the report's own table of
  contents is left out, since the site draws one from the headings);
- ``metrics.json`` (the scores, which ``paraphrastic compare-metrics docs/offline/metrics.json
  data/report/metrics.json`` prints beside a run's own), ``timings.json`` (speeds) and ``runs.csv`` (every job's
  wall time);
- ``params.yaml``: the settings the run read (its params.yaml without the comments), so that the pages can say
  which of them have changed since;
- ``run.json``: the commit the run's code was at and when its report was written.

It refuses a run that is not whole (Snakemake still has jobs to do there), whose tracked files differ from its
commit, or whose params.yaml is not this checkout's. A run made with ``--config extended=True`` (the recurrent rows'
twins and the parser comparison, which the default run leaves out for their cost) goes with ``--extended`` into
OUT/extended/ instead, checked whole with that override: the pages show from it what the default run in OUT leaves
out, dated and with its commit, until the next such run replaces it. Then ``python pages/readme.py`` writes the
README's headline table and the docs' result blocks from OUT (tests/test_readme.py fails when a page differs).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))

from paraphrastic.atomic import atomic_path, write_json, write_text  # noqa: E402
from paraphrastic.configuration.params import read_yaml  # noqa: E402

OUT = REPO / "docs" / "offline"
EXTENDED = "extended"  # OUT's folder for the last run made with `extended: true`
COPIED = ("metrics.json", "timings.json", "runs.csv")  # from the report folder
PARAMS = "params.yaml"  # from the run's root
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def git(run: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=run, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{run}: git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def check_whole(run: Path, extended: bool = False) -> None:
    """The run's own Snakemake has nothing left to do (so every report input is of this code and params), with
    ``--config extended=True`` for an ``extended`` run.

    It runs in the run's own environment where it has one (``scripts/reproduce.sh`` makes ``.venv`` there): this
    environment's library may be of other code, whose stage graph names files the run's commit lacks."""
    run = run.resolve()  # the command runs with cwd=run, where a relative path to its .venv would not be found
    own = run / ".venv" / "bin" / "python"
    python = str(own) if own.exists() else sys.executable
    override = ["--config", "extended=True"] if extended else []
    done = subprocess.run([python, "-m", "snakemake", "--cores", "1", "--dry-run", *override], cwd=run,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{run}: snakemake --dry-run failed:\n{done.stderr[-2000:]}")
    if "Nothing to be done" not in done.stdout + done.stderr:
        raise SystemExit(f"{run}: the run is not whole: snakemake still has jobs to do there "
                         f"(`snakemake --cores 1 --dry-run{' ' * bool(override)}{' '.join(override)}` in it "
                         "lists them)")


def without_contents(report: str) -> str:
    """The report without its "Contents" list (its anchors are GitHub's; the site makes its own)."""
    blocks = report.split("\n\n")
    if "**Contents**" in blocks:
        i = blocks.index("**Contents**")
        del blocks[i:i + 2]
    return "\n\n".join(blocks)


def copy_run(run: Path, out: Path, *, check: bool = True, extended: bool = False) -> dict:
    report = run / "data" / "report"
    if not (report / "metrics.json").is_file():
        raise SystemExit(f"{report}: no metrics.json (has the run's report stage run?)")
    if (run / PARAMS).read_bytes() != (REPO / PARAMS).read_bytes():
        raise SystemExit(f"{run / PARAMS} differs from {REPO / PARAMS}: the committed run must be "
                         "of the committed offline profile")
    commit = git(run, "rev-parse", "--short", "HEAD")
    if git(run, "status", "--porcelain", "--untracked-files=no"):
        raise SystemExit(f"{run}: tracked files differ from commit {commit}; commit or restore them first")
    if check:
        check_whole(run, extended)
    text = (report / "report.md").read_text()
    images = sorted(set(IMAGE.findall(text)))
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.iterdir():  # a figure the new report no longer shows goes
        if stale.is_file() and stale.suffix == ".png" and stale.name not in images:
            stale.unlink()
    for name in (*COPIED, *images):
        with atomic_path(out / name) as partial:
            shutil.copyfile(report / name, partial)
    write_text(out / PARAMS, f"# The settings the run read: its {PARAMS}, without the comments\n"
               + yaml.safe_dump(read_yaml(run / PARAMS), sort_keys=False))
    write_text(out / "report.md", without_contents(text))
    written = datetime.fromtimestamp((report / "metrics.json").stat().st_mtime, UTC)
    record = {"commit": commit, "report_written": written.strftime("%Y-%m-%d %H:%M UTC"), "extended": extended,
              "files": sorted([*COPIED, *images, PARAMS, "report.md"])}
    write_json(out / "run.json", record)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the working directory of a finished offline run")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--extended", action="store_true", help="RUN was made with --config extended=True: "
                        "copy it into OUT/extended/")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the dry run that checks the run is whole (it takes a minute)")
    args = parser.parse_args(argv)
    if args.extended and args.no_check:  # only the dry run with the override says the run made what it adds
        parser.error("--extended needs the check: only `snakemake --dry-run --config extended=True` in RUN says "
                     "that it was made with extended=True")
    out = args.out / EXTENDED if args.extended else args.out
    record = copy_run(args.run, out, check=not args.no_check, extended=args.extended)
    print(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
