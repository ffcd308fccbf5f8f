"""Readers for every format in the data mirror and the paper's upstream files.

Evaluation data (STS inputs and gold scores, SICK, Twitter PIT) is read strictly: a malformed line
stops with file:line, since skipping a scored pair would change a result. The training corpora the
authors' code reads (SimpWiki v2, PPDB XL) are read as that code reads them: a line it would skip is
skipped and tallied by kind in a :class:`SkippedLines`, which the stage records in its stats JSON.

All readers return plain Python records (raw, untokenised text); tokenisation happens once,
downstream, in :mod:`paraphrastic.data.corpus`.

Bytes, the same for every reader (:func:`iter_raw_lines`, :func:`iter_lines`): a line ends at "\\n" (a "\\r"
before it is dropped) and nowhere else; form feeds, U+0085, U+2028 and other controls stay inside the line
(``str.splitlines`` would break it in two and misalign pairs; real STS lines hold U+0012 and U+0091-U+0095).
A UTF-8 byte-order mark opening a file is dropped; a UTF-16/32 one is an error. Strict readers also refuse
bytes that are not UTF-8, NUL bytes (binary, or UTF-16 without a mark) and a "\\r" inside a line (classic
Mac line endings); tolerant readers skip and tally the first two and keep a "\\r" as the authors' code did
(a file with classic Mac line endings is then one line, and misaligned). A score must be a plain decimal number
(:data:`DECIMAL`: no exponent, underscore, comma, nan or inf, which ``float`` would take). A file that yields
no record is an error naming it.
"""

from __future__ import annotations

import gzip
import os
import re
import unicodedata
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from paraphrastic.errors import MalformedLine, PipelineError


@dataclass(frozen=True)
class ScoredPair:
    s1: str
    s2: str
    score: float
    line: int  # 1-based line in the input file, kept for auditing


UTF16_32_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-32-LE's starts with UTF-16-LE's


def iter_raw_lines(path: str | os.PathLike, stream: BinaryIO | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, bytes without the line ending) of a plain or gzipped file (or of
    ``stream``, which ``path`` then only names), split at "\\n" only; a leading UTF-8 BOM is dropped."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    with nullcontext(stream) if stream is not None else opener(path, "rb") as handle:
        try:
            for number, raw in enumerate(handle, start=1):
                if number == 1:
                    if raw.startswith(UTF16_32_BOMS):
                        raise MalformedLine(path, 1, "starts with a UTF-16/UTF-32 byte-order mark: convert the "
                                            "file to UTF-8")
                    raw = raw.removeprefix(b"\xef\xbb\xbf")
                    if not raw:  # nothing but the mark: an empty file
                        return
                yield number, raw.rstrip(b"\n").removesuffix(b"\r")
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise MalformedLine(path, number + 1, f"corrupt or truncated gzip data ({exc})") from None


def iter_lines(path: str | os.PathLike, stream: BinaryIO | None = None) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text without the line ending), strictly: bytes that are not UTF-8, a NUL
    byte or a "\\r" inside a line are errors naming the line."""
    for number, raw in iter_raw_lines(path, stream):
        if b"\0" in raw:
            raise MalformedLine(path, number, "NUL byte (binary data, or UTF-16 without a byte-order mark?)",
                                shown_bytes(raw))
        if b"\r" in raw:
            raise MalformedLine(path, number, "carriage return inside the line (lines end in \\n or \\r\\n)",
                                shown_bytes(raw))
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedLine(path, number, f"not valid UTF-8 ({exc.reason})") from None


def shown_bytes(raw: bytes, limit: int = 120) -> str:
    """The start of a raw line, as an error message shows it (whatever its encoding)."""
    return raw[:limit].decode("utf-8", errors="replace")


def _some(records: list, *paths) -> list:
    """``records``, or an error naming the file(s) when there is none."""
    if not records:
        raise PipelineError(f"{' + '.join(map(str, paths))}: no records (an empty file, or no line readable?)")
    return records


class SkippedLines:
    """What a tolerant reader did with lines it could not take as they were: a count per kind, and where
    the first few of each kind are (``file:line``), for the stage's stats JSON."""

    FIRST = 5

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.first: dict[str, list[str]] = {}

    def note(self, kind: str, path, number: int) -> None:
        self.counts[kind] += 1
        where = self.first.setdefault(kind, [])
        if len(where) < self.FIRST:
            where.append(f"{Path(path).name}:{number}")

    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict:
        kinds = sorted(self.counts)
        return {"lines": self.total(), "by_kind": {k: self.counts[k] for k in kinds},
                "first": {k: self.first[k] for k in kinds}}


DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def _score(path, number: int, text: str, low: float, high: float, line: str) -> float:
    if not DECIMAL.fullmatch(text):
        raise MalformedLine(path, number, f"score {text!r} is not a number (a plain decimal like 3.8)", line)
    value = float(text)
    if not low <= value <= high:
        raise MalformedLine(path, number, f"score {value} outside [{low}, {high}]", line)
    return value


def read_sts(input_path, gold_path, *, fields: int = 2) -> list[ScoredPair]:
    """STS 2012-2016: ``STS.input.*`` (tab-separated sentences) aligned with ``STS.gs.*`` scores.

    ``fields`` is the exact number of tab-separated fields per input line (2 for 2012-2015, 4 for
    2016, whose last two columns are source notes a system must not use). Pairs whose gold line
    is blank are not part of the official scoring and are skipped.
    """
    inputs = list(iter_lines(input_path))
    golds = list(iter_lines(gold_path))
    if len(golds) != len(inputs):
        raise MalformedLine(
            gold_path, min(len(golds), len(inputs)) + 1,
            f"has {len(golds)} lines but {Path(input_path).name} has {len(inputs)} (truncated file?)",
        )
    pairs = []
    for (number, line), (_, gold) in zip(inputs, golds, strict=True):
        if not gold.strip():
            continue
        parts = line.split("\t")
        if len(parts) != fields:
            raise MalformedLine(input_path, number, f"expected {fields} tab-separated fields, got {len(parts)}",
                                line)
        s1, s2 = parts[0], parts[1]
        if blank(s1) or blank(s2):
            raise MalformedLine(input_path, number, "empty sentence", line)
        pairs.append(ScoredPair(s1, s2, _score(gold_path, number, gold.strip(), 0.0, 5.0, gold), number))
    return _some(pairs, input_path, gold_path)


def blank(text: str) -> bool:
    """No visible character: only whitespace (NBSP included) and invisible format characters (a zero-width space
    or joiner, a word joiner, a byte-order mark), which no tokenizer turns into a word."""
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in text)


SICK_HEADER = ["pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment"]


def read_sick(path) -> list[ScoredPair]:
    """SICK 2014 (header line, tab-separated, LF or CRLF); relatedness on 1-5."""
    lines = iter_lines(path)
    first = next(lines, None)
    if first is None or first[1].split("\t") != SICK_HEADER:
        raise MalformedLine(path, 1, f"expected SICK header {SICK_HEADER}", None if first is None else first[1])
    pairs = []
    for number, line in lines:
        parts = line.split("\t")
        if len(parts) != 5:
            raise MalformedLine(path, number, f"expected 5 tab-separated fields, got {len(parts)}", line)
        if blank(parts[1]) or blank(parts[2]):
            raise MalformedLine(path, number, "empty sentence", line)
        pairs.append(ScoredPair(parts[1], parts[2], _score(path, number, parts[3], 1.0, 5.0, line), number))
    return _some(pairs, path)


def read_twitter(data_path, label_path) -> list[ScoredPair]:
    """Twitter PIT 2015 test: the expert graded score 0-5 of ``test.data`` (all 972 pairs).

    ``test.label`` (``true/false/---- score/5``) is read too and must agree with ``test.data``,
    which catches a mismatched or truncated pair of files.
    """
    labels = list(iter_lines(label_path))
    pairs = []
    count = 0
    for number, line in iter_lines(data_path):
        count += 1
        parts = line.split("\t")
        if len(parts) != 7:
            raise MalformedLine(data_path, number, f"expected 7 tab-separated fields, got {len(parts)}", line)
        if not parts[4].isdigit():
            raise MalformedLine(data_path, number, f"graded label {parts[4]!r} is not an integer 0-5", line)
        score = _score(data_path, number, parts[4], 0.0, 5.0, line)
        if blank(parts[2]) or blank(parts[3]):
            raise MalformedLine(data_path, number, "empty sentence", line)
        if number > len(labels):
            raise MalformedLine(label_path, len(labels) + 1, f"ends before {Path(data_path).name} (truncated?)")
        label_line = labels[number - 1][1]
        label_fields = label_line.split("\t")
        if len(label_fields) != 2:
            raise MalformedLine(label_path, number, "expected `true|false|----<TAB>score`", label_line)
        if abs(_score(label_path, number, label_fields[1], 0.0, 1.0, label_line) * 5 - score) > 1e-6:
            raise MalformedLine(label_path, number, f"score disagrees with {Path(data_path).name} ({score}/5)",
                                label_line)
        pairs.append(ScoredPair(parts[2], parts[3], score, number))
    if count != len(labels):
        raise MalformedLine(data_path, count + 1, f"ends after {count} lines but test.label has {len(labels)}")
    return _some(pairs, data_path, label_path)


@dataclass(frozen=True)
class TextPair:
    s1: str
    s2: str
    source: str  # e.g. "simpwiki/v2-validation:17"


def read_aligned_pairs(first_path, second_path, *, fmt: str = "sentences",
                       skipped: SkippedLines | None = None) -> list[TextPair]:
    """SimpWiki: two line-aligned files (standard / simple Wikipedia).

    ``fmt="sentences"``: one sentence per line (the mirror's slices). ``fmt="aligned"``: the v2
    release's ``title<TAB>paragraph<TAB>sentence`` lines, whose last field the authors' code takes
    (``line.split('\\t')[-1].strip()``), whatever the number of fields. A pair with an empty or
    undecodable side (or a NUL byte) is skipped and tallied in ``skipped``; files of different lengths, or
    with no pair left, are an error.
    """
    if fmt not in {"sentences", "aligned"}:
        raise PipelineError(f"unknown SimpWiki format {fmt!r}")
    skipped = SkippedLines() if skipped is None else skipped
    first = list(iter_raw_lines(first_path))
    second = list(iter_raw_lines(second_path))
    if len(first) != len(second):
        shorter = first_path if len(first) < len(second) else second_path
        raise MalformedLine(shorter, min(len(first), len(second)) + 1,
                            f"line counts differ ({len(first)} vs {len(second)}): files are not aligned")
    tag = f"{Path(first_path).parent.name}/{Path(first_path).name}"
    pairs = []
    for (number, a), (_, b) in zip(first, second, strict=True):
        texts = []
        for path, raw in ((first_path, a), (second_path, b)):
            if b"\0" in raw:
                skipped.note("with a NUL byte (pair skipped)", path, number)
                break
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                skipped.note("not UTF-8 (pair skipped)", path, number)
                break
            if fmt == "aligned":
                parts = line.split("\t")
                if len(parts) != 3:
                    skipped.note("without 3 fields (the last one read)", path, number)
                line = parts[-1]
            if not line.strip():
                skipped.note("empty (pair skipped)", path, number)
                break
            texts.append(line)
        if len(texts) == 2:
            pairs.append(TextPair(texts[0], texts[1], f"{tag}:{number}"))
    return _some(pairs, first_path, second_path)


def read_ppdb(path, *, fmt: str = "human_labels", skipped: SkippedLines | None = None) -> list[TextPair]:
    """PPDB pairs, tab-separated.

    ``fmt="human_labels"``: Pavlick et al. (2015) ``score, [CAT], phrase, paraphrase, scores``, the
    mirror's pinned file, read strictly. ``fmt="pairs"``: ``phrase<TAB>paraphrase`` as in Wieting's
    ``ppdb-XL-ordered-data.txt``, read as his ``utils.get_data`` reads it: each line stripped, blank lines
    and lines without exactly two fields skipped; we also skip (and tally in ``skipped``) a line with
    an empty phrase, a NUL byte or bytes that are not UTF-8.
    """
    if fmt not in {"human_labels", "pairs"}:
        raise PipelineError(f"unknown PPDB format {fmt!r}")
    skipped = SkippedLines() if skipped is None else skipped
    pairs = []
    name = Path(path).name
    if fmt == "human_labels":
        for number, line in iter_lines(path):
            parts = line.split("\t")
            if len(parts) != 5:
                raise MalformedLine(path, number, f"expected 5 tab-separated fields, got {len(parts)}", line)
            _score(path, number, parts[0], 1.0, 5.0, line)
            if not parts[2].strip() or not parts[3].strip():
                raise MalformedLine(path, number, "empty phrase", line)
            pairs.append(TextPair(parts[2], parts[3], f"{name}:{number}"))
        return _some(pairs, path)
    for number, raw in iter_raw_lines(path):
        if b"\0" in raw:
            skipped.note("with a NUL byte", path, number)
            continue
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            skipped.note("not UTF-8", path, number)
            continue
        if not line:
            skipped.note("blank", path, number)
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            skipped.note(f"with {len(parts)} fields, not 2", path, number)
        elif not parts[0].strip() or not parts[1].strip():
            skipped.note("empty phrase", path, number)
        else:
            pairs.append(TextPair(parts[0], parts[1], f"{name}:{number}"))
    return _some(pairs, path)
