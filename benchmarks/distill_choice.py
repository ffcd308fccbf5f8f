"""Which distillation of all-MiniLM-L6-v2 into static vectors: model2vec's default or ours, one command:
python benchmarks/distill_choice.py [--distilled data/distilled]

(a) model2vec's ``distill(teacher, pca_dims=D, sif_coefficient=A)``: one vector per teacher wordpiece, and a
    ``StaticModel`` that encodes raw text with the teacher's own (WordPiece) tokenizer.
(b) ours (paraphrastic.data.distill, the pipeline's ``distill`` step): one vector per PTB-tokenised,
    lower-cased word of the stored folder's vocabulary (and, where it has them, the teacher's pieces those
    words lack), averaged over our tokens as the untrained ``baseline`` does; raw text goes through
    paraphrastic.data.tokenize first, as the user-facing Encoder does.
Both with the folder's own width D and Zipf coefficient A (its coverage.json).

For each, from one run on data/corpus/eval.parquet: the distillation's wall time (CPU, --threads torch
threads, the teacher's loading included; (b) is distilled again from the stored folder's words, in its
order, and checked against the stored vectors), the number of vectors, the mean Pearson x 100 over the
22 transfer sets and over the 5 STS 2016 selection sets (cosine, the pipeline's scorer; (a) from raw
text with evaluation.reference.score_raw_sentences, (b) from the table's tokens as the baseline step
scores it, and again from raw text as a check), and the encoding speed: sentences/s from raw text on one
torch thread, each distinct sentence once, the best of --repeats passes after a warm-up (tokenisation
included; model2vec's multiprocessing and the Rust tokenizer's thread pool off). The teacher itself is
scored and timed once as a reference row (--no-teacher skips it: minutes on one thread).
Writes benchmarks/results/distill_choice.json and distill_choice.md.

Needs data/corpus/eval.parquet and (b)'s folder (vocab.txt, embeddings.npy, coverage.json): run
`snakemake --cores 2 data/distilled/vocab.txt`, or pass --distilled DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

# Offline, and the Rust tokenizers single-threaded (the encoding speed is a one-thread figure); set before
# transformers or tokenizers is imported.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import numpy as np  # noqa: E402
import torch  # noqa: E402

from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.data import vocab as vocabulary  # noqa: E402
from paraphrastic.data.corpus import read_table  # noqa: E402
from paraphrastic.data.distill import distill_vectors  # noqa: E402
from paraphrastic.data.tokenize import tokenize  # noqa: E402
from paraphrastic.data.transformer_folders import MINILM, transformer_folder  # noqa: E402
from paraphrastic.encoder import Encoder  # noqa: E402
from paraphrastic.evaluation import similarity  # noqa: E402
from paraphrastic.evaluation.compare_encoders import score_raw_sentences  # noqa: E402
from paraphrastic.models.encoders import build_model  # noqa: E402

HERE = Path(__file__).resolve().parent


def distill_model2vec(teacher: Path, dims: int, sif: float | None):
    """(a): model2vec's ``distill`` over the teacher's own wordpieces, and its wall time."""
    from model2vec.distill import distill

    start = time.perf_counter()
    model = distill(str(teacher), pca_dims=dims, sif_coefficient=sif, device="cpu")
    return model, time.perf_counter() - start


def distill_ours(words: list[str], teacher: Path, dims: int, sif: float,
                 subwords: bool) -> tuple[list[str], np.ndarray, float]:
    """(b): the pipeline step's distillation of ``words`` (in the stored order; with ``subwords``, then the teacher's
    pieces they lack), and its wall time."""
    start = time.perf_counter()
    entries, vectors = distill_vectors(words, teacher, dims=dims, sif_coefficient=sif, device="cpu",
                                       subwords=subwords)
    return entries, vectors, time.perf_counter() - start


def best_speed(encode, sentences: list[str], repeats: int) -> float:
    """Sentences/s of ``encode(sentences)``: the best of ``repeats`` passes, after a warm-up on 64."""
    encode(sentences[:64])
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        encode(sentences)
        seconds.append(time.perf_counter() - start)
    return len(sentences) / min(seconds)


def tokenize_speed(sentences: list[str]) -> float:
    """Sentences/s of our tokenizer alone (the share of (b)'s encoding that is not lookup and averaging)."""
    start = time.perf_counter()
    for s in sentences:
        tokenize(s)
    return len(sentences) / (time.perf_counter() - start)


def summary_row(label: str, results: dict, selection: list[str], **extra) -> dict:
    summary = similarity.summarize(results, selection)
    return {"design": label, "transfer_sets": summary["transfer_sets"], "transfer_pearson": summary["transfer_pearson"],
            "selection_sets": summary["selection_sets"], "selection_pearson": summary["selection_pearson"],
            **extra, "per_dataset": results}


def markdown(result: dict) -> str:
    rows = result["rows"]
    lines = [f"Machine: {result['machine']}; torch {result['torch']}, model2vec {result['model2vec']}. Teacher "
             f"{result['teacher']}; distillation on CPU with {result['distill_threads']} torch threads; encoding "
             f"{result['sentences']:,} distinct raw sentences of the {result['sets']} evaluation sets on one thread "
             f"(best of {result['repeats']} passes). Load average {result['load'][0]:.1f} at the start, "
             f"{result['load'][1]:.1f} at the end on {result['cpus']} CPUs: the timings are those of a shared "
             f"machine" + (f"; (b)'s folder records {result['stored_seconds']:.0f} s for its own distillation"
                           if result["stored_seconds"] is not None else "") + ".", "",
             "| design | vectors | distillation (s) | size (MiB) | 22-set mean Pearson | STS16 mean Pearson | "
             "sentences/s (1 thread) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        seconds = f"{r['distill_seconds']:.0f}" if r.get("distill_seconds") is not None else "—"
        vectors = f"{r['vectors']:,}" if r.get("vectors") is not None else "—"
        size = f"{r['mib']:.1f}" if r.get("mib") is not None else "—"
        lines.append(f"| {r['design']} | {vectors} | {seconds} | {size} | {r['transfer_pearson']:.2f} | "
                     f"{r['selection_pearson']:.2f} | {r['sentences_per_second']:,.0f} |")
    lines += ["", *result["conclusion"], ""]
    return "\n".join(lines) + "\n"


def conclusion(a: dict, b: dict, teacher: dict | None, selection: list[str]) -> list[str]:
    """What the numbers say (written from them, so a rerun on other data says what that run found)."""
    d_transfer = b["transfer_pearson"] - a["transfer_pearson"]
    d_sel = b["selection_pearson"] - a["selection_pearson"]
    winner = "(b) ours" if d_transfer > 0 else "(a) model2vec's default"
    transfer = [k for k in a["per_dataset"] if k not in selection]
    b_better = sorted(k for k in transfer if b["per_dataset"][k]["pearson"] > a["per_dataset"][k]["pearson"])
    lines = [f"- Accuracy: {winner} has the higher means, by {abs(d_transfer):.2f} Pearson points on the "
             f"{len(transfer)} transfer sets and {d_sel:+.2f} (b − a) on STS16, but set by set (b) is better on "
             f"{len(b_better)} of {len(transfer)} ({', '.join(b_better)}) and (a) on the others"
             + (": as averaging encoders the two are about equally accurate." if abs(d_transfer) < 1 else ".")]
    if teacher:
        lines.append(f"- The teacher itself scores {teacher['transfer_pearson']:.2f} / "
                     f"{teacher['selection_pearson']:.2f} at {teacher['sentences_per_second']:,.0f} sentences/s: "
                     f"(a) keeps "
                     f"{a['transfer_pearson'] / teacher['transfer_pearson']:.0%} and (b) "
                     f"{b['transfer_pearson'] / teacher['transfer_pearson']:.0%} of its 22-set mean.")
    fast, slow = (a, b) if a["sentences_per_second"] >= b["sentences_per_second"] else (b, a)
    tokenizing = b["sentences_per_second"] / b["tokenize_per_second"]  # share of (b)'s encoding time
    lines.append(f"- Cost: (b) distils {b['vectors'] / a['vectors']:.1f}× as many vectors "
                 f"({b['distill_seconds']:.0f} s against {a['distill_seconds']:.0f} s, "
                 f"{1000 * b['distill_seconds'] / b['vectors']:.1f} against "
                 f"{1000 * a['distill_seconds'] / a['vectors']:.1f} ms a vector) and stores them in float32 "
                 f"({b['mib']:.0f} MiB against (a)'s {a['dtype']} {a['mib']:.0f} MiB); "
                 f"{fast['design'][:3]} encodes {fast['sentences_per_second'] / slow['sentences_per_second']:.1f}× "
                 f"faster ({b['sentences_per_second']:,.0f} against (a)'s {a['sentences_per_second']:,.0f} "
                 f"sentences/s); our PTB tokenizer takes {tokenizing:.0%} of (b)'s encoding time.")
    lines.append(f"- Our models (avg, LSTM, GRAN) look up PTB-tokenised, lower-cased words in a word vocabulary, and "
                 f"λ_w regularises those rows back to their initial vectors: (b) gives every such word its own "
                 f"distilled row, while {a['words_with_a_row']:.0%} of (b)'s words "
                 f"({a['eval_tokens_with_a_row']:.0%} of the evaluation sets' tokens) are one of (a)'s wordpieces; "
                 f"the rest would need rows composed from pieces, which is no longer (a)'s method. So (b) is the one "
                 f"to keep: {'no less' if d_transfer >= 0 else 'barely less'} accurate, "
                 f"{'faster' if fast is b else 'slower'} to encode, and in the units our models read.")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distilled", type=Path, default=Path("data/distilled"),
                        help="(b)'s folder: vocab.txt, embeddings.npy, coverage.json (the pipeline's distill step)")
    parser.add_argument("--eval", type=Path, default=Path("data/corpus/eval.parquet"))
    parser.add_argument("--params", type=Path, default=Path("params.yaml"), help="names the STS16 selection sets")
    parser.add_argument("--threads", type=int, default=None, help="torch threads for distillation (default: torch's)")
    parser.add_argument("--repeats", type=int, default=3, help="timed encoding passes of (a) and (b); the best counts")
    parser.add_argument("--no-teacher", action="store_true", help="skip scoring and timing all-MiniLM-L6-v2 itself")
    parser.add_argument("--no-redistill", action="store_true",
                        help="take (b)'s distillation time from its coverage.json instead of distilling again")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    if not args.eval.exists():
        sys.exit(f"error: {args.eval} is missing: build it first, e.g. "
                 "snakemake --cores 2 data/corpus/eval.parquet")
    if not all((args.distilled / f).exists() for f in ("vocab.txt", "embeddings.npy", "coverage.json")):
        sys.exit(f"error: {args.distilled} holds no distilled vectors (vocab.txt, embeddings.npy, coverage.json): "
                 "run `snakemake --cores 2 data/distilled/vocab.txt`, or pass "
                 "--distilled DIR (e.g. --distilled /tmp/probe/distilled)")
    import model2vec

    load_start = os.getloadavg()[0]
    if args.threads:
        torch.set_num_threads(args.threads)
    distill_threads = torch.get_num_threads()
    selection = cfg.selection_ids(cfg.load(args.params))
    frame = read_table(args.eval)
    raw = list(dict.fromkeys(list(frame["s1"]) + list(frame["s2"])))
    stored = json.loads((args.distilled / "coverage.json").read_text())
    if stored["teacher"] != MINILM:
        sys.exit(f"error: {args.distilled} was distilled from {stored['teacher']}; this comparison is of {MINILM}")
    dims, sif = stored["dims"], stored["sif_coefficient"]
    teacher = transformer_folder(MINILM, where="distill_choice")
    vocab = vocabulary.Vocabulary.load(args.distilled / "vocab.txt")
    matrix = vocabulary.load_matrix(args.distilled / "embeddings.npy")
    first = len(vocabulary.SPECIAL) + (1 if vocab.has_wordpieces else 0)  # after the special rows and the marker
    entries = vocab.words[first:]
    words = entries[:len(entries) - stored.get("pieces", 0)]

    from transformers import AutoModel

    AutoModel.from_pretrained(str(teacher))  # the teacher's files read once, so neither timing pays the cold disk
    print(f"(a) model2vec distill({MINILM}, pca_dims={dims}, sif_coefficient={sif}) on {distill_threads} threads ...",
          flush=True)
    static, a_seconds = distill_model2vec(teacher, dims, sif)
    print(f"    {static.embedding.shape[0]:,} vectors in {a_seconds:.1f} s", flush=True)
    if args.no_redistill:
        b_seconds, b_check = float(stored["seconds"]), None
        print(f"(b) {len(words):,} words: {b_seconds:.1f} s from {args.distilled / 'coverage.json'}")
    else:
        print(f"(b) distil_vectors of {len(words):,} words on {distill_threads} threads ...", flush=True)
        redistilled, vectors, b_seconds = distill_ours(words, teacher, dims, sif, vocab.has_wordpieces)
        if redistilled != entries:
            sys.exit(f"error: {args.distilled} holds another vocabulary than its words distil to")
        b_check = float(np.abs(vectors - matrix[first:]).max())
        print(f"    {len(entries):,} vectors in {b_seconds:.1f} s; largest difference from the stored vectors "
              f"{b_check:.2g}", flush=True)

    torch.set_num_threads(1)
    print(f"scoring and timing on one thread ({len(raw):,} distinct sentences) ...", flush=True)

    pieces = set(static.tokenizer.get_vocab())

    def encode_a(sentences):
        return static.encode(sentences, use_multiprocessing=False)

    a_results, _ = score_raw_sentences(encode_a, frame)
    a = summary_row("(a) model2vec default (wordpieces, own tokenizer)", a_results, selection,
                    vectors=int(static.embedding.shape[0]), distill_seconds=a_seconds,
                    mib=static.embedding.nbytes / 2**20, dtype=str(static.embedding.dtype),
                    words_with_a_row=float(np.mean([w in pieces for w in words])),
                    eval_tokens_with_a_row=float(np.mean([t in pieces for tokens in list(frame["tokens1"])
                                                    + list(frame["tokens2"]) for t in tokens])),
                    sentences_per_second=best_speed(encode_a, raw, args.repeats))
    print(f"    (a) {a['transfer_pearson']:.2f} / {a['selection_pearson']:.2f}, "
          f"{a['sentences_per_second']:,.0f} sentences/s", flush=True)

    model = build_model("avg", torch.from_numpy(matrix))
    encoder = Encoder(model, vocab, device=torch.device("cpu"))
    b_results = similarity.score_sets(model, vocab, frame)  # as the baseline step scores it: the table's tokens
    b_raw, _ = score_raw_sentences(encoder.encode, frame)  # as a user gets it: raw text through Encoder
    b = summary_row("(b) ours (PTB words, our tokenizer)", b_results, selection, vectors=len(entries),
                    distill_seconds=b_seconds, mib=matrix.nbytes / 2**20, dtype=str(matrix.dtype),
                    sentences_per_second=best_speed(encoder.encode, raw, args.repeats),
                    tokenize_per_second=tokenize_speed(raw), stored_vectors_max_difference=b_check,
                    raw_text_max_pearson_difference=max(abs(b_raw[k]["pearson"] - b_results[k]["pearson"])
                                                        for k in b_results))
    print(f"    (b) {b['transfer_pearson']:.2f} / {b['selection_pearson']:.2f}, "
          f"{b['sentences_per_second']:,.0f} sentences/s (tokenizer alone {b['tokenize_per_second']:,.0f}); "
          f"raw-text scores within {b['raw_text_max_pearson_difference']:.2g} of the table's", flush=True)
    rows = [a, b]
    t = None
    if not args.no_teacher:
        from paraphrastic.evaluation.compare_encoders import MiniLM

        minilm = MiniLM()
        minilm.encode(raw[:64])  # warm up
        t_results, speed = score_raw_sentences(minilm.encode, frame)
        t = summary_row(f"teacher: {MINILM} (reference)", t_results, selection,
                        sentences_per_second=speed["sentences_per_second"])
        rows.append(t)
        print(f"    teacher {t['transfer_pearson']:.2f} / {t['selection_pearson']:.2f}, "
              f"{t['sentences_per_second']:,.0f} sentences/s", flush=True)

    result = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "cpus": os.cpu_count(),
              "load": [load_start, os.getloadavg()[0]], "torch": torch.__version__,
              "stored_seconds": None if args.no_redistill else stored.get("seconds"),
              "model2vec": model2vec.__version__, "teacher": MINILM, "dims": dims, "sif_coefficient": sif,
              "distill_threads": distill_threads, "encode_threads": 1, "repeats": args.repeats,
              "distilled": str(args.distilled), "sets": int(frame["dataset"].nunique()), "sentences": len(raw),
              "selection": selection, "rows": rows, "conclusion": conclusion(a, b, t, selection)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "distill_choice.json").write_text(json.dumps(result, indent=1))
    table = markdown(result)
    (args.out / "distill_choice.md").write_text(table)
    print()
    print(table)


if __name__ == "__main__":
    main()
