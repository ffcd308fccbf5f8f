"""The report's error analysis (Sec. 5.1, Table 7): where avg and LSTMavg over- or underestimate gold."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from paraphrastic.data import datasets
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report.document import Document, label, paper_table


def error_section(doc: Document, config: dict, data_dir: Path) -> None:
    """Table 7: pairs where avg or LSTMavg over- or underestimates gold relative to the other."""
    folder = DataLayout(data_dir).error_analysis
    summary = read_result(folder / "summary.json")
    examples = pd.read_csv(folder / "examples.csv", keep_default_na=False)
    names = list(summary["models"])
    sts_all = sum(s.transfer and s.group.startswith("STS") for s in datasets.EVAL_SETS)
    scope = (f" ({label(config)}: {summary['datasets']} of {sts_all} STS 2012-2015 sets)"
             if summary["datasets"] < sts_all else "")
    doc.heading("Table 7: error analysis of avg and LSTMavg (Sec. 5.1)", scope=scope)
    models = "; ".join(f"{name}: run {m['run']} (seed {m['seed']}, epoch {m['epoch']}), row {m['row']}"
                       for name, m in summary["models"].items())
    scaling = {"minmax": "each model's lowest cosine -> 0 and highest -> 5",
               "linear": "5 (cos + 1) / 2"}[summary["scaling"]]
    doc.para(f"{summary['pairs']:,} pairs of the {summary['datasets']} STS 2012-2015 sets, scored by the "
             f"STS-2016-selected transfer models ({models}). Cosines are scaled to [0, 5] ({scaling}; the paper "
             "does not say how it scaled). A pair's category names the model further from gold and whether its "
             "prediction lies above or below the other model's.")
    rows = []
    for name, c in summary["categories"].items():
        rows.append({"category": name, "pairs": c["pairs"], "share %": 100 * c["share"],
                     "mean gap": c["mean_gap"], "mean gold": c["mean_gold"],
                     "word overlap %": None if c["mean_overlap"] is None else 100 * c["mean_overlap"],
                     "length ratio %": None if c["mean_length_ratio"] is None else 100 * c["mean_length_ratio"]})
    doc.table(pd.DataFrame(rows), caption="Not correlations: shares, word overlap and length ratio in %; the gap "
              "and gold on the 0-5 similarity scale.")  # empty categories (None) print as "–"
    accuracy = summary["accuracy"]
    doc.para("Over all pairs: " + "; ".join(f"{n} Pearson {a['pearson']:.1f}, mean |error| {a['mean_abs_error']:.2f}"
                                            for n, a in accuracy.items())
             + f"; the two models correlate at {summary['model_correlation']:.1f} (Pearson's r × 100 "
             "throughout). Word overlap is the Jaccard "
             "index of the two sentences' tokens (the paper: avg overestimates pairs with much word overlap).")
    doc.para(f"Our examples: the {config['error_analysis']['examples']} pairs with the largest gap between the two "
             "models' errors in each category.")
    shown = examples[["category", "s1", "s2", names[1], names[0], "gold"]].copy()
    for column in (names[1], names[0], "gold"):
        shown[column] = [f"{v:.2f}" for v in shown[column]]
    doc.table(shown, caption="Similarity scores on the 0-5 scale (cosines rescaled; gold as annotated), not "
              "correlations.")
    paper = paper_table(config, "wieting2017_table7")
    if paper is not None:
        doc.para("The paper's Table 7 (LSTMavg, avg, gold):")
        doc.table(paper.astype(str), caption="The paper's cosines rescaled to 0-5, and gold on 0-5.")
