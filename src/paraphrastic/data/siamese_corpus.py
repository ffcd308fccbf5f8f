"""The ordered text Siamese CBOW trains on (Kenter et al. 2016): sentences in document order, each one's
neighbours, and the words with their pretrained vectors.

The paper trains on the Toronto Book Corpus, which is not reachable. The ordered text used here is the UD
English Web Treebank (:func:`read_documents`): its ``# newdoc id`` comments keep the document boundaries,
and its ``# text`` comments the sentences in document order.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from paraphrastic.data.corpus import write_table
from paraphrastic.data.readers import iter_lines
from paraphrastic.data.vocab import SPECIAL, read_vectors, save_matrix
from paraphrastic.errors import MalformedLine, PipelineError
from paraphrastic.provenance import write_result

CORPUS_SCHEMA = pa.schema([
    ("document", pa.string()),  # the treebank's newdoc id
    ("position", pa.int32()),  # the sentence's place in its document
    ("source", pa.string()),  # file:line of its `# text` comment
    ("text", pa.string()),
    ("tokens", pa.list_(pa.string())),
])


WORDS_SCHEMA = pa.schema([("word", pa.string()), ("count", pa.int64()), ("pretrained", pa.bool_())])


def read_documents(path) -> list[tuple[str, list[tuple[int, str]]]]:
    """(document id, [(line, sentence text), ...]) in file order from a CoNLL-U file.

    A sentence block must carry a ``# text`` comment (it is the untokenised sentence); a block
    before the first ``# newdoc id`` is an error, since its document is unknown, as are an empty id or
    text and a file without documents. Lines are read as :func:`~paraphrastic.data.readers.iter_lines` reads
    them (UTF-8, a leading BOM dropped; NUL bytes and stray carriage returns are errors naming the line).
    """
    documents: list[tuple[str, list[tuple[int, str]]]] = []
    text_line, in_block, block_start = None, False, 0
    for number, line in iter_lines(path):
        if line.startswith(("# newdoc id =", "# text =")) and not line.split("=", 1)[1].strip():
            raise MalformedLine(path, number, "empty value", line)
        if line.startswith("# newdoc id ="):
            documents.append((line.split("=", 1)[1].strip(), []))
        elif not line.strip():
            if in_block and text_line is None:
                raise MalformedLine(path, block_start, "sentence block without a `# text =` comment")
            text_line, in_block = None, False
        else:
            if not in_block:
                in_block, block_start = True, number
            if line.startswith("# text ="):
                if not documents:
                    raise MalformedLine(path, number, "sentence before the first `# newdoc id` comment", line)
                text_line = number
                documents[-1][1].append((number, line.split("=", 1)[1].strip()))
    if in_block and text_line is None:
        raise MalformedLine(path, block_start, "sentence block without a `# text =` comment")
    if not documents:
        raise PipelineError(f"{path}: no `# newdoc id` document (empty file?)")
    return documents


def build_corpus(paths: list[Path], max_sentences: int | None = None) -> pd.DataFrame:
    """The ordered, tokenised sentences of every document of ``paths`` (first ``max_sentences``)."""
    from paraphrastic.data.tokenize import tokenize  # NLTK: here, not for the trainer that reads this corpus

    rows = []
    for path in paths:
        for document, sentences in read_documents(path):
            for position, (line, text) in enumerate(sentences):
                rows.append({"document": document, "position": position, "source": f"{Path(path).name}:{line}",
                             "text": text, "tokens": tokenize(text)})
    frame = pd.DataFrame(rows, columns=CORPUS_SCHEMA.names)
    if max_sentences:
        frame = frame.iloc[:max_sentences].reset_index(drop=True)
    if frame.empty:
        raise PipelineError(f"no sentences in {[str(p) for p in paths]}")
    return frame


def word_table(corpus: pd.DataFrame, eval_tokens: list[list[str]], pretrained: set[str]) -> pd.DataFrame:
    """Every corpus word (count, most frequent first), then the evaluation words that only the
    pretrained vectors know; ``pretrained`` says whether a word has a pretrained vector."""
    counts = Counter(t for tokens in corpus["tokens"] for t in tokens)
    words = sorted((w for w in counts if w not in SPECIAL), key=lambda w: (-counts[w], w))
    seen = set(words)
    extra = sorted({t for tokens in eval_tokens for t in tokens if t in pretrained and t not in seen} - set(SPECIAL))
    return pd.DataFrame({"word": words + extra, "count": [counts[w] for w in words] + [0] * len(extra),
                         "pretrained": [w in pretrained for w in words + extra]})


def neighbours(corpus: pd.DataFrame) -> np.ndarray:
    """(N, 2) indices of each sentence's previous and next sentence in its document, -1 where none."""
    document = corpus["document"].to_numpy()
    same_prev = np.r_[False, document[1:] == document[:-1]]
    same_next = np.r_[document[:-1] == document[1:], False]
    index = np.arange(len(corpus))
    return np.stack([np.where(same_prev, index - 1, -1), np.where(same_next, index + 1, -1)], axis=1)


def prepare(paths: list[Path], vectors_path, eval_frame: pd.DataFrame, out_dir, *,
            max_sentences: int | None = None) -> dict:
    """corpus.parquet (ordered sentences), words.parquet and embeddings.npy (the pretrained vector of
    each word, zero where there is none; rows follow SPECIAL + words) and stats.json."""
    corpus = build_corpus(paths, max_sentences)
    eval_tokens = list(eval_frame["tokens1"]) + list(eval_frame["tokens2"])
    wanted = {t for tokens in corpus["tokens"] for t in tokens} | {t for tokens in eval_tokens for t in tokens}
    vectors, dim = read_vectors(vectors_path, wanted)
    words = word_table(corpus, eval_tokens, set(vectors))
    matrix = np.zeros((len(SPECIAL) + len(words), dim), dtype=np.float32)
    for i, word in enumerate(words["word"], start=len(SPECIAL)):
        if word in vectors:
            matrix[i] = vectors[word]
    out_dir = Path(out_dir)
    write_table(corpus, CORPUS_SCHEMA, out_dir / "corpus.parquet", stage="siamese_corpus")
    write_table(words, WORDS_SCHEMA, out_dir / "words.parquet", stage="siamese_corpus")
    save_matrix(out_dir / "embeddings.npy", matrix, stage="siamese_corpus", rows_of=out_dir / "words.parquet")
    pairs = neighbours(corpus)
    stats = {"files": [str(p) for p in paths], "documents": int(corpus["document"].nunique()),
             "sentences": len(corpus), "tokens": int(corpus["tokens"].map(len).sum()),
             "sentences_with_a_neighbour": int((pairs >= 0).any(axis=1).sum()),
             "sentences_with_both_neighbours": int((pairs >= 0).all(axis=1).sum()),
             "corpus_words": int((words["count"] > 0).sum()), "pretrained_dim": dim,
             "corpus_words_with_vectors": int(((words["count"] > 0) & words["pretrained"]).sum()),
             "evaluation_only_words": int((words["count"] == 0).sum())}
    write_result(out_dir / "stats.json", stats, stage="siamese_corpus")
    return stats
