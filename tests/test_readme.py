"""The measured blocks of the README and the docs equal what pages/readme.py writes from the committed
results (benchmarks/results/): a number there is never typed by hand."""

from __future__ import annotations

import json
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


def test_the_default_runs_cost_is_set_against_its_aims_and_refuses_a_run_with_what_extended_adds(
        monkeypatch, tmp_path):
    """default_run_cost on made-up profiles: a default run's wall time and critical path against the aims (one
    within, one over, by how much), rule by rule against the run before; a profile holding the parser comparison
    is no default run."""
    def job(rule, name, cpu):
        return {"rule": rule, "job": name, "seconds": cpu, "cpu_seconds": cpu, "threads": 1}

    before = {"label": "the run before", "cores": 2, "wall_seconds": None, "invocations": [{}, {}],
              "jobs": [job("train", "a", 100.0), job("stanza_models_compared", "stanza_models_compared", 50.0)]}
    now = {"label": "the default run", "cores": 2, "wall_seconds": 3 * 3600.0, "invocations": [{}],
           "critical_path": {"seconds": 30 * 60.0, "jobs": [{"job": "train/a", "seconds": 30 * 60.0}]},
           "jobs": [job("train", "a", 80.0)]}
    for name, profile in (("time_profile_before", before), ("time_profile", now)):
        (tmp_path / f"{name}.json").write_text(json.dumps(profile))
    monkeypatch.setattr(readme, "RESULTS", tmp_path)
    text = readme.default_run_cost()
    assert "3.00 h of wall time on 2 cores (0.5 h over the aim of 2.5 h)" in text
    assert "critical path 30 min (within the aim of 40 min)" in text
    assert "the parser comparison, 1 job and 50 CPU-s" in text
    assert "| train                  | 1             | 100            | 1          | 80          | -20      |" in text
    (tmp_path / "time_profile.json").write_text(json.dumps(before | {"critical_path": now["critical_path"]}))
    with pytest.raises(SystemExit, match="the parser comparison"):
        readme.default_run_cost()
