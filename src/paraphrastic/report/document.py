"""The report's document framework: blocks rendered twice, as markdown and as self-contained HTML, and the
helpers every section shares (results files, the papers' tables, number formats, the per-set table)."""

from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from paraphrastic.data import datasets


class Document:
    """Blocks rendered twice: as markdown and as HTML."""

    def __init__(self):
        self.blocks: list[tuple[str, object]] = []

    def heading(self, text: str, level: int = 2):
        self.blocks.append((f"h{level}", text))

    def para(self, text: str):
        self.blocks.append(("p", text))

    def bullets(self, items: list[str]):
        self.blocks.append(("ul", items))

    def table(self, frame: pd.DataFrame, *, formatted: bool = False):
        """``formatted``: the cells are already text (e.g. four decimals) and are printed as they are."""
        self.blocks.append(("table", (frame, formatted)))

    def image(self, path: Path, alt: str):
        self.blocks.append(("img", (path, alt)))

    def markdown(self, base: Path) -> str:
        out = []
        for kind, value in self.blocks:
            if kind.startswith("h"):
                out.append("#" * int(kind[1:]) + " " + value)
            elif kind == "p":
                out.append(value)
            elif kind == "ul":
                out.append("\n".join(f"- {item}" for item in value))
            elif kind == "table":
                frame, formatted = value
                out.append(frame.to_markdown(index=False, floatfmt=".1f", missingval="–", disable_numparse=formatted))
            elif kind == "img":
                path, alt = value
                out.append(f"![{alt}]({path.relative_to(base).as_posix()})")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
               "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
               "table{border-collapse:collapse;margin:1em 0;font-size:90%}td,th{border:1px solid #ccc;"
               "padding:2px 6px;text-align:right}th{background:#f3f3f3}img{max-width:100%}</style></head><body>"]
        for kind, value in self.blocks:
            if kind.startswith("h"):
                out.append(f"<{kind}>{html.escape(value)}</{kind}>")
            elif kind == "p":
                out.append(f"<p>{html.escape(value)}</p>")
            elif kind == "ul":
                out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in value) + "</ul>")
            elif kind == "table":
                out.append(value[0].to_html(index=False, float_format=lambda v: f"{v:.1f}", na_rep="–"))
            elif kind == "img":
                path, alt = value
                data = base64.b64encode(path.read_bytes()).decode()
                out.append(f"<img alt='{html.escape(alt)}' src='data:image/png;base64,{data}'>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def paper_table(config: dict, name: str) -> pd.DataFrame | None:
    path = Path(config["paper_tables"]) / f"{name}.csv"
    return pd.read_csv(path) if path.is_file() else None


def paper_rows(frame: pd.DataFrame | None, **match) -> pd.Series | None:
    if frame is None:
        return None
    hit = frame
    for column, value in match.items():
        hit = hit[hit[column] == value]
    return hit.iloc[0] if len(hit) else None


def format_r(value: float | None) -> str:
    """A correlation ×100 as the report prints it (one decimal; "–" when missing)."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.1f}"


def format_unit(value) -> str:
    """A correlation on the 0-1 scale with four decimals (He & Lin's tables)."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.4f}"


def per_dataset_table(results: dict[str, dict], columns: dict[str, str], paper: pd.DataFrame | None,
                      paper_columns: dict[str, str], metric: str = "pearson") -> pd.DataFrame:
    """Table-4 layout: one row per transfer set plus year averages and the 22-set mean.

    ``results[key]["datasets"][set id][metric]``; ``columns`` maps a column label to a key.
    """
    rows = []
    transfer = [s for s in datasets.EVAL_SETS if s.transfer and all(s.id in results[e]["datasets"]
                                                                     for e in columns.values())]

    def paper_value(group, label, column):
        if paper is None or column not in paper:
            return math.nan
        hit = paper[(paper["year_group"] == group) & (paper["dataset"] == label)]
        return float(hit[column].iloc[0]) if len(hit) else math.nan

    groups: dict[str, list] = {}
    for index, spec in enumerate(transfer):
        row = {"set": spec.id, "group": spec.group}
        for label, key in columns.items():
            row[label] = results[key]["datasets"][spec.id][metric]
        for label, column in paper_columns.items():
            row[label] = paper_value(spec.group, spec.paper_name, column)
        rows.append(row)
        groups.setdefault(spec.group, []).append(row)
        last_of_group = index == len(transfer) - 1 or transfer[index + 1].group != spec.group
        if spec.group.startswith("STS") and last_of_group:
            avg = {"set": f"{spec.group} Average", "group": spec.group}
            for label in columns:
                avg[label] = float(np.mean([r[label] for r in groups[spec.group]]))
            for label, column in paper_columns.items():  # the paper's printed average
                avg[label] = paper_value(spec.group, f"{spec.group} Average", column)
            rows.append(avg)
    plain = [r for r in rows if not r["set"].endswith("Average")]
    mean = {"set": f"mean of the {len(plain)} sets", "group": ""}
    for label in list(columns) + list(paper_columns):
        mean[label] = float(np.nanmean([r[label] for r in plain])) if plain else math.nan
    rows.append(mean)
    return pd.DataFrame(rows)
