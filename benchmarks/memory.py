"""Peak resident memory of a training process: run as its own process so the peak is this job's alone.

python benchmarks/memory.py --model bigran --dim 300 --vocab-size 50192 --corpus data/corpus/simpwiki.parquet
"""

from __future__ import annotations

import argparse
import json
import resource
import sys

import numpy as np
import torch
from throughput import token_batches, train_seconds

from paraphrastic.models.encoders import build_model


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bigran")
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--vocab-size", type=int, required=True)
    parser.add_argument("--lengths", required=True, help=".npy of (pairs x 2) sentence lengths")
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=100)
    args = parser.parse_args(argv)
    lengths = np.load(args.lengths)
    # The longest pairs in one batch: the recurrence's activations peak with the padded length.
    longest = lengths[np.argsort(lengths.max(1))[-args.pairs:]]
    rng = np.random.default_rng(0)
    batches = [longest] + [lengths[rng.choice(len(lengths), args.pairs, replace=False)]
                           for _ in range(args.batches - 1)]
    model = build_model(args.model, torch.randn(args.vocab_size, args.dim) * 0.1)
    seconds = train_seconds(model, token_batches(batches, args.vocab_size, rng), warmup=0)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # Linux: KiB
    json.dump({"model": args.model, "dim": args.dim, "vocab_size": args.vocab_size, "batches": len(batches),
               "longest_steps": int(longest.max()), "seconds": seconds, "peak_rss_mib": peak_kib / 1024}, sys.stdout)


if __name__ == "__main__":
    main()
