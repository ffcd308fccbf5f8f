"""The whole report: every section in order, report.md, report.html, metrics.json and runs.csv."""

import json
import re

from paraphrastic.report.build import build_report


def test_report_files_sections_in_order_and_metrics(results, tmp_path):
    config, folder = results
    out = tmp_path / "report"
    assert build_report(config, data_dir=folder, out_dir=out) == out / "report.md"
    markdown = (out / "report.md").read_text()
    headings = re.findall(r"^## (.+)$", markdown, re.M)
    order = ["Data deviations", "Data", "Table 1", "Table 2", "Table 3", "Table 4", "What a user would pick instead",
             "Model selection per row", "Seed variation", "Training runs", "Learning curves", "Tables 9-11",
             "Supervised similarity", "Table 7", "Siamese CBOW", "PWIM", "Findings"]
    positions = [next(i for i, h in enumerate(headings) if h.startswith(name)) for name in order]
    assert positions == sorted(positions)
    assert (out / "report.html").read_text().count("<img") == 2 and (out / "runs.csv").exists()
    metrics = json.loads((out / "metrics.json").read_text())
    assert {"baseline", "supervised", "reference_encoder", "siamese_cbow", "pwim", "t-lstmavg-reg"} <= set(metrics)
