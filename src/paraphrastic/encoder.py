"""The user-facing encoder: a trained model.pt as ``encode(list of sentences) -> numpy array``.

Raw text goes through the same tokenizer the STS evaluation uses (NLTK Punkt + Treebank, lower-cased)
and the model's own vocabulary, so ``paraphrastic.load(path).similarity(a, b)`` reproduces the
pipeline's cosine scores. Both transfer models (``train``) and supervised ones (``train-supervised``,
whose sentence encoder is used) load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from paraphrastic.data.tokenize import tokenize
from paraphrastic.data.vocab import UNK, Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.similarity import encode
from paraphrastic.runtime import resolve_device


class Encoder:
    """A sentence encoder with its vocabulary.

    Defined behaviour at the edges: unknown words map to ``<unk>`` (as in training); a sentence with
    no tokens (empty or whitespace) is embedded as a single ``<unk>``, so every row of ``encode`` is a
    finite vector; long sentences are encoded whole (batches are sorted by length, so one long
    sentence does not pad the others).
    """

    def __init__(self, model: torch.nn.Module, vocab: Vocabulary, *, device="cpu", batch_size: int = 256,
                 source: str = ""):
        self.model, self.vocab, self.device, self.batch_size, self.source = model, vocab, device, batch_size, source
        self.model.eval()

    @classmethod
    def load(cls, path, device: str = "auto", batch_size: int = 256) -> Encoder:
        """A model.pt, read with ``weights_only=True`` (a crafted file's code never runs); a missing, damaged,
        foreign or mismatched file is one :class:`PipelineError` naming it."""
        from paraphrastic.models.files import model_from_payload, model_of, read_model_file, scorer_from_payload

        path = Path(path)
        if not path.exists():
            raise PipelineError(f"{path}: no such model file (a model.pt written by `train` or `train-supervised`)")
        payload = read_model_file(path)
        device = resolve_device(device)
        if isinstance(payload.get("head"), dict):  # supervised: keep the sentence encoder
            scorer, vocab = model_of(path, payload, scorer_from_payload)
            model = scorer.encoder
        else:
            model, vocab = model_of(path, payload, model_from_payload)
        return cls(model.to(device), vocab, device=device, batch_size=batch_size, source=str(path))

    @property
    def dim(self) -> int:
        return self.model.output_dim

    def tokens(self, sentence: str) -> list[str]:
        if not isinstance(sentence, str):
            raise TypeError(f"sentences must be str, got {type(sentence).__name__}")
        return tokenize(sentence) or [UNK]

    def encode(self, sentences: list[str]) -> np.ndarray:
        """One row per sentence (float32, shape ``(len(sentences), dim)``)."""
        if isinstance(sentences, str):
            raise TypeError("encode takes a list of sentences; wrap a single sentence in a list")
        if not sentences:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenized = [self.tokens(s) for s in sentences]
        return encode(self.model, self.vocab, tokenized, batch_size=self.batch_size, device=self.device).numpy()

    def similarity(self, first: list[str], second: list[str]) -> np.ndarray:
        """Cosine similarity of each pair (first[i], second[i])."""
        if len(first) != len(second):
            raise ValueError(f"similarity needs as many first as second sentences ({len(first)} vs {len(second)})")
        a, b = self.encode(list(first)), self.encode(list(second))
        norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
        # A zero vector (e.g. an untrained <unk>) has no direction: its similarity is 0, not NaN.
        return np.divide((a * b).sum(axis=1), norms, out=np.zeros(len(a), dtype=np.float32), where=norms > 0)


def load(path, device: str = "auto", batch_size: int = 256) -> Encoder:
    """``paraphrastic.load(path)``: a trained model.pt as an :class:`Encoder`."""
    return Encoder.load(path, device=device, batch_size=batch_size)


def read_lines(path) -> list[str]:
    """The lines of a UTF-8 text file, or of standard input for '-' (read once: it cannot be read again).

    Read as the evaluation files are (:func:`paraphrastic.data.readers.iter_lines`), so a sentence is never
    split or glued: lines end at "\\n" (or "\\r\\n") only, never at a form feed, U+0085 or U+2028 (which
    stay in the sentence); a UTF-8 byte-order mark is dropped. A UTF-16 file, bytes that are not UTF-8, a NUL
    byte or a "\\r" inside a line are errors naming the line (standard input is ``<stdin>``). Every line is
    a sentence, a blank one too (it is embedded as ``<unk>``, keeping rows aligned with lines); an empty
    input has no lines, so ``embed`` writes a (0, dim) array and ``similarity`` prints nothing.
    """
    import io
    import sys

    from paraphrastic.data.readers import iter_lines

    if str(path) == "-":  # bytes, whatever the locale; a text stream without a buffer (tests) is re-encoded
        stream = getattr(sys.stdin, "buffer", None) or io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
        return [line for _, line in iter_lines("<stdin>", stream)]
    return [line for _, line in iter_lines(path)]


def read_sentences(path, column: int | None = None, *, lines: list[str] | None = None) -> list[str]:
    """One sentence per line of a text file, or the given 0-based column of a TSV file ('-' = stdin).

    ``lines`` are the file's lines when the caller has read them already (standard input can be read once).
    """
    from paraphrastic.errors import MalformedLine

    lines = read_lines(path) if lines is None else lines
    if column is None:
        return lines
    out = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if column >= len(fields):
            raise MalformedLine("<stdin>" if str(path) == "-" else path, number,
                                f"has {len(fields)} tab-separated fields, no column {column}", line)
        out.append(fields[column])
    return out
