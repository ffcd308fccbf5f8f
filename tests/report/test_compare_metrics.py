"""Two runs' metrics side by side, one metric a line, as a person reads them."""

import json

import pytest

from paraphrastic.errors import PipelineError
from paraphrastic.report.compare_metrics import compare, flatten


def test_shared_metrics_one_a_line_and_the_others_counted_or_listed(tmp_path):
    offline, tiny = tmp_path / "offline.json", tmp_path / "tiny.json"
    offline.write_text(json.dumps({"t3-gran": {"test": 57.8, "seeds": 3}, "t2-avg-none": {"test": 44.6},
                                   "gates": {"spearman": float("nan")}}))
    tiny.write_text(json.dumps({"t3-gran": {"test": 50.0, "seeds": 1}, "gran-simpwiki": {"test": 30.0},
                                "gates": {"spearman": 0.25}}))
    lines = compare(offline, tiny).splitlines()
    assert lines[0].split()[:3] == ["metric", str(offline), str(tiny)] and len(lines[0]) < 40 + 2 * len(str(offline))
    assert lines[1].split() == ["t3-gran.test", "57.80", "50.00", "-7.80"]
    assert lines[2].split() == ["t3-gran.seeds", "3.00", "1.00", "-2.00"]
    assert lines[3].split()[:4] == ["gates.spearman", "–", "(not", "computed)"] and "nan" not in lines[3]
    assert lines[-1].startswith(f"(1 metrics only in {offline}, 1 only in {tiny}")
    every = compare(offline, tiny, every=True)
    assert "t2-avg-none.test" in every and "gran-simpwiki.test" in every and "only in" not in every
    assert flatten({"a": {"b": 1, "c": "text", "d": True}}) == {"a.b": 1}


def test_a_file_that_is_not_json_is_named_with_its_line(tmp_path):
    bad = tmp_path / "metrics.json"
    bad.write_text('{\n  "a": 1,\n  oops\n}')
    with pytest.raises(PipelineError, match=r"metrics.json:3: not JSON"):
        compare(bad, bad)


def test_two_runs_whose_means_are_over_different_sets_are_said_to_be(tmp_path):
    """The README's comparison of a run with the committed offline run: the quick look's 2 transfer sets against the
    offline profile's 22 would read as the models' change."""
    offline, tiny, older = tmp_path / "offline.json", tmp_path / "tiny.json", tmp_path / "older.json"
    offline.write_text(json.dumps({"t3-gran": {"test": 57.8}, "evaluated": {"transfer_sets": 22, "selection_sets": 5}}))
    tiny.write_text(json.dumps({"t3-gran": {"test": 50.0}, "evaluated": {"transfer_sets": 2, "selection_sets": 1}}))
    older.write_text(json.dumps({"t3-gran": {"test": 57.0}}))  # written before metrics said what they are over
    lines = compare(offline, tiny).splitlines()
    assert lines[0] == (f"note: the two runs' means are over different sets ({offline}: 22 transfer sets, 5 selection "
                        f"sets; {tiny}: 2 transfer sets, 1 selection sets), so a change below mixes that with the "
                        "models'")
    assert lines[1].startswith("metric") and lines[2].split() == ["t3-gran.test", "57.80", "50.00", "-7.80"]
    assert not compare(offline, offline).startswith("note") and not compare(older, tiny).startswith("note")
