"""The report's document framework: blocks rendered twice, as markdown and as self-contained HTML, and the
helpers every section shares (results files, the papers' tables, number formats, the per-set table)."""

from __future__ import annotations

import base64
import html
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from paraphrastic.analysis.papers import paper_table_path
from paraphrastic.configuration import grids
from paraphrastic.data import datasets

INLINE_CODE = re.compile(r"`([^`]+)`")
INLINE_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
INLINE_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
INLINE_EM = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")


def inline_html(text: str) -> str:
    """``text`` (the report's Markdown subset: `code`, **strong**, *emphasis*, [links](url)) as escaped HTML.

    Code spans are set aside first so that nothing inside them is read as emphasis or a link."""
    codes: list[str] = []

    def keep(match: re.Match) -> str:
        codes.append(f"<code>{html.escape(match.group(1), quote=False)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    out = html.escape(INLINE_CODE.sub(keep, text), quote=False)
    out = INLINE_LINK.sub(lambda m: f"<a href=\"{html.escape(m.group(2))}\">{m.group(1)}</a>", out)
    out = INLINE_STRONG.sub(r"<strong>\1</strong>", out)
    out = INLINE_EM.sub(r"<em>\1</em>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], out)


def plain_text(text: str) -> str:
    """``text`` without its inline Markdown (what a heading's anchor and the contents list are made from)."""
    text = INLINE_LINK.sub(r"\1", INLINE_CODE.sub(r"\1", text))
    return INLINE_EM.sub(r"\1", INLINE_STRONG.sub(r"\1", text))


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, ``_`` and ``-`` stay),
    spaces as ``-``. Duplicates get ``-1``, ``-2`` (see :meth:`Document.anchors`)."""
    return re.sub(r"[^\w\- ]", "", plain_text(text).strip().lower()).replace(" ", "-")


def _cell(value, formatted: bool) -> str:
    if formatted or isinstance(value, str):
        return str(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float | np.floating):
        return f"{value:.1f}"
    return str(value)


STYLE = (
    "body{font-family:system-ui,sans-serif;line-height:1.45;max-width:1150px;margin:2em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.7em}"
    "h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}"
    "table{border-collapse:collapse;margin:1em 0 .3em;font-size:88%;font-variant-numeric:tabular-nums}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}"
    "td.text,th.text{text-align:left}"
    "th{background:#f3f3f3}"
    "tbody tr:nth-child(even){background:#fafafa}"
    ".scroll{overflow-x:auto}"
    ".scope{font-size:70%;font-weight:normal;color:#8a4b00}"
    "caption{caption-side:bottom;text-align:left;font-size:90%;color:#555;padding-top:.3em}"
    "figure{margin:1em 0}"
    "figcaption{font-size:90%;color:#555}"
    "img{max-width:100%}"
    "code{background:#f3f3f3;padding:0 .2em;border-radius:3px}"
    "nav ul{margin:.2em 0}"
    "nav>ul{columns:2 26em;column-gap:2em}"
    "nav li{break-inside:avoid}"
    "nav{background:#f8f8f8;border:1px solid #e3e3e3;padding:.5em 1em;font-size:92%}"
)


class Document:
    """Blocks rendered twice: as markdown and as HTML, each with a table of contents after the title.

    Text is the small Markdown subset :func:`inline_html` knows; the HTML renders it, so no Markdown syntax
    reaches the page. A table's ``caption`` says what its numbers are (the report prints correlations × 100;
    a caption says so where a table's numbers are something else) and is printed after it."""

    CONTENTS = "Contents"

    def __init__(self):
        self.blocks: list[tuple[str, object]] = []
        self.short: dict[int, str] = {}  # block index -> the heading's text without its scope, for the contents

    def heading(self, text: str, level: int = 2, scope: str = ""):
        """``scope``: what a reduced config evaluated, e.g. " (tiny config: 2 of 22 sets)" (:func:`transfer_scope`):
        part of the heading (and its anchor), left out of the contents list."""
        if scope:
            self.short[len(self.blocks)] = text
        self.blocks.append((f"h{level}", text + scope))

    def para(self, text: str):
        self.blocks.append(("p", text))

    def bullets(self, items: list[str]):
        self.blocks.append(("ul", items))

    def table(self, frame: pd.DataFrame, *, formatted: bool = False, caption: str | None = None):
        """``formatted``: the cells are already text (e.g. four decimals) and are printed as they are."""
        self.blocks.append(("table", (frame, formatted, caption)))

    def image(self, path: Path, alt: str):
        """``alt``: what the figure shows, for a reader who cannot see it (also its caption)."""
        self.blocks.append(("img", (path, alt)))

    def anchors(self) -> list[tuple[int, str, str]]:
        """(level, contents label, anchor) of every heading, anchors unique as GitHub makes them."""
        seen: dict[str, int] = {slug(self.CONTENTS): 1}
        out = []
        for index, (kind, value) in enumerate(self.blocks):
            if kind.startswith("h"):
                base = slug(value)
                count = seen.get(base, 0)
                seen[base] = count + 1
                out.append((int(kind[1:]), self.short.get(index, value), base if count == 0 else f"{base}-{count}"))
        return out

    def _contents(self) -> list[tuple[int, str, str]]:
        return [(level, text, anchor) for level, text, anchor in self.anchors() if level in (2, 3)]

    def markdown(self, base: Path) -> str:
        out = []
        toc_done = False
        for kind, value in self.blocks:
            if kind.startswith("h"):
                out.append("#" * int(kind[1:]) + " " + value)
                if kind == "h1" and not toc_done:
                    out.append(self._markdown_contents())
                    toc_done = True
            elif kind == "p":
                out.append(value)
            elif kind == "ul":
                out.append("\n".join(f"- {item}" for item in value))
            elif kind == "table":
                frame, formatted, caption = value
                # tabulate's missingval covers None only: NaN would print as "nan"
                shown = frame.astype(object).where(frame.notna(), None)
                out.append(shown.to_markdown(index=False, floatfmt=".1f", missingval="–", disable_numparse=formatted))
                if caption:
                    out.append(f"*{caption}*")
            elif kind == "img":
                path, alt = value
                out.append(f"![{alt}]({path.relative_to(base).as_posix()})")
        return "\n\n".join(out) + "\n"

    def _markdown_contents(self) -> str:
        lines = [f"**{self.CONTENTS}**", ""]
        for level, text, anchor in self._contents():
            label = plain_text(text).replace("[", "\\[").replace("]", "\\]")
            lines.append("  " * (level - 2) + f"- [{label}](#{anchor})")
        return "\n".join(lines)

    def _html_contents(self) -> str:
        out = [f"<nav id='{slug(self.CONTENTS)}'><p><strong>{self.CONTENTS}</strong></p><ul>"]
        depth = 2
        first = True
        for level, text, anchor in self._contents():
            if level > depth:
                out.append("<ul>")
            elif level < depth:
                out.append("</li></ul></li>")
            elif not first:
                out.append("</li>")
            depth, first = level, False
            out.append(f"<li><a href='#{anchor}'>{inline_html(text)}</a>")
        out.append("</li>" + "</ul></li>" * (depth - 2) + "</ul></nav>")
        return "".join(out)

    def html(self, title: str) -> str:
        out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
               "<meta name='viewport' content='width=device-width, initial-scale=1'>",
               f"<style>{STYLE}</style></head><body>"]
        anchors = iter(self.anchors())
        toc_done = False
        for kind, value in self.blocks:
            if kind.startswith("h"):
                _, short, anchor = next(anchors)
                text = inline_html(value) if short == value else (
                    f"{inline_html(short)} <span class='scope'>{inline_html(value[len(short):].strip())}</span>")
                out.append(f"<{kind} id='{anchor}'>{text}</{kind}>")
                if kind == "h1" and not toc_done:
                    out.append(self._html_contents())
                    toc_done = True
            elif kind == "p":
                out.append(f"<p>{inline_html(value)}</p>")
            elif kind == "ul":
                out.append("<ul>" + "".join(f"<li>{inline_html(i)}</li>" for i in value) + "</ul>")
            elif kind == "table":
                out.append(self._html_table(*value))
            elif kind == "img":
                path, alt = value
                data = base64.b64encode(path.read_bytes()).decode()
                out.append(f"<figure><img alt='{html.escape(alt)}' src='data:image/png;base64,{data}'>"
                           f"<figcaption>{inline_html(alt)}</figcaption></figure>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"

    @staticmethod
    def _html_table(frame: pd.DataFrame, formatted: bool, caption: str | None) -> str:
        def numeric(column: pd.Series) -> bool:  # numbers, or text that reads as one ("45.1 ± 0.3", "–")
            return pd.api.types.is_numeric_dtype(column) or all(
                v is None or (isinstance(v, float) and math.isnan(v))
                or re.match(r"\s*(–|[-+−]?\d[\d,]*(\.\d+)?\b)", str(v)) for v in column)

        text = {c: not numeric(frame[c]) for c in frame.columns}

        def css(column) -> str:
            return " class='text'" if text[column] else ""

        head = "".join(f"<th{css(c)}>{inline_html(str(c))}</th>" for c in frame.columns)
        body = "".join("<tr>" + "".join(f"<td{css(c)}>{inline_html(_cell(v, formatted))}</td>"
                                        for c, v in zip(frame.columns, row, strict=True)) + "</tr>"
                       for row in frame.itertuples(index=False))
        note = f"<caption>{inline_html(caption)}</caption>" if caption else ""
        return f"<div class='scroll'><table>{note}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def paper_table(config: dict, name: str) -> pd.DataFrame:
    """The papers' table ``name`` (``wieting2017_table4``), read from the CSV of that name in ``paper_tables``."""
    return pd.read_csv(paper_table_path(config, f"{name}.csv"))


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


# What a config actually evaluated, for the headings: when a config thins a grid, scores fewer sets, trains
# fewer epochs or caps the data (the tiny test config does all four), a table's heading says so, e.g.
# "Table 1 (tiny config: 2 of 22 sets, 1 of 5 STS 2016 sets, 1 seed, 1 epoch, ≤ 2,000 training pairs)". Read
# from the params and the results; the paper's side (22 transfer sets, 5 STS 2016 sets, 20 STS 2012-2015 sets)
# from paraphrastic.data.datasets, and its epochs from Sec. 4.1.2.

# Sec. 4.1.2: avg trains 7 epochs, the LSTMs 3 ("converges much faster"); GRAN's are not given (3 here too).
PAPER_EPOCHS = {"avg": 7}
PAPER_EPOCHS_OTHERWISE = 3


def label(config: dict) -> str:
    """"tiny config" where the training corpora are capped (only the tests' config does that), else "this config"."""
    return "tiny config" if (config.get("data") or {}).get("max_train_pairs") else "this config"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _span(values: set[int], word: str) -> str:
    low, high = min(values), max(values)
    return _count(low, word) if low == high else f"{low}-{high} {word}s"


def sets_scope(per_dataset: dict) -> list[str]:
    parts = []
    ids = [k for k in per_dataset if k in datasets.BY_ID]
    transfer = [k for k in ids if datasets.BY_ID[k].transfer]
    selection = [k for k in ids if not datasets.BY_ID[k].transfer]
    all_transfer = datasets.TRANSFER_SET_COUNT
    all_selection = sum(not s.transfer for s in datasets.EVAL_SETS)
    if transfer and len(transfer) < all_transfer:
        parts.append(f"{len(transfer)} of {all_transfer} sets")
    if selection and len(selection) < all_selection:
        parts.append(f"{len(selection)} of {all_selection} STS 2016 sets")
    return parts


def transfer_set_count(sel) -> int:
    """How many transfer sets this run's transfer models were scored on (22 unless a config lists fewer)."""
    history = next((h for h in sel.histories.values() if h), None)
    ids = history[0]["per_dataset"] if history else {}
    return datasets.transfer_count(ids) or datasets.TRANSFER_SET_COUNT


def transfer_scope(config: dict, sel, rows: list[str] | None = None) -> str:
    """" (tiny config: …)" for a heading over the transfer ``rows`` (all of them by default); "" when the config
    evaluates them as the paper does."""
    rows = [r for r in (rows if rows is not None else list(sel.rows)) if r in sel.rows]
    if not rows:
        return ""
    jobs = [(name, seed) for r in rows for name in sel.rows[r] for seed in sel.seeds[name]]
    history = next((sel.histories[j] for j in jobs if sel.histories.get(j)), None)
    set_parts = sets_scope(history[0]["per_dataset"]) if history else []
    parts = []
    full_rows = grids.expand(grids.unthinned(config))[1]
    runs = sum(len(sel.rows[r]) for r in rows)
    full = sum(len(full_rows.get(r, sel.rows[r])) for r in rows)
    if runs < full:
        parts.append(f"{runs} of {full} runs")
    short = {sel.runs[name]["epochs"] for r in rows for name in sel.rows[r]
             if sel.runs[name]["epochs"] < PAPER_EPOCHS.get(sel.runs[name]["model"], PAPER_EPOCHS_OTHERWISE)}
    if short:
        parts.append(_span(short, "epoch"))
    cap = (config.get("data") or {}).get("max_train_pairs")
    if cap:
        parts.append(f"≤ {cap:,} training pairs")
    if not (set_parts or parts):
        return ""
    seeds = _span({len(sel.seeds[name]) for r in rows for name in sel.rows[r]}, "seed")  # beside the rest
    return f" ({label(config)}: {', '.join(set_parts + [seeds] + parts)})"


def supervised_scope(config: dict, stats: dict, sel) -> str:
    """" (tiny config: …)" for the supervised tables: fewer STS sets, capped splits, thinned grids."""
    sup = config["supervised"]
    parts = []
    sts_all = sum(s.transfer and s.group.startswith("STS") for s in datasets.EVAL_SETS)
    sets = stats.get("sts", {}).get("sets") or []
    if sets and len(sets) < sts_all:
        parts.append(f"STS from {len(sets)} of {sts_all} sets")
    if sup.get("max_pairs"):
        parts.append(f"≤ {sup['max_pairs']:,} pairs per split")
    full = len(grids.expand_supervised(dict(config, supervised=dict(sup, thinning={})))[0])
    if len(sel.runs) < full:
        parts.append(f"{len(sel.runs)} of {full} runs")
    parts.append(_count(sup["train"]["epochs"], "epoch"))
    return f" ({label(config)}: {', '.join(parts)})" if len(parts) > 1 else ""


def capped_scope(config: dict, what: str, cap: int | None, epochs: int | None = None) -> str:
    """" (tiny config: ≤ 40 pairs per split, 2 epochs)" where a section's data is capped; "" otherwise."""
    if not cap:
        return ""
    parts = [f"≤ {cap:,} {what}"] + ([_count(epochs, "epoch")] if epochs else [])
    return f" ({label(config)}: {', '.join(parts)})"
