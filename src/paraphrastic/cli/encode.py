"""`embed` and `similarity`: a trained model.pt applied to the user's own sentences; `export`: the model as a
folder sentence-transformers loads."""

from __future__ import annotations

import sys

from paraphrastic.cli import add_example

MODEL = "data/models/RUN/seed1/model.pt"


def embed(args) -> None:
    import numpy as np

    from paraphrastic.atomic import atomic_path
    from paraphrastic.encoder import load, read_sentences

    refuse_overwriting_inputs(args.output, input=args.input, model=args.model)
    encoder = load(args.model, device=args.device)
    with atomic_path(args.output) as tmp:  # checks --output first: an existing folder is an error, never replaced
        vectors = encoder.encode(read_sentences(args.input, args.column))
        with open(tmp, "wb") as handle:
            np.save(handle, vectors)
    print(f"{len(vectors)} sentences -> {args.output} ({vectors.shape[1]}-d, {encoder.source})", file=sys.stderr)


def refuse_overwriting_inputs(output, **inputs) -> None:
    """An output that is one of the command's input files (the same file, by any path or link) is an error: the
    user's file is never replaced by the result."""
    from pathlib import Path

    from paraphrastic.errors import PipelineError

    target = Path(output)
    for option, path in inputs.items():
        if str(path) != "-" and target.exists() and Path(path).exists() and target.samefile(path):
            raise PipelineError(f"--output {output} is the --{option} file: refusing to write over it; name "
                                "another output")


def similarity(args) -> None:
    from paraphrastic.encoder import load, read_lines, read_sentences

    encoder = load(args.model, device=args.device)
    lines = read_lines(args.input)  # once: standard input cannot be read twice
    first, second = read_sentences(args.input, 1, lines=lines), read_sentences(args.input, 2, lines=lines)
    for value in encoder.similarity_pairwise(first, second).tolist():
        print(f"{value:.6f}")


def export(args) -> None:
    from paraphrastic.export import export as write_export

    folder = write_export(args.model, args.folder, static=args.static)
    how = ("SentenceTransformer(folder)" if args.static else "paraphrastic.export.load_sentence_transformer, or "
           "SentenceTransformer(folder, trust_remote_code=True)")
    print(f"{args.model} -> {folder} (load with {how})", file=sys.stderr)


def add_commands(sub) -> None:
    model_help = "a model.pt written by a training stage (transfer, supervised or Siamese CBOW)"
    device_help = "auto (CUDA when present), cpu, cuda or cuda:N (default: auto)"
    text = "embed sentences (one per line, or a column of a TSV file) with a trained model.pt"
    p = add_example(sub.add_parser("embed", help=text, description=text),
                    f"paraphrastic embed --model {MODEL} --input sentences.txt --output vectors.npy")
    p.add_argument("--model", required=True, help=model_help)
    p.add_argument("--input", required=True, help="text file, one sentence per line ('-' = standard input)")
    p.add_argument("--column", type=int, help="read this column (numbered from 1) of a tab-separated file instead")
    p.add_argument("--output", required=True, help="a .npy file: one row per sentence")
    p.add_argument("--device", default="auto", help=device_help)
    p.set_defaults(func=embed)

    text = "the cosine similarity of sentence pairs (a TSV file of sentence<TAB>sentence), one number a line"
    p = add_example(sub.add_parser("similarity", help=text, description=text),
                    f"printf 'A man plays a flute.\\tA man is playing the flute.\\n' | paraphrastic similarity "
                    f"--model {MODEL} --input -")
    p.add_argument("--model", required=True, help=model_help)
    p.add_argument("--input", required=True, help="tab-separated pairs ('-' = standard input)")
    p.add_argument("--device", default="auto", help=device_help)
    p.set_defaults(func=similarity)

    text = "write a trained model.pt as a folder that sentence-transformers loads (SentenceTransformer)"
    p = add_example(sub.add_parser("export", help=text, description=text),
                    f"paraphrastic export {MODEL} exported/model")
    p.add_argument("model", help=model_help)
    p.add_argument("folder", help="the folder to write: new, empty or an earlier export (which is replaced)")
    p.add_argument("--static", action="store_true",
                   help="avg models only: sentence-transformers' StaticEmbedding, which loads without paraphrastic "
                        "or trust_remote_code, with a tokenizer close to ours but not the same")
    p.set_defaults(func=export)
