"""Their code and ours, each on each reading of the training text, run by run:
python fidelity/end_to_end.py [--theirs RESULT.json ...] [--ours READING.json] [--out OUT]

Each THEIRS is a result of run.py: with ``--raw``, their code reading the profile's raw SimpWiki files and word
vector file itself, as they ran it (their reading, which is our ``data.reading: authors``); without, their code on
our tokens (``data.reading: ours``). Default: fidelity/results/authors_code_raw.json and authors_code.json.
READING is reading.py's result (default fidelity/results/reading.json): the same runs and seeds trained by our
code on each reading. Per run, three comparisons, each of their seeds' 22-set mean with ours (the difference
ours − theirs, whether it lies within the seeds' spread, the larger of the two sides' sd, and Welch's t, as
run.py compares): theirs as they ran it against ours on either reading (*end to end* on params.yaml's), and both
sides on our tokens; so a difference in how the text is read is told apart from one in training. Writes
OUT.{json,md} (default fidelity/results/end_to_end); docs/fidelity.md shows it (pages/readme.py).
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
from measured import publish  # noqa: E402

from fidelity.run import agreement, compared_seeds  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.data.tokens import READINGS  # noqa: E402

RESULTS = HERE / "results"


def their_seeds(results: list[dict]) -> dict[str, dict[str, dict[int, float]]]:
    """Each reading's run -> seed -> their 22-set mean, from run.py's results (``raw``: their reading)."""
    seeds: dict[str, dict[str, dict[int, float]]] = {reading: {} for reading in READINGS}
    for result in results:
        for row in result["rows"]:
            reading = "authors" if row.get("raw") else "ours"
            seeds[reading].setdefault(row["run"], {})[row["seed"]] = row["theirs"]["transfer_pearson"]
    return seeds


def comparisons_of(default: str) -> list[tuple[str, str, str]]:
    """The three distinct (their reading, our reading, label) pairs: theirs as they ran it (their reading) against
    ours on params.yaml's reading (``default``), *end to end*, and on the other one; both sides on our tokens."""
    other = next(reading for reading in READINGS if reading != default)
    if default == "authors":
        return [("authors", "authors", "end to end, the same text"),
                ("authors", other, "end to end, the other reading"), ("ours", "ours", "the same text")]
    return [("authors", default, "end to end"), ("authors", other, "the same text"), ("ours", "ours", "the same text")]


def compared(theirs: list[dict], ours: dict, default: str) -> list[dict]:
    """Per run of reading.py's that theirs hold too, with at least two seeds a side (every seed each side trained,
    not only those both did: the seeds are not paired), each of :func:`comparisons_of` (run.compared_seeds)."""
    seeds = their_seeds(theirs)
    found = []
    for run, readings in ours["runs"].items():
        for their_reading, our_reading, what in comparisons_of(default):
            mine, yours = list(readings[our_reading].values()), list(seeds[their_reading].get(run, {}).values())
            if len(mine) >= 2 and len(yours) >= 2:
                found.append({"run": run, "comparison": what, "theirs_read": their_reading, "ours_read": our_reading,
                              "seeds": f"{len(yours)} / {len(mine)}", **compared_seeds(yours, mine)})
    return found


def markdown(comparisons: list[dict], commits: dict, default: str) -> str:
    lines = ["Their code and ours, each on SimpWiki read our way (`data.reading: ours`; theirs on our tokens) and "
             "their way (`authors`; theirs reading the raw files itself, `run.py --raw`): each run's STS 2016-"
             "selected 22-set mean Pearson (× 100), the seeds' mean ± sample sd, the difference (ours − theirs), "
             "whether it lies within the seeds' spread (the larger sd) and Welch's t. *End to end*: theirs as they "
             f"ran it, ours with params.yaml's reading (`{default}`); *the other reading*: ours on the other one.", "",
             "| run | comparison | theirs read | ours read | seeds (theirs / ours) | theirs | ours | difference "
             "| within the spread | t |", "|---|---|---|---|---:|---:|---:|---:|---|---:|"]
    for c in comparisons:
        lines.append(f"| {c['run']} | {c['comparison']} | {c['theirs_read']} | {c['ours_read']} | {c['seeds']} | "
                     f"{c['theirs']:.2f} ± {c['theirs_sd']:.2f} | {c['ours']:.2f} ± {c['ours_sd']:.2f} | "
                     f"{c['difference']:+.2f} | {'yes' if c['within'] else 'no'} | {c['t']:+.1f} |")
    lines.append("")
    for what in dict.fromkeys(c["comparison"] for c in comparisons):
        lines.append("- " + agreement([c for c in comparisons if c["comparison"] == what], f"Compared {what}"))
    return "\n".join(lines) + (f"\n\nTheirs measured at {', '.join(commits['theirs'])}, ours at {commits['ours']}; "
                               "`fidelity/end_to_end.py` wrote the table.\n")


def measured_at(results: list[dict]) -> list[str]:
    """The commits their rows were measured at: each row's own, or (a row written before rows kept theirs) its
    table's."""
    return sorted({row.get("commit", result["commit"]) for result in results for row in result["rows"]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--theirs", type=Path, nargs="+",
                        default=[RESULTS / "authors_code_raw.json", RESULTS / "authors_code.json"],
                        help="run.py's results, with --raw and without (default: %(default)s)")
    parser.add_argument("--ours", type=Path, default=RESULTS / "reading.json",
                        help="reading.py's result (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=RESULTS / "end_to_end",
                        help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    theirs = [json.loads(path.read_text()) for path in args.theirs]
    ours = json.loads(args.ours.read_text())
    default = cfg.load(REPO / "params.yaml")["data"]["reading"]
    comparisons = compared(theirs, ours, default)
    if not comparisons:
        raise SystemExit(f"{[str(p) for p in args.theirs]} and {args.ours} share no run with two seeds or more")
    commits = {"theirs": measured_at(theirs), "ours": ours["commit"]}
    publish(args.out, {"commits": commits, "default_reading": default, "runs": comparisons},
            markdown(comparisons, commits, default))
    return 0


if __name__ == "__main__":
    sys.exit(main())
