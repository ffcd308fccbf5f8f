"""Their code and ours over the grids' cells, not only the points the offline grid keeps:
python fidelity/grid_cells.py CHECKOUT [--models lstmavg gran lstm avg] [--cells RUN ...]
                                        [--seeds 1 2 3] [--sides theirs ours] [--data data] [--work work/cells]
                                        [--lasagne SOURCE] [--threads 1] [--theirs RESULT.json] [--table]

The offline profile keeps one value of each axis it thins (``grid_thinning.offline``), so the end-to-end table
(end_to_end.py) compares only the runs that thinning leaves. A *cell* here is one setting of the regularisation
axes around them: λ_c off or at its kept value, no input dropout or dropout or word dropout at its kept value, and
scrambling off or at its kept value, with margin and λ_w at their kept values and the epochs of the model's row
(Table 4's rows, ``report.table4``, and Table 2's LSTM row ``t2-lstm-dropout-scrambling``). An average has no
composition parameters for λ_c to reach and no order for scrambling to change, so avg's cells vary the input dropout
only. A cell that is a run of the thinned grids keeps that run's name (so its jobs are the pipeline's), the others are
named ``cells-MODEL__HASH`` as the grids name runs.

Each cell is trained with each seed by both sides: their code reading the profile's raw SimpWiki files and word
vector file itself, as they ran it (run.py ``--raw``), into WORK/points; ours on the text params.yaml's
``data.reading`` makes (prepare_train and vocab into WORK/ours, as reading.py prepares a reading) into
WORK/ours/models. Both select on STS 2016 as the pipeline does. A job found finished is not trained again (ours
resumes a killed job from its checkpoint; theirs restarts it), so the sides can run in two processes (``--sides``),
over several sessions, and the table be assembled at any point (``--table``) from what WORK holds; ``--models``
and ``--cells`` choose what trains, and the table always holds every model's cells. A job of theirs
is claimed while it trains (a lock on WORK/claims/RUN.seedK.lock), so several processes of ``--sides theirs``, one a
core, share the cells without training a job twice. Seeds of theirs measured before by run.py --raw (``--theirs``,
default fidelity/results/authors_code_raw.json) for a cell's run count too, with the commit they were measured at,
and ours trains those seeds as well, so both sides of such a cell have the same seeds. The table written before
(OUT.json, read again as the table is written, so a process that ran meanwhile loses nothing) is the record of
every seed measured so far: a seed it holds for a cell counts whether or not WORK still holds its job (a lost or
fresh WORK loses nothing tabled), and is not trained again (``--retrain``: trained again, its new value replacing
the tabled one); a job WORK holds supersedes the tabled value of its seed. ``--tabled`` adds another table's seeds
(one from an earlier commit, say) where OUT.json has none. A cell is its run's name, which hashes its settings, so a
cell whose settings change is a new cell and takes nothing from the old one.

The table gives, per cell, both sides' 22-set means (mean ± sample sd), the difference (ours − theirs), whether it
lies within the seeds' spread (the larger sd) and Welch's t, as run.py compares. Under it, each model's difference
over its cells with each seed's effect fitted out (a side's seed starts every cell it trains from the same weights,
so one seed's luck is in all of them) and whether a side's seeds spread more, read from the same fit
(``seed_effects``), and the same fit of each model's cells of one input dropout, whose lean a model's difference
dilutes (``by_input_dropout``). Writes fidelity/results/fidelity_cells.{json,md}; docs/fidelity.md shows it and the
sentences that sum it up (pages/readme.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import itertools
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import TextIO

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish  # noqa: E402

from fidelity import convert  # noqa: E402
from fidelity.reading import prepare, train_job  # noqa: E402
from fidelity.run import LASAGNE, agreement, compared_seeds, install, selected, spread, train_theirs  # noqa: E402
from paraphrastic.atomic import atomic_path, write_json  # noqa: E402
from paraphrastic.configuration import grids  # noqa: E402
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.settings import experiment  # noqa: E402
from paraphrastic.data.datasets import EVAL_SETS  # noqa: E402

RESULTS = HERE / "results" / "fidelity_cells"
TABLE2_LSTM = "t2-lstm-dropout-scrambling"  # Table 2's LSTM row with every axis the cells vary
SIDES = ("theirs", "ours")
INPUT_DROPOUT = ("none", "dropout", "word_dropout")


def base_rows(config: dict) -> dict[str, str]:
    """Each model the cells cover -> the grid row whose model, training set, epochs and fixed settings its cells
    take: Table 4's rows and Table 2's LSTM row."""
    rows = {row["id"]: row for row in config.get("grids") or []}
    wanted = [*config["report"]["table4"].values(), TABLE2_LSTM]
    missing = [row for row in wanted if row not in rows]
    if missing:
        raise SystemExit(f"params.yaml: no grid row {missing[0]!r} (report.table4 or Table 2's LSTM row)")
    return {rows[row]["model"]: row for row in wanted}


def cell_settings(config: dict, model: str) -> list[dict]:
    """The cells of one model: the settings of each, as a grid row's run holds them (only the axes that are on)."""
    row = next(r for r in config["grids"] if r["id"] == base_rows(config)[model])
    kept = (config.get("grid_thinning") or {}).get(config["data_profile"]) or {}
    missing = [axis for axis in ("margin", "lambda_w", "lambda_c", "dropout", "word_dropout", "scramble")
               if len(kept.get(axis) or []) != 1]
    if missing:
        raise SystemExit(f"params.yaml: grid_thinning.{config['data_profile']}.{missing[0]} keeps no single value "
                         "(the cells are each axis off and at the value the profile keeps)")
    base = {key: row[key] for key in ("model", "train_set", "epochs") if key in row}
    base.update(row.get("fixed", {}), margin=kept["margin"][0], lambda_w=kept["lambda_w"][0])
    composed = model != "avg"  # an average has nothing λ_c reaches and no order scrambling changes
    cells = []
    lambda_cs, scrambles = ([0.0, kept["lambda_c"][0]], [0.0, kept["scramble"][0]]) if composed else ([0.0], [0.0])
    for lambda_c, dropout, scramble in itertools.product(lambda_cs, INPUT_DROPOUT, scrambles):
        settings = dict(base)
        if lambda_c:
            settings["lambda_c"] = lambda_c
        if dropout != "none":
            settings[dropout] = kept[dropout][0]
        if scramble:
            settings["scramble"] = scramble
        cells.append(settings)
    return cells


def _identity(config: dict, name: str, runs: dict) -> tuple:
    """What a run trains, whatever its name: its settings with the train defaults applied, less name and seed."""
    settings = experiment(config, name, runs)
    return tuple(sorted(dataclasses.asdict(dataclasses.replace(settings, name="", seed=0)).items(), key=str))


def cells(config: dict, models: list[str]) -> tuple[dict[str, dict], dict[str, str]]:
    """(runs, models): every run of the grids with the cells added, and each cell's run name -> its model, in the
    models' order. A cell that trains as a run of the thinned grids does takes that run's name."""
    runs, _ = grids.expand(config)
    known = {}
    for name in runs:
        known.setdefault(_identity(config, name, runs), name)
    found: dict[str, str] = {}
    for model in models:
        for settings in cell_settings(config, model):
            name = grids.run_name(f"cells-{model}", settings)
            runs[name] = settings
            name = known.get(_identity(config, name, runs), name)
            found[name] = model
    return runs, found


def describe(settings) -> dict:
    """A cell's axes, as the table shows them."""
    dropout = ("dropout" if settings.dropout else "word_dropout" if settings.word_dropout else "none")
    rate = settings.dropout or settings.word_dropout
    return {"model": settings.model, "lambda_c": settings.lambda_c,
            "input_dropout": dropout if dropout == "none" else f"{dropout} {rate:g}", "scramble": settings.scramble}


def earlier_theirs(path: Path | None, wanted: set[str]) -> dict[str, dict[int, dict]]:
    """Run -> seed -> {22-set mean, commit}: run.py --raw's rows (their code as they ran it) for the cells' runs."""
    if path is None or not path.is_file():
        return {}
    result = json.loads(path.read_text())
    found: dict[str, dict[int, dict]] = {}
    for row in result["rows"]:
        if row.get("raw") and row["run"] in wanted:
            found.setdefault(row["run"], {})[int(row["seed"])] = {
                "transfer_pearson": row["theirs"]["transfer_pearson"],
                "commit": row.get("commit", result.get("commit"))}
    return found


def tabled(path: Path | None, wanted: set[str]) -> dict[str, dict[str, dict[int, dict]]]:
    """Run -> side -> seed -> {22-set mean, commit}: the seeds an earlier table of the cells (this script's OUT.json)
    holds for the cells' runs; nothing where ``path`` is no file."""
    if path is None or not path.is_file():
        return {}
    try:
        rows = json.loads(path.read_text())["rows"]
        return {row["run"]: {side: {int(seed): {"transfer_pearson": float(value["transfer_pearson"]),
                                                "commit": value.get("commit")}
                                    for seed, value in row[f"{side}_seeds"].items()} for side in SIDES}
                for row in rows if row["run"] in wanted}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise SystemExit(f"{path} (OUT.json or --tabled): not a table of the cells "
                         f"({type(error).__name__}: {error})") from None


def claim(work: Path, run: str, seed: int) -> TextIO | None:
    """WORK/claims/RUN.seedK.lock, open and locked by this process for as long as it holds the file (``close()``
    frees it); None where another process holds it. The kernel frees the lock of a process that ends however it
    ends, so a killed process's job is free again at once and two processes never hold the same job."""
    path = work / "claims" / f"{run}.seed{seed}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    held = open(path, "a")  # noqa: SIM115 (held open for the job's length: the lock is the open file's)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.close()
        return None
    return held


def _copied_whole(source: str, target: str) -> None:
    """shutil.copy2 by way of a temporary file: a process of theirs starting meanwhile reads the old file or the
    new, never part of one (a second process of this harness copies their code again at its start)."""
    with atomic_path(Path(target)) as partial:
        shutil.copy2(source, partial)


def theirs_jobs(work: Path, run: str) -> dict[int, dict]:
    """Seed -> the record (its evaluation points, commit, ...) of every job of theirs WORK/points holds finished for
    ``run``."""
    found = {}
    for path in sorted((work / "points").glob(f"{run}.seed*.json")):
        seed = path.name.removeprefix(f"{run}.seed").removesuffix(".json")
        if seed.isdigit():
            found[int(seed)] = json.loads(path.read_text())
    return found


def ours_jobs(work: Path, run: str) -> dict[int, Path]:
    """Seed -> the folder of every job of ours WORK/ours/models holds finished (its train.json written) for ``run``."""
    return {int(folder.name.removeprefix("seed")): folder
            for folder in sorted((work / "ours" / "models" / run).glob("seed*"))
            if folder.name.removeprefix("seed").isdigit() and (folder / "train.json").is_file()}


def theirs_found(work: Path, run: str, selection_every: str) -> dict[int, dict]:
    """Seed -> {22-set mean, commit} of every job of theirs WORK/points holds finished for ``run``."""
    return {seed: {"transfer_pearson": selected(kept["points"], selection_every)["transfer_pearson"],
                   "commit": kept.get("commit")} for seed, kept in theirs_jobs(work, run).items()}


def ours_found(work: Path, run: str) -> dict[int, dict]:
    """Seed -> {22-set mean, commit} of every job of ours WORK/ours/models holds finished for ``run``."""
    found = {}
    for seed, folder in ours_jobs(work, run).items():
        stamp = folder / "trained_at.txt"
        found[seed] = {"transfer_pearson": json.loads((folder / "train.json").read_text())["transfer_pearson"],
                       "commit": stamp.read_text().strip() if stamp.is_file() else None}
    return found


def table(config: dict, runs: dict, models: dict[str, str], work: Path, earlier: dict,
          before: dict | None = None) -> list[dict]:
    """A row per cell: its axes, both sides' seeds, and compared_seeds where each side has two or more. A side's
    seeds are those the earlier table holds (``before``, :func:`tabled`), run.py --raw's (``earlier``; theirs) and
    WORK's, each source superseding the one before it seed by seed."""
    rows = []
    for run in models:
        settings = experiment(config, run, runs)
        prior = (before or {}).get(run, {})
        theirs = {**prior.get("theirs", {}), **earlier.get(run, {}),
                  **theirs_found(work, run, settings.evaluate_every)}
        ours = {**prior.get("ours", {}), **ours_found(work, run)}
        row = {"run": run, **describe(settings), "theirs_seeds": {str(k): v for k, v in sorted(theirs.items())},
               "ours_seeds": {str(k): v for k, v in sorted(ours.items())}}
        if len(theirs) >= 2 and len(ours) >= 2:
            row.update(compared_seeds([v["transfer_pearson"] for v in theirs.values()],
                                      [v["transfer_pearson"] for v in ours.values()]))
        rows.append(row)
    return rows


def summary(rows: list[dict]) -> str:
    """The sentence the fidelity page states about the cells (written from the table, never by hand): how many were
    compared and lie within the seeds' spread, which lie outside it, and how many wait for their runs."""
    compared = [row for row in rows if "difference" in row]
    text = agreement([{**row, "run": f"{row['run']} ({_axes(row)})"} for row in compared],
                     f"Of the {len(rows)} cells, those run on both sides with two seeds or more a side")
    if compared:
        text += " " + many_cells(compared) + " " + seed_effects_text(compared)
        split = by_input_dropout_text(compared)
        text += " " + split if split else ""
    waiting = len(rows) - len(compared)
    if waiting:
        text += f" {waiting} {'cell waits' if waiting == 1 else 'cells wait'} for their runs."
    return text


def welch_p(row: dict) -> float:
    """A compared cell's two-sided p of Welch's t (its t with the Welch-Satterthwaite degrees of freedom)."""
    from scipy import stats

    return float(stats.ttest_ind_from_stats(
        row["ours"], row["ours_sd"], len(row["ours_seeds"]), row["theirs"], row["theirs_sd"],
        len(row["theirs_seeds"]), equal_var=False).pvalue)


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment of ``p`` (in their order): each the chance that any of the tests is as extreme
    when none differs, whatever the tests' dependence (the cells share seeds, so they are not independent)."""
    order = sorted(range(len(p)), key=p.__getitem__)
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def many_cells(compared: list[dict]) -> str:
    """The smallest of the cells' Welch p, and the same p adjusted (Holm) for the number of cells compared: with
    many cells, one of them at a small p is expected when the codes are the same."""
    p = [welch_p(row) for row in compared]
    least = min(range(len(p)), key=p.__getitem__)
    return (f"The smallest of the {len(compared)} cells' Welch p is {p[least]:.3f} ({compared[least]['run']}); "
            f"adjusted (Holm) for the {len(compared)} cells compared, {holm(p)[least]:.2f}.")


def seed_block(side: str, row: dict, seed: str) -> tuple:
    """The start one side's seed gives every cell it trains. Ours: the seed alone fixes the initial weights
    (seed_everything, then the model) and each epoch's order of the pairs. Theirs: the seed and whether the cell has a
    dropout layer fix the weights and the first epoch's order, as Lasagne's DropoutLayer draws its own seed from
    numpy's stream (noise.py:74) before the weights and the shuffle do (scrambling draws from it too, so the later
    epochs' orders part)."""
    return (side, seed) if side == "ours" else dropout_layer_block(side, row, seed)


def dropout_layer_block(side: str, row: dict, seed: str) -> tuple:
    """A seed's block as theirs has it: one for the cells with a dropout layer, one for those without."""
    return side, row["input_dropout"] != "none", seed


def _fit(observed: list[tuple]) -> tuple:
    """Least squares of each 22-set mean as its cell's mean plus its seed's effect: the design's cells and blocks (in
    order of appearance), the coefficients (any solution), the residuals and their degrees of freedom."""
    import numpy as np

    cells = list(dict.fromkeys(cell for cell, _, _ in observed))
    blocks = list(dict.fromkeys(block for _, block, _ in observed))
    design = np.zeros((len(observed), len(cells) + len(blocks)))
    for i, (cell, block, _) in enumerate(observed):
        design[i, cells.index(cell)] = design[i, len(cells) + blocks.index(block)] = 1.0
    values = np.array([value for _, _, value in observed])
    coefficients, _, rank, _ = np.linalg.lstsq(design, values, rcond=None)
    return cells, blocks, coefficients, values - design @ coefficients, len(observed) - int(rank)


def variance_ratio(ours: float, ours_df: int, theirs: float, theirs_df: int) -> dict:
    """The F test (two-sided) of two variances: whether one side's seeds spread more than the other's. A difference
    of the means is read against the seeds' spread, so a side whose seeds spread more is itself a difference of the
    codes to look for."""
    from scipy import stats

    if not theirs:
        return {"F": float("inf") if ours else float("nan"), "df": (ours_df, theirs_df),
                "p": 0.0 if ours else float("nan")}
    ratio = ours / theirs
    p = min(1.0, 2 * min(stats.f.cdf(ratio, ours_df, theirs_df), stats.f.sf(ratio, ours_df, theirs_df)))
    return {"F": float(ratio), "df": (ours_df, theirs_df), "p": float(p)}


def seed_effects(compared: list[dict]) -> dict[str, dict]:
    """Per model, the two sides' difference with each seed's luck taken out of every cell it is in: each 22-set mean
    fitted (least squares, both sides at once) as its cell's mean plus its seed's effect (:func:`seed_block`); the
    difference is that of the two sides' mean seed effects, tested by Welch's t over the seeds' effects (the units
    that are independent: a cell's seeds are, but one seed's cells are not).

    And whether a side's seeds spread more, in the two parts the fit tells apart: the seeds' effects (their sd, F
    test on the seeds) and what is left within a seed's cells (the residual sd, F test on the residuals' degrees of
    freedom). For that, each side is fitted alone, with theirs' blocks on both sides (a seed's effect in the cells with
    a dropout layer and another in those without), so that neither fit is freer than the other to take up how a
    seed's luck changes from cell to cell. Pooling the cells' sds instead would count one seed's luck once per cell."""
    import numpy as np
    from scipy import stats

    found = {}
    for model in dict.fromkeys(row["model"] for row in compared):
        def observed(sides, block=seed_block, model=model):
            return [(row["run"], block(side, row, seed), value["transfer_pearson"])
                    for row in compared if row["model"] == model
                    for side in sides for seed, value in row[f"{side}_seeds"].items()]

        # any least-squares solution: the differences of seed effects are the same in all (the cells join the sides)
        cells, blocks, coefficients, _, _ = _fit(observed(SIDES))
        effects = {side: [float(e) for block, e in zip(blocks, coefficients[len(cells):], strict=True)
                          if block[0] == side] for side in SIDES}
        left = {}
        for side in SIDES:
            _, _, _, residuals, freedom = _fit(observed([side], dropout_layer_block))
            left[side] = (float(np.sum(residuals ** 2) / freedom), freedom) if freedom else None
        seed_var = {side: statistics.variance(effects[side]) for side in SIDES}
        test = stats.ttest_ind(effects["ours"], effects["theirs"], equal_var=False)
        found[model] = {
            "cells": len(cells), "seeds": {side: len(effects[side]) for side in SIDES},
            "difference": statistics.fmean(effects["ours"]) - statistics.fmean(effects["theirs"]),
            "t": float(test.statistic), "df": float(test.df), "p": float(test.pvalue),
            "seed_sd": {side: seed_var[side] ** 0.5 for side in SIDES},
            "seed_spread": variance_ratio(seed_var["ours"], len(effects["ours"]) - 1,
                                          seed_var["theirs"], len(effects["theirs"]) - 1),
            "left_sd": {side: left[side] and left[side][0] ** 0.5 for side in SIDES},
            "left_spread": (variance_ratio(*left["ours"], *left["theirs"])
                            if left["ours"] and left["theirs"] else None)}
    return found


def lambda_c_twins(compared: list[dict]) -> dict[str, dict]:
    """Per model, how nearly a cell repeats its twin in λ_c (the same model, dropout and scrambling at the other
    λ_c): the sd of the per-seed differences between twins (each side's seeds both twins have, pooled over the pairs
    and sides) beside the sd of those seeds within a cell. Where the first is much the smaller, a twin nearly repeats
    its runs, and the degrees of freedom of what the seeds' fit leaves count it again."""
    found = {}
    for model in dict.fromkeys(row["model"] for row in compared):
        rows = [row for row in compared if row["model"] == model]
        twins = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1:]
                 if (a["input_dropout"], a["scramble"]) == (b["input_dropout"], b["scramble"])
                 and a["lambda_c"] != b["lambda_c"]]
        apart, within = [], []  # each: (sum of squares about the mean, degrees of freedom)
        for first, second in twins:
            for side in SIDES:
                seeds = [seed for seed in first[f"{side}_seeds"] if seed in second[f"{side}_seeds"]]
                if len(seeds) < 2:
                    continue
                x, y = ([row[f"{side}_seeds"][seed]["transfer_pearson"] for seed in seeds] for row in (first, second))
                apart.append((statistics.variance([b - a for a, b in zip(x, y, strict=True)]) * (len(seeds) - 1),
                              len(seeds) - 1))
                within += [(statistics.variance(values) * (len(seeds) - 1), len(seeds) - 1) for values in (x, y)]
        if apart:
            found[model] = {"pairs": len(apart),
                            "apart_sd": (sum(s for s, _ in apart) / sum(f for _, f in apart)) ** 0.5,
                            "within_sd": (sum(s for s, _ in within) / sum(f for _, f in within)) ** 0.5}
    return found


def by_input_dropout(compared: list[dict]) -> list[dict]:
    """Each model's cells of one input dropout (none, dropout, word dropout), fitted as :func:`seed_effects` fits a
    model's cells: a lean of one kind of dropout alone is diluted in its model's difference. A group of two cells or
    more each: its model, input dropout, difference, t, df and p, and the p adjusted (Holm) for the groups fitted."""
    groups = {}
    for row in compared:
        groups.setdefault((row["model"], row["input_dropout"]), []).append(row)
    found = []
    for (model, dropout), rows in groups.items():
        if len(rows) >= 2:
            fit = seed_effects(rows)[model]
            if fit["p"] == fit["p"]:  # NaN where neither side's seeds' effects vary
                found.append({"model": model, "input_dropout": dropout, "cells": fit["cells"],
                              **{key: fit[key] for key in ("difference", "t", "df", "p")}})
    for group, adjusted in zip(found, holm([group["p"] for group in found]), strict=True):
        group["adjusted_p"] = adjusted
    return found


def by_input_dropout_text(compared: list[dict]) -> str:
    """The sentence on :func:`by_input_dropout`: how many groups were fitted and the one of the smallest p."""
    found = by_input_dropout(compared)
    if not found:
        return ""
    least = min(found, key=lambda group: group["p"])
    return (f"Each model's cells split by input dropout and fitted the same way ({len(found)} groups of two cells or "
            f"more): the smallest p is {least['model']} with {least['input_dropout'].replace('_', ' ')}, "
            f"{least['difference']:+.2f} over {least['cells']} cells (t {least['t']:+.1f} on {least['df']:.1f} "
            f"degrees of freedom, p {p_text(least['p'])}; adjusted (Holm) for the {len(found)} groups, "
            f"{p_text(least['adjusted_p'])}).")


def p_text(p: float) -> str:
    """A p as the summary writes it: two decimals, three below 0.01 (so a small p never reads as 0.00); "undefined"
    where there is none (two spreads both nil)."""
    if p != p:  # NaN
        return "undefined"
    return f"{p:.2f}" if p >= 0.01 else f"{p:.3f}" if p >= 0.001 else "< 0.001"


def seed_effects_text(compared: list[dict]) -> str:
    """The sentence on :func:`seed_effects`: why the cells are not independent, each model's difference and whether
    a side's seeds spread more."""
    parts, twins = [], lambda_c_twins(compared)
    for model, fit in seed_effects(compared).items():
        spread = fit["seed_spread"]
        text = (f"{model} {fit['difference']:+.2f} over {fit['cells']} cell{'s' * (fit['cells'] > 1)} (t "
                f"{fit['t']:+.1f} on {fit['df']:.1f} degrees of freedom, p {p_text(fit['p'])}; seeds' effects ours "
                f"± {fit['seed_sd']['ours']:.2f} over {fit['seeds']['ours']}, theirs ± "
                f"{fit['seed_sd']['theirs']:.2f} over {fit['seeds']['theirs']}, F {spread['F']:.2f}, p "
                f"{p_text(spread['p'])}")
        left = fit["left_spread"]
        if left:
            text += (f"; left within a seed's cells ours ± {fit['left_sd']['ours']:.2f} on {left['df'][0]}, theirs ± "
                     f"{fit['left_sd']['theirs']:.2f} on {left['df'][1]} degrees of freedom, F {left['F']:.2f}, p "
                     f"{p_text(left['p'])}")
        twin = twins.get(model)
        if twin:
            text += (f"; a cell and its twin in λ_c differ seed by seed by ± {twin['apart_sd']:.2f} over "
                     f"{twin['pairs']} of a side's twin pairs, where a cell's seeds spread ± {twin['within_sd']:.2f}")
        parts.append(text + ")")
    return ("A side's seed starts every cell it trains from the same weights (theirs: the same in the cells with a "
            "dropout layer, and the same in those without), and ours takes the pairs in the same order too, so a "
            "seed's luck is in all of its cells and the cells' differences are not independent. Each model's "
            "difference with the seeds' effects fitted out (a cell's mean plus a seed's effect; Welch's t over the "
            "two sides' seeds' effects), and whether a side's seeds spread more (F tests, two-sided: of the seeds' "
            "effects, and of what is left within a seed's cells, each side fitted alone with a seed's effect for the "
            "cells with a dropout layer and another for those without, as theirs has them; a twin in λ_c is the same "
            "cell at the other λ_c, and one that nearly repeats its cell's runs counts again in the degrees of freedom "
            "of what is left): " + "; ".join(parts) + ".")


def _axes(row: dict) -> str:
    return ", ".join([row["model"], f"λ_c {row['lambda_c']:g}", row["input_dropout"].replace("_", " "),
                      f"scrambling {row['scramble']:g}"])


def _seeds(side: dict) -> str:
    return spread([v["transfer_pearson"] for v in side.values()])


def markdown(result: dict) -> str:
    lines = ["Their code as they ran it (reading the raw SimpWiki files and word vector file itself) and ours "
             f"(`data.reading: {result['reading']}`, params.yaml's) over the cells of the regularisation axes the "
             "offline profile thins: each axis off and at the value the profile keeps (margin and λ_w at theirs); each "
             "cell's STS 2016-selected 22-set mean Pearson (× 100), the seeds' mean ± sample sd, the difference "
             "(ours − theirs), whether it lies within the seeds' spread (the larger sd) and Welch's t. A run named "
             "`cells-…` is a cell the thinned grids do not train.", "",
             "| run | model | λ_c | input dropout | scrambling | seeds (theirs / ours) | theirs | ours | difference "
             "| within the spread | t |", "|---|---|---:|---|---:|---:|---:|---:|---:|---|---:|"]
    for row in result["rows"]:
        compared = ((f"{row['difference']:+.2f} | {'yes' if row['within'] else 'no'} | {row['t']:+.1f} |")
                    if "difference" in row else "– | – | – |")
        lines.append(f"| {row['run']} | {row['model']} | {row['lambda_c']:g} | "
                     f"{row['input_dropout'].replace('_', ' ')} | {row['scramble']:g} | {len(row['theirs_seeds'])} / "
                     f"{len(row['ours_seeds'])} | {_seeds(row['theirs_seeds'])} | {_seeds(row['ours_seeds'])} | "
                     + compared)
    commits = {side: sorted({v["commit"] or "unrecorded" for row in result["rows"]
                             for v in row[f"{side}_seeds"].values()}) for side in SIDES}
    lines += ["", summary(result["rows"]), "",
              f"Theirs measured at {', '.join(commits['theirs']) or '–'}; ours trained at "
              f"{', '.join(commits['ours']) or '–'}; tabled at {result['commit']} by "
              "`fidelity/grid_cells.py`."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?", help="a checkout of jwieting/acl2017 (holds main/train.py; "
                        "not needed with --table or --sides ours)")
    parser.add_argument("--models", nargs="+", help="the models whose cells to train (default: all: Table 4's and "
                        "Table 2's LSTM); the table always holds every model's cells")
    parser.add_argument("--cells", nargs="+", metavar="RUN", help="train only these cells (their run names)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--sides", nargs="+", choices=SIDES, default=list(SIDES), help="train these sides' jobs")
    parser.add_argument("--data", type=Path, default=REPO / "data", help="the project's data folder")
    parser.add_argument("--work", type=Path, default=REPO / "work" / "cells",
                        help="both sides' jobs, kept across sessions (default: %(default)s)")
    parser.add_argument("--lasagne", default=LASAGNE, help="Lasagne to install: a pip source (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads a job of ours (default: %(default)s)")
    parser.add_argument("--theirs", type=Path, default=HERE / "results" / "authors_code_raw.json",
                        help="run.py --raw's earlier result, whose seeds of a cell's run count too")
    parser.add_argument("--table", action="store_true", help="only assemble the table (the tables' seeds and WORK's "
                        "jobs)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.json and OUT.md (default: %(default)s)")
    parser.add_argument("--tabled", type=Path, help="another table of the cells, whose seeds count where OUT.json "
                        "has none (OUT.json's always count)")
    parser.add_argument("--retrain", action="store_true", help="train the seeds asked for though a table holds them "
                        "(the new values replace the tabled ones)")
    args = parser.parse_args(argv)
    config = cfg.load(REPO / "params.yaml")
    every = list(base_rows(config))
    unknown = sorted(set(args.models or []) - set(every))
    if unknown:
        parser.error(f"--models: {unknown[0]!r} has no cells (models: {', '.join(every)})")
    # every model's cells, whichever train: a table of some models would drop the others' tabled seeds
    runs, models = cells(config, every)
    chosen = [run for run, model in models.items() if model in (args.models or every)]
    if args.cells:
        unknown = sorted(set(args.cells) - set(chosen))
        if unknown:
            parser.error(f"--cells: {unknown[0]!r} is no cell of the models {args.models or every}")
    todo = [run for run in chosen if not args.cells or run in args.cells]
    work = args.work
    if not args.table:
        for needed in ("raw/FETCHED.json", "corpus/eval.parquet", "vocab/vocab.txt"):
            if not (args.data / needed).is_file():
                parser.error(f"{args.data / needed}: no such file (run `snakemake --cores 2 data/vocab/vocab.txt`)")
        work.mkdir(parents=True, exist_ok=True)
        if "theirs" in args.sides:
            if args.checkout is None or not (args.checkout / "main" / "train.py").is_file():
                parser.error(f"{args.checkout}: no main/train.py (a checkout of jwieting/acl2017 is needed)")
            install(work, args.lasagne)
            shutil.copytree(args.checkout / "main", work / "main", dirs_exist_ok=True, copy_function=_copied_whole)
            record = convert.convert(work, data=args.data, raw=True, config=config)
            digest = " ".join(part["sha256"] for part in [*record["training_pairs"], record["vectors"]])
            sets = [spec.id for spec in EVAL_SETS if spec.id in {e["dataset"] for e in record["eval_sets"]}]
        if "ours" in args.sides:
            prepare(config, config["data"]["reading"], args.data, work / "ours")
    earlier = earlier_theirs(args.theirs, set(models))

    def recorded() -> dict:  # --tabled's seeds, and OUT.json's over them
        out, extra = tabled(args.out.with_suffix(".json"), set(models)), tabled(args.tabled, set(models))
        return {run: {side: {**extra.get(run, {}).get(side, {}), **out.get(run, {}).get(side, {})} for side in SIDES}
                for run in {*out, *extra}}

    before = {} if args.retrain else recorded()
    if not args.table:
        for run in todo:
            prior = before.get(run, {})
            # a cell that is a grid run has the seeds run.py --raw measured of theirs: ours trains those seeds too
            for seed in sorted(set(args.seeds) | set(earlier.get(run, {}))):
                settings = dataclasses.replace(experiment(config, run, runs), seed=seed)
                measured = seed in earlier.get(run, {}) or seed in prior.get("theirs", {})
                held = claim(work, run, seed) if "theirs" in args.sides and not measured else None
                if held is not None:
                    points = work / "points" / f"{run}.seed{seed}.json"
                    history = train_theirs(work, settings, seed, record["vectors"]["dim"], sets,
                                           config["evaluation"]["selection"], digest)
                    kept = json.loads(points.read_text())
                    if "commit" not in kept:  # the code of ours the run was compared with when it was measured
                        write_json(points, {**kept, "commit": commit()})
                    held.close()
                    print(f"theirs {run} seed {seed}: 22 sets "
                          f"{selected(history, settings.evaluate_every)['transfer_pearson']:.2f}", flush=True)
                if "ours" in args.sides and seed not in prior.get("ours", {}):
                    info = train_job(config, runs, run, seed, args.data, work / "ours", args.threads)
                    print(f"ours {run} seed {seed}: 22 sets {info['transfer_pearson']:.2f}", flush=True)
    result = {"commit": commit(), "reading": config["data"]["reading"], "seeds": args.seeds,
              "rows": table(config, runs, models, work, earlier, recorded())}
    publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
