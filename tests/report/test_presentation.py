"""The report as something to show a colleague: a table of contents whose links resolve in report.md and
report.html, every correlation × 100 (or a caption saying why not), alt text on every figure, labelled plot
axes, no Markdown syntax left in the HTML, and headings that say what a reduced config evaluated."""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

import pandas as pd
import pytest

from paraphrastic.data import datasets
from paraphrastic.evaluation.selection import Selection
from paraphrastic.report import transfer
from paraphrastic.report.build import build_report
from paraphrastic.report.document import Document, inline_html, transfer_scope


class Page(HTMLParser):
    """What the tests read from report.html: text nodes, ids, links, images and tables (caption, header, rows)."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.images: list[dict] = []
        self.tables: list[dict] = []
        self.headings: list[str] = []
        self._stack: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._heading: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._stack.append(tag)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        elif tag == "img":
            self._stack.pop()  # a void element
            self.images.append(attrs)
        elif tag == "table":
            self.tables.append({"caption": "", "header": [], "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "caption"):
            self._cell = []
        elif tag in ("h1", "h2", "h3"):
            self._heading = []

    def handle_endtag(self, tag):
        if self._stack and self._stack[-1] == tag:
            self._stack.pop()
        table = self.tables[-1] if self.tables else None
        if tag == "caption":
            table["caption"] = "".join(self._cell)
            self._cell = None
        elif tag in ("td", "th"):
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr":
            if "thead" in self._stack or not table["header"]:
                table["header"] = self._row
            else:
                table["rows"].append(self._row)
            self._row = None
        elif tag in ("h1", "h2", "h3"):
            self.headings.append("".join(self._heading))
            self._heading = None

    def handle_data(self, data):
        if "style" in self._stack or "title" in self._stack:
            return
        self.texts.append(data)
        for part in (self._cell, self._heading):
            if part is not None:
                part.append(data)


@pytest.fixture
def report(results, tmp_path):
    config, folder = results
    out = tmp_path / "report"
    build_report(config, data_dir=folder, out_dir=out)
    page = Page()
    page.feed((out / "report.html").read_text(encoding="utf-8"))
    return config, out, (out / "report.md").read_text(encoding="utf-8"), page


def github_slug(heading: str) -> str:
    """GitHub's heading anchor, written out independently of the report's: lower case, everything but letters,
    marks, digits, connector punctuation, spaces and hyphens dropped, spaces as hyphens."""
    kept = "".join(ch for ch in heading.strip().lower()
                   if ch in " -" or unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc")
    return kept.replace(" ", "-")


def test_markdown_contents_links_resolve_to_github_anchors(report):
    _, _, markdown, _ = report
    headings = re.findall(r"^#{1,6} (.+)$", markdown, re.M)
    anchors, seen = set(), {}
    for heading in headings:
        base = github_slug(re.sub(r"`([^`]*)`", r"\1", heading))
        anchors.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    links = re.findall(r"\]\(#([^)]+)\)", markdown)
    assert len(links) >= 20, "a table of contents near the top"
    assert markdown.index("](#") < markdown.index("\n## ")  # before the first section
    assert [link for link in links if link not in anchors] == []
    assert len({h for h in headings if h.startswith(("Table 1", "Table 4", "PWIM", "Findings"))}) >= 4


def test_html_contents_links_resolve_to_ids(report):
    *_, page = report
    local = [link[1:] for link in page.links if link.startswith("#")]
    assert len(local) >= 20 and len(page.ids) == len(set(page.ids))
    assert [link for link in local if link not in page.ids] == []


def test_no_literal_markdown_in_the_html(report):
    *_, page = report
    leftovers = [text for text in page.texts if re.search(r"\*\*|`|\]\(|\|---|^#{1,6} |(?<![\w*])\*\w[^*]*\*", text)]
    assert leftovers == []


def test_inline_markdown_renders_as_html():
    assert inline_html("*a* **b** `c*d*` [e](#f) <g> 2 * 3") == (
        "<em>a</em> <strong>b</strong> <code>c*d*</code> <a href=\"#f\">e</a> &lt;g&gt; 2 * 3")


def test_every_image_has_descriptive_alt_text(report):
    _, out, markdown, page = report
    assert len(page.images) == 4  # learning curves, accuracy against speed, Stanza learning curves, gate norms
    for image in page.images:
        alt = image.get("alt", "")
        assert len(alt.split()) >= 8 and ".png" not in alt, alt
    figures = re.findall(r"!\[([^\]]*)\]\(([^)]+)\)", markdown)
    assert len(figures) == 4
    for alt, path in figures:
        assert (out / path).is_file() and len(alt.split()) >= 8 and ".png" not in alt


CORRELATION = re.compile(r"\(ours\)|\(paper\)|\bours\b|\bpaper\b|\br\b|ρ|pearson|spearman|oracle|STS|22-set|"
                         r"^avg|^mean$|per seed|^[1-3](st|nd|rd)$|MiniLM|initial vectors", re.I)
NOT_CORRELATION = re.compile(r"MSE|s per|sentences/s|speed|runs|seeds|pairs|epoch|train s|job s|count|"
                             r"parameters|setting|^set$|^model$|^row$|^run$|^task$|^split$|^label$", re.I)


def leading_number(cell: str) -> float | None:
    """The cell's value (the mean of "mean ± sd", the r of "r (ρ)"), None when it holds no number."""
    match = re.match(r"\s*([-+−]?\d[\d,]*(?:\.\d+)?)", cell)
    return None if match is None else float(match.group(1).replace(",", "").replace("−", "-"))


def test_correlations_are_times_100_or_the_caption_says_why_not(report):
    *_, page = report
    checked = 0
    for table in page.tables:
        if re.search(r"not correlations|not a correlation|no correlations", table["caption"]):
            continue
        for i, column in enumerate(table["header"]):
            if not CORRELATION.search(column) or NOT_CORRELATION.search(column):
                continue
            for row in table["rows"]:
                value = leading_number(row[i])
                changes = "changes" in table["caption"] and row[i].lstrip().startswith(("+", "-"))
                if value is None or changes:
                    continue  # a dash, a label, or (where the caption says so) a change from another value
                checked += 1
                assert -100 <= value <= 100, (table["header"], row)
                assert value == 0 or abs(value) >= 1, f"{column} looks like the 0-1 scale: {row}"
    assert checked > 100


def test_tables_with_other_numbers_say_so_in_their_caption(report):
    *_, page = report
    gates = [t for t in page.tables if any("L1" in c for c in t["header"])]
    assert gates and all("not correlations" in t["caption"] for t in gates)
    assert all(t["caption"] for t in page.tables), [t["header"] for t in page.tables if not t["caption"]]


def test_learning_curve_axes_are_labelled_with_a_legend(tmp_path):
    histories = {row: pd.DataFrame({"epoch": [1, 2], "loss": [1.0, 0.5], "selection_pearson": [50.0, 52.0],
                                    "transfer_pearson": [40.0, 41.0]}) for row in ("avg", "gran")}
    fig = transfer.learning_curves(histories, tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 0
    assert len(fig.axes) == 3
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert all("× 100" in ax.get_ylabel() for ax in fig.axes[1:])
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["avg", "gran"]


def test_headings_say_what_the_tiny_config_evaluated(report):
    config, _, markdown, _ = report
    headings = re.findall(r"^#{2,3} (.+)$", markdown, re.M)
    table1 = next(h for h in headings if h.startswith("Table 1"))
    sets = len(config["evaluation"]["sets"])
    assert f"(tiny config: {sets} of 22 sets, 1 of 5 STS 2016 sets, 1 seed, 1 epoch" in table1
    assert "2 seeds, 2 of 4 runs" in next(h for h in headings if h.startswith("Table 2"))
    assert "tiny config: STS from 2 of 20 sets" in next(h for h in headings if h.startswith("Supervised similarity"))
    assert "tiny config: 2 of 20 STS 2012-2015 sets" in next(h for h in headings if h.startswith("Table 7"))
    assert "tiny config: ≤ 40 pairs per split" in next(h for h in headings if h.startswith("PWIM"))
    # the contents list names each section without the scope; the link still reaches the full heading
    assert f"- [Table 1: training data (STS 2016 model selection, {sets}-set mean)](#table-1-" in markdown


def test_a_config_that_evaluates_everything_has_plain_headings(results):
    config, folder = results
    sel = Selection(config, folder)
    assert transfer_scope(config, sel).startswith(" (tiny config: ")
    whole = dict(config, data=dict(config["data"], max_train_pairs=None))
    assert transfer_scope(whole, sel).startswith(" (this config: ")  # fewer sets and epochs remain
    for history in sel.histories.values():  # as if every set had been scored and the paper's epochs trained
        for epoch in history:
            epoch["per_dataset"] = {s.id: 1.0 for s in datasets.EVAL_SETS}
    for run in sel.runs.values():
        run["epochs"] = 7
    table1 = [r for c in config["report"]["table1"].values() for r in c.values()]
    assert transfer_scope(whole, sel, table1) == ""


def test_document_contents_nest_and_skip_the_title(tmp_path):
    doc = Document()
    doc.heading("Title", 1)
    doc.heading("A `b`", 2, scope=" (tiny config: 1 of 22 sets)")
    doc.heading("Sub", 3)
    doc.heading("Sub", 3)
    doc.heading("C", 2)
    markdown = doc.markdown(tmp_path)
    assert "- [A b](#a-b-tiny-config-1-of-22-sets)\n  - [Sub](#sub)\n  - [Sub](#sub-1)\n- [C](#c)" in markdown
    page = doc.html("T")
    assert ("<li><a href='#a-b-tiny-config-1-of-22-sets'>A <code>b</code></a><ul><li><a href='#sub'>Sub</a></li>"
            "<li><a href='#sub-1'>Sub</a></li></ul></li><li><a href='#c'>C</a></li></ul>") in page
