"""Vocabulary and initial embedding matrix from a word-vector text file (GloVe / PARAGRAM format)."""

from __future__ import annotations

import hashlib
import io
import json
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from paraphrastic.atomic import atomic_path, sha256_file, write_text
from paraphrastic.data.readers import SkippedLines, iter_lines, iter_raw_lines, shown_bytes
from paraphrastic.errors import MalformedLine, PipelineError
from paraphrastic.provenance import check_role, identity

PAD, UNK, SOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
PAD_ID, UNK_ID, SOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL = [PAD, UNK, SOS, EOS]
FILE_UNK = "UUUNKKK"  # PARAGRAM-SL999's unknown-word row (the authors' vectors file)
# A vocabulary whose first word after the special rows is WORDPIECES also holds a teacher's WordPiece pieces (the
# distilled vectors with ``word_vectors.distilled.subwords``): a word it lacks is cut at punctuation as BERT's
# pre-tokenizer cuts text, and each part it lacks is read as its pieces, found greedily longest first as BERT's
# WordPiece does (a piece after the first starts with CONTINUATION) over this vocabulary's words and pieces; a part
# with no split is unknown. The marker is a row of its own (no text our tokenizer makes reads as it), so the fallback
# travels wherever the word list does: vocab.txt, a model file, an export.
WORDPIECES = "<wordpieces>"
CONTINUATION = "##"
MAX_WORDPIECE_CHARS = 100  # longer words are unknown, as BERT's tokenizer has them (max_input_chars_per_word)
TAGS = ("none", "sos", "eos", "both")


def add_tags(ids: list[int], tags: str) -> list[int]:
    """SOS/EOS tags around a sentence (footnote 4 of the paper tunes none/SOS/EOS/both)."""
    if tags not in TAGS:
        raise ValueError(f"tags must be one of {TAGS}")
    start = [SOS_ID] if tags in ("sos", "both") else []
    end = [EOS_ID] if tags in ("eos", "both") else []
    return start + ids + end


class Vocabulary:
    def __init__(self, words: list[str]):
        if words[: len(SPECIAL)] != SPECIAL:
            raise PipelineError(f"a vocabulary starts with {SPECIAL}")
        self.words = words
        self.index = {w: i for i, w in enumerate(words)}
        self.has_wordpieces = len(words) > len(SPECIAL) and words[len(SPECIAL)] == WORDPIECES
        self._splits: dict[str, list[int]] = {}

    def __len__(self) -> int:
        return len(self.words)

    def ids(self, tokens: Iterable[str], tags: str = "none") -> list[int]:
        index = self.index
        ids: list[int] = []
        for token in tokens:
            found = index.get(token)
            if found is not None:
                ids.append(found)
            elif self.has_wordpieces:
                ids.extend(self.pieces(token))
            else:
                ids.append(UNK_ID)
        # An empty sentence still gets one (unknown) token so every embedding is defined.
        return add_tags(ids or [UNK_ID], tags)

    def pieces(self, word: str) -> list[int]:
        """The ids of ``word``'s WordPiece split over this vocabulary (``[UNK_ID]`` where there is none)."""
        split = self._splits.get(word)
        if split is None:
            split = self._splits[word] = wordpiece_ids(word, self.index)
        return split

    def save(self, path) -> None:
        write_text(path, "\n".join(self.words) + "\n")

    @classmethod
    def load(cls, path) -> Vocabulary:
        """vocab.txt as :meth:`save` writes it, read strictly: a blank, space-padded or repeated word (which
        would shift every later id) is an error naming the line."""
        index: dict[str, int] = {}
        for number, word in iter_lines(path):
            if not word or word != word.strip() or word in index:
                raise MalformedLine(path, number, "blank, space-padded or repeated word", word)
            index[word] = number
        if list(index)[: len(SPECIAL)] != SPECIAL:
            raise PipelineError(f"{path}: a vocabulary file starts with {SPECIAL} (empty or not a vocab.txt?)")
        return cls(list(index))


def is_punctuation(char: str) -> bool:
    """BERT's punctuation (its tokenizer's and the ``tokenizers`` library's BertPreTokenizer's): ASCII symbols
    such as ``$``, ``+``, ``^`` and ``` ` ```, and every Unicode punctuation character."""
    code = ord(char)
    return (33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126
            or unicodedata.category(char).startswith("P"))


def punctuation_parts(word: str) -> list[str]:
    """``word`` cut as BERT's pre-tokenizer cuts text: each punctuation character a part of its own."""
    parts, current = [], ""
    for char in word:
        if is_punctuation(char):
            parts += [current, char] if current else [char]
            current = ""
        else:
            current += char
    return parts + [current] if current else parts


def wordpiece_ids(word: str, index: dict[str, int]) -> list[int]:
    """A word ``index`` lacks, as BERT reads it over ``index``: cut at punctuation (:func:`punctuation_parts`); a part
    ``index`` has is that entry, another is split greedily (the longest known prefix, then the longest known
    ``##``-piece of the rest, and so on) and is ``UNK_ID`` where a remainder has no piece or it is longer than
    MAX_WORDPIECE_CHARS. The ``tokenizers`` library's BertPreTokenizer and WordPiece model read the word the same way,
    so a static export splits it as we do."""
    ids: list[int] = []
    for part in punctuation_parts(word):
        ids.extend(_greedy_pieces(part, index))
    return ids or [UNK_ID]


def _greedy_pieces(part: str, index: dict[str, int]) -> list[int]:
    if len(part) > MAX_WORDPIECE_CHARS:
        return [UNK_ID]
    ids, start = [], 0
    while start < len(part):
        for end in range(len(part), start, -1):
            found = index.get(part[start:end] if start == 0 else CONTINUATION + part[start:end])
            if found is not None:
                ids.append(found)
                start = end
                break
        else:
            return [UNK_ID]
    return ids


def read_vectors(path, wanted: set[str], skipped: SkippedLines | None = None) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for ``wanted`` words only (a 400k x 300 file need not be held in memory).

    The format of GloVe and PARAGRAM-SL999: ``word v1 ... vd`` per line, no header, split on ASCII
    whitespace (a trailing space is common). Each line's word is decoded on its own, UTF-8 first and
    latin-1 where that fails (PARAGRAM is not clean UTF-8; only the words we keep need to match ours).
    Blank lines and lines with a NUL byte are skipped; a word seen twice keeps its last vector, as the
    authors' ``get_wordmap`` does. These, and each latin-1 word, are tallied in ``skipped``. Every line must
    have the width of the first (at least one value): another width is an error naming the file and line, as
    is a kept word's value that is not a finite decimal number (nan, inf, an overflow, "4_0", "0,5"). A file
    with no vector is an error.
    """
    skipped = SkippedLines() if skipped is None else skipped
    vectors: dict[str, np.ndarray] = {}
    dim = None
    for number, raw in iter_raw_lines(path):
        # Split the bytes (ASCII whitespace, as Python 2's str.split did for the authors): a word may
        # hold a non-breaking space, which str.split would cut.
        fields = raw.split()
        if not fields:
            skipped.note("blank", path, number)
            continue
        if b"\0" in raw:  # numpy would drop a trailing NUL of a value
            skipped.note("with a NUL byte", path, number)
            continue
        try:
            word = fields[0].decode("utf-8")
        except UnicodeDecodeError:
            word = fields[0].decode("latin-1")
            skipped.note("with a word not in UTF-8 (read as latin-1)", path, number)
        if not word.isascii():  # as the tokens it is looked up by (data/tokenize.py)
            word = unicodedata.normalize("NFC", word)
        if dim is None:
            dim = len(fields) - 1
            if dim == 1 and word.isdigit():
                raise MalformedLine(path, number, "looks like a word2vec header (count dim); expected GloVe text "
                                    "format, one `word v1 ... vd` per line", shown_bytes(raw, 80))
            if dim == 0:
                raise MalformedLine(path, number, "a word without vector values", shown_bytes(raw, 80))
        if len(fields) - 1 != dim:
            raise MalformedLine(path, number, f"expected {dim} values after the word (the first line's width), "
                                f"got {len(fields) - 1}", shown_bytes(raw, 80))
        if word not in wanted:
            continue
        if word in vectors:
            skipped.note("repeating a word (its last vector kept)", path, number)
        try:
            with np.errstate(over="ignore"):  # an overflow is reported below, as the line's error
                vectors[word] = np.asarray(fields[1:], dtype=np.float32)
        except ValueError:
            raise MalformedLine(path, number, "non-numeric vector value", shown_bytes(raw, 80)) from None
        # numpy, like float(), reads "4_0" as 40 and takes nan / inf; 1e39 overflows float32 to inf
        if not np.isfinite(vectors[word]).all() or b"_" in b"".join(fields[1:]):
            raise MalformedLine(path, number, "vector value not a finite decimal number", shown_bytes(raw, 80))
    if dim is None:
        raise PipelineError(f"{path}: empty word-vector file")
    return vectors, dim


def build(token_lists: Iterable[list[str]], vectors_path,
          skipped: SkippedLines | None = None) -> tuple[Vocabulary, np.ndarray]:
    """Words of the corpora that have a pretrained vector, most frequent first, after the special rows.

    Restricting to corpus words is equivalent to loading the whole file: a word that never occurs
    gets no gradient and, under the λ_w penalty, stays at its initial value. Unknown words share
    one row: it starts at the file's own unknown-word vector where it has one (PARAGRAM-SL999's
    ``UUUNKKK``, the row the authors' code maps every unknown word to: utils.py:12-15), else at zero, as
    the SOS/EOS rows do (adding nothing to an average until trained).
    """
    counts: Counter[str] = Counter()
    for tokens in token_lists:
        counts.update(tokens)
    vectors, dim = read_vectors(vectors_path, set(counts) | {FILE_UNK}, skipped)
    unknown = vectors.get(FILE_UNK)
    if FILE_UNK not in counts:  # the unknown row's start, not a word of the corpora
        vectors.pop(FILE_UNK, None)
    words = SPECIAL + sorted((w for w in vectors if w not in SPECIAL), key=lambda w: (-counts[w], w))
    matrix = np.zeros((len(words), dim), dtype=np.float32)
    for i, word in enumerate(words[len(SPECIAL):], start=len(SPECIAL)):
        matrix[i] = vectors[word]
    if unknown is not None:
        matrix[UNK_ID] = unknown
    return Vocabulary(words), matrix


def coverage(vocab: Vocabulary, token_lists: Iterable[list[str]]) -> dict:
    """The share of tokens (and of distinct words) with a vector of their own; for a vocabulary with WordPiece
    pieces, also the share with a vector of their own or read wholly through pieces, no part of them unknown
    (``token_coverage_with_pieces``)."""
    counts: Counter[str] = Counter()
    for seq in token_lists:
        counts.update(seq)
    tokens = sum(counts.values())
    known = [w for w in counts if w in vocab.index]
    report = {"tokens": tokens, "token_coverage": sum(counts[w] for w in known) / max(tokens, 1),
              "types": len(counts), "type_coverage": len(known) / max(len(counts), 1)}
    if vocab.has_wordpieces:
        split = [w for w in counts if w not in vocab.index and UNK_ID not in vocab.pieces(w)]
        report["token_coverage_with_pieces"] = report["token_coverage"] + sum(counts[w] for w in split) / max(tokens, 1)
        report["type_coverage_with_pieces"] = report["type_coverage"] + len(split) / max(len(counts), 1)
    return report


# A matrix's record of what it holds, a line after its array (np.load reads the array and ignores what follows): the
# stage that wrote it, its shape and type, and the sha256 of the .npy bytes before the record.
MATRIX_RECORD = b"\n#paraphrastic "


RECORDED = object()  # load_matrix's rows_of: the file the matrix's record names, beside it (whatever it is)


def load_matrix(path, *, rows_of=None) -> np.ndarray:
    """An embedding matrix :func:`save_matrix` wrote, checked against its record; a missing, damaged, truncated or
    edited file, one in another's place, or (``rows_of``: the file the caller reads its rows from, or
    :data:`RECORDED`) one beside another file than the one it was written with, is an error naming it and what
    differs."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise PipelineError(f"{path}: no such matrix (an earlier stage writes it: run the pipeline up to it)") from None
    except OSError as exc:
        raise PipelineError(f"{path}: not a readable .npy matrix ({exc}); rerun the stage that writes it") from None
    cut = data.rfind(MATRIX_RECORD)
    try:
        record = json.loads(data[cut + len(MATRIX_RECORD):]) if cut >= 0 else None
        matrix = np.load(io.BytesIO(data[: cut if cut >= 0 else len(data)]), allow_pickle=False)
    except (ValueError, EOFError, OSError) as exc:
        raise PipelineError(f"{path}: not a readable .npy matrix ({exc}); rerun the stage that writes it") from None
    if not isinstance(record, dict):
        raise PipelineError(f"{path}: holds no record of what the pipeline wrote there (written by another program, "
                            "edited, or by a version before records): rerun the stage that writes it")
    check_role(path, record)
    stage = record.get("stage") or "its stage"
    if list(matrix.shape) != record["shape"] or str(matrix.dtype) != record["dtype"]:
        raise PipelineError(f"{path}: a {matrix.dtype} matrix of shape {list(matrix.shape)} where {stage} wrote "
                            f"{record['dtype']} {record['shape']}: damaged or edited; rerun {stage}")
    if cut != record["bytes"] or hashlib.sha256(memoryview(data)[:cut]).hexdigest() != record["sha256"]:
        raise PipelineError(f"{path}: its values differ from what {stage} wrote (the sha256 of its array): damaged "
                            f"or edited; rerun {stage}")
    partner = record.get("rows_of")
    if rows_of is not None and partner is not None:
        if rows_of is RECORDED:
            rows_of = Path(path).parent / partner["file"]
        if not Path(rows_of).is_file():
            raise PipelineError(f"{rows_of}: missing beside {path}, which {stage} wrote with it; rerun {stage}")
        if sha256_file(rows_of) != partner["sha256"]:
            raise PipelineError(f"{rows_of}: not the {partner['file']} that {stage} wrote with {path} (its sha256 "
                                f"differs from the one the matrix's record holds): edited, or another run's; rerun "
                                f"{stage}")
    return matrix


def save_matrix(path, matrix: np.ndarray, *, stage: str | None = None, rows_of=None) -> None:
    """``matrix`` as .npy at ``path`` (atomically), followed by its record (:data:`MATRIX_RECORD`): its shape,
    dtype and sha256, what it is (:mod:`paraphrastic.provenance`) and, with ``rows_of``, the file written with it
    whose rows its rows are (a vocab.txt, a table of texts): that file's name and sha256, which
    :func:`load_matrix` checks, so that neither is used beside another run's other half."""
    buffer = io.BytesIO()
    np.save(buffer, matrix)
    array = buffer.getvalue()
    record = {"stage": stage, "shape": list(matrix.shape), "dtype": str(matrix.dtype), "bytes": len(array),
              "sha256": hashlib.sha256(array).hexdigest(), **identity(path)}
    if rows_of is not None:
        record["rows_of"] = {"file": Path(rows_of).name, "sha256": sha256_file(rows_of)}
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        handle.write(array)
        handle.write(MATRIX_RECORD + json.dumps(record, sort_keys=True).encode() + b"\n")


VOCAB_FILE, MATRIX_FILE = "vocab.txt", "embeddings.npy"


def save_vectors(folder, vocab: Vocabulary, matrix: np.ndarray, *, stage: str) -> None:
    """A vocabulary folder: ``vocab.txt`` (one word a line) and ``embeddings.npy`` (its rows, in that order), the
    matrix's record holding the word list's sha256 (:func:`save_matrix`'s ``rows_of``)."""
    if len(vocab) != len(matrix):
        raise ValueError(f"{len(vocab)} words but {len(matrix)} rows")
    vocab.save(Path(folder) / VOCAB_FILE)
    save_matrix(Path(folder) / MATRIX_FILE, matrix, stage=stage, rows_of=Path(folder) / VOCAB_FILE)


def load_vectors(folder) -> tuple[Vocabulary, np.ndarray]:
    """A vocabulary folder :func:`save_vectors` wrote: the word list and its matrix, each checked against the
    matrix's record, so an edited word list (two lines swapped shift every id) stops the job that reads it."""
    words_path, matrix_path = Path(folder) / VOCAB_FILE, Path(folder) / MATRIX_FILE
    vocab = Vocabulary.load(words_path)
    matrix = load_matrix(matrix_path, rows_of=words_path)
    if len(vocab) != len(matrix):
        raise PipelineError(f"{words_path}: {len(vocab)} words beside {matrix_path}'s {len(matrix)} rows: not written "
                            "together; rerun the stage that writes them")
    return vocab, matrix
