"""Performance benchmarks, one command: python benchmarks/run.py [--quick]

Prints, from one run on this machine: training throughput (pairs/s) of avg, lstmavg, gran and bigran
at d=50 and d=300 for (a) a naive per-step peephole cell, (a') the hoisted-autograd cell, (b) the
project's fused kernel, (c) nn.LSTM without peepholes and (d) the GEMM-only ceiling; the padding
ratio with random and length-bucketed batches; encoding speed on all STS sets (avg, GRAN and,
when installed, all-MiniLM-L6-v2); and peak RSS of a d=300 training process. Writes
benchmarks/results.json and benchmarks/results.md.

Needs the pipeline's data/corpus/simpwiki.parquet, data/vocab and data/corpus/eval.parquet (run
`snakemake --cores 2 data/vocab/vocab.txt data/corpus/eval.parquet`) and,
for the encoding section, Table 4's trained avg and GRAN models (else only MiniLM is timed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from throughput import batch_padding, measure, sample_batches  # noqa: E402

from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.data.corpus import read_table  # noqa: E402
from paraphrastic.evaluation import similarity  # noqa: E402
from paraphrastic.evaluation.compare_encoders import table4_models  # noqa: E402
from paraphrastic.evaluation.selection import model_dir  # noqa: E402
from paraphrastic.models.files import load_model  # noqa: E402

CORES = ["naive", "autograd", "fused", "nn.LSTM"]
BUCKET_WINDOW = 20  # batches per length-sorted window


def pair_lengths(corpus: Path) -> np.ndarray:
    frame = read_table(corpus)
    return np.stack([frame["tokens1"].map(len).to_numpy(), frame["tokens2"].map(len).to_numpy()], axis=1)


def throughput_section(lengths, vocab_size, models, dims, batches_per_dim, rng_seed=0) -> tuple[list, dict]:
    rows = []
    random_batches = sample_batches(lengths, 100, max(batches_per_dim.values()), np.random.default_rng(rng_seed))
    bucketed = sample_batches(lengths, 100, max(batches_per_dim.values()), np.random.default_rng(rng_seed),
                              BUCKET_WINDOW)
    for dim in dims:
        count = batches_per_dim[dim]
        for model in models:
            started = time.perf_counter()
            row = measure(model, dim, vocab_size, random_batches[:count], CORES)
            row["fused_bucketed"] = measure(model, dim, vocab_size, bucketed[:count], ["fused"],
                                           with_ceiling=False)["fused"]
            rows.append(row)
            print(f"  {model:8s} d={dim:<3d} " + "  ".join(f"{k} {row[k]:8.1f}" for k in [*CORES, "gemm",
                  "fused_bucketed"] if k in row) + f"   ({time.perf_counter() - started:.0f} s)", flush=True)
    # Padding over a whole epoch, not only the timed batches.
    epoch = len(lengths) // 100
    padding = {"random": batch_padding(sample_batches(lengths, 100, epoch, np.random.default_rng(1))),
               "bucketed": batch_padding(sample_batches(lengths, 100, epoch, np.random.default_rng(1), BUCKET_WINDOW)),
               "window_batches": BUCKET_WINDOW,
               "timed_random": batch_padding(random_batches), "timed_bucketed": batch_padding(bucketed)}
    return rows, padding


def encoding_section(eval_path: Path, model_paths: dict[str, Path], minilm: bool) -> list[dict]:
    frame = read_table(eval_path)
    sentences = {tuple(t) for t in list(frame["tokens1"]) + list(frame["tokens2"])}
    rows = []
    for name, path in model_paths.items():
        if not path.exists():
            print(f"  {name}: {path} missing, skipped")
            continue
        model, vocab, _ = load_model(path)
        similarity.score_sets(model, vocab, frame[frame["dataset"] == frame["dataset"].iloc[0]])  # warm up
        start = time.perf_counter()
        results = similarity.score_sets(model, vocab, frame)
        seconds = time.perf_counter() - start
        summary = similarity.summarize(results, [])
        rows.append({"model": name, "sets": len(results), "sentences": len(sentences), "seconds": seconds,
                     "sentences_per_second": len(sentences) / seconds,
                     "transfer_pearson": summary["transfer_pearson"]})
    if minilm:
        try:
            from paraphrastic.evaluation.compare_encoders import MiniLM
        except ImportError as exc:
            print(f"  MiniLM skipped: {exc}")
            return rows
        raw = sorted({s for s in list(frame["s1"]) + list(frame["s2"])})
        encoder = MiniLM()
        encoder.encode(raw[:64])  # warm up
        start = time.perf_counter()
        encoder.encode(raw)
        seconds = time.perf_counter() - start
        rows.append({"model": "all-MiniLM-L6-v2", "sets": frame["dataset"].nunique(), "sentences": len(raw),
                     "seconds": seconds, "sentences_per_second": len(raw) / seconds, "transfer_pearson": None})
    return rows


def memory_section(lengths: np.ndarray, vocab_sizes: dict[str, int], model: str = "bigran", dim: int = 300) -> list:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "lengths.npy", lengths)
        for label, size in vocab_sizes.items():
            out = subprocess.run([sys.executable, str(HERE / "memory.py"), "--model", model, "--dim", str(dim),
                                  "--vocab-size", str(size), "--lengths", str(Path(tmp) / "lengths.npy")],
                                 check=True, capture_output=True, text=True)
            row = json.loads(out.stdout)
            row["vocabulary"] = label
            rows.append(row)
            print(f"  {model} d={dim} vocabulary {label} ({size:,} words): peak RSS {row['peak_rss_mib']:.0f} MiB")
    return rows


def markdown(result: dict) -> str:
    lines = [f"Machine: {result['machine']}; torch {result['torch']}, {result['threads']} threads; "
             f"{result['timed_batches']} batches of 100 SimpWiki pairs per cell (same batches for every column).", "",
             "Training throughput, sentence pairs/s (forward, MAX margin loss, backward, Adam):", "",
             "| model | d | (a) naive cell | (a') autograd, hoisted | (b) project (fused) | (c) nn.LSTM | "
             "(d) GEMM ceiling | b/a | b/d | (b) length-bucketed |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["throughput"]:
        def cell(key, r=r):
            return f"{r[key]:,.0f}" if key in r else "—"
        ratio_a = f"{r['fused'] / r['naive']:.1f}×" if "naive" in r else "—"
        ratio_d = f"{r['fused'] / r['gemm']:.0%}" if "gemm" in r else "—"
        lines.append(f"| {r['model']} | {r['dim']} | {cell('naive')} | {cell('autograd')} | {cell('fused')} | "
                     f"{cell('nn.LSTM')} | {cell('gemm')} | {ratio_a} | {ratio_d} | "
                     f"{cell('fused_bucketed')} |")
    p = result["padding"]
    lines += ["", f"Padding (share of padded cells over one epoch of SimpWiki batches of 100 pairs): random batches "
              f"{p['random']:.0%}, batched by length (windows of {p['window_batches']} batches) {p['bucketed']:.0%}.",
              ""]
    if result["encoding"]:
        lines += ["Encoding all STS sets (distinct sentences, CPU):", "",
                  "| model | sets | sentences | seconds | sentences/s | 22-set mean Pearson |",
                  "|---|---|---|---|---|---|"]
        for r in result["encoding"]:
            pearson = f"{r['transfer_pearson']:.1f}" if r["transfer_pearson"] is not None else "see report"
            lines.append(f"| {r['model']} | {r['sets']} | {r['sentences']:,} | {r['seconds']:.2f} | "
                         f"{r['sentences_per_second']:,.0f} | {pearson} |")
        lines.append("")
    if result["memory"]:
        lines += [f"Peak RSS of a training process (bigran, d={result['memory'][0]['dim']}, the longest SimpWiki "
                  "batch included):", "",
                  "| vocabulary | words | longest padded length | peak RSS (MiB) |", "|---|---|---|---|"]
        for r in result["memory"]:
            lines.append(f"| {r['vocabulary']} | {r['vocab_size']:,} | {r['longest_steps']} | "
                         f"{r['peak_rss_mib']:,.0f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer batches (a smoke run, noisier numbers)")
    parser.add_argument("--corpus", type=Path, default=Path("data/corpus/simpwiki.parquet"))
    parser.add_argument("--vocab", type=Path, default=Path("data/vocab/vocab.txt"))
    parser.add_argument("--eval", type=Path, default=Path("data/corpus/eval.parquet"))
    parser.add_argument("--params", type=Path, default=Path("params.yaml"), help="chooses the Table 4 models")
    parser.add_argument("--models", nargs="+", default=["avg", "lstmavg", "gran", "bigran"])
    parser.add_argument("--dims", nargs="+", type=int, default=[50, 300])
    parser.add_argument("--no-minilm", action="store_true")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--memory-dim", type=int, default=300)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    for path in (args.corpus, args.vocab, args.eval):
        if not path.exists():
            sys.exit(f"error: {path} is missing: build it first, e.g. "
                     "snakemake --cores 2 data/vocab/vocab.txt data/corpus/eval.parquet")
    lengths = pair_lengths(args.corpus)
    vocab_size = sum(1 for _ in args.vocab.open())
    batches = {50: 4, 300: 2} if args.quick else {50: 16, 300: 6}
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "torch": torch.__version__,
              "threads": torch.get_num_threads(), "timed_batches": batches, "vocab_size": vocab_size,
              "corpus_pairs": len(lengths)}
    print(f"throughput ({vocab_size:,}-word vocabulary, pairs/s):", flush=True)
    result["throughput"], result["padding"] = throughput_section(lengths, vocab_size, args.models, args.dims,
                                                                 {d: batches.get(d, 4) for d in args.dims})
    print(f"padding: random {result['padding']['random']:.1%}, bucketed {result['padding']['bucketed']:.1%}")
    print("encoding:", flush=True)
    try:
        chosen = table4_models(cfg.load(args.params), args.eval.parent.parent)
        paths = {label: model_dir(args.eval.parent.parent, run, seed) / "model.pt"
                 for label, _, run, seed, _ in chosen if label in ("avg", "gran")}
    except Exception as exc:  # no trained grid yet: time MiniLM alone
        print(f"  the Table 4 models are not trained ({exc}); our models skipped")
        paths = {}
    result["encoding"] = encoding_section(args.eval, paths, not args.no_minilm)
    for r in result["encoding"]:
        print(f"  {r['model']}: {r['sets']} sets, {r['sentences']:,} sentences in {r['seconds']:.2f} s = "
              f"{r['sentences_per_second']:,.0f} sentences/s")
    vocabularies = {"pipeline": vocab_size} if args.quick else {"pipeline": vocab_size,
                                                                "all of GloVe 6B (upper bound)": 400_000}
    result["memory"] = [] if args.no_memory else memory_section(lengths, vocabularies, dim=args.memory_dim)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(result, indent=1))
    table = markdown(result)
    (args.out / "results.md").write_text(table)
    print()
    print(table)


if __name__ == "__main__":
    main()
