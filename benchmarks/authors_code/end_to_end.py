"""Their code end to end beside ours on each reading of the training text:
python benchmarks/authors_code/end_to_end.py [--theirs THEIRS.json] [--ours READING.json] [--out OUT]

THEIRS is run.py's result with ``--raw`` (default benchmarks/results/authors_code_raw.json): their code reading the
profile's raw SimpWiki files and word vector file itself, as they ran it. READING is reading.py's result (default
benchmarks/results/reading.json): the same runs and seeds trained by our code on SimpWiki read our way
(``data.reading: ours``) and their way (``authors``). Per run, the table gives their seeds' 22-set mean beside ours on
each reading, each difference (ours − theirs), whether it lies within the seeds' spread (the larger of the two sides'
sd) and Welch's t, as run.py compares; so a difference in how the text is read is told apart from one in training.
Writes OUT.{json,md} (default benchmarks/results/end_to_end); docs/fidelity.md shows it (benchmarks/readme.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE.parent))

from authors_code.run import compared_runs  # noqa: E402
from paraphrastic.atomic import write_json, write_text  # noqa: E402
from paraphrastic.data.tokens import READINGS  # noqa: E402

RESULTS = HERE.parent / "results"


def compared(theirs: dict, ours: dict) -> list[dict]:
    """Per run that both hold with at least two shared seeds, and per reading: run.compared_runs' comparison of
    their seeds (run.py's rows, ``--raw``) with our seeds on that reading (reading.py's runs)."""
    if not all(row.get("raw") for row in theirs["rows"]):
        raise SystemExit("--theirs: not a run of their code on the raw files (run.py --raw)")
    found = []
    for run, readings in ours["runs"].items():
        mine = {row["seed"]: row["theirs"] for row in theirs["rows"] if row["run"] == run}
        for reading in READINGS:
            rows = [{"run": run, "theirs": mine[int(seed)], "ours": {"transfer_pearson": value}}
                    for seed, value in readings[reading].items() if int(seed) in mine]
            found += [c | {"reading": reading} for c in compared_runs(rows)]
    return found


def markdown(comparisons: list[dict], commits: dict) -> str:
    lines = ["Their code reading the raw SimpWiki files and word vector file itself (`run.py --raw`), and ours on "
             "SimpWiki read our way (`data.reading: ours`) and theirs (`authors`): each run's STS 2016-selected "
             "22-set mean Pearson (× 100), the seeds' mean ± sample sd, the difference (ours − theirs), whether it "
             "lies within the seeds' spread (the larger sd) and Welch's t.", "",
             "| run | seeds | theirs | reading | ours | difference | within the spread | t |",
             "|---|---:|---:|---|---:|---:|---|---:|"]
    for c in comparisons:
        lines.append(f"| {c['run']} | {c['seeds']} | {c['theirs']:.2f} ± {c['theirs_sd']:.2f} | {c['reading']} | "
                     f"{c['ours']:.2f} ± {c['ours_sd']:.2f} | {c['difference']:+.2f} | "
                     f"{'yes' if c['within'] else 'no'} | {c['t']:+.1f} |")
    return "\n".join(lines) + (f"\n\nTheirs measured at {commits['theirs']}, ours at {commits['ours']}; "
                               "`benchmarks/authors_code/end_to_end.py` wrote the table.\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--theirs", type=Path, default=RESULTS / "authors_code_raw.json",
                        help="run.py --raw's result (default: %(default)s)")
    parser.add_argument("--ours", type=Path, default=RESULTS / "reading.json",
                        help="reading.py's result (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=RESULTS / "end_to_end",
                        help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    theirs, ours = (json.loads(path.read_text()) for path in (args.theirs, args.ours))
    comparisons = compared(theirs, ours)
    if not comparisons:
        raise SystemExit(f"{args.theirs} and {args.ours} share no run with two seeds or more")
    commits = {"theirs": theirs["commit"], "ours": ours["commit"]}
    write_json(args.out.with_suffix(".json"), {"commits": commits, "runs": comparisons})
    write_text(args.out.with_suffix(".md"), markdown(comparisons, commits))
    print(markdown(comparisons, commits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
