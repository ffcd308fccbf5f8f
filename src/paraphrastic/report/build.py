"""The report, assembled: every section in order, then report.md, report.html, metrics.json and
timings.json.

Each section is a module of this package that writes its blocks into the :class:`Document` and returns its
metrics.json entry where it has one; model selection is :mod:`paraphrastic.evaluation.selection`'s, made
once here for every section that reports a transfer or supervised row.
"""

from __future__ import annotations

import os
from pathlib import Path

from paraphrastic.atomic import write_json, write_text
from paraphrastic.configuration import params
from paraphrastic.evaluation.selection import Selection, SupervisedSelection
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report import (
    compare_encoders,
    data,
    distilled,
    error_analysis,
    gates,
    pwim,
    siamese_cbow,
    supervised,
    transfer,
)
from paraphrastic.report.compare_metrics import EVALUATED
from paraphrastic.report.document import Document, transfer_scope, transfer_set_count
from paraphrastic.report.findings import findings

TITLE = "Paraphrastic sentence embeddings: transfer, supervised and analysis results"


def introduction(doc: Document, config: dict, sel: Selection) -> None:
    doc.heading(TITLE, 1)
    selection = len(config["evaluation"]["selection"])
    selection_sets = "the STS 2016 set" if selection == 1 else f"the {selection} STS 2016 sets"
    doc.para(f"Wieting & Gimpel (ACL 2017), Sections 3-5, reproduced with data profile `{config['data_profile']}`: "
             f"{len(sel.runs)} training runs ({len(sel.histories)} jobs, one per run and seed) in "
             f"{len(sel.rows)} table rows. Every correlation is printed × 100 as the papers' tables print them "
             "(Pearson's r unless the column says Spearman's ρ), the papers' own numbers included; a table whose "
             "numbers are something else (gate norms, similarity scores on the 0-5 scale, MSE, seconds) says so "
             "in its caption. Our numbers are computed by this run; the papers' are read from "
             f"`{shown_path(config['paper_tables'])}`. \"STS 2016\" is the paper's \"test\" model selection (best "
             "mean over "
             f"{selection_sets} this config selects on, over every run and epoch of a row); \"oracle\" selects on "
             f"the {transfer_set_count(sel)}-set mean.")
    scope = transfer_scope(config, sel)
    if scope:
        doc.para(f"**What this config evaluated:** {scope.strip()[1:-1]}. Headings say so wherever a table "
                 "covers less than the paper's; the numbers are not comparable with the paper's in size.")


def shown_path(path: str) -> str:
    """A path as the report prints it: relative to where the report was made, so that no absolute path of the
    machine it ran on (the quick look's config holds absolute ones) lands in a page a reader sees."""
    return os.path.relpath(path) if os.path.isabs(path) else path


def build_report(config: dict, *, data_dir: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    sel = Selection(config, data_dir)
    results = DataLayout(data_dir).results
    baseline_results = read_result(results / "baseline.json")
    baseline = baseline_results["summary"]["transfer_pearson"]

    doc = Document()
    introduction(doc, config, sel)
    data.deviations_section(doc, config, data_dir, sel)
    data.data_section(doc, data_dir)
    reference_metrics = {}
    if transfer.tables_section(doc, config, sel, baseline_results):
        reference_metrics = compare_encoders.reference_section(doc, data_dir, out_dir)  # beside Table 4's models
    baselines = {"pretrained": baseline_results,
                 "distilled": read_result(results / "baseline_distilled.json"),
                 "sentence_distilled": read_result(results / "baseline_sentence_distilled.json")}
    distilled_metrics = distilled.distilled_section(doc, config, data_dir, sel, baselines)
    transfer.selection_section(doc, sel, config)
    transfer.runs_section(doc, sel, out_dir)
    transfer.learning_curves_section(doc, config, sel, out_dir)
    gates.gate_section(doc, config, data_dir, out_dir)
    supervised_sel = SupervisedSelection(config, data_dir)
    supervised_metrics = supervised.supervised_section(doc, config, data_dir, supervised_sel)
    error_analysis.error_section(doc, config, data_dir)
    seed_system_metrics = {"siamese_cbow": siamese_cbow.siamese_section(doc, config, data_dir),
                           "pwim": pwim.pwim_section(doc, config, data_dir, sel, supervised_sel)}
    doc.heading("Findings from this run" + transfer_scope(config, sel))  # a capped config's findings say so too
    doc.bullets(findings(config, sel, baseline))

    write_text(out_dir / "report.md", doc.markdown(out_dir))
    write_text(out_dir / "report.html", doc.html("Paraphrastic sentence embeddings report"))
    metrics = transfer.metrics(sel, baseline)
    metrics["baseline_distilled"], metrics["baseline_sentence_distilled"] = distilled_metrics
    metrics["supervised"] = supervised_metrics
    if reference_metrics:
        metrics["reference_encoder"] = {name: {key: m[key] for key in ("transfer_pearson", "mteb_sts_spearman")
                                               if key in m} for name, m in reference_metrics.items()}
    metrics.update(seed_system_metrics)
    # what the means are over, so that two runs' metrics of different configs are not read as one config's change
    metrics[EVALUATED] = {"transfer_sets": sum(spec.transfer for spec in params.eval_sets(config)),
                          "selection_sets": len(params.selection_ids(config))}
    write_json(out_dir / "metrics.json", metrics)
    write_json(out_dir / "timings.json", timings(sel, supervised_sel, reference_metrics))
    return out_dir / "report.md"


def timings(sel: Selection, supervised_sel: SupervisedSelection, reference_metrics: dict) -> dict:
    """timings.json: what this run's hardware measured, kept out of metrics.json so that `dvc metrics diff` and
    `dvc exp show` compare scores (speeds differ between two runs of the same experiment). Per-job times are
    in runs.csv."""
    def training(trains: dict) -> dict:  # the training passes alone (per-epoch evaluation is not timed here)
        return {"jobs": len(trains), "train_seconds": sum(info["train_seconds_total"] for info in trains.values())}

    return {"transfer_training": training(sel.trains), "supervised_training": training(supervised_sel.trains),
            "reference_encoder_sentences_per_second": {name: m["sentences_per_second"]
                                                       for name, m in reference_metrics.items()}}
