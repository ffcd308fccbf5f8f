"""The project's offline data in the formats the authors' code reads:
python fidelity/convert.py OUT [--data data] [--train-set simpwiki] [--word-vectors pretrained] [--raw]

Their ``train.py`` (run from their ``main/`` folder) reads ``../data/simple.aligned`` and ``../data/normal.aligned``
(``title<TAB>paragraph<TAB>sentence`` lines, of which it keeps the last field, lowercased: ``get_lines``), a word
vector file (``-wordfile``: ``word v1 ... vd`` lines, the vocabulary in file order, one word ``UUUNKKK`` for unknown
words: ``utils.get_wordmap`` and ``lookupIDX``), and its ``evaluate.py`` scores ``s1<TAB>s2<TAB>score`` files in
``../data/`` (``get_correlation``). So that both sides see the same data, OUT/data gets

- ``simple.aligned`` and ``normal.aligned``: the training table's pairs (``tokens1`` and ``tokens2``, our
  tokenisation, joined by spaces), line ``i`` of one aligned with line ``i`` of the other;
- ``vectors.txt``: our vocabulary and its vectors, in our order, our unknown word written as ``UUUNKKK`` (its row
  is ours: zeros for the pretrained vectors);
- one file per evaluation set, named by its id (``sts12.MSRvid``...), with our tokens and gold scores;
- ``conversion.json``: what was written (files, lines, sha256) and the tokens their lookup reads differently from
  ours (``lookupIDX`` strips ``#`` from a token that starts with it), so a difference can be traced to them.

Their code lowercases what it reads with Python 2's ``str.lower`` (ASCII letters only); our tokens are lowercased
already, so nothing changes there. With ``--raw``, simple.aligned and normal.aligned hold the profile's raw
SimpWiki sentences instead, byte for byte, and vectors.txt the profile's whole word vector file with a zero
``UUUNKKK`` row: their code then reads the training text itself, as they ran it (our ``data.reading: authors``
reads it the same way).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from paraphrastic.atomic import atomic_path, write_json  # noqa: E402
from paraphrastic.configuration.jobs import vocab_dir  # noqa: E402
from paraphrastic.data.vocab import UNK, Vocabulary  # noqa: E402
from paraphrastic.layout import DataLayout  # noqa: E402

THEIR_UNKNOWN = "UUUNKKK"  # utils.lookupIDX's key for a word not in the vector file
# What Python 2's str.split() and readlines() split a line of their files on (ASCII whitespace): a token holding one
# would be read as two, or break its line.
SEPARATORS = frozenset(" \t\n\r\x0b\x0c")


def sentence(tokens, where: str) -> str:
    """``tokens`` as one line's field of their files: joined by single spaces, as their readers split them."""
    for token in tokens:
        if not token or SEPARATORS.intersection(token):
            raise SystemExit(f"{where}: token {token!r} cannot be written as one field of the authors' files")
    return " ".join(tokens)


def _write_bytes(path: Path, lines) -> dict:
    """``lines`` (bytes, each with its newline) written to ``path`` atomically: the file's name, lines and sha256."""
    digest, count = hashlib.sha256(), 0
    with atomic_path(path) as tmp, open(tmp, "wb") as out:
        for line in lines:
            out.write(line)
            digest.update(line)
            count += 1
    return {"file": path.name, "lines": count, "sha256": digest.hexdigest()}


def _write_lines(path: Path, lines) -> dict:
    return _write_bytes(path, ((line + "\n").encode("utf-8") for line in lines))


def write_training_pairs(frame: pd.DataFrame, table: Path, out: Path) -> list[dict]:
    """simple.aligned and normal.aligned from a training table (``frame``, read from ``table``)."""
    sides = []
    for name, column in (("simple.aligned", "tokens1"), ("normal.aligned", "tokens2")):
        sides.append(_write_lines(out / name, (
            f"paraphrastic\t{source}\t{sentence(tokens, f'{table}: {source}')}"
            for source, tokens in zip(frame["source"], frame[column], strict=True))))
    return sides


def write_raw_pairs(config: dict, raw: Path, out: Path) -> list[dict]:
    """simple.aligned and normal.aligned from the profile's raw SimpWiki files (``--raw``), byte for byte, each
    sentence as the last field of a v2 release line, in the order the training table pairs them (the first file of
    a pair, as ``tokens1``, in simple.aligned): their ``get_lines`` and ``example`` then read the text themselves,
    as they read the release (``data.reading: authors`` is that reading on our side)."""
    from paraphrastic.configuration.params import profile, simpwiki_files

    if profile(config)["simpwiki"]["format"] != "sentences":
        raise SystemExit("--raw: the profile's SimpWiki files are not one sentence per line (the offline profile's)")

    def lines(side: int):
        for pair in simpwiki_files(config):
            path = raw / pair[side]
            sentences = path.read_bytes().split(b"\n")
            for number, line in enumerate(sentences[:-1] if sentences[-1] == b"" else sentences, start=1):
                yield f"paraphrastic\t{path.name}:{number}\t".encode() + line + b"\n"

    sides = [_write_bytes(out / name, lines(side)) for name, side in (("simple.aligned", 0), ("normal.aligned", 1))]
    if sides[0]["lines"] != sides[1]["lines"]:
        raise SystemExit(f"--raw: {sides[0]['lines']} and {sides[1]['lines']} lines: the SimpWiki files are not "
                         "aligned")
    return sides


def write_raw_vectors(config: dict, raw: Path, out: Path) -> dict:
    """vectors.txt from the profile's whole word vector file (``--raw``), as they ran their code: every word of it,
    then their unknown word as a zero row."""
    import gzip

    from paraphrastic.configuration.params import profile

    source = raw / profile(config)["embeddings"]
    opener = gzip.open if source.suffix == ".gz" else open
    dims = []  # the first line's width, which the unknown word's row takes

    def lines():
        with opener(source, "rb") as handle:
            for line in handle:
                dims[:] = dims or [len(line.split()) - 1]
                yield line.rstrip(b"\r\n") + b"\n"
        yield (THEIR_UNKNOWN + " 0.0" * (dims[0] if dims else 0) + "\n").encode()

    written = _write_bytes(out / "vectors.txt", lines())
    return written | {"words": written["lines"], "dim": dims[0] if dims else None, "source": str(source)}


def write_vectors(folder: Path, out: Path) -> dict:
    """vectors.txt: our vocabulary and vectors in our order, our unknown word as theirs."""
    vocab = Vocabulary.load(folder / "vocab.txt")
    vectors = np.load(folder / "embeddings.npy")
    if vectors.shape[0] != len(vocab):
        raise SystemExit(f"{folder}: embeddings.npy has {vectors.shape[0]} rows for {len(vocab)} words")
    if THEIR_UNKNOWN in vocab.words:
        raise SystemExit(f"{folder}/vocab.txt holds {THEIR_UNKNOWN!r}, the authors' unknown word")
    if vocab.has_wordpieces:  # their code reads a word it lacks as UUUNKKK, never as pieces
        raise SystemExit(f"{folder}/vocab.txt holds WordPiece pieces (word_vectors.distilled.subwords), which the "
                         "authors' code cannot read; distil with subwords: false for the harness")

    def lines():
        for word, row in zip(vocab.words, vectors, strict=True):
            name = THEIR_UNKNOWN if word == UNK else sentence([word], f"{folder}/vocab.txt")
            # repr of a float32 as a float64 round-trips: their float() reads back the same float32 value
            yield name + " " + " ".join(repr(float(v)) for v in row)

    return _write_lines(out / "vectors.txt", lines()) | {"words": len(vocab), "dim": int(vectors.shape[1])}


def write_eval_sets(frame: pd.DataFrame, table: Path, out: Path) -> list[dict]:
    """One s1<TAB>s2<TAB>score file per evaluation set (``frame``, read from ``table``), our tokens."""
    written = []
    for dataset, rows in frame.groupby("dataset", sort=True):
        written.append(_write_lines(out / dataset, (
            f"{sentence(a, f'{table}: {dataset}:{line}')}\t{sentence(b, f'{table}: {dataset}:{line}')}\t{score!r}"
            for line, a, b, score in zip(rows["line"], rows["tokens1"], rows["tokens2"], rows["score"],
                                         strict=True))) | {"dataset": dataset})
    return written


def read_differently(*frames: pd.DataFrame) -> dict[str, int]:
    """Tokens their ``lookupIDX`` reads as another word (a leading ``#`` is stripped), with their counts."""
    counts: dict[str, int] = {}
    for frame in frames:
        for column in ("tokens1", "tokens2"):
            for tokens in frame[column]:
                for token in tokens:
                    if len(token) > 1 and token.startswith("#"):
                        counts[token] = counts.get(token, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def convert(out: Path, *, data: Path = Path("data"), train_set: str = "simpwiki",
            word_vectors: str = "pretrained", raw: bool = False, config: dict | None = None) -> dict:
    """Write OUT/data for the authors' code from the project's DATA folder; returns what conversion.json holds.
    With ``raw``, the training pairs and word vectors are the profile's raw files (DATA/raw, params.yaml's or
    ``config``'s profile) for their code to read itself; the evaluation sets stay our tokens."""
    layout = DataLayout(data)
    table, vectors = layout.corpus / f"{train_set}.parquet", Path(vocab_dir(word_vectors, str(data)))
    for needed in (table, layout.eval_table, vectors / "vocab.txt", vectors / "embeddings.npy"):
        if not needed.exists():
            raise SystemExit(f"{needed} is missing: build it first (snakemake {needed})")
    folder = out / "data"
    folder.mkdir(parents=True, exist_ok=True)
    pairs = pd.read_parquet(table, columns=["source", "tokens1", "tokens2"])
    evaluation = pd.read_parquet(layout.eval_table, columns=["dataset", "line", "tokens1", "tokens2", "score"])
    if raw:
        if train_set != "simpwiki":
            raise SystemExit("--raw: only SimpWiki's raw files are read as their code reads them")
        from paraphrastic.configuration import params as cfg

        config = cfg.load(REPO / "params.yaml") if config is None else config
        training, written_vectors = write_raw_pairs(config, data / "raw", folder), write_raw_vectors(
            config, data / "raw", folder)
    else:
        training, written_vectors = write_training_pairs(pairs, table, folder), write_vectors(vectors, folder)
    record = {"train_set": train_set, "train_table": str(table), "vocab_dir": str(vectors), "raw": raw,
              "eval_table": str(layout.eval_table), "training_pairs": training, "vectors": written_vectors,
              "eval_sets": write_eval_sets(evaluation, layout.eval_table, folder),
              "read_differently": read_differently(pairs, evaluation)}
    write_json(folder / "conversion.json", record)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder that gets data/ (their checkout's root, or a copy)")
    parser.add_argument("--data", type=Path, default=Path("data"), help="the project's data folder (default: data)")
    parser.add_argument("--train-set", default="simpwiki", help="the training table (default: simpwiki)")
    parser.add_argument("--word-vectors", default="pretrained", choices=("pretrained", "distilled"),
                        help="the starting vectors, as a run's `word_vectors` names them (default: pretrained)")
    parser.add_argument("--raw", action="store_true", help="the profile's raw SimpWiki files and whole word vector "
                        "file, for their code to read itself (the evaluation sets stay our tokens)")
    args = parser.parse_args(argv)
    record = convert(args.out, data=args.data, train_set=args.train_set, word_vectors=args.word_vectors, raw=args.raw)
    pairs = record["training_pairs"][0]["lines"]
    print(f"{args.out / 'data'}: {pairs:,} training pairs, {record['vectors']['words']:,} words, "
          f"{len(record['eval_sets'])} evaluation sets; {sum(record['read_differently'].values()):,} tokens their "
          "lookup reads differently (conversion.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
