"""Where a cell's gap opens: both sides' learning curves, point by point, over the seeds a work folder holds:
python fidelity/curves.py --run RUN [--work work/cells] [--out fidelity/results/cell_curves]

A cell of grid_cells.py compares the two codes at the point each selects. When the difference lies outside the
seeds' spread and steps.py finds their training steps the same (the same batches, masks and weights giving the same
loss and gradients), the curves say where in training the two part: from the start (something every step does), or
only after some epochs (something a 50-step trace cannot reach), and whether the training loss parts with the scores
(the two optimise differently) or the scores part alone (what is learnt is scored differently). Per evaluation point
(each quarter of an epoch and its end): each side's mean over its seeds of the 22-set and STS 2016 means and of the
training loss (the epoch's running mean of the batches' costs; theirs as shim.py records it, in the jobs run since it
does), and the difference (ours − theirs) with Welch's t. Theirs from WORK/points, ours from WORK/ours/models (the
jobs grid_cells.py ran). Writes OUT.{json,md}; docs/fidelity.md shows it (pages/readme.py).
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
from measured import commit, publish  # noqa: E402

from fidelity.grid_cells import ours_jobs, theirs_jobs  # noqa: E402
from fidelity.run import POINTS_PER_EPOCH  # noqa: E402

RESULTS = HERE / "results" / "cell_curves"
MEASURES = {"transfer_pearson": "22-set mean", "selection_pearson": "STS 2016 mean", "loss": "training loss"}


def theirs_curves(work: Path, run: str) -> dict[int, list[dict]]:
    """Seed -> their points after the start (point k is the k-th quarter's end), from WORK/points."""
    return {seed: kept["points"][1:] for seed, kept in theirs_jobs(work, run).items()}


def ours_curves(work: Path, run: str) -> dict[int, list[dict]]:
    """Seed -> our history (a row per quarter's end) of each finished job, from WORK/ours/models."""
    return {seed: json.loads((folder / "history.json").read_text()) for seed, folder in ours_jobs(work, run).items()}


def curves(theirs: dict[int, list[dict]], ours: dict[int, list[dict]]) -> list[dict]:
    """A row per point both sides reached: per measure, each side's mean and sd over the seeds that have it, the
    difference and Welch's t (where each side has two seeds or more)."""
    from scipy import stats

    sides = {"theirs": theirs, "ours": ours}
    points = min((len(c) for side in sides.values() for c in side.values()), default=0)
    rows = []
    for k in range(points):
        row = {"epoch": (k + 1) / POINTS_PER_EPOCH}
        for key in MEASURES:
            values = {name: [c[k][key] for c in side.values() if c[k].get(key) is not None]
                      for name, side in sides.items()}
            entry = {f"{name}_seeds": len(v) for name, v in values.items()}
            entry.update({name: statistics.fmean(v) for name, v in values.items() if v})
            if all(len(v) >= 2 for v in values.values()):
                varies = any(statistics.variance(v) > 0 for v in values.values())
                # None where neither side's seeds vary: no spread to read the difference against
                t = float(stats.ttest_ind(values["ours"], values["theirs"], equal_var=False).statistic) if varies \
                    else None
                entry.update(difference=entry["ours"] - entry["theirs"], t=t)
            row[key] = entry
        rows.append(row)
    return rows


def markdown(result: dict) -> str:
    seeds = {side: result[f"{side}_seeds"] for side in ("theirs", "ours")}
    lines = [f"Both sides' learning curves for {result['run']}: at each quarter of an epoch, each side's mean over "
             f"its seeds (theirs {', '.join(map(str, seeds['theirs']))}; ours {', '.join(map(str, seeds['ours']))}) "
             "of the 22-set and STS 2016 mean Pearson (× 100) and of the training loss (the epoch's running mean; "
             "theirs from the seeds run since shim.py records it, counted in the last column), and the difference "
             "(ours − theirs) with Welch's t.", "",
             "| epoch | 22-set: theirs | ours | difference | t | STS 2016: theirs | ours | difference | t | "
             "loss: theirs | ours | difference | t | seeds with theirs' loss |",
             "|---:|" + "---:|" * 13]
    for row in result["rows"]:
        cells = []
        for key in MEASURES:
            entry, digits = row[key], 4 if key == "loss" else 2
            cells += [f"{entry[side]:.{digits}f}" if side in entry else "–" for side in ("theirs", "ours")]
            cells += [f"{entry['difference']:+.{digits}f}" if "difference" in entry else "–",
                      f"{entry['t']:+.1f}" if entry.get("t") is not None else "–"]
        lines.append(f"| {row['epoch']:g} | " + " | ".join(cells) + f" | {row['loss']['theirs_seeds']} |")
    lines += ["", f"Tabled at {result['commit']} by `fidelity/curves.py`."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="a cell of grid_cells.py both sides have run")
    parser.add_argument("--work", type=Path, default=REPO / "work" / "cells", help="grid_cells.py's work folder")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    theirs, ours = theirs_curves(args.work, args.run), ours_curves(args.work, args.run)
    if not theirs or not ours:
        raise SystemExit(f"{args.work}: no finished job of {args.run} on {'their' if not theirs else 'our'} side "
                         "(grid_cells.py runs them)")
    result = {"commit": commit(), "run": args.run, "theirs_seeds": sorted(theirs), "ours_seeds": sorted(ours),
              "rows": curves(theirs, ours)}
    publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
