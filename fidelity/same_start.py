"""Ours started from the weights their code starts from, beside their run of the same seed:
python fidelity/same_start.py CHECKOUT --runs RUN ... [--seeds 1 2 3] [--data data] [--work work/cells] [--table]

A difference of the two codes over a cell's seeds is read against the seeds' spread, and much of that spread is
where each seed starts: a side's seed fixes its initial weights, and the same seed starts every cell it trains
(grid_cells.py's ``seed_effects``). Here each seed of ours starts from *their* initial weights for that seed: their
model built under their Python 2.7 after seeding as their train.py seeds (steps_theirs.py ``--start``), its weights
set into ours by their Lasagne names (steps.py ``load_lasagne_names``; the word vectors are the same file on both
sides). Ours then trains as the pipeline does, on grid_cells.py's tables of ours (WORK/ours, params.yaml's reading),
into WORK/same_start/ours/models/RUN/seedK. What still differs between the two runs of a seed is the order of the pairs,
the dropout masks and the scrambling, which each code draws its own way.

Before a job trains, ours scores their start on the evaluation sets: it must give the 22-set mean their run of that
seed recorded before its first step (WORK/points, from grid_cells.py ``--sides theirs``), or the weights are not the
ones their run started from, and the job stops. The table pairs each seed's results: theirs, ours from their start,
and ours from our own start (WORK/ours/models); per run, the paired difference (ours from their start − theirs: mean,
sd and the paired t over the seeds) beside the difference of ours from our own start (Welch's t), and the start's
own effect: ours from their start − ours from our own start, paired by seed (a seed of ours draws the same order of
pairs, masks and scrambles from either start, so only the start differs). With ``--without-their-runs``, seeds their
code has not run train too: their start is built as for the seeds it has run, with no run of theirs to check it
against, and such a seed counts in the start's effect only; many of them ask, without a run of theirs at 15
CPU-minutes a seed, whether their starts train to other results than ours. It holds every
seed of the runs named and of the runs it tabled before, trained now or before: the seeds WORK holds, and those the
tables written before hold (OUT.json, and ``--tabled``'s where OUT.json has none, for ours from their start;
grid_cells.py's table for theirs and ours from our own start), so a lost or fresh WORK loses nothing tabled and a
tabled seed is not trained again; a job WORK holds replaces its seed's tabled value. Writes
fidelity/results/same_start.{json,md}; docs/fidelity.md shows it (pages/readme.py).

LSTM, LSTMavg and GRAN-1 runs (the models whose weights steps.py names as theirs); it does not run in CI.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish  # noqa: E402

from fidelity import grid_cells  # noqa: E402
from fidelity import run as harness  # noqa: E402
from fidelity.grid_cells import base_rows, cells, ours_found, theirs_found  # noqa: E402
from fidelity.reading import train_job  # noqa: E402
from fidelity.steps import load_lasagne_names, their_settings  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.settings import experiment  # noqa: E402

RESULTS = HERE / "results" / "same_start"
MODELS = ("lstm", "lstmavg", "gran")
START_TOLERANCE = 0.01  # 22-set mean Pearson × 100: their untrained point, scored by ours from their weights


def named_runs(config: dict, runs: list[str]) -> tuple[dict, dict]:
    """(every run of grid_cells.py's cells, each of ``runs``' settings): ``runs`` checked as ``--runs`` (cells whose
    model's weights their code and ours both name)."""
    all_runs = cells(config, list(base_rows(config)))[0]
    settings = {}
    for run in runs:
        if run not in all_runs:
            raise SystemExit(f"--runs: {run} is not a run of grid_cells.py's cells")
        settings[run] = experiment(config, run, all_runs)
        if settings[run].model not in MODELS:
            raise SystemExit(f"--runs: {run} is a {settings[run].model} run; only {', '.join(MODELS)} runs have "
                             "weights their code and ours both name")
    return all_runs, settings


def their_start(checkout: Path, work: Path, settings, dim: int) -> dict[str, np.ndarray]:
    """The weights their code starts RUN's seed from, by their Lasagne names (kept in WORK/same_start/starts)."""
    target = work / "same_start" / "starts" / f"{settings.name}.seed{settings.seed}.npz"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        source = target.with_suffix(".in.npz")
        given = their_settings(settings, dim, 0, [], []) | {"seed": settings.seed}
        # their draws do not depend on the word vectors' values (Lasagne's EmbeddingLayer takes them as given)
        np.savez(source, settings=json.dumps(given), embeddings=np.zeros((2, dim), dtype=np.float32))
        partial = target.with_suffix(".partial.npz")
        proc = subprocess.run([harness.python2(), str(HERE / "steps_theirs.py"), "--start", str(source.resolve()),
                               str(partial.resolve())], cwd=checkout / "main", capture_output=True, text=True,
                              env=harness.environment(work))
        if proc.returncode:
            raise SystemExit(f"steps_theirs.py --start failed for {settings.name} seed {settings.seed}:\n"
                             f"{proc.stderr[-3000:]}")
        partial.replace(target)
        source.unlink()
    with np.load(target) as kept:
        return {name.removeprefix("param."): kept[name] for name in kept.files}


def started_from(weights: dict[str, np.ndarray], build):
    """``build_model`` that builds ours, then sets its composition weights to ``weights`` (theirs)."""
    def build_model(*args, **kwargs):
        model = build(*args, **kwargs)
        load_lasagne_names(model, weights)
        return model
    return build_model


def untrained_score(config: dict, model, vocab, frame) -> dict:
    """``model`` scored as it is (no step taken) on the evaluation table ``frame``: the 22-set and selection means
    (``vocab``: the tables' vocabulary)."""
    from paraphrastic.evaluation import similarity

    model.eval()
    sets = similarity.PreparedSets.for_model(model, vocab, frame, batch_size=config["evaluation"]["batch_size"])
    return similarity.summarize(sets.score(model), cfg.selection_ids(config))


def start_score(config: dict, settings, weights: dict[str, np.ndarray], vocab, matrix: np.ndarray, frame) -> dict:
    """Ours, built with their start, scored untrained on the evaluation table ``frame`` (:func:`untrained_score`;
    ``matrix``: the tables' vectors)."""
    import torch

    from paraphrastic.models.encoders import build_model

    model = started_from(weights, build_model)(settings.model, torch.from_numpy(matrix), **settings.model_options())
    return untrained_score(config, model, vocab, frame)


def check_start(run: str, seed: int, ours: dict, theirs_points: Path) -> None:
    """Stop unless ours from their weights scores their run's untrained point (its 22-set and selection means)."""
    first = json.loads(theirs_points.read_text())["points"][0]
    for key in ("transfer_pearson", "selection_pearson"):
        if abs(ours[key] - first[key]) > START_TOLERANCE:
            raise SystemExit(f"{run} seed {seed}: ours from their start scores {key} {ours[key]:.3f} untrained, their "
                             f"run {first[key]:.3f} ({theirs_points}): these are not the weights it started from")


def tabled(path: Path | None, wanted: set[str]) -> dict[str, dict[int, dict]]:
    """Run -> seed -> {22-set mean} of ours from their start, as an earlier table of this script (OUT.json) holds
    it; nothing where ``path`` is no file."""
    if path is None or not path.is_file():
        return {}
    try:
        return {row["run"]: {int(seed): {"transfer_pearson": float(v["ours_from_their_start"])}
                             for seed, v in row["seeds"].items()}
                for row in json.loads(path.read_text())["rows"] if row["run"] in wanted}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise SystemExit(f"{path} (OUT.json or --tabled): not a table of ours from their start "
                         f"({type(error).__name__}: {error})") from None


def table(runs: list[str], work: Path, every: dict[str, str], before: dict | None = None,
          cells_before: dict | None = None) -> list[dict]:
    """Per run, each seed with all three results, and the comparisons over them. Each result's seeds are those the
    tables written before hold (``before``: ours from their start, :func:`tabled`; ``cells_before``: theirs and ours
    from our own start, grid_cells.py's :func:`~fidelity.grid_cells.tabled`) and WORK's, WORK's superseding."""
    rows = []
    for run in runs:
        cell = (cells_before or {}).get(run, {})
        theirs = {**cell.get("theirs", {}), **theirs_found(work, run, every[run])}
        started = {**(before or {}).get(run, {}), **ours_found(work / "same_start", run)}
        own = {**cell.get("ours", {}), **ours_found(work, run)}
        row = {"run": run, "seeds": {str(s): {"theirs": theirs[s]["transfer_pearson"] if s in theirs else None,
                                              "ours_from_their_start": started[s]["transfer_pearson"],
                                              "ours": own[s]["transfer_pearson"] if s in own else None}
                                     for s in sorted(started)}}
        row.update(comparisons(row["seeds"], [v["transfer_pearson"] for v in own.values()]))
        rows.append(row)
    return rows


def comparisons(seeds: dict[str, dict], own: list[float]) -> dict:
    """A row's comparisons over its ``seeds``: ours from their start − theirs, paired over the seeds their code ran;
    ours from our own start (``own``, its every seed) − those seeds of theirs; and the start's effect, ours from
    their start − ours from our own start paired over the seeds with both (``start_``-prefixed keys)."""
    found: dict = {}
    ran = [v for v in seeds.values() if v["theirs"] is not None]  # the seeds their code has run
    if len(ran) >= 2:
        theirs = [v["theirs"] for v in ran]
        found.update(paired(theirs, [v["ours_from_their_start"] for v in ran]))
        if len(own) >= 2:
            found |= {"ours_own": harness.compared_seeds(theirs, own), "ours_own_seeds": len(own)}
    both = [v for v in seeds.values() if v["ours"] is not None]
    if len(both) >= 2:
        found |= {f"start_{key}": value for key, value in paired([v["ours"] for v in both],
                                                                 [v["ours_from_their_start"] for v in both]).items()}
        found["start_seeds"] = len(both)
    return found


def paired(theirs: list[float], ours: list[float]) -> dict:
    """Seed by seed, ours − theirs: the mean, sd and the paired t over the seeds (two-sided p)."""
    from scipy import stats

    differences = [o - t for o, t in zip(ours, theirs, strict=True)]
    test = stats.ttest_rel(ours, theirs)
    return {"difference": statistics.fmean(differences), "difference_sd": statistics.stdev(differences),
            "t": float(test.statistic), "p": float(test.pvalue)}


def markdown(result: dict) -> str:
    lines = ["Each seed's STS 2016-selected 22-set mean Pearson (× 100): their code as they ran it, ours started from "
             "the weights their code starts that seed from (trained on params.yaml's reading, "
             f"`{result['reading']}`), and ours from its own start (grid_cells.py's jobs), with the difference (ours "
             "from their start − theirs).", "",
             "| run | seed | theirs | ours from their start | difference | ours from our own start |",
             "|---|---:|---:|---:|---:|---:|"]
    def shown(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    for row in result["rows"]:
        for seed, v in row["seeds"].items():
            difference = "–" if v["theirs"] is None else f"{v['ours_from_their_start'] - v['theirs']:+.2f}"
            lines.append(f"| {row['run']} | {seed} | {shown(v['theirs'])} | {v['ours_from_their_start']:.2f} | "
                         f"{difference} | {shown(v['ours'])} |")
    lines.append("")
    for row in result["rows"]:
        ran = sum(v["theirs"] is not None for v in row["seeds"].values())
        if "difference" not in row:
            text = f"- {row['run']}: {ran} seed(s) run on both sides, too few to compare"
        else:
            text = (f"- {row['run']}: ours from their start − theirs over {ran} seeds: {row['difference']:+.2f} ± "
                    f"{row['difference_sd']:.2f} (paired t {row['t']:+.1f}, p {row['p']:.2f})")
        if "ours_own" in row:
            own = row["ours_own"]
            text += (f"; ours from our own start (its {row['ours_own_seeds']} seeds) − these of theirs: "
                     f"{own['difference']:+.2f} (Welch's t {own['t']:+.1f})")
        if "start_difference" in row and row["start_seeds"] > ran:  # seeds their code has not run say more
            text += (f"; their start − our own, both trained by ours, over {row['start_seeds']} seeds: "
                     f"{row['start_difference']:+.2f} ± {row['start_difference_sd']:.2f} (paired t "
                     f"{row['start_t']:+.1f}, p {row['start_p']:.2f})")
        lines.append(text + ".")
    pairs = [(v["theirs"], v["ours_from_their_start"]) for row in result["rows"] for v in row["seeds"].values()
             if v["theirs"] is not None]
    if len(result["rows"]) > 1 and len(pairs) >= 2:
        every = paired([t for t, _ in pairs], [o for _, o in pairs])
        lines.append(f"- Every seed of the {len(result['rows'])} runs: ours from their start − theirs over "
                     f"{len(pairs)} seeds: {every['difference']:+.2f} ± {every['difference_sd']:.2f} (paired t "
                     f"{every['t']:+.1f}, p {every['p']:.2f}).")
    lines += ["", f"Tabled at {result['commit']} by `fidelity/same_start.py`."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?", help="a checkout of jwieting/acl2017 (holds "
                        "main/models.py); not needed with --table")
    parser.add_argument("--runs", nargs="+", required=True, help="transfer runs or grid_cells.py cells "
                        "(LSTM, LSTMavg or GRAN-1) whose seeds grid_cells.py has run on their side")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--data", type=Path, default=Path("data"), help="the project's data folder")
    parser.add_argument("--work", type=Path, default=Path("work/cells"), help="grid_cells.py's work folder")
    parser.add_argument("--lasagne", default=harness.LASAGNE, help="Lasagne to install (see run.py)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads a job of ours (default: %(default)s)")
    parser.add_argument("--without-their-runs", action="store_true", help="also train seeds their code has not run "
                        "(their start unchecked; they count in the start's effect only)")
    parser.add_argument("--table", action="store_true", help="only table (the tables' seeds and WORK's jobs)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    parser.add_argument("--tabled", type=Path, help="another table of this script, whose seeds count where OUT.json "
                        "has none (OUT.json's always count)")
    parser.add_argument("--cells-table", type=Path, default=grid_cells.RESULTS.with_suffix(".json"),
                        help="grid_cells.py's table, whose seeds of theirs and of ours from our own start count "
                        "(default: %(default)s)")
    args = parser.parse_args(argv)
    config = cfg.load(REPO / "params.yaml")
    all_runs, settings = named_runs(config, args.runs)
    out, extra = tabled(args.out.with_suffix(".json"), set(all_runs)), tabled(args.tabled, set(all_runs))
    # OUT.json's seeds over --tabled's; the table keeps its runs in its order, and adds those named now
    before = {run: {**extra.get(run, {}), **out.get(run, {})} for run in dict.fromkeys([*out, *extra])}
    runs = [*before, *(run for run in args.runs if run not in before)]
    settings = named_runs(config, runs)[1]
    cells_before = grid_cells.tabled(args.cells_table, set(runs))
    if not args.table:
        if args.checkout is None:
            raise SystemExit("the authors' checkout is needed to build their start (or --table)")
        from paraphrastic.data.corpus import read_table
        from paraphrastic.data.vocab import load_vectors
        from paraphrastic.training import transfer

        harness.install(args.work, args.lasagne)
        tables = args.work / "ours"
        vocab, matrix = load_vectors(tables / "vocab")
        frame = read_table(args.data / "corpus" / "eval.parquet")
        for run in args.runs:
            for seed in args.seeds:
                if seed in before.get(run, {}):
                    continue
                points = args.work / "points" / f"{run}.seed{seed}.json"
                if not points.is_file() and not args.without_their_runs:
                    raise SystemExit(f"{points}: their run of {run} seed {seed} is not there (grid_cells.py "
                                     "--sides theirs, or --without-their-runs)")
                job = dataclasses.replace(settings[run], seed=seed)
                weights = their_start(args.checkout, args.work, job, matrix.shape[1])
                if points.is_file():
                    check_start(run, seed, start_score(config, job, weights, vocab, matrix, frame), points)
                with mock.patch.object(transfer, "build_model", started_from(weights, transfer.build_model)):
                    info = train_job(config, all_runs, run, seed, args.data, args.work / "same_start" / "ours",
                                     args.threads, tables=tables)
                print(f"ours from their start {run} seed {seed}: 22 sets {info['transfer_pearson']:.2f}", flush=True)
    result = {"commit": commit(), "reading": config["data"]["reading"],
              "rows": table(runs, args.work, {run: s.evaluate_every for run, s in settings.items()}, before,
                            cells_before)}
    publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
