"""Every reader of every data format against bad bytes: one table of (reader, fault kind, files, outcome).

An outcome is either :class:`Raises` (the exact error type, and a message naming the file and, for a
line-level fault, the line) or :class:`Reads` (the exact records and, for the tolerant training readers and
word vectors, the skipped lines by kind). Each reader's ``DEFAULTS`` are valid files; a case replaces one.
"""

from __future__ import annotations

import codecs
import io
from collections import Counter
from dataclasses import dataclass, field

import pytest

from paraphrastic import encoder
from paraphrastic.data import readers, siamese_corpus, vocab
from paraphrastic.errors import MalformedLine, PipelineError
from paraphrastic.training import stanza as stanza_models

ENCODING, EMPTY_FIELD, NUMBER, CONTROL, EMPTY_FILE, OTHER = (
    "encoding/BOM", "empty field", "number format", "control character", "empty file", "other")
BOM8, BOM16BE = codecs.BOM_UTF8, codecs.BOM_UTF16_BE

pytestmark = pytest.mark.fault("data files")  # docs/faults.md's table of fault categories (tests/test_fault_table.py)


@dataclass(frozen=True)
class Raises:
    error: type  # exactly this type
    file: str  # the message starts with this file ...
    line: int | None  # ... and this line (None: the file as a whole)
    says: str  # and holds this


@dataclass(frozen=True)
class Reads:
    records: object
    skipped: dict = field(default_factory=dict)  # SkippedLines counts by kind


def _pairs(pairs):
    return [(p.s1, p.s2, p.score) if hasattr(p, "score") else (p.s1, p.s2) for p in pairs]


def _tolerant(read):
    def run(d, _):
        skipped = readers.SkippedLines()
        return read(d, skipped), dict(skipped.counts)
    return run


def _stdin(d, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((d / "<stdin>").read_bytes()), encoding="utf-8"))
    return encoder.read_lines("-"), {}


def _vectors(d, skipped):
    found, dim = vocab.read_vectors(d / "v.txt", {"the", "cat"}, skipped)
    return {w: v.tolist() for w, v in found.items()}, dim


WORD = "\t".join(["1", "Hi", "hi", "INTJ", "UH", "_", "0", "root", "_", "_"])
SICK_HEADER = "\t".join(readers.SICK_HEADER).encode()
PIT_ROW = "1\ttopic\tsent one\tsent two\t{}\ttags1\ttags2\n"

# reader -> (valid files, read(folder, monkeypatch) -> (records, skipped counts))
READERS = {
    "sts": ({"in.txt": b"a b\tc d\ne f\tg h\n", "gs.txt": b"4.2\n1\n"},
            lambda d, _: (_pairs(readers.read_sts(d / "in.txt", d / "gs.txt")), {})),
    "sick": ({"SICK.txt": SICK_HEADER + b"\n1\tA man\tA dog\t4.5\tNEUTRAL\n"},
             lambda d, _: (_pairs(readers.read_sick(d / "SICK.txt")), {})),
    "pit": ({"test.data": PIT_ROW.format(4).encode(), "test.label": b"true\t0.8000\n"},
            lambda d, _: (_pairs(readers.read_twitter(d / "test.data", d / "test.label")), {})),
    "simpwiki": ({"normal": b"One .\nTwo .\n", "simple": b"1 .\n2 .\n"},
                 _tolerant(lambda d, s: _pairs(readers.read_aligned_pairs(d / "normal", d / "simple", skipped=s)))),
    "simpwiki-v2": ({"normal": b"T\t0\tOne .\nT\t1\tTwo .\n", "simple": b"T\t0\t1 .\nT\t1\t2 .\n"},
                    _tolerant(lambda d, s: _pairs(readers.read_aligned_pairs(d / "normal", d / "simple",
                                                                             fmt="aligned", skipped=s)))),
    "ppdb-labels": ({"ppdb.tsv": b"4.0\t[NP]\tthis video\tthe movie\t3.0,4.0,4.0,4.0,5.0\n"},
                    lambda d, _: (_pairs(readers.read_ppdb(d / "ppdb.tsv")), {})),
    "ppdb-pairs": ({"ppdb.txt": b"the movie\tthis film\n"},
                   _tolerant(lambda d, s: _pairs(readers.read_ppdb(d / "ppdb.txt", fmt="pairs", skipped=s)))),
    "vectors": ({"v.txt": b"the 1 2\ncat 3 4\n"}, _tolerant(_vectors)),
    "vocab": ({"vocab.txt": b"<pad>\n<unk>\n<s>\n</s>\nthe\ncat\n"},
              lambda d, _: (vocab.Vocabulary.load(d / "vocab.txt").words[4:], {})),
    "documents": ({"doc.conllu": f"# newdoc id = d1\n# text = Hi there.\n{WORD}\n\n".encode()},
                  lambda d, _: (siamese_corpus.read_documents(d / "doc.conllu"), {})),
    "conllu": ({"t.conllu": f"# sent_id = 1\n{WORD}\n\n".encode()},
               lambda d, _: (stanza_models.conllu_sentences(d / "t.conllu"), {})),
    "lines": ({"in.txt": b"a b\nc d\n"}, lambda d, _: (encoder.read_lines(d / "in.txt"), {})),
    "stdin": ({"<stdin>": b"a b\nc d\n"}, _stdin),
    "column": ({"in.txt": b"a\tb\nc\td\n"}, lambda d, _: (encoder.read_sentences(d / "in.txt", 2), {})),
}

STS_OK = Reads([("a b", "c d", 4.2), ("e f", "g h", 1.0)])
SICK_OK = Reads([("A man", "A dog", 4.5)])
PIT_OK = Reads([("sent one", "sent two", 4.0)])
SW_OK = Reads([("One .", "1 ."), ("Two .", "2 .")])
VEC_OK = Reads(({"the": [1.0, 2.0], "cat": [3.0, 4.0]}, 2))
CONLLU_OK = Reads([f"# sent_id = 1\n{WORD}\n"])


def M(file, line, says):  # noqa: N802 - reads as the outcome it is
    return Raises(MalformedLine, file, line, says)


def P(file, says):  # noqa: N802
    return Raises(PipelineError, file, None, says)


def case(reader, kind, what, files, expected):
    return pytest.param(reader, kind, files, expected, id=f"{reader}:{what}")


def sts_gold(value):
    return {"gs.txt": b"4.2\n" + value + b"\n"}


CASES = [
    # --- STS input and gold files (strict; a blank gold line is an unscored pair, as in STS 2015/2016) ---
    case("sts", ENCODING, "utf8-bom-input", {"in.txt": BOM8 + b"a b\tc d\ne f\tg h\n"}, STS_OK),
    case("sts", ENCODING, "utf8-bom-gold", {"gs.txt": BOM8 + b"4.2\n1\n"}, STS_OK),
    case("sts", ENCODING, "utf16le-input", {"in.txt": "a b\tc d\ne f\tg h\n".encode("utf-16")},
         M("in.txt", 1, "UTF-16")),
    case("sts", ENCODING, "utf16be-gold", {"gs.txt": BOM16BE + "4.2\n1\n".encode("utf-16-be")},
         M("gs.txt", 1, "UTF-16")),
    case("sts", ENCODING, "utf32-input", {"in.txt": "a\tb\n".encode("utf-32")}, M("in.txt", 1, "UTF-32")),
    case("sts", ENCODING, "utf16-without-bom", {"in.txt": "a b\tc d\n".encode("utf-16-le")},
         M("in.txt", 1, "NUL byte")),
    case("sts", ENCODING, "latin1", {"in.txt": b"a b\tc d\ncaf\xe9\tg h\n"}, M("in.txt", 2, "not valid UTF-8")),
    case("sts", EMPTY_FIELD, "empty-second-sentence", {"in.txt": b"a b\t\ne f\tg h\n"},
         M("in.txt", 1, "empty sentence")),
    case("sts", EMPTY_FIELD, "blank-first-sentence", {"in.txt": b"a b\tc d\n \tg h\n"},
         M("in.txt", 2, "empty sentence")),
    case("sts", EMPTY_FIELD, "nbsp-only-sentence", {"in.txt": "a b\tc d\n\u00a0\tg h\n".encode()},
         M("in.txt", 2, "empty sentence")),
    case("sts", EMPTY_FIELD, "zero-width-space-only-sentence", {"in.txt": "a b\tc d\ne f\t\u200b\u2060\n".encode()},
         M("in.txt", 2, "empty sentence")),
    case("sts", EMPTY_FIELD, "no-tab", {"in.txt": b"a b\tc d\ne f g h\n"}, M("in.txt", 2, "expected 2 tab-separated")),
    case("sts", EMPTY_FIELD, "blank-gold-is-unscored", sts_gold(b""), Reads([("a b", "c d", 4.2)])),
    case("sts", EMPTY_FIELD, "blank-gold-and-input-line", {"in.txt": b"a b\tc d\n\n", "gs.txt": b"4.2\n\n"},
         Reads([("a b", "c d", 4.2)])),
    case("sts", NUMBER, "underscore", sts_gold(b"4_0"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "nan", sts_gold(b"nan"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "inf", sts_gold(b"inf"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "overflow", sts_gold(b" 1e400"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "exponent", sts_gold(b"4e0"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "comma-decimal", sts_gold(b"4,5"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "hex", sts_gold(b"0x1"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "arabic-indic-digit", sts_gold("٤".encode()), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "fullwidth-digits", sts_gold("４.０".encode()), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "sign-only", sts_gold(b"-"), M("gs.txt", 2, "is not a number")),
    case("sts", NUMBER, "out-of-range", sts_gold(b"5.01"), M("gs.txt", 2, "outside [0.0, 5.0]")),
    case("sts", NUMBER, "negative", sts_gold(b"-0.1"), M("gs.txt", 2, "outside [0.0, 5.0]")),
    case("sts", NUMBER, "plain-decimals-with-padding", {"gs.txt": b" 4.\t\n.5 \n"},
         Reads([("a b", "c d", 4.0), ("e f", "g h", 0.5)])),
    case("sts", CONTROL, "form-feed-stays-in-sentence", {"in.txt": b"a\x0cb\tc d\ne f\tg h\n"},
         Reads([("a\x0cb", "c d", 4.2), ("e f", "g h", 1.0)])),
    case("sts", CONTROL, "u2028-stays-in-sentence", {"in.txt": "a b\tc\u2028d\ne f\tg h\n".encode()},
         Reads([("a b", "c\u2028d", 4.2), ("e f", "g h", 1.0)])),
    case("sts", CONTROL, "nel-vt-fs-stay", {"in.txt": "a\x85b\tc\x0bd\ne\x1cf\tg h\n".encode()},
         Reads([("a\x85b", "c\x0bd", 4.2), ("e\x1cf", "g h", 1.0)])),
    case("sts", CONTROL, "c0-and-c1-as-in-real-sts", {"in.txt": "a\x12b\tc d\ne\x92f\tg h\n".encode()},
         Reads([("a\x12b", "c d", 4.2), ("e\x92f", "g h", 1.0)])),
    case("sts", CONTROL, "nul-input", {"in.txt": b"a b\tc d\ne\x00f\tg h\n"}, M("in.txt", 2, "NUL byte")),
    case("sts", CONTROL, "nul-gold", {"gs.txt": b"4.2\x00\n1\n"}, M("gs.txt", 1, "NUL byte")),
    case("sts", CONTROL, "stray-cr", {"in.txt": b"a b\rc\td\ne f\tg h\n"}, M("in.txt", 1, "carriage return")),
    case("sts", CONTROL, "cr-only-line-endings", {"gs.txt": b"4.2\r1\r"}, M("gs.txt", 1, "carriage return")),
    case("sts", CONTROL, "crlf", {"in.txt": b"a b\tc d\r\ne f\tg h\r\n", "gs.txt": b"4.2\r\n1\r\n"}, STS_OK),
    case("sts", EMPTY_FILE, "both-empty", {"in.txt": b"", "gs.txt": b""}, P("in.txt", "no records")),
    case("sts", EMPTY_FILE, "bom-only", {"in.txt": BOM8, "gs.txt": BOM8}, P("in.txt", "no records")),
    case("sts", EMPTY_FILE, "all-gold-blank", {"gs.txt": b"\n\n"}, P("in.txt", "no records")),
    case("sts", EMPTY_FILE, "empty-input", {"in.txt": b""}, M("gs.txt", 1, "in.txt has 0")),
    case("sts", OTHER, "no-final-newline", {"in.txt": b"a b\tc d\ne f\tg h", "gs.txt": b"4.2\n1"}, STS_OK),
    case("sts", OTHER, "gold-longer", sts_gold(b"1\n3"), M("gs.txt", 3, "truncated")),

    # --- SICK (strict) ---
    case("sick", ENCODING, "utf8-bom", {"SICK.txt": BOM8 + SICK_HEADER + b"\n1\tA man\tA dog\t4.5\tNEUTRAL\n"},
         SICK_OK),
    case("sick", ENCODING, "utf16", {"SICK.txt": (SICK_HEADER.decode() + "\n").encode("utf-16")},
         M("SICK.txt", 1, "UTF-16")),
    case("sick", ENCODING, "latin1", {"SICK.txt": SICK_HEADER + b"\n1\tA caf\xe9\tA dog\t4.5\tNEUTRAL\n"},
         M("SICK.txt", 2, "not valid UTF-8")),
    case("sick", EMPTY_FIELD, "empty-sentence", {"SICK.txt": SICK_HEADER + b"\n1\t\tA dog\t4.5\tNEUTRAL\n"},
         M("SICK.txt", 2, "empty sentence")),
    case("sick", EMPTY_FIELD, "zero-width-space-only-sentence",
         {"SICK.txt": SICK_HEADER + "\n1\tA man\t\u200b\t4.5\tNEUTRAL\n".encode()}, M("SICK.txt", 2, "empty sentence")),
    case("sick", EMPTY_FIELD, "empty-score", {"SICK.txt": SICK_HEADER + b"\n1\tA man\tA dog\t\tNEUTRAL\n"},
         M("SICK.txt", 2, "is not a number")),
    case("sick", NUMBER, "comma-decimal", {"SICK.txt": SICK_HEADER + b"\n1\tA man\tA dog\t4,5\tNEUTRAL\n"},
         M("SICK.txt", 2, "is not a number")),
    case("sick", NUMBER, "nan", {"SICK.txt": SICK_HEADER + b"\n1\tA man\tA dog\tnan\tNEUTRAL\n"},
         M("SICK.txt", 2, "is not a number")),
    case("sick", NUMBER, "padded", {"SICK.txt": SICK_HEADER + b"\n1\tA man\tA dog\t 4.5\tNEUTRAL\n"},
         M("SICK.txt", 2, "is not a number")),
    case("sick", CONTROL, "nul", {"SICK.txt": SICK_HEADER + b"\n1\tA\x00man\tA dog\t4.5\tNEUTRAL\n"},
         M("SICK.txt", 2, "NUL byte")),
    case("sick", CONTROL, "u2028-stays", {"SICK.txt": SICK_HEADER + "\n1\tA\u2028man\tA dog\t4.5\tN\n".encode()},
         Reads([("A\u2028man", "A dog", 4.5)])),
    case("sick", CONTROL, "crlf", {"SICK.txt": SICK_HEADER + b"\r\n1\tA man\tA dog\t4.5\tNEUTRAL\r\n"}, SICK_OK),
    case("sick", EMPTY_FILE, "empty", {"SICK.txt": b""}, M("SICK.txt", 1, "expected SICK header")),
    case("sick", EMPTY_FILE, "header-only", {"SICK.txt": SICK_HEADER + b"\n"}, P("SICK.txt", "no records")),

    # --- Twitter PIT test.data / test.label (strict) ---
    case("pit", ENCODING, "utf8-bom-data", {"test.data": BOM8 + PIT_ROW.format(4).encode()}, PIT_OK),
    case("pit", ENCODING, "utf8-bom-label", {"test.label": BOM8 + b"true\t0.8000\n"}, PIT_OK),
    case("pit", ENCODING, "utf16-label", {"test.label": "true\t0.8000\n".encode("utf-16")},
         M("test.label", 1, "UTF-16")),
    case("pit", EMPTY_FIELD, "empty-sentence", {"test.data": b"1\ttopic\t\tsent two\t4\tt1\tt2\n"},
         M("test.data", 1, "empty sentence")),
    case("pit", EMPTY_FIELD, "empty-graded-label", {"test.data": PIT_ROW.format("").encode()},
         M("test.data", 1, "is not an integer")),
    case("pit", NUMBER, "arabic-indic-digit", {"test.data": PIT_ROW.format("٤").encode()},
         M("test.data", 1, "is not a number")),
    case("pit", NUMBER, "label-exponent", {"test.label": b"true\t8e-1\n"}, M("test.label", 1, "is not a number")),
    case("pit", NUMBER, "label-nan", {"test.label": b"true\tnan\n"}, M("test.label", 1, "is not a number")),
    case("pit", CONTROL, "nul-label", {"test.label": b"true\t0.8\x00\n"}, M("test.label", 1, "NUL byte")),
    case("pit", CONTROL, "nel-stays", {"test.data": PIT_ROW.format(4).replace("one", "o\x85ne").encode()},
         Reads([("sent o\x85ne", "sent two", 4.0)])),
    case("pit", EMPTY_FILE, "both-empty", {"test.data": b"", "test.label": b""}, P("test.data", "no records")),

    # --- SimpWiki, one sentence a line (tolerant: skips are tallied) ---
    case("simpwiki", ENCODING, "utf8-bom", {"normal": BOM8 + b"One .\nTwo .\n"}, SW_OK),
    case("simpwiki", ENCODING, "utf16", {"normal": "One .\nTwo .\n".encode("utf-16")}, M("normal", 1, "UTF-16")),
    case("simpwiki", ENCODING, "latin1-pair-skipped", {"normal": b"One .\nTw\xf6 .\n"},
         Reads([("One .", "1 .")], {"not UTF-8 (pair skipped)": 1})),
    case("simpwiki", EMPTY_FIELD, "empty-side-pair-skipped", {"simple": b"1 .\n \n"},
         Reads([("One .", "1 .")], {"empty (pair skipped)": 1})),
    case("simpwiki", CONTROL, "nul-pair-skipped", {"simple": b"1\x00 .\n2 .\n"},
         Reads([("Two .", "2 .")], {"with a NUL byte (pair skipped)": 1})),
    case("simpwiki", CONTROL, "form-feed-and-u2028-stay", {"normal": "O\x0cne .\nT\u2028wo .\n".encode()},
         Reads([("O\x0cne .", "1 ."), ("T\u2028wo .", "2 .")])),
    case("simpwiki", CONTROL, "stray-cr-kept-as-upstream", {"normal": b"One\r.\nTwo .\r\n"},
         Reads([("One\r.", "1 ."), ("Two .", "2 .")])),
    case("simpwiki", CONTROL, "cr-only-line-endings", {"normal": b"One .\rTwo .\r"},
         M("normal", 2, "line counts differ")),
    case("simpwiki", EMPTY_FILE, "both-empty", {"normal": b"", "simple": b""}, P("normal", "no records")),
    case("simpwiki", EMPTY_FILE, "every-pair-skipped", {"normal": b"\n\n"}, P("normal", "no records")),
    case("simpwiki", EMPTY_FILE, "one-empty", {"simple": b""}, M("simple", 1, "line counts differ")),

    # --- SimpWiki v2 `title<TAB>paragraph<TAB>sentence` (tolerant) ---
    case("simpwiki-v2", ENCODING, "utf8-bom", {"normal": BOM8 + b"T\t0\tOne .\nT\t1\tTwo .\n"}, SW_OK),
    case("simpwiki-v2", EMPTY_FIELD, "empty-sentence-field", {"normal": b"T\t0\t\nT\t1\tTwo .\n"},
         Reads([("Two .", "2 .")], {"empty (pair skipped)": 1})),
    case("simpwiki-v2", EMPTY_FIELD, "missing-fields-last-read", {"normal": b"One .\nT\t1\tTwo .\n"},
         Reads([("One .", "1 ."), ("Two .", "2 .")], {"without 3 fields (the last one read)": 1})),
    case("simpwiki-v2", CONTROL, "nul-pair-skipped", {"normal": b"T\t0\tOne .\nT\t1\tTwo\x00 .\n"},
         Reads([("One .", "1 .")], {"with a NUL byte (pair skipped)": 1})),
    case("simpwiki-v2", EMPTY_FILE, "both-empty", {"normal": b"", "simple": b""}, P("normal", "no records")),

    # --- PPDB human labels (strict) ---
    case("ppdb-labels", ENCODING, "utf8-bom",
         {"ppdb.tsv": BOM8 + b"4.0\t[NP]\tthis video\tthe movie\t3.0,4.0,4.0,4.0,5.0\n"},
         Reads([("this video", "the movie")])),
    case("ppdb-labels", ENCODING, "utf16", {"ppdb.tsv": "4.0\t[NP]\ta\tb\t4\n".encode("utf-16")},
         M("ppdb.tsv", 1, "UTF-16")),
    case("ppdb-labels", EMPTY_FIELD, "empty-phrase", {"ppdb.tsv": b"4.0\t[NP]\t\tthe movie\t4\n"},
         M("ppdb.tsv", 1, "empty phrase")),
    case("ppdb-labels", NUMBER, "underscore", {"ppdb.tsv": b"4_0\t[NP]\ta\tb\t4\n"},
         M("ppdb.tsv", 1, "is not a number")),
    case("ppdb-labels", NUMBER, "inf", {"ppdb.tsv": b"inf\t[NP]\ta\tb\t4\n"}, M("ppdb.tsv", 1, "is not a number")),
    case("ppdb-labels", CONTROL, "nul", {"ppdb.tsv": b"4.0\t[NP]\ta\x00\tb\t4\n"}, M("ppdb.tsv", 1, "NUL byte")),
    case("ppdb-labels", EMPTY_FILE, "empty", {"ppdb.tsv": b""}, P("ppdb.tsv", "no records")),

    # --- PPDB XL `phrase<TAB>paraphrase` (tolerant, as Wieting's utils.get_data) ---
    case("ppdb-pairs", ENCODING, "utf8-bom", {"ppdb.txt": BOM8 + b"the movie\tthis film\n"},
         Reads([("the movie", "this film")])),
    case("ppdb-pairs", ENCODING, "utf16", {"ppdb.txt": "a\tb\n".encode("utf-16")}, M("ppdb.txt", 1, "UTF-16")),
    case("ppdb-pairs", ENCODING, "latin1-skipped", {"ppdb.txt": b"the movie\tthis film\ncaf\xe9\tbar\n"},
         Reads([("the movie", "this film")], {"not UTF-8": 1})),
    case("ppdb-pairs", EMPTY_FIELD, "empty-phrase-skipped", {"ppdb.txt": b"the movie\tthis film\n \tthis film\n"},
         Reads([("the movie", "this film")], {"with 1 fields, not 2": 1})),  # stripped first, as upstream
    case("ppdb-pairs", CONTROL, "nul-skipped", {"ppdb.txt": b"a\x00b\tc\nthe movie\tthis film\n"},
         Reads([("the movie", "this film")], {"with a NUL byte": 1})),
    case("ppdb-pairs", CONTROL, "u2028-stays", {"ppdb.txt": "the\u2028movie\tthis film\n".encode()},
         Reads([("the\u2028movie", "this film")])),
    case("ppdb-pairs", EMPTY_FILE, "empty", {"ppdb.txt": b""}, P("ppdb.txt", "no records")),
    case("ppdb-pairs", EMPTY_FILE, "every-line-skipped", {"ppdb.txt": b"\n  \nlonely\n"}, P("ppdb.txt", "no records")),

    # --- word vectors, GloVe / PARAGRAM text (tolerant as the authors' loader; values of kept words strict) ---
    case("vectors", ENCODING, "utf8-bom", {"v.txt": BOM8 + b"the 1 2\ncat 3 4\n"}, VEC_OK),
    case("vectors", ENCODING, "utf16", {"v.txt": "the 1 2\n".encode("utf-16")}, M("v.txt", 1, "UTF-16")),
    case("vectors", ENCODING, "latin1-word", {"v.txt": b"the 1 2\ncat 3 4\ncaf\xe9 5 6\n"},
         Reads(VEC_OK.records, {"with a word not in UTF-8 (read as latin-1)": 1})),
    case("vectors", EMPTY_FIELD, "word-without-values-first", {"v.txt": b"the\ncat 3 4\n"},
         M("v.txt", 1, "without vector values")),
    case("vectors", EMPTY_FIELD, "missing-value", {"v.txt": b"the 1 2\ncat 3\n"}, M("v.txt", 2, "expected 2 values")),
    case("vectors", EMPTY_FIELD, "blank-line-skipped", {"v.txt": b"the 1 2\n\ncat 3 4\n"},
         Reads(VEC_OK.records, {"blank": 1})),
    case("vectors", NUMBER, "underscore", {"v.txt": b"the 1 2\ncat 3 4_0\n"}, M("v.txt", 2, "not a finite")),
    case("vectors", NUMBER, "nan", {"v.txt": b"the 1 2\ncat nan 4\n"}, M("v.txt", 2, "not a finite")),
    case("vectors", NUMBER, "inf", {"v.txt": b"the -inf 2\ncat 3 4\n"}, M("v.txt", 1, "not a finite")),
    case("vectors", NUMBER, "float32-overflow", {"v.txt": b"the 1 2\ncat 3 1e39\n"}, M("v.txt", 2, "not a finite")),
    case("vectors", NUMBER, "comma-decimal", {"v.txt": b"the 1 2\ncat 3 0,4\n"}, M("v.txt", 2, "non-numeric")),
    case("vectors", NUMBER, "hex", {"v.txt": b"the 1 2\ncat 3 0x4\n"}, M("v.txt", 2, "non-numeric")),
    case("vectors", NUMBER, "exponent-as-in-glove", {"v.txt": b"the 1e-05 2\ncat -3.5E+1 .25\n"},
         Reads(({"the": [pytest.approx(1e-05), 2.0], "cat": [-35.0, 0.25]}, 2))),
    case("vectors", NUMBER, "unused-word-not-parsed", {"v.txt": b"the 1 2\nzebra nan 4_0\ncat 3 4\n"}, VEC_OK),
    case("vectors", CONTROL, "nul-skipped", {"v.txt": b"the 1 2\ncat 3 4\x00\n"},
         Reads(({"the": [1.0, 2.0]}, 2), {"with a NUL byte": 1})),
    case("vectors", CONTROL, "form-feed-splits-as-upstream", {"v.txt": b"the 1 2\ncat\x0c3 4\n"}, VEC_OK),
    case("vectors", CONTROL, "crlf", {"v.txt": b"the 1 2\r\ncat 3 4\r\n"}, VEC_OK),
    case("vectors", EMPTY_FILE, "empty", {"v.txt": b""}, P("v.txt", "empty word-vector file")),
    case("vectors", EMPTY_FILE, "blank-lines-only", {"v.txt": b"\n \n"}, P("v.txt", "empty word-vector file")),

    # --- vocab.txt (written by Vocabulary.save, read strictly) ---
    case("vocab", ENCODING, "utf8-bom", {"vocab.txt": BOM8 + b"<pad>\n<unk>\n<s>\n</s>\nthe\ncat\n"},
         Reads(["the", "cat"])),
    case("vocab", ENCODING, "latin1", {"vocab.txt": b"<pad>\n<unk>\n<s>\n</s>\ncaf\xe9\n"},
         M("vocab.txt", 5, "not valid UTF-8")),
    case("vocab", EMPTY_FIELD, "blank-word", {"vocab.txt": b"<pad>\n<unk>\n<s>\n</s>\nthe\n\ncat\n"},
         M("vocab.txt", 6, "blank")),
    case("vocab", EMPTY_FIELD, "space-padded-word", {"vocab.txt": b"<pad>\n<unk>\n<s>\n</s>\nthe \n"},
         M("vocab.txt", 5, "space-padded")),
    case("vocab", OTHER, "repeated-word", {"vocab.txt": b"<pad>\n<unk>\n<s>\n</s>\nthe\ncat\nthe\n"},
         M("vocab.txt", 7, "repeated")),
    case("vocab", CONTROL, "crlf", {"vocab.txt": b"<pad>\r\n<unk>\r\n<s>\r\n</s>\r\nthe\r\ncat\r\n"},
         Reads(["the", "cat"])),
    case("vocab", CONTROL, "u2028-stays-in-word", {"vocab.txt": "<pad>\n<unk>\n<s>\n</s>\na\u2028b\n".encode()},
         Reads(["a\u2028b"])),
    case("vocab", CONTROL, "nul", {"vocab.txt": b"<pad>\n<unk>\n<s>\n</s>\nth\x00e\n"}, M("vocab.txt", 5, "NUL")),
    case("vocab", EMPTY_FILE, "empty", {"vocab.txt": b""}, P("vocab.txt", "starts with")),

    # --- UD treebank for Siamese CBOW's ordered corpus (strict) ---
    case("documents", ENCODING, "utf8-bom",
         {"doc.conllu": BOM8 + f"# newdoc id = d1\n# text = Hi there.\n{WORD}\n\n".encode()},
         Reads([("d1", [(2, "Hi there.")])])),
    case("documents", ENCODING, "utf16", {"doc.conllu": "# newdoc id = d1\n".encode("utf-16")},
         M("doc.conllu", 1, "UTF-16")),
    case("documents", EMPTY_FIELD, "empty-text", {"doc.conllu": f"# newdoc id = d1\n# text = \n{WORD}\n\n".encode()},
         M("doc.conllu", 2, "empty value")),
    case("documents", EMPTY_FIELD, "empty-newdoc-id", {"doc.conllu": f"# newdoc id =\n# text = Hi\n{WORD}\n".encode()},
         M("doc.conllu", 1, "empty value")),
    case("documents", CONTROL, "nul", {"doc.conllu": f"# newdoc id = d1\n# text = H\x00i\n{WORD}\n".encode()},
         M("doc.conllu", 2, "NUL byte")),
    case("documents", CONTROL, "u2028-stays", {"doc.conllu": f"# newdoc id = d1\n# text = H\u2028i\n{WORD}\n".encode()},
         Reads([("d1", [(2, "H\u2028i")])])),
    case("documents", EMPTY_FILE, "empty", {"doc.conllu": b""}, P("doc.conllu", "no `# newdoc id`")),

    # --- UD treebank blocks for Stanza's training (strict: file:line before Stanza sees it) ---
    case("conllu", ENCODING, "utf8-bom", {"t.conllu": BOM8 + f"# sent_id = 1\n{WORD}\n\n".encode()}, CONLLU_OK),
    case("conllu", ENCODING, "utf16", {"t.conllu": f"# sent_id = 1\n{WORD}\n".encode("utf-16")},
         M("t.conllu", 1, "UTF-16")),
    case("conllu", ENCODING, "latin1", {"t.conllu": b"# sent_id = 1\n1\tH\xe9\th\tINTJ\tUH\t_\t0\troot\t_\t_\n"},
         M("t.conllu", 2, "not valid UTF-8")),
    case("conllu", EMPTY_FIELD, "nine-columns", {"t.conllu": b"# sent_id = 1\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\n"},
         M("t.conllu", 2, "10 tab-separated columns")),
    case("conllu", EMPTY_FIELD, "space-for-tabs", {"t.conllu": b"1 Hi hi INTJ UH _ 0 root _ _\n"},
         M("t.conllu", 1, "10 tab-separated columns")),
    case("conllu", NUMBER, "head-not-integer", {"t.conllu": WORD.replace("\t0\t", "\tx\t").encode() + b"\n"},
         M("t.conllu", 1, "integer HEAD")),
    case("conllu", NUMBER, "head-arabic-indic", {"t.conllu": WORD.replace("\t0\t", "\t٠\t").encode() + b"\n"},
         M("t.conllu", 1, "integer HEAD")),
    case("conllu", NUMBER, "bad-id", {"t.conllu": WORD.replace("1\t", "1a\t", 1).encode() + b"\n"},
         M("t.conllu", 1, "an ID")),
    case("conllu", NUMBER, "multiword-and-empty-node-ids",
         {"t.conllu": f"1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n{WORD}\n1.1\tx\tx\tX\tX\t_\t_\t_\t0:root\t_\n".encode()},
         Reads([f"1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n{WORD}\n1.1\tx\tx\tX\tX\t_\t_\t_\t0:root\t_\n"])),
    case("conllu", CONTROL, "nul", {"t.conllu": f"# sent_id = 1\x00\n{WORD}\n".encode()}, M("t.conllu", 1, "NUL")),
    case("conllu", CONTROL, "crlf", {"t.conllu": f"# sent_id = 1\r\n{WORD}\r\n\r\n".encode()}, CONLLU_OK),
    case("conllu", CONTROL, "cr-only-line-endings", {"t.conllu": f"# sent_id = 1\r{WORD}\r".encode()},
         M("t.conllu", 1, "carriage return")),
    case("conllu", EMPTY_FILE, "empty", {"t.conllu": b""}, P("t.conllu", "no sentences")),

    # --- user input to `embed` / `similarity`: a file ... ---
    case("lines", ENCODING, "utf8-bom", {"in.txt": BOM8 + b"a b\nc d\n"}, Reads(["a b", "c d"])),
    case("lines", ENCODING, "utf16", {"in.txt": "a b\n".encode("utf-16")}, M("in.txt", 1, "UTF-16")),
    case("lines", ENCODING, "utf16-without-bom", {"in.txt": "a b\n".encode("utf-16-le")}, M("in.txt", 1, "NUL")),
    case("lines", ENCODING, "cp1252", {"in.txt": b"a b\n\x93quoted\x94\n"}, M("in.txt", 2, "not valid UTF-8")),
    case("lines", EMPTY_FIELD, "blank-line-is-a-sentence", {"in.txt": b"a b\n\nc d\n"}, Reads(["a b", "", "c d"])),
    case("lines", CONTROL, "separators-stay-in-line", {"in.txt": "a\x0cb\nc\u2028d\ne\x85f\ng\x1ch\x0bi\n".encode()},
         Reads(["a\x0cb", "c\u2028d", "e\x85f", "g\x1ch\x0bi"])),
    case("lines", CONTROL, "nul", {"in.txt": b"a b\nc\x00d\n"}, M("in.txt", 2, "NUL byte")),
    case("lines", CONTROL, "stray-cr", {"in.txt": b"a b\rc d\n"}, M("in.txt", 1, "carriage return")),
    case("lines", CONTROL, "crlf", {"in.txt": b"a b\r\nc d\r\n"}, Reads(["a b", "c d"])),
    case("lines", EMPTY_FILE, "empty-input-no-lines", {"in.txt": b""}, Reads([])),
    case("lines", EMPTY_FILE, "bom-only", {"in.txt": BOM8}, Reads([])),
    case("lines", OTHER, "no-final-newline", {"in.txt": b"a b\nc d"}, Reads(["a b", "c d"])),
    # ... standard input ('-') ...
    case("stdin", ENCODING, "utf8-bom", {"<stdin>": BOM8 + b"a b\nc d\n"}, Reads(["a b", "c d"])),
    case("stdin", ENCODING, "latin1", {"<stdin>": b"caf\xe9\n"}, M("<stdin>", 1, "not valid UTF-8")),
    case("stdin", ENCODING, "utf16", {"<stdin>": "a b\n".encode("utf-16")}, M("<stdin>", 1, "UTF-16")),
    case("stdin", CONTROL, "u2028-and-form-feed-stay", {"<stdin>": "a\u2028b\nc\x0cd\n".encode()},
         Reads(["a\u2028b", "c\x0cd"])),
    case("stdin", CONTROL, "nul", {"<stdin>": b"a b\nc\x00d\n"}, M("<stdin>", 2, "NUL byte")),
    case("stdin", EMPTY_FILE, "empty-input-no-lines", {"<stdin>": b""}, Reads([])),
    # ... and a column of a TSV file (`similarity`, `embed --column`)
    case("column", ENCODING, "utf8-bom", {"in.txt": BOM8 + b"a\tb\nc\td\n"}, Reads(["b", "d"])),
    case("column", EMPTY_FIELD, "missing-column", {"in.txt": b"a\tb\nc d\n"}, M("in.txt", 2, "no column 2")),
    case("column", EMPTY_FIELD, "empty-field-is-a-sentence", {"in.txt": b"a\t\nc\td\n"}, Reads(["", "d"])),
    case("column", CONTROL, "u2028-in-field", {"in.txt": "a\tb\u2028x\nc\td\n".encode()}, Reads(["b\u2028x", "d"])),
    case("column", EMPTY_FILE, "empty", {"in.txt": b""}, Reads([])),
]


@pytest.mark.parametrize("reader, kind, files, expected", CASES)
def test_reader_fault(tmp_path, monkeypatch, reader, kind, files, expected):
    defaults, read = READERS[reader]
    for name, data in {**defaults, **files}.items():
        (tmp_path / name).write_bytes(data)
    if isinstance(expected, Reads):
        assert read(tmp_path, monkeypatch) == (expected.records, expected.skipped)
        return
    with pytest.raises(PipelineError) as err:
        read(tmp_path, monkeypatch)
    assert type(err.value) is expected.error
    where = expected.file if expected.file.startswith("<") else str(tmp_path / expected.file)
    message = str(err.value)
    assert message.startswith(f"{where}:{expected.line}: " if expected.line else where), message
    assert expected.says in message, message


def test_every_reader_is_tested_for_encodings_control_characters_and_empty_files():
    kinds = Counter((c.values[0], c.values[1]) for c in CASES)
    for reader in READERS:
        for kind in (ENCODING, CONTROL, EMPTY_FILE):
            assert kinds[reader, kind] > 0, (reader, kind)


def test_standard_input_without_a_byte_buffer(monkeypatch):
    """A text stream (no ``.buffer``) stands in for stdin in tests: it is read the same way."""
    monkeypatch.setattr("sys.stdin", io.StringIO("\ufeffa\u2028b\tc\nd\te\n"))
    lines = encoder.read_lines("-")
    assert lines == ["a\u2028b\tc", "d\te"]
    assert encoder.read_sentences("-", 2, lines=lines) == ["c", "e"]
    with pytest.raises(MalformedLine, match=r"^<stdin>:2: has 1 tab-separated"):
        encoder.read_sentences("-", 2, lines=["a\tb", "c"])


def test_gzipped_input_keeps_the_same_rules(tmp_path):
    import gzip

    (tmp_path / "v.txt.gz").write_bytes(gzip.compress(BOM8 + b"the 1 2\ncat 3 4\n"))
    assert vocab.read_vectors(tmp_path / "v.txt.gz", {"the"})[0]["the"].tolist() == [1.0, 2.0]
    (tmp_path / "t.conllu.gz").write_bytes(gzip.compress(f"{WORD}\n\n1\tHi\n".encode()))
    with pytest.raises(MalformedLine, match=r"t.conllu.gz:3: not a CoNLL-U word line"):
        stanza_models.conllu_sentences(tmp_path / "t.conllu.gz")
