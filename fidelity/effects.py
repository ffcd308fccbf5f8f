"""What one detail of the authors' training changes in our results:
python fidelity/effects.py DETAIL --before MODELS --after MODELS --runs RUN ... [--seeds 1 2 3]

MODELS is a folder of finished transfer jobs (``MODELS/RUN/seedK/train.json``, as under ``data/models``): the same
runs and seeds trained twice, once without and once with the detail (``--before`` and ``--after``). Their settings
must differ in the detail's setting alone (``DETAIL``, a transfer setting such as ``negative_pass``; a job written
before the setting existed has none). For each run it tables the STS 2016-selected 22-set mean Pearson of every
seed on both sides, the seeds' mean and sample sd, and the difference of the means: the seeds' spread is the noise
the difference is read against.

Updates DETAIL's rows for these runs in fidelity/results/fidelity_effects.json (all else is kept) and writes
fidelity_effects.md from every entry; docs/fidelity.md shows it (pages/readme.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish, published  # noqa: E402

from fidelity.run import spread  # noqa: E402

RESULTS = HERE / "results" / "fidelity_effects"
ABSENT = "(trained before the setting)"


def job(models: Path, run: str, seed: int) -> dict:
    path = models / run / f"seed{seed}" / "train.json"
    if not path.exists():
        raise SystemExit(f"{path}: no finished job (train both sides first)")
    return json.loads(path.read_text())


def side(models: Path, runs: list[str], seeds: list[int], detail: str, absent: str | None = None) -> dict:
    """Each run's jobs on one side: the detail's setting (``absent``, if given, where a job was trained before the
    setting existed: the behaviour it then had), the other settings, and each seed's selected scores."""
    found = {}
    missing = ABSENT if absent is None else f"{absent} {ABSENT}"
    for run in runs:
        jobs = [job(models, run, seed) for seed in seeds]
        values = {j["settings"].get(detail, missing) for j in jobs}
        if len(values) != 1:
            raise SystemExit(f"{models / run}: its seeds were trained with different {detail} ({sorted(values)})")
        found[run] = {"setting": values.pop(), "others": {k: v for k, v in jobs[0]["settings"].items()
                                                          if k not in (detail, "seed")},
                      "selection_pearson": [j["selection_pearson"] for j in jobs],
                      "transfer_pearson": [j["transfer_pearson"] for j in jobs],
                      "selected_epoch": [j["selected_epoch"] for j in jobs]}
    return found


def compared(detail: str, before: dict, after: dict, seeds: list[int], trained: dict | None = None) -> dict:
    rows = []
    for run in before:
        a, b = before[run], after[run]
        shared = set(a["others"]) & set(b["others"])
        differ = sorted(k for k in shared if a["others"][k] != b["others"][k])
        if differ:
            raise SystemExit(f"{run}: the two sides differ in {differ} too, not only in {detail}")
        if a["setting"] == b["setting"]:
            raise SystemExit(f"{run}: both sides were trained with {detail} = {a['setting']!r}")
        rows.append({"run": run, "before": a, "after": b,
                     "difference": statistics.mean(b["transfer_pearson"]) - statistics.mean(a["transfer_pearson"])})
    return {"detail": detail, "seeds": seeds, "commit": commit(), "rows": rows,
            "trained": {run: dict(trained or {}) for run in before}}


def as_yaml(value) -> str:
    """A setting as params.yaml spells it (true, not True)."""
    return {True: "true", False: "false"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def markdown(entries: dict) -> str:
    lines = ["Each run's STS 2016-selected 22-set mean Pearson (× 100) per seed, without and with the detail, the "
             "seeds' mean ± sample sd, and the difference of the means (with − without).", "",
             "| detail | run | without | with | seeds | without: per seed | with: per seed | without | with | "
             "difference |", "|---|---|---|---|---:|---|---|---:|---:|---:|"]
    for detail, entry in sorted(entries.items()):
        for r in entry["rows"]:
            a, b = r["before"], r["after"]
            lines.append(f"| {detail} | {r['run']} | {as_yaml(a['setting'])} | {as_yaml(b['setting'])} | "
                         f"{len(entry['seeds'])} | "
                         f"{', '.join(f'{v:.2f}' for v in a['transfer_pearson'])} | "
                         f"{', '.join(f'{v:.2f}' for v in b['transfer_pearson'])} | {spread(a['transfer_pearson'])} | "
                         f"{spread(b['transfer_pearson'])} | {r['difference']:+.2f} |")
    trained = sorted({f"{r['run']} ({d}): without at {e['trained'][r['run']].get('before', '?')}, with at "
                      f"{e['trained'][r['run']].get('after', '?')}" for d, e in entries.items() for r in e["rows"]
                      if e.get("trained", {}).get(r["run"])})
    commits = ", ".join(sorted({f"{d}: {e['commit']}" for d, e in entries.items()}))
    code = f" The code that trained each side: {'; '.join(trained)}." if trained else ""
    return ("\n".join(lines) + f"\n\nTabulated at ({commits}) by `fidelity/effects.py`.{code}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("detail", help="the transfer setting the two sides differ in (e.g. negative_pass)")
    parser.add_argument("--before", type=Path, required=True, help="finished jobs without the detail")
    parser.add_argument("--after", type=Path, required=True, help="the same jobs with it")
    parser.add_argument("--runs", nargs="+", required=True)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--before-value", help="the detail's value of jobs trained before the setting existed")
    parser.add_argument("--before-commit", help="the commit whose code trained the jobs without the detail")
    parser.add_argument("--after-commit", help="the commit whose code trained the jobs with it")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    trained = {k: v for k, v in (("before", args.before_commit), ("after", args.after_commit)) if v}
    entry = compared(args.detail, side(args.before, args.runs, args.seeds, args.detail, args.before_value),
                     side(args.after, args.runs, args.seeds, args.detail), args.seeds, trained)
    path = published(args.out, ".json")
    entries = json.loads(path.read_text()) if path.exists() else {}
    if args.detail in entries:  # the detail's other runs are kept (each measured against its own baseline)
        measured = {r["run"] for r in entry["rows"]}
        entry["rows"] = [r for r in entries[args.detail]["rows"] if r["run"] not in measured] + entry["rows"]
        entry["trained"] = {**entries[args.detail].get("trained", {}), **entry["trained"]}
        if entries[args.detail]["seeds"] != entry["seeds"]:
            raise SystemExit(f"{path}: {args.detail} was measured with seeds {entries[args.detail]['seeds']}")
    entries[args.detail] = entry
    publish(args.out, entries, markdown(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
