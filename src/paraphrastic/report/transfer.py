"""The report's transfer sections (Wieting & Gimpel 2017, Sec. 4.1-4.2): Tables 1-4 beside the paper's, how
each row's model was selected, every training job with its wall time, and the learning curves."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: cluster nodes and CI have no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from paraphrastic.atomic import atomic_path, write_text  # noqa: E402
from paraphrastic.configuration.settings import TransferSettings  # noqa: E402
from paraphrastic.evaluation.selection import Selection  # noqa: E402
from paraphrastic.report.document import (  # noqa: E402
    Document,
    paper_rows,
    paper_table,
    per_dataset_table,
    transfer_scope,
    transfer_set_count,
)

SCALE = "Pearson's r × 100, as the paper prints it"


GRID_CAPTION = f"Mean over the transfer sets; {SCALE}. runs, seeds: what each row was selected from."


def grid_table(sel: Selection, row_ids: list[str], paper: pd.DataFrame | None, *, with_regularization: bool):
    rows = []
    for row in row_ids:
        label = sel.labels[row]
        entry = {"model": label["model"]}
        match = {"model": label["model"]}
        if with_regularization:
            entry["regularization"] = label["regularization"]
            match["regularization"] = label["regularization"]
        found = paper_rows(paper, **match)
        entry.update({"runs": len(sel.rows[row]), "seeds": len(sel.scores(row)),
                      "oracle (ours)": sel.shown(row, "oracle"), "STS 2016 (ours)": sel.shown(row, "test"),
                      "oracle (paper)": math.nan if found is None else float(found["oracle"]),
                      "STS 2016 (paper)": math.nan if found is None else float(found["sts2016"])})
        rows.append(entry)
    return pd.DataFrame(rows)


def tables_section(doc: Document, config: dict, sel: Selection, baseline_results: dict) -> bool:
    """Tables 1-4 (those params.yaml's ``report`` fills); True when Table 4 was written."""
    table1 = config["report"]["table1"]
    n_sets = transfer_set_count(sel)  # 22, the paper's, unless the config scores fewer
    if table1:
        rows1 = [r for c in table1.values() for r in c.values()]
        doc.heading(f"Table 1: training data (STS 2016 model selection, {n_sets}-set mean)",
                    scope=transfer_scope(config, sel, rows1))
        paper1 = paper_table(config, "wieting2017_table1")
        rows = []
        for data_name, cols in table1.items():
            row = {"training data": data_name}
            for model, row_id in cols.items():
                row[f"{model} (ours)"] = sel.shown(row_id)
                found = paper_rows(paper1, training_data=data_name)
                row[f"{model} (paper)"] = math.nan if found is None or model not in found else float(found[model])
            rows.append(row)
        doc.table(pd.DataFrame(rows), caption=f"Mean over the transfer sets; {SCALE}.")

    if config["report"].get("table2"):
        doc.heading(f"Table 2: regularization ({n_sets}-set mean)",
                    scope=transfer_scope(config, sel, config["report"]["table2"]))
        doc.table(grid_table(sel, config["report"]["table2"], paper_table(config, "wieting2017_table2"),
                             with_regularization=True), caption=GRID_CAPTION)
    if config["report"].get("table3"):
        doc.heading(f"Table 3: GRAN variants ({n_sets}-set mean)",
                    scope=transfer_scope(config, sel, config["report"]["table3"]))
        doc.table(grid_table(sel, config["report"]["table3"], paper_table(config, "wieting2017_table3"),
                             with_regularization=False), caption=GRID_CAPTION)

    table4 = config["report"]["table4"]
    if not table4:
        return False
    doc.heading("Table 4: per-dataset results (STS 2016 model selection)",
                scope=transfer_scope(config, sel, list(table4.values())))
    results = {row: sel.as_results(row) for row in table4.values()}
    results["baseline"] = baseline_results
    columns = {f"{m} (ours)": row for m, row in table4.items()}
    columns["initial vectors (ours)"] = "baseline"
    paper4 = paper_table(config, "wieting2017_table4")
    doc.table(per_dataset_table(results, columns, paper4, {f"{m} (paper)": m for m in table4}),
              caption=f"{SCALE}; the year averages in the paper's columns are the paper's printed ones.")
    doc.heading("Table 4, Spearman's ρ × 100", 3)
    doc.table(per_dataset_table(results, columns, None, {}, metric="spearman"),
              caption="Spearman's ρ × 100 (the paper prints Pearson only).")
    return True


# Where training may follow the authors' code or not (a `train` setting), what each value does, for the report
TRAINING_CHOICES = {
    "negative_pass": {
        "deterministic": "in a run with dropout, each pair's hardest negatives are chosen on the batch embedded "
                         "without dropout and embedded by a training pass of their own, as in the authors' code",
        "training": "in a run with dropout, each pair's hardest negatives are chosen on the loss's own dropout pass "
                    "(the authors' code: on a pass without dropout)"},
    "evaluate_every": {
        "quarter": "a run is scored and selected at each quarter of an epoch and its end, as the authors' code scores "
                   "(a fractional epoch is a point inside one)",
        "epoch": "a run is scored and selected at each epoch's end (the authors' code also scores each quarter)"},
    "word_dropout_rescale": {
        True: "word dropout scales the kept words by 1/(1 − p), as the authors' code",
        False: "word dropout does not scale the kept words (the authors' code: by 1/(1 − p))"},
    "gate_init": {
        "normal": "GRAN's gates start at N(0, 0.1²) with a zero bias, as the authors' code's",
        "uniform": "GRAN's gates start at nn.Linear's uniform default (the authors' code: N(0, 0.1²), a zero bias)"},
    "gran5_readout": {
        "last": "GRAN-5's sentence is its last token's gated sum, as in the authors' code",
        "mean": "GRAN-5's sentence is the mean over its tokens, as the paper's text has it (the authors' code: the "
                "last token's)"},
    "gate_per_direction": {
        True: "BiGRAN gates each direction's states and combines the gated words, as the authors' code",
        False: "BiGRAN has one gate over the combined states (the authors' code: a gate for each direction)"},
    "halve_penalties": {
        True: "the penalties are ½λ‖·‖², as the authors' code applies a λ",
        False: "the penalties are λ‖·‖², as the paper's Eq. 4 (the authors' code: ½λ‖·‖²)"},
    "adam_epsilon": {
        "uncorrected": "Adam adds its ε to the root of the uncorrected second moment, as Lasagne's adam in the "
                       "authors' code",
        "corrected": "Adam adds its ε to the root of the bias-corrected second moment, as torch's Adam (the authors' "
                     "code: Lasagne's, to the uncorrected one)"},
}


def training_choices(config: dict) -> str:
    """Where the training follows the authors' code and where not, as ``train`` sets it (:data:`TRAINING_CHOICES`)."""
    chosen = {key: config["train"].get(key, getattr(TransferSettings, key)) for key in TRAINING_CHOICES}
    as_yaml = {True: "true", False: "false"}
    parts = [f"{TRAINING_CHOICES[key][value]} (`train.{key}: {as_yaml.get(value, value)}`)"
             for key, value in chosen.items()]
    return "How training follows the authors' code (a row may set each itself): " + "; ".join(parts) + "."


def selection_section(doc: Document, sel: Selection, config: dict | None = None) -> None:
    """Which run and epoch each row selected, on STS 2016 and on the oracle, and the seeds' spread."""
    doc.heading("Model selection per row", scope=transfer_scope(config, sel) if config else "")
    mean = f"{transfer_set_count(sel)}-set"  # the paper's 22, unless the config scores fewer
    rows = []
    for row, choice in sel.chosen.items():
        (test_run, test_epochs), (oracle_run, oracle_epochs) = choice["test"], choice["oracle"]
        rows.append({"row": row, "runs": len(sel.rows[row]), "seeds": len(test_epochs), "test run": test_run,
                     "epoch": ",".join(str(e["epoch"]) for _, e in sorted(test_epochs.items())),
                     "STS16": float(np.mean(sel.scores(row, "test", "selection_pearson"))),
                     f"{mean} (test)": sel.shown(row, "test"), "oracle run": oracle_run,
                     "oracle epoch": ",".join(str(e["epoch"]) for _, e in sorted(oracle_epochs.items())),
                     f"{mean} (oracle)": sel.shown(row, "oracle")})
    doc.para("With several seeds a run is scored by its seeds' mean (each seed at its own selected epoch; "
             "`epoch` lists them by seed) and shown as mean ± sample sd.")
    if config:
        doc.para(training_choices(config))
    doc.table(pd.DataFrame(rows), caption=f"STS16, {mean}: mean Pearson's r × 100 over the STS 2016 and the "
              "transfer sets.")
    replicated = [row for row in sel.rows if len(sel.scores(row)) > 1]
    if replicated:
        doc.heading("Seed variation (rows trained with several seeds)")
        doc.table(pd.DataFrame([{"row": row, "run": sel.chosen[row]["test"][0], "seeds": len(sel.scores(row)),
                                 f"{mean} per seed": ", ".join(f"{v:.1f}" for v in sel.scores(row)),
                                 "mean": sel.score(row), "sd": sel.sd(row),
                                 "range": max(sel.scores(row)) - min(sel.scores(row))} for row in replicated]),
                  caption=f"{mean} mean Pearson's r × 100 per seed; sd and range in the same units.")


def runs_section(doc: Document, sel: Selection, out_dir: Path) -> None:
    """Every transfer job with its settings and wall time; the same table as runs.csv beside the report."""
    doc.heading("Training runs and wall time per job")
    run_rows = []
    for row, names in sel.rows.items():
        for name in names:
            settings = sel.runs[name]
            for seed in sel.seeds[name]:
                info = sel.trains[(name, seed)]
                run_rows.append({"run": name, "seed": seed, "row": row, "model": settings["model"],
                                 "train set": settings["train_set"],
                                 "settings": ", ".join(f"{k}={v}" for k, v in sorted(settings.items())
                                                       if k not in ("model", "train_set", "epochs", "seeds")),
                                 "epochs": settings["epochs"], "train s": info["train_seconds_total"],
                                 "job s": info["wall_seconds_this_call"], "device": info["device"]})
    runs_frame = pd.DataFrame(run_rows)
    write_text(out_dir / "runs.csv", runs_frame.to_csv(index=False))
    doc.para(f"{len(run_rows)} jobs, {runs_frame['job s'].sum() / 60:.1f} min of job wall time in all "
             "(`job s`: the training job's wall time including per-epoch evaluation; `train s`: the "
             "training passes alone). The manifest of runs and settings is `runs.csv` beside this report.")
    doc.table(runs_frame, caption="Times in seconds; no correlations here.")


CURVE_PANELS = (("loss", "Training loss", "loss (margin + regularization)"),
                ("selection_pearson", "STS 2016 mean (model selection)", "mean Pearson's r × 100"),
                ("transfer_pearson", "Mean over the transfer sets", "mean Pearson's r × 100"))


def learning_curves(histories: dict[str, pd.DataFrame], path: Path):
    """One panel per quantity, one line per row; returns the figure (closed: for checking its labels)."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    for name, frame in histories.items():
        for ax, (key, _, _) in zip(axes, CURVE_PANELS, strict=True):
            ax.plot(frame["epoch"], frame[key], marker="o", label=name)
    epochs = sorted({int(e) for frame in histories.values() for e in frame["epoch"]})
    for ax, (_, title, ylabel) in zip(axes, CURVE_PANELS, strict=True):
        ax.set_title(title)
        ax.set_xlabel("epoch")
        ax.set_ylabel(ylabel)
        ax.set_xticks(epochs)
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="table row", loc="center right", fontsize=9, title_fontsize=9)
    fig.suptitle("Learning curves: training loss and mean Pearson's r × 100 per epoch")
    fig.tight_layout(rect=(0, 0, 0.83, 1))
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return fig


def learning_curves_section(doc: Document, config: dict, sel: Selection, out_dir: Path) -> None:
    """Loss, STS 2016 and 22-set mean per epoch of the rows in Tables 1 and 4 (first seed of the selected run)."""
    plot = out_dir / "learning_curves.png"
    shown = {}
    table1, table4 = config["report"]["table1"], config["report"]["table4"]
    for row in dict.fromkeys([*table4.values(), *(r for c in table1.values() for r in c.values())]):
        run, seed, _ = sel.first_seed(row)
        epochs = [{k: v for k, v in h.items() if not k.startswith("per_dataset")}
                  for h in sel.histories[(run, seed)]]
        shown[row] = pd.DataFrame(epochs)
    learning_curves(shown, plot)
    doc.heading("Learning curves (the STS-2016-selected run of each row in Tables 1 and 4; its first seed)",
                scope=transfer_scope(config, sel, list(shown)))
    doc.image(plot, f"Three line charts against the training epoch, one line for each of {len(shown)} table rows "
              "(the STS-2016-selected run, first seed): the training loss, the mean Pearson's r × 100 on the STS "
              "2016 sets that select the model, and the mean Pearson's r × 100 over the transfer sets.")
    doc.para("The training loss need not fall within an epoch: each batch's margin loss is taken against its hardest "
             "negatives as the model stands, and as the sentence vectors move apart from their first, near-identical "
             "averages, the nearest wrong sentence moves nearer to each pair; a short run on few pairs (the tiny "
             "config) shows that rise most.")


def metrics(sel: Selection, baseline: float) -> dict:
    """metrics.json's transfer entries: each row's selected score (with its seeds' sd), and the baseline."""
    entries = {}
    for row in sel.rows:
        entries[row] = {"test": sel.score(row, "test"), "oracle": sel.score(row, "oracle")}
        if len(sel.scores(row)) > 1:
            entries[row].update(test_sd=sel.sd(row, "test"), oracle_sd=sel.sd(row, "oracle"),
                                seeds=len(sel.scores(row)))
    entries["baseline"] = {"test": baseline, "oracle": baseline}
    return entries
