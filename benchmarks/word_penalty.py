"""λ_w's penalty per training step, autograd's form against the project's: python benchmarks/word_penalty.py

λ_w‖W − W0‖² covers the whole vocabulary's embeddings at every step of a run with λ_w > 0 (most of the paper's
transfer grid, the distilled rows' λ_w = 1e-5 runs, the universal rows). Times, in one process on one thread and
on the same tensors, the penalty's forward and backward (a) as autograd computes ``(W - W0).pow(2).sum()`` and
(b) as ``paraphrastic.losses.regularization.SquaredDistance`` does, at the pipeline's sizes: the offline GloVe
vocabulary (50,192 × 50), the distilled vectors (62,126 × 256) and d=300 on the pipeline's vocabulary. The
gradient accumulates into an existing ``.grad``, as it does beside the model's own loss; (a) and (b) alternate,
and each one's median of --repeats counts. Both must give the same gradient (the benchmark fails if not).
Prints a Markdown table and writes benchmarks/results/word_penalty.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from paraphrastic.losses.regularization import SquaredDistance

HERE = Path(__file__).resolve().parent
SIZES = {"offline GloVe, d=50": (50_192, 50), "distilled, d=256": (62_126, 256), "d=300": (50_192, 300)}
LAMBDA_W = 1e-5


def timed(weight: torch.Tensor, initial: torch.Tensor, penalty) -> tuple[float, torch.Tensor]:
    weight.grad = torch.zeros_like(weight)  # as the embedding's own gradient leaves it
    started = time.perf_counter()
    penalty(weight, initial).backward()
    return time.perf_counter() - started, weight.grad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(1)
    forms = {"autograd": lambda w, w0: LAMBDA_W * (w - w0).pow(2).sum(),
             "project": lambda w, w0: SquaredDistance.apply(w, w0, LAMBDA_W)}
    rows = []
    for name, shape in SIZES.items():
        generator = torch.Generator().manual_seed(0)
        initial = torch.randn(shape, generator=generator)
        weight = torch.nn.Parameter(initial + 0.01 * torch.randn(shape, generator=generator))
        seconds = {form: [] for form in forms}
        gradients = {}
        for _ in range(args.repeats + 1):  # the first of each is a warm-up
            for form, penalty in forms.items():
                took, gradients[form] = timed(weight, initial, penalty)
                seconds[form].append(took)
        if not torch.equal(gradients["autograd"], gradients["project"]):
            raise SystemExit(f"{name}: the two gradients differ")
        median = {form: statistics.median(times[1:]) for form, times in seconds.items()}
        rows.append({"size": name, "words": shape[0], "dim": shape[1],
                     **{f"{form}_ms": round(1000 * s, 1) for form, s in median.items()},
                     "speedup": round(median["autograd"] / median["project"], 2)})
    lines = ["| embeddings | autograd (ms/step) | project (ms/step) | speed-up |", "|---|---:|---:|---:|"]
    lines += [f"| {r['size']} ({r['words']:,} × {r['dim']}) | {r['autograd_ms']} | {r['project_ms']} | "
              f"{r['speedup']}× |" for r in rows]
    print("\n".join(lines))
    out = HERE / "results" / "word_penalty.json"
    out.write_text(json.dumps({"rows": rows, "threads": 1, "repeats": args.repeats, "torch": torch.__version__,
                               "machine": platform.machine()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
