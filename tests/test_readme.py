"""The measured blocks of the README and the docs equal what pages/readme.py writes from the committed
results (benchmarks/results/): a number there is never typed by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "pages"))

import readme  # noqa: E402


def test_every_measured_block_equals_its_results():
    readme.placed()  # each fixed block on exactly one page
    for page in readme.PAGES:  # report sections too, wherever they are
        _, changed = readme.filled(page.read_text(), page)
        assert not changed, f"{page}: blocks {changed} differ from benchmarks/results/: run python pages/readme.py"


def test_a_block_that_differs_is_named():
    page = readme.placed()["test suite"]
    start = "<!-- test suite -->\n"
    spoiled = page.read_text().replace(start, start + "typed by hand\n", 1)
    _, changed = readme.filled(spoiled, page)
    assert changed == ["test suite"]


def test_a_block_on_no_page_or_on_two_is_refused(monkeypatch, tmp_path):
    twice = tmp_path / "twice.md"
    twice.write_text("<!-- test suite -->\n<!-- /test suite -->\n")
    monkeypatch.setattr(readme, "PAGES", [*readme.PAGES, twice])
    with pytest.raises(SystemExit, match="`test suite` on"):
        readme.placed()
    monkeypatch.setattr(readme, "PAGES", [readme.README])
    with pytest.raises(SystemExit, match="`time profile` on none"):
        readme.placed()


def test_the_stage_graphs_image_is_drawn_from_the_graph_the_page_lists():
    """docs/stage_graph.svg holds the sha256 of the edge list it was drawn from: the current graph's."""
    import reference_pages

    assert reference_pages.drawn_from() == reference_pages.digest_of_edges(), \
        "draw docs/stage_graph.svg again: python pages/readme.py (needs Graphviz's dot)"


def test_no_page_holds_a_path_of_the_machine_it_was_written_on():
    """A generated part (a command's help with a default file) shows the checkout's files relative to it."""
    for page in readme.PAGES:
        assert str(REPO) not in page.read_text(), page
