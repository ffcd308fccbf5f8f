"""The report, assembled: every section in order, then report.md, report.html and metrics.json.

Each section is a module of this package that writes its blocks into the :class:`Document` and returns its
metrics.json entry where it has one; model selection is :mod:`paraphrastic.evaluation.selection`'s, made
once here for every section that reports a transfer or supervised row.
"""

from __future__ import annotations

from pathlib import Path

from paraphrastic.atomic import write_json, write_text
from paraphrastic.evaluation.selection import Selection, SupervisedSelection
from paraphrastic.report import data, error_analysis, gates, pwim, reference, siamese_cbow, supervised, transfer
from paraphrastic.report.document import Document, read_json
from paraphrastic.report.findings import findings

TITLE = "Paraphrastic sentence embeddings: transfer, supervised and analysis results"


def introduction(doc: Document, config: dict, sel: Selection) -> None:
    doc.heading(TITLE, 1)
    doc.para(f"Wieting & Gimpel (ACL 2017), Sections 3-5, reproduced with data profile `{config['data_profile']}`: "
             f"{len(sel.runs)} training runs ({len(sel.histories)} jobs, one per run and seed) in "
             f"{len(sel.rows)} table rows. All numbers are Pearson's r × 100 "
             "(Spearman where stated), computed by this run; the paper's numbers are read from "
             f"`{config['paper_tables']}`. \"STS 2016\" is the paper's \"test\" model selection (best mean over "
             "the 5 STS 2016 sets, over every run and epoch of a row); \"oracle\" selects on the 22-set mean.")


def build_report(config: dict, *, data_dir: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    sel = Selection(config, data_dir)
    baseline_results = read_json(data_dir / "results" / "baseline.json")
    baseline = baseline_results["summary"]["transfer_pearson"]

    doc = Document()
    introduction(doc, config, sel)
    data.deviations_section(doc, config, data_dir, sel)
    data.data_section(doc, data_dir)
    reference_metrics = {}
    if transfer.tables_section(doc, config, sel, baseline_results):
        reference_metrics = reference.reference_section(doc, data_dir)  # beside Table 4's models
    transfer.selection_section(doc, sel)
    transfer.runs_section(doc, sel, out_dir)
    transfer.learning_curves_section(doc, config, sel, out_dir)
    gates.gate_section(doc, config, data_dir, out_dir)
    supervised_sel = SupervisedSelection(config, data_dir)
    supervised_metrics = supervised.supervised_section(doc, config, data_dir, supervised_sel)
    error_analysis.error_section(doc, config, data_dir)
    seed_system_metrics = {"siamese_cbow": siamese_cbow.siamese_section(doc, config, data_dir),
                           "pwim": pwim.pwim_section(doc, config, data_dir, sel, supervised_sel)}
    doc.heading("Findings from this run")
    doc.bullets(findings(config, sel, baseline))

    write_text(out_dir / "report.md", doc.markdown(out_dir))
    write_text(out_dir / "report.html", doc.html("Paraphrastic sentence embeddings report"))
    metrics = transfer.metrics(sel, baseline)
    metrics["supervised"] = supervised_metrics
    if reference_metrics:
        metrics["reference_encoder"] = reference_metrics
    metrics.update(seed_system_metrics)
    write_json(out_dir / "metrics.json", metrics)
    return out_dir / "report.md"
