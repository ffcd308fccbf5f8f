"""`embed` and `similarity`: a trained model.pt applied to the user's own sentences; `export`: the model as a
folder sentence-transformers loads."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from paraphrastic.cli import add_example

MODEL = "data/models/RUN/seed1/model.pt"
# Names of standard output a user gives as an output path (`-`, the Unix habit, and the links to file descriptor 1)
STANDARD_OUTPUT = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def embed(args) -> None:
    import numpy as np

    from paraphrastic.encoder import load, read_lines, read_sentences
    from paraphrastic.errors import PipelineError

    refuse_overwriting_inputs(args.output, input=args.input, model=args.model)
    refuse_a_folder(args.input)
    if Path(args.output).is_dir():  # before any work: an existing folder is an error, never replaced
        raise PipelineError(f"--output {args.output}: is a directory; give a file name to write (nothing was "
                            "written)")
    if str(args.output).endswith(os.sep) and str(args.output) not in STANDARD_OUTPUT:
        raise PipelineError(f"--output {args.output}: ends in {os.sep}, so it names a folder, and no such folder "
                            "exists; give a file name to write (nothing was written)")
    encoder = load(args.model, device=args.device)
    lines = read_lines(args.input)
    refuse_no_lines(lines, args.input)
    sentences = read_sentences(args.input, args.column, lines=lines)
    vectors, unknown = encoder.encode_noting_unknown(sentences)
    warn_of_format_characters(sentences, args.input)
    warn_of_unknown_sentences(unknown, sentences, args.input)
    array = io.BytesIO()  # numpy writes a real file through its position, which a pipe does not have
    np.save(array, vectors)
    with output_stream(args.output) as handle:  # '-' or /dev/stdout: standard output; a pipe or link: through it
        handle.write(array.getbuffer())
    where = "standard output" if args.output in STANDARD_OUTPUT else args.output
    print(f"{len(vectors)} sentences -> {where} ({vectors.shape[1]}-d, {encoder.source})", file=sys.stderr)


def refuse_no_lines(lines: list[str], source) -> None:
    """An input with no line at all is an error naming it (an empty file is more often a mistake upstream than a
    request for nothing); a blank line is a sentence (the unknown word, warned about) that keeps rows aligned."""
    from paraphrastic.errors import PipelineError

    if not lines:
        raise PipelineError(f"{_source_name(source)}: holds no line, so there is no sentence to read (nothing was "
                            "written)")


def _source_name(source) -> str:
    return "<stdin>" if str(source) == "-" else str(source)


def refuse_a_folder(path) -> None:
    """An --input that is a folder is named as the input, before any work (an output is opened only after it)."""
    from paraphrastic.errors import PipelineError

    if str(path) != "-" and Path(path).is_dir():
        raise PipelineError(f"{path}: is a directory; give a text file, one sentence per line ('-' = standard input)")


@contextlib.contextmanager
def output_stream(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary handle on a user's output ``path``, whatever it is, never replaced by something else:

    - ``-`` (or ``/dev/stdout``) is standard output;
    - an existing named pipe, character device or socket (``/dev/null``, a FIFO) is written through as it is;
    - a symbolic link is followed: its target is written, as a file below, and the link stays a link;
    - otherwise a file, written by :func:`~paraphrastic.atomic.atomic_path` (a failed write leaves what was there).
    """
    from paraphrastic.atomic import atomic_path
    from paraphrastic.errors import PipelineError

    if str(path) in STANDARD_OUTPUT:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    path = Path(path)
    try:
        mode = path.stat().st_mode  # follows links
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise PipelineError(f"{path}: cannot write to it ({exc.strerror}); nothing was written") from exc
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        try:
            with open(path, "wb") as handle:
                yield handle
        except OSError as exc:
            if exc.filename not in (None, str(path)):
                raise
            raise PipelineError(f"{path}: could not write to it ({exc.strerror})") from exc
        return
    with atomic_path(path.resolve() if path.is_symlink() else path) as tmp, open(tmp, "wb") as handle:
        yield handle


def refuse_overwriting_inputs(output, **inputs) -> None:
    """An output that is one of the command's input files (the same file, by any path or link) is an error: the
    user's file is never replaced by the result."""
    from paraphrastic.errors import PipelineError

    target = Path(output)
    for option, path in inputs.items():
        if str(path) != "-" and target.exists() and Path(path).exists() and target.samefile(path):
            raise PipelineError(f"--output {output} is the --{option} file: refusing to write over it; name "
                                "another output")


def _where(position: int, source, columns: int | None) -> str:
    """``FILE:LINE`` (and the column) of the sentence at ``position`` of a file's sentences; ``columns``: they are
    a TSV's first column then its second, each this long."""
    line, column = (position % columns + 1, position // columns + 1) if columns else (position + 1, None)
    return f"{_source_name(source)}:{line}" + (f", column {column}" if column else "")


def warn_of_unknown_sentences(unknown: list[int], sentences: list[str], source, *, columns: int | None = None) -> None:
    """One warning on standard error when some sentences (at the positions ``unknown``) hold no word the model
    knows: they are embedded alike (the unknown word's vector), so two of them score 1.0 and mean nothing.
    ``columns``: ``sentences`` are a TSV's first column then its second, each this long."""
    if not unknown:
        return
    first = unknown[0]
    print(f"warning: {len(unknown)} of {len(sentences)} sentences hold no word the model knows (the first, "
          f"{_where(first, source, columns)}: {sentences[first]!r}); each is embedded as the unknown word alone, so "
          "any two of them score 1.0", file=sys.stderr)


def warn_of_format_characters(sentences: list[str], source, *, columns: int | None = None) -> None:
    """One warning on standard error when some sentences hold invisible format characters (a zero-width space, a
    direction mark, a soft hyphen): they are removed before the words are looked up, as in the evaluation sets'
    text, so the warning only says the text was not read exactly as it is written."""
    from paraphrastic.data.tokenize import format_characters

    found = [(position, format_characters(text)) for position, text in enumerate(sentences)]
    found = [(position, characters) for position, characters in found if characters]
    if not found:
        return
    count = sum(len(characters) for _, characters in found)
    names = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, '')}".strip()
                                    for _, characters in found for c in characters))
    print(f"warning: {len(found)} of {len(sentences)} sentences hold {count} invisible format character"
          f"{'s' if count > 1 else ''} ({names}; the first at {_where(found[0][0], source, columns)}), removed "
          "before the words are looked up", file=sys.stderr)


def similarity(args) -> None:
    from paraphrastic.encoder import load, read_lines, read_sentences

    refuse_a_folder(args.input)
    encoder = load(args.model, device=args.device)
    lines = read_lines(args.input)  # once: standard input cannot be read twice
    refuse_no_lines(lines, args.input)
    if args.columns is None:
        refuse_other_field_counts(lines, args.input)
    one, two = args.columns or (1, 2)
    first, second = read_sentences(args.input, one, lines=lines), read_sentences(args.input, two, lines=lines)
    vectors, unknown = encoder.encode_noting_unknown([*first, *second])
    warn_of_format_characters([*first, *second], args.input, columns=len(first))
    warn_of_unknown_sentences(unknown, [*first, *second], args.input, columns=len(first))
    for value in encoder.similarity_pairwise(vectors[:len(first)], vectors[len(first):]).tolist():
        print(f"{value:.6f}")


def refuse_other_field_counts(lines: list[str], source) -> None:
    """Without ``--columns``, ``similarity`` reads lines of exactly two tab-separated fields (s1<TAB>s2): a line of
    another count (``id<TAB>s1<TAB>s2``) is an error naming its line and count, never a pair read as something
    else."""
    from paraphrastic.errors import MalformedLine

    for number, line in enumerate(lines, start=1):
        fields = line.count("\t") + 1
        if fields != 2:
            raise MalformedLine(_source_name(source), number, f"has {fields} tab-separated field"
                                f"{'s' if fields > 1 else ''}; similarity reads two (sentence<TAB>sentence): "
                                "name the two to read with --columns (e.g. --columns 2 3)", line)


def export(args) -> None:
    from paraphrastic.errors import PipelineError
    from paraphrastic.export import export as write_export

    if args.eval and not args.static:
        raise PipelineError("paraphrastic export --eval: scores a static export; give --static too")
    if args.eval:
        folder = _scored_static_export(args)
    elif args.static:  # the project's card, without scores (--eval measures them)
        folder = write_export(args.model, args.folder, static=True, card=_card(args, loaded=None, published={}))
    else:
        folder = write_export(args.model, args.folder)
    how = ("SentenceTransformer(folder)" if args.static else "paraphrastic.export.load_sentence_transformer, or "
           "SentenceTransformer(folder, trust_remote_code=True)")
    print(f"{args.model} -> {folder} (load with {how})", file=sys.stderr)


def _card(args, *, loaded: dict | None, published: dict) -> str:
    """The project's card for the static export of ``args.model``
    (:func:`paraphrastic.model_card.exported_model_card`)."""
    from paraphrastic.model_card import exported_model_card
    from paraphrastic.models.files import read_model_file

    payload = read_model_file(args.model)
    rows, dims = payload["state_dict"]["embedding.weight"].shape
    return exported_model_card(name=Path(args.folder).name, folder=args.folder, source=args.model, payload=payload,
                               dims=int(dims), rows=int(rows), loaded=loaded, published=published)


def _scored_static_export(args):
    """``export --static --eval``: the export scored as model2vec and sentence-transformers load it, its card giving
    those scores (and the published models' with ``--published``); STS 2016's sets are the selection's."""
    from paraphrastic.data.corpus import read_table
    from paraphrastic.evaluation.mteb_sts import published
    from paraphrastic.export import export_scored

    frame = read_table(args.eval)
    others = published(args.published) if args.published else {}
    selection = sorted(frame.loc[frame["group"] == "STS 2016", "dataset"].unique())
    folder, measured = export_scored(args.model, args.folder, frame=frame, selection=selection, threads=args.threads,
                                     card_of=lambda loaded: _card(args, loaded=loaded, published=others))
    m2v = measured["model2vec"]["summary"]
    print(f"as model2vec loads it: {m2v['transfer_sets']}-set r {m2v['transfer_pearson']:.2f} (README.md: its card)",
          file=sys.stderr)
    return folder


def add_commands(sub) -> None:
    model_help = "a model.pt written by a training stage (transfer, supervised or Siamese CBOW)"
    device_help = "auto (CUDA when present), cpu, cuda or cuda:N (default: auto)"
    text = "embed sentences (one per line, or a column of a TSV file) with a trained model.pt"
    p = add_example(sub.add_parser("embed", help=text, description=text),
                    f"paraphrastic embed --model {MODEL} --input sentences.txt --output vectors.npy")
    p.add_argument("--model", required=True, help=model_help)
    p.add_argument("--input", required=True, help="text file, one sentence per line ('-' = standard input)")
    p.add_argument("--column", type=int, help="read this column (numbered from 1) of a tab-separated file instead")
    p.add_argument("--output", required=True, help="a .npy file: one row per sentence ('-' = standard output; a "
                                                   "named pipe or a link is written through)")
    p.add_argument("--device", default="auto", help=device_help)
    p.set_defaults(func=embed)

    text = "the cosine similarity of sentence pairs (a TSV file of sentence<TAB>sentence), one number a line"
    p = add_example(sub.add_parser("similarity", help=text, description=text),
                    f"printf 'A man plays a flute.\\tA man is playing the flute.\\n' | paraphrastic similarity "
                    f"--model {MODEL} --input -")
    p.add_argument("--model", required=True, help=model_help)
    p.add_argument("--input", required=True, help="tab-separated pairs ('-' = standard input): two fields a line")
    p.add_argument("--columns", type=int, nargs=2, metavar=("A", "B"),
                   help="read the pairs from these columns (numbered from 1) of a file with more fields a line")
    p.add_argument("--device", default="auto", help=device_help)
    p.set_defaults(func=similarity)

    text = "write a trained model.pt as a folder that sentence-transformers loads (SentenceTransformer)"
    p = add_example(sub.add_parser("export", help=text, description=text),
                    f"paraphrastic export {MODEL} exported/model")
    p.add_argument("model", help=model_help)
    p.add_argument("folder", help="the folder to write: new, empty or an earlier export (which is replaced)")
    p.add_argument("--static", action="store_true",
                   help="avg models only: sentence-transformers' StaticEmbedding, which loads without paraphrastic "
                        "or trust_remote_code, with the project's model card; its tokenizer is the model file's "
                        "own where it records one (the static model's), else one close to ours but not the same")
    p.add_argument("--eval", help="with --static: an evaluation table (data/corpus/eval.parquet) the export is scored "
                                  "on as model2vec and sentence-transformers load it, for its card")
    p.add_argument("--published", help="with --eval: published MTEB STS scores to put beside it "
                                       "(workflow/published/mteb_sts.csv)")
    p.add_argument("--threads", type=int, default=1, help="CPU threads for the scoring and timing (default: 1)")
    p.set_defaults(func=export)
