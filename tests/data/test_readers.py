"""Readers: official pair counts on the real mirror, and file:line errors on malformed input."""

from __future__ import annotations

import pytest

from paraphrastic.data import datasets, readers
from paraphrastic.errors import MalformedLine


@pytest.mark.parametrize("spec", datasets.EVAL_SETS, ids=lambda s: s.id)
def test_official_pair_counts(mirror, spec):
    from paraphrastic.data.corpus import build_eval_table

    table = build_eval_table([spec], mirror)
    assert len(table) == datasets.OFFICIAL_PAIR_COUNTS[spec.id]
    assert table["score"].between(0, 5).all()


def test_transfer_and_selection_sets():
    assert sum(s.transfer for s in datasets.EVAL_SETS) == 22
    assert [s.id for s in datasets.EVAL_SETS if not s.transfer] == [
        "sts16.answer-answer", "sts16.headlines", "sts16.plagiarism", "sts16.postediting", "sts16.question-question"]


def test_sick_splits_and_crlf(mirror):
    counts = {name: len(readers.read_sick(mirror / "sts/sick2014" / name))
              for name in ("SICK_train.txt", "SICK_trial.txt", "SICK_test_annotated.txt")}
    assert counts == {"SICK_train.txt": 4500, "SICK_trial.txt": 500, "SICK_test_annotated.txt": 4927}
    test = readers.read_sick(mirror / "sts/sick2014/SICK_test_annotated.txt")
    assert not any("\r" in p.s1 + p.s2 for p in test)


def test_twitter_graded_scale(mirror):
    pairs = readers.read_twitter(mirror / "sts/twitter2015/test.data", mirror / "sts/twitter2015/test.label")
    assert len(pairs) == 972
    assert sum(p.score != 3 for p in pairs) == 838  # non-debatable pairs
    assert {p.score for p in pairs} == {0, 1, 2, 3, 4, 5}


def test_simpwiki_and_ppdb_counts(mirror):
    sw = readers.read_aligned_pairs(mirror / "simpwiki/v2-validation/validation-normal",
                                    mirror / "simpwiki/v2-validation/validation-simple")
    assert len(sw) == 26831
    assert sum(p.s1 == p.s2 for p in sw) == 8347  # identical pairs, as SOURCE.md says
    assert len(readers.read_ppdb(mirror / "ppdb-human-labels/ppdb-sample.tsv")) == 26456


def test_sts_blank_gold_is_skipped(tmp_path):
    (tmp_path / "in.txt").write_text("a b\tc d\ne f\tg h\ni\tj\n")
    (tmp_path / "gs.txt").write_text("4.2\n\n1\n")
    pairs = readers.read_sts(tmp_path / "in.txt", tmp_path / "gs.txt")
    assert [(p.s1, p.score, p.line) for p in pairs] == [("a b", 4.2, 1), ("i", 1.0, 3)]


def test_sts2016_uses_first_two_of_four_columns(tmp_path):
    (tmp_path / "in.txt").write_text("a\tb\tsrc1\tsrc2\n")
    (tmp_path / "gs.txt").write_text("3\n")
    pair, = readers.read_sts(tmp_path / "in.txt", tmp_path / "gs.txt", fields=4)
    assert (pair.s1, pair.s2) == ("a", "b")


@pytest.mark.parametrize("inputs, gold, where, reason", [
    ("a\tb\nc d e\n", "1\n2\n", "in.txt:2", "expected 2 tab-separated fields"),
    ("a\tb\nc\td\n", "1\nfive\n", "gs.txt:2", "is not a number"),
    ("a\tb\nc\td\n", "1\n7\n", "gs.txt:2", "outside [0.0, 5.0]"),
    ("a\tb\nc\td\n", "1\n", "gs.txt:2", "truncated"),
    ("a\t \n", "1\n", "in.txt:1", "empty sentence"),
])
def test_sts_malformed_line_names_file_and_line(tmp_path, inputs, gold, where, reason):
    (tmp_path / "in.txt").write_text(inputs)
    (tmp_path / "gs.txt").write_text(gold)
    with pytest.raises(MalformedLine) as err:
        readers.read_sts(tmp_path / "in.txt", tmp_path / "gs.txt")
    assert where in str(err.value) and reason in str(err.value)


def test_invalid_utf8_names_line(tmp_path):
    (tmp_path / "in.txt").write_bytes(b"a\tb\n\xff\tc\n")
    (tmp_path / "gs.txt").write_text("1\n2\n")
    with pytest.raises(MalformedLine, match=r"in.txt:2: not valid UTF-8"):
        readers.read_sts(tmp_path / "in.txt", tmp_path / "gs.txt")


def test_sick_bad_header_and_score(tmp_path):
    path = tmp_path / "SICK.txt"
    path.write_text("id\ta\tb\n")
    with pytest.raises(MalformedLine, match="SICK.txt:1: expected SICK header"):
        readers.read_sick(path)
    header = "\t".join(readers.SICK_HEADER)
    path.write_bytes(f"{header}\r\n1\tx\ty\t4.5\tNEUTRAL\r\n2\tx\ty\t0.2\tNEUTRAL\r\n".encode())
    with pytest.raises(MalformedLine, match=r"SICK.txt:3: score 0.2 outside \[1.0, 5.0\]"):
        readers.read_sick(path)


def test_twitter_label_disagreement(tmp_path):
    row = "1\ttopic\tsent one\tsent two\t{}\ttags1\ttags2\n"
    (tmp_path / "test.data").write_text(row.format(4) + row.format(1))
    (tmp_path / "test.label").write_text("true\t0.8000\ntrue\t0.8000\n")
    with pytest.raises(MalformedLine, match=r"test.label:2: score disagrees"):
        readers.read_twitter(tmp_path / "test.data", tmp_path / "test.label")
    (tmp_path / "test.label").write_text("true\t0.8000\n")
    with pytest.raises(MalformedLine, match=r"test.label:2: ends before"):
        readers.read_twitter(tmp_path / "test.data", tmp_path / "test.label")


def test_simpwiki_misaligned_and_aligned_format(tmp_path):
    (tmp_path / "normal").write_text("A b .\nC d .\n")
    (tmp_path / "simple").write_text("A b .\n")
    with pytest.raises(MalformedLine, match=r"simple:2: line counts differ"):
        readers.read_aligned_pairs(tmp_path / "normal", tmp_path / "simple")
    (tmp_path / "normal.aligned").write_text("Title\t0\tThe long sentence .\n")
    (tmp_path / "simple.aligned").write_text("Title\t0\tThe sentence .\n")
    pair, = readers.read_aligned_pairs(tmp_path / "normal.aligned", tmp_path / "simple.aligned", fmt="aligned")
    assert (pair.s1, pair.s2) == ("The long sentence .", "The sentence .")

def test_simpwiki_v2_read_as_the_authors_code_reads_it(tmp_path):
    """Their train.py takes each line's last tab field; pairs with an empty or undecodable side are skipped."""
    (tmp_path / "normal.aligned").write_bytes(b"T\t0\tOne .\nT\t1\t\nT\t2\tThree .\nSentence four .\n"
                                              b"T\t4\tFive \xe9.\n")
    (tmp_path / "simple.aligned").write_bytes(b"T\t0\t1 .\nT\t1\t2 .\nT\t2\t \nT\t3\t4 .\nT\t4\t5 .\n")
    skipped = readers.SkippedLines()
    pairs = readers.read_aligned_pairs(tmp_path / "normal.aligned", tmp_path / "simple.aligned", fmt="aligned",
                                       skipped=skipped)
    assert [(p.s1, p.s2, p.source) for p in pairs] == [
        ("One .", "1 .", f"{tmp_path.name}/normal.aligned:1"),
        ("Sentence four .", "4 .", f"{tmp_path.name}/normal.aligned:4")]
    assert skipped.as_dict()["by_kind"] == {"empty (pair skipped)": 2, "not UTF-8 (pair skipped)": 1,
                                            "without 3 fields (the last one read)": 1}
    assert skipped.as_dict()["first"]["empty (pair skipped)"] == ["normal.aligned:2", "simple.aligned:3"]


def test_ppdb_formats(tmp_path):
    path = tmp_path / "ppdb.tsv"
    path.write_text("4.0\t[NP]\tthis video\tthe movie\t3.0,4.0,4.0,4.0,5.0\n2.0\t[NP]\ta case\n")
    with pytest.raises(MalformedLine, match=r"ppdb.tsv:2: expected 5 tab-separated fields, got 3"):
        readers.read_ppdb(path)
    path.write_text("the movie\tthis film\n")
    pair, = readers.read_ppdb(path, fmt="pairs")
    assert (pair.s1, pair.s2) == ("the movie", "this film")


def test_ppdb_xl_skips_what_the_authors_loader_skips(tmp_path):
    """utils.get_data strips each line and keeps exactly-two-field lines; we also drop empty and non-UTF-8 ones."""
    path = tmp_path / "ppdb-XL-ordered-data.txt"
    path.write_bytes(b"the movie\tthis film \n\n   \nlonely\na\tb\tc\n\tx\ny\t \t\nok\t\xff\n"
                     b"  padded \t phrase\n")
    skipped = readers.SkippedLines()
    pairs = readers.read_ppdb(path, fmt="pairs", skipped=skipped)
    assert [(p.s1, p.s2, p.source) for p in pairs] == [
        ("the movie", "this film", "ppdb-XL-ordered-data.txt:1"),
        ("padded ", " phrase", "ppdb-XL-ordered-data.txt:9")]
    assert skipped.as_dict()["by_kind"] == {"blank": 2, "not UTF-8": 1, "with 1 fields, not 2": 3,
                                            "with 3 fields, not 2": 1}
    assert skipped.total() == 7
