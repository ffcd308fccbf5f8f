"""steps.py's comparisons of several runs and readings, one row each:
python fidelity/steps_summary.py STEPS.json ... [--out OUT] [--add]

Each STEPS.json is a result of steps.py (their model and ours on the same batches, weights and masks). Per run and
reading, with Adam's ε as Lasagne places it (params.yaml's default, ``train.adam_epsilon: uncorrected``): the
largest difference of a step's loss from theirs, the steps where ours chose another negative than theirs for some
sentence, the first step's gradients (largest difference, relative to the larger side) and the weights after the
last step (largest difference, beside the most their steps moved a weight). Writes OUT.{json,md} (default
fidelity/results/authors_steps_summary), which docs/fidelity.md shows (pages/readme.py). With ``--add``, the rows
OUT.json holds stay, but for a run and reading given again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import publish, published  # noqa: E402  (puts src/ on the path too)

from fidelity.steps import THEIR_NEGATIVES  # noqa: E402  (ours with the negatives theirs chose)

EPSILON = "uncorrected"  # Adam's ε where Lasagne adds it: the pipeline's default


def row(result: dict) -> dict:
    ours = result["compared"][EPSILON]
    last = max(ours["weights"], key=int)
    forced = result["compared"].get(THEIR_NEGATIVES)
    return {"run": result["run"], "reading": result.get("reading", "ours"), "seed": result["seed"],
            "commit": result["commit"], "steps": len(ours["steps"]),
            "largest_loss_difference": max(abs(s["loss"] - s["theirs_loss"]) for s in ours["steps"]),
            "steps_with_other_negatives": sum(1 for s in ours["steps"] if s["negatives_differ"]),
            "gradient_difference": ours["steps"][0]["gradient_difference"],
            "weights_difference": ours["weights"][last],
            "weights_difference_their_negatives": forced["weights"][last] if forced else None,
            "their_largest_move": result["their_largest_move"][last]}


def markdown(rows: list[dict]) -> str:
    lines = ["Their model and ours step by step (`fidelity/steps.py`: the same batches, scrambled as "
             "the run scrambles, the same initial weights and dropout or word-dropout masks; each side chooses its "
             "own negatives and takes its own Adam step, with Adam's ε as Lasagne places it), per run and reading of "
             "the training text; the last but one column, where measured (`--their-negatives`), is ours taking the "
             "negatives theirs chose:", "",
             "| run | reading | steps | largest loss difference | steps with another negative | gradients, step 0 "
             "| weights after the last step | with their negatives | their largest move |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        forced = r.get("weights_difference_their_negatives")
        lines.append(f"| {r['run']} | {r['reading']} | {r['steps']} | {r['largest_loss_difference']:.1e} | "
                     f"{r['steps_with_other_negatives']} | {r['gradient_difference']:.1e} | "
                     f"{r['weights_difference']:.1e} | {'—' if forced is None else f'{forced:.1e}'} | "
                     f"{r['their_largest_move']:.1e} |")
    commits = sorted({r["commit"] for r in rows if r["commit"]})
    return "\n".join(lines) + f"\n\nMeasured at {', '.join(commits)}.\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="steps.py's OUT.json files")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "authors_steps_summary",
                        help="writes OUT.json and OUT.md (default: %(default)s)")
    parser.add_argument("--add", action="store_true", help="keep OUT.json's rows but for the runs and readings given")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.results if not p.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    rows = [row(json.loads(path.read_text())) for path in args.results]
    kept = published(args.out, ".json")
    if args.add and kept.is_file():
        given = {(r["run"], r["reading"]) for r in rows}
        rows = [r for r in json.loads(kept.read_text()) if (r["run"], r["reading"]) not in given] + rows
    publish(args.out, rows, markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
