"""The report's supervised section: Tables 5, 6 and 8 (Sec. 4.3) beside the paper's, the data and the selection."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from paraphrastic.configuration import grids
from paraphrastic.data.supervised_splits import TASKS
from paraphrastic.evaluation.selection import SupervisedSelection
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report.document import Document, paper_rows, paper_table, supervised_scope

TASK_LABELS = {"sts": "STS", "sick": "SICK"}


def _paper_value(found, column: str) -> float:
    return math.nan if found is None or column not in found else float(found[column])


def results_table(sel: SupervisedSelection, row_ids: list[str], paper: pd.DataFrame | None, *,
                  with_regularization: bool = True, with_average: bool = True) -> pd.DataFrame:
    rows = []
    for row in row_ids:
        label = sel.labels[row]
        match = {"model": label["model"], **({"regularization": label["regularization"]} if with_regularization
                                             else {})}
        found = paper_rows(paper, **match)
        entry = dict(match)
        entry["runs"] = len(sel.rows[row])
        for task in TASKS:
            entry[f"{TASK_LABELS[task]} (ours)"] = sel.shown(row, task)
            entry[f"{TASK_LABELS[task]} (paper)"] = _paper_value(found, task)
        if with_average:
            entry["Avg. (ours)"] = float(np.mean([sel.score(row, t) for t in TASKS]))
            entry["Avg. (paper)"] = _paper_value(found, "avg")
        rows.append(entry)
    return pd.DataFrame(rows)


def supervised_findings(config: dict, sel: SupervisedSelection) -> list[str]:
    """The paper's claims about Tables 5, 6 and 8, checked against this run's test scores."""
    lines = []
    table5 = config["supervised"]["report"]["table5"]
    for task in TASKS:
        scored = {row: sel.score(row, task) for row in table5 if not math.isnan(sel.score(row, task))}
        if scored:
            best = max(scored, key=scored.get)
            label = sel.labels[best]
            lines.append(f"Table 5, {TASK_LABELS[task]}: the best row is {label['model']} ({label['regularization']}) "
                         f"with {scored[best]:.1f}; the paper's best is GRAN on both datasets.")
    for base, universal in config["supervised"]["report"]["table8"]:
        for task in TASKS:
            a, b = sel.score(base, task), sel.score(universal, task)
            if not (math.isnan(a) or math.isnan(b)):
                lines.append(f"Table 8, {sel.labels[base]['model']} on {TASK_LABELS[task]}: universal "
                             f"initialisation and regularisation {'helps' if b > a else 'does not help'} here "
                             f"({a:.1f} -> {b:.1f}, {b - a:+.1f}); in the paper it helps every model.")
    return lines


def supervised_section(doc: Document, config: dict, data_dir: Path, sel: SupervisedSelection) -> dict:
    """Tables 5, 6 and 8 and the data and selection behind them; returns their metrics."""
    sup = config["supervised"]
    stats = read_result(DataLayout(data_dir).supervised / "stats.json")
    train = sup["train"]
    scope = supervised_scope(config, stats, sel)
    doc.heading("Supervised similarity: Tables 5, 6 and 8 (Sec. 4.3)", scope=scope)
    doc.para("Each encoder is trained under Tai et al.'s (2015) head (h× = hL ⊙ hR, h+ = |hL − hR|, a "
             f"{train['head_dim']}-unit sigmoid layer, a softmax over the integer scores) with KL(p ‖ p̂) against "
             f"the sparse target p; {train['epochs']} epochs, batch {train['batch_size']}, Adam "
             f"{train['learning_rate']}. A row's model is the run and epoch with the best validation Pearson; "
             "the numbers are its test Pearson × 100. Universal rows start from the transfer row's "
             "STS-2016-selected model and regularise back to it.")
    keep = (sup.get("thinning") or {}).get(config["data_profile"]) or {}
    if keep:
        full = len(grids.expand_supervised(dict(config, supervised=dict(sup, thinning={})))[0])
        doc.para(f"Tuning grids thinned for this profile to {len(sel.runs)} of the {full:,} runs (per task) the "
                 "config's grids hold unthinned, "
                 "keeping only: " + ", ".join(f"{k} {v}" for k, v in keep.items()) + ".")
    rows = []
    for task in TASKS:
        for split, count in stats[task]["splits"].items():
            rows.append({"task": TASK_LABELS[task], "split": split, "pairs (ours)": f"{count:,}",
                         "pairs (paper)": f"{stats[task]['paper'][split]:,}"})
    doc.para(f"Data: STS pools {len(stats['sts']['sets'])} STS 2012-2015 sets, each shuffled with seed "
             f"{sup['split']['seed']} and split {sup['split']['train']:.0%} / {sup['split']['validation']:.0%} / rest; "
             "SICK uses its official train / trial / test files. Words outside the transfer vocabulary map to `<unk>` "
             "(the universal rows need the transfer models' word ids).")
    doc.table(pd.DataFrame(rows), caption="Pair counts per split.")

    caption = "Test Pearson's r × 100 of the validation-selected model, as the paper prints it."
    doc.heading("Table 5: supervised training (test Pearson × 100)", 3, scope)
    doc.table(results_table(sel, sup["report"]["table5"], paper_table(config, "wieting2017_table5")),
              caption=caption)
    doc.heading("Table 6: GRAN variants, supervised (test Pearson × 100)", 3, scope)
    doc.table(results_table(sel, sup["report"]["table6"], paper_table(config, "wieting2017_table6"),
                            with_regularization=False), caption=caption)
    doc.heading("Table 8: initialising and regularising toward the universal (transfer) models (test Pearson × 100)",
                3, scope)
    doc.table(results_table(sel, [r for pair in sup["report"]["table8"] for r in pair],
                            paper_table(config, "wieting2017_table8"), with_average=False), caption=caption)

    doc.heading("Supervised model selection per row and task", 3)
    rows = []
    for (row, task), (run, epochs) in sel.chosen.items():
        rows.append({"row": row, "task": TASK_LABELS[task], "runs": len(sel.rows[row]), "selected run": run,
                     "epoch": ",".join(str(e["epoch"]) for _, e in sorted(epochs.items())),
                     "validation r": sel.score(row, task, "validation_pearson"), "test r": sel.score(row, task),
                     "test ρ": sel.score(row, task, "test_spearman"),
                     "test MSE": f"{sel.score(row, task, 'test_mse'):.3f}",
                     "train s": float(np.mean([sel.trains[(task, run, s)]["train_seconds_total"] for s in epochs]))})
    doc.table(pd.DataFrame(rows), caption="r and ρ × 100; MSE is not a correlation (squared error against the gold "
              "scores, on their scale); train s: seconds.")
    training = sum(t["train_seconds_total"] for t in sel.trains.values())
    calls = sum(t["wall_seconds_this_call"] for t in sel.trains.values())
    doc.para(f"{len(sel.jobs)} supervised jobs: {training / 60:.1f} min of training passes in all, "
             f"{calls / 60:.1f} min of wall time in the calls that finished them (a job resumed after an "
             "interruption counts only its last call; per-epoch scoring is in the wall time, not the passes).")
    doc.bullets(supervised_findings(config, sel))
    return {f"{row}.{task}": {"test": sel.score(row, task), "validation": sel.score(row, task, "validation_pearson")}
            for (row, task) in sel.chosen}


