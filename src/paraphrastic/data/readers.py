"""Readers for every format in the data mirror. Each rejects a malformed line with file:line.

All readers return plain Python records (raw, untokenised text); tokenisation happens once,
downstream, in :mod:`paraphrastic.data.corpus`.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from paraphrastic.errors import MalformedLine, PipelineError


@dataclass(frozen=True)
class ScoredPair:
    s1: str
    s2: str
    score: float
    line: int  # 1-based line in the input file, kept for auditing


def iter_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text without the line ending); decode errors name the line."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    with opener(path, "rb") as handle:
        try:
            for number, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise MalformedLine(path, number, f"not valid UTF-8 ({exc.reason})") from None
                yield number, text.rstrip("\n").rstrip("\r")
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise MalformedLine(path, number + 1, f"corrupt or truncated gzip data ({exc})") from None


def _score(path, number: int, text: str, low: float, high: float, line: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise MalformedLine(path, number, f"score {text!r} is not a number", line) from None
    if not (low <= value <= high) or math.isnan(value):
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
        if not s1.strip() or not s2.strip():
            raise MalformedLine(input_path, number, "empty sentence", line)
        pairs.append(ScoredPair(s1, s2, _score(gold_path, number, gold.strip(), 0.0, 5.0, gold), number))
    return pairs


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
        pairs.append(ScoredPair(parts[1], parts[2], _score(path, number, parts[3], 1.0, 5.0, line), number))
    return pairs


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
    return pairs


@dataclass(frozen=True)
class TextPair:
    s1: str
    s2: str
    source: str  # e.g. "simpwiki/v2-validation:17"


def read_aligned_pairs(first_path, second_path, *, fmt: str = "sentences") -> list[TextPair]:
    """SimpWiki: two line-aligned files (standard / simple Wikipedia).

    ``fmt="sentences"``: one sentence per line (the mirror's slices). ``fmt="aligned"``: the v2
    release's ``title<TAB>paragraph<TAB>sentence`` lines.
    """
    if fmt not in {"sentences", "aligned"}:
        raise PipelineError(f"unknown SimpWiki format {fmt!r}")
    first = list(iter_lines(first_path))
    second = list(iter_lines(second_path))
    if len(first) != len(second):
        shorter = first_path if len(first) < len(second) else second_path
        raise MalformedLine(shorter, min(len(first), len(second)) + 1,
                            f"line counts differ ({len(first)} vs {len(second)}): files are not aligned")
    tag = f"{Path(first_path).parent.name}/{Path(first_path).name}"
    pairs = []
    for (number, a), (_, b) in zip(first, second, strict=True):
        texts = []
        for path, line in ((first_path, a), (second_path, b)):
            if fmt == "aligned":
                parts = line.split("\t")
                if len(parts) != 3:
                    raise MalformedLine(path, number, "expected title<TAB>paragraph<TAB>sentence", line)
                line = parts[2]
            if not line.strip():
                raise MalformedLine(path, number, "empty sentence", line)
            texts.append(line)
        pairs.append(TextPair(texts[0], texts[1], f"{tag}:{number}"))
    return pairs


def read_ppdb(path, *, fmt: str = "human_labels") -> list[TextPair]:
    """PPDB pairs, tab-separated.

    ``fmt="human_labels"``: Pavlick et al. (2015) ``score, [CAT], phrase, paraphrase, scores``.
    ``fmt="pairs"``: phrase<TAB>paraphrase[<TAB>...] as in Wieting's ``ppdb-XL-ordered-data.txt``.
    """
    pairs = []
    name = Path(path).name
    for number, line in iter_lines(path):
        parts = line.split("\t")
        if fmt == "human_labels":
            if len(parts) != 5:
                raise MalformedLine(path, number, f"expected 5 tab-separated fields, got {len(parts)}", line)
            _score(path, number, parts[0], 1.0, 5.0, line)
            a, b = parts[2], parts[3]
        elif fmt == "pairs":
            if len(parts) < 2:
                raise MalformedLine(path, number, "expected phrase<TAB>paraphrase", line)
            a, b = parts[0], parts[1]
        else:
            raise PipelineError(f"unknown PPDB format {fmt!r}")
        if not a.strip() or not b.strip():
            raise MalformedLine(path, number, "empty phrase", line)
        pairs.append(TextPair(a, b, f"{name}:{number}"))
    return pairs
