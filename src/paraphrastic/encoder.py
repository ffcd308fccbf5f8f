"""The user-facing encoder: a trained model.pt as ``encode(list of sentences) -> numpy array``.

Raw text goes through the same tokenizer the STS evaluation uses (NLTK Punkt + Treebank, lower-cased)
and the model's own vocabulary, so ``paraphrastic.load(path).similarity_pairwise(a, b)`` reproduces the
pipeline's cosine scores; a model file that records a tokenizer of its own (a static model's,
:mod:`paraphrastic.data.static_tokenizer`) is read with that one. ``encode``, ``similarity`` and
``similarity_pairwise`` take sentence-transformers' arguments and return its types, so an :class:`Encoder` stands
in for a ``SentenceTransformer`` (:mod:`paraphrastic.export` writes a folder that sentence-transformers itself
loads). Both transfer models (``train``) and supervised ones (``train-supervised``, whose sentence encoder is used)
load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from paraphrastic.data.static_tokenizer import recorded_tokenizer, shipped_tokens
from paraphrastic.data.tokenize import tokenize
from paraphrastic.data.vocab import UNK, UNK_ID, Vocabulary, add_tags
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.similarity import embed_ids, encode
from paraphrastic.runtime import resolve_device


class Encoder:
    """A sentence encoder with its vocabulary.

    Defined behaviour at the edges: unknown words map to ``<unk>`` (as in training); a sentence with
    no tokens (empty or whitespace) is embedded as a single ``<unk>``, so every row of ``encode`` is a
    finite vector; long sentences are encoded whole (batches are sorted by length, so one long
    sentence does not pad the others).
    """

    def __init__(self, model: torch.nn.Module, vocab: Vocabulary, *, device="cpu", batch_size: int = 256,
                 source: str = "", tokenizer=None):
        self.model, self.vocab, self.device, self.batch_size, self.source = model, vocab, device, batch_size, source
        self.tokenizer = tokenizer  # a static model's tokenizers.Tokenizer, or None: the Treebank tokenizer
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
        return cls(model.to(device), vocab, device=device, batch_size=batch_size, source=str(path),
                   tokenizer=recorded_tokenizer(path, payload, vocab))

    @property
    def dim(self) -> int:
        return self.model.output_dim

    def tokens(self, sentence: str) -> list[str]:
        if not isinstance(sentence, str):
            raise TypeError(f"sentences must be str, got {type(sentence).__name__}")
        if self.tokenizer is not None:
            return shipped_tokens(self.tokenizer, [sentence])[0] or [UNK]
        return tokenize(sentence) or [UNK]

    def encode(self, sentences, prompt_name: str | None = None, prompt: str | None = None,
               batch_size: int | None = None, show_progress_bar: bool | None = None,
               output_value: str = "sentence_embedding", precision: str = "float32", convert_to_numpy: bool = True,
               convert_to_tensor: bool = False, device=None, normalize_embeddings: bool = False,
               truncate_dim: int | None = None, **kwargs):
        """Sentence embeddings, with the arguments and return types of sentence-transformers'
        ``SentenceTransformer.encode``, so code (and MTEB) written for it runs on this encoder.

        ``sentences`` is one str (one 1-D vector comes back) or a list, tuple, numpy array or pandas Series of
        str (one float32 row each, shape ``(len(sentences), dim)``; an empty input gives ``(0, dim)``).
        ``convert_to_tensor`` returns a (CPU) torch tensor; ``convert_to_numpy=False`` alone a list of 1-D tensors;
        ``normalize_embeddings`` scales rows to unit length (a zero row stays zero); ``truncate_dim`` keeps the
        first dimensions; ``prompt`` is prepended to every sentence. ``batch_size`` defaults to the one given to
        :func:`load`; ``device`` moves the model there (as sentence-transformers does), for this call and later
        ones. The model has no named prompts, so a ``prompt_name`` is an error, as sentence-transformers makes
        an unknown one; only float32 ``precision`` and ``"sentence_embedding"`` outputs are available.
        Keyword arguments MTEB passes to encoders (task name, prompt type, split) are accepted and unused;
        any other is a TypeError naming it, never silently dropped.
        """
        if unknown := set(kwargs) - MTEB_ENCODE_ARGUMENTS:
            raise TypeError(f"encode() got unexpected keyword argument(s) {sorted(unknown)}")
        if prompt_name is not None:
            raise ValueError(f"prompt name {prompt_name!r}: this model has no named prompts (give `prompt` instead)")
        if output_value != "sentence_embedding":
            raise ValueError(f"output_value {output_value!r}: this encoder returns sentence embeddings only")
        if precision != "float32":
            raise ValueError(f"precision {precision!r}: this encoder returns float32 embeddings only")
        batch_size = self.batch_size if batch_size is None else batch_size
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if device is not None:
            self.device = resolve_device(str(device))
            self.model.to(self.device)

        single = isinstance(sentences, str)
        sentences = [sentences] if single else as_sentence_list(sentences)
        if prompt:
            sentences = [prompt + s if isinstance(s, str) else s for s in sentences]
        vectors = self._embed([self.tokens(s) for s in sentences], batch_size, show_progress_bar)
        if truncate_dim is not None:
            vectors = vectors[:, :truncate_dim]
        if normalize_embeddings:
            # F.normalize divides by max(norm, eps): a zero row (no direction) stays zero instead of NaN.
            vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
        if convert_to_tensor:
            out = vectors
        elif convert_to_numpy:
            out = vectors.numpy()
        else:
            out = list(vectors)
        return out[0] if single else out

    def _embed(self, tokenized: list[list[str]], batch_size: int, show_progress_bar: bool | None) -> torch.Tensor:
        if not tokenized:
            return torch.zeros((0, self.dim), dtype=torch.float32)
        if not show_progress_bar:
            return encode(self.model, self.vocab, tokenized, batch_size=batch_size, device=self.device)
        from tqdm import tqdm

        # Batches of similar lengths, as `encode` makes them, each counted once on the bar.
        order = sorted(range(len(tokenized)), key=lambda i: len(tokenized[i]))
        out = torch.empty((len(tokenized), self.dim), dtype=torch.float32)
        for start in tqdm(range(0, len(order), batch_size), desc="Batches", unit="batch"):
            chunk = order[start : start + batch_size]
            out[chunk] = encode(self.model, self.vocab, [tokenized[i] for i in chunk], batch_size=batch_size,
                                device=self.device)
        return out

    def _as_embeddings(self, values) -> torch.Tensor:
        """Embeddings given as an array or tensor (one row, or a matrix) or a list of rows, or sentences (a str
        or a sequence of them), which are encoded first."""
        if isinstance(values, torch.Tensor):
            tensor = values
        elif isinstance(values, np.ndarray) and values.dtype.kind not in "OUS":
            tensor = torch.from_numpy(np.ascontiguousarray(values))  # a reversed or sliced view has odd strides
        else:
            items = [values] if isinstance(values, str) else as_sentence_list(values)
            if items and all(isinstance(v, torch.Tensor) for v in items):
                tensor = torch.stack(items)
            elif items and all(isinstance(v, (np.ndarray, list, tuple)) for v in items):
                tensor = torch.from_numpy(np.asarray(items, dtype=np.float32))
            else:  # sentences; anything else is encode's TypeError naming its type
                return self.encode(items, convert_to_tensor=True)
        tensor = tensor.detach().float().cpu()
        return tensor.unsqueeze(0) if tensor.dim() == 1 else tensor

    def encode_noting_unknown(self, sentences: list[str]) -> tuple[np.ndarray, list[int]]:
        """:meth:`encode`'s rows for ``sentences``, and the positions of those in which the model knows no word (nor,
        with word pieces, any piece), from one tokenisation and one mapping to ids: each of those is embedded as the
        unknown word alone, so any two of them are identical (cosine 1)."""
        ids = [self.vocab.ids(self.tokens(s)) for s in as_sentence_list(sentences)]
        unknown = [position for position, row in enumerate(ids) if all(i == UNK_ID for i in row)]
        if not ids:
            return np.zeros((0, self.dim), dtype=np.float32), unknown
        # the tags are added to the ids the check read, as encode's Vocabulary.ids would add them
        tagged = [add_tags(row, getattr(self.model, "tags", "none")) for row in ids]
        return embed_ids(self.model, tagged, batch_size=self.batch_size, device=self.device).numpy(), unknown

    def similarity(self, first, second) -> torch.Tensor:
        """The cosine similarity of every row of ``first`` with every row of ``second`` (a tensor of shape
        ``(len(first), len(second))``), as sentence-transformers' ``model.similarity(embeddings1, embeddings2)``.

        Both are embeddings (numpy arrays or tensors from :meth:`encode`; a 1-D vector is one row) or
        sentences, which are encoded first. A zero vector (e.g. an untrained ``<unk>``) has no direction: its
        similarity to anything is 0, never NaN.
        """
        a, b = self._as_embeddings(first), self._as_embeddings(second)
        return torch.nn.functional.normalize(a, dim=1) @ torch.nn.functional.normalize(b, dim=1).T

    def similarity_pairwise(self, first, second) -> torch.Tensor:
        """Cosine similarity of each pair (first[i], second[i]), a tensor of shape ``(len(first),)``, as
        sentence-transformers' ``model.similarity_pairwise``; both are embeddings or sentences (which are
        encoded: the pipeline's cosine scores of raw sentence pairs, what the ``similarity`` subcommand prints).
        """
        a, b = self._as_embeddings(first), self._as_embeddings(second)
        if len(a) != len(b):
            raise ValueError(f"similarity_pairwise needs as many first as second sentences ({len(a)} vs {len(b)})")
        a, b = torch.nn.functional.normalize(a, dim=1), torch.nn.functional.normalize(b, dim=1)
        return (a * b).sum(dim=1)


# What MTEB passes to an encoder's encode() besides sentence-transformers' own arguments (its task, the side of
# a query/document pair, the split): they select prompts, and this model has none.
MTEB_ENCODE_ARGUMENTS = frozenset({"task_name", "prompt_type", "task_metadata", "hf_split", "hf_subset"})


def as_sentence_list(sentences) -> list:
    """A list of the sentences in a list, tuple, numpy array, pandas Series or other iterable of str.

    Its elements are not checked here (:meth:`Encoder.tokens` names a non-str one); an array or Series is
    never tested for truth, which is ambiguous for them.
    """
    if isinstance(sentences, (list, tuple)):
        return list(sentences)
    if isinstance(sentences, (bytes, bytearray)):
        raise TypeError(f"sentences must be str, got {type(sentences).__name__}")
    if hasattr(sentences, "tolist"):  # numpy arrays and pandas Series: plain Python str, not numpy.str_
        sentences = sentences.tolist()
        return sentences if isinstance(sentences, list) else [sentences]
    try:
        return list(sentences)
    except TypeError:
        raise TypeError(f"encode takes a str or a sequence of str, got {type(sentences).__name__}") from None


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
    """One sentence per line of a text file, or the given column of a TSV file, numbered from 1 as `cut -f` numbers
    them ('-' = stdin). Every line must have that column.

    ``lines`` are the file's lines when the caller has read them already (standard input can be read once).
    """
    from paraphrastic.errors import MalformedLine, PipelineError

    if column is not None and (isinstance(column, bool) or not isinstance(column, int) or column < 1):
        raise PipelineError(f"column {column!r}: columns are numbered from 1")
    lines = read_lines(path) if lines is None else lines
    if column is None:
        return lines
    out = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if column > len(fields):
            raise MalformedLine("<stdin>" if str(path) == "-" else path, number,
                                f"has {len(fields)} tab-separated fields, no column {column}", line)
        out.append(fields[column - 1])
    return out
