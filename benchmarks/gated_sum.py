"""GRAN-3/4's running gated sum per training step, recorded step by step against the fused kernel:
python benchmarks/gated_sum.py

GRAN-3 and GRAN-4 read a running sum a_t = x_t ⊙ σ(g0_t) + a_{t-1} ⊙ σ(g1_t) at each sentence's last token. Times,
in one process on one thread and on the same tensors, a whole encoder's forward and backward pass (the peephole
LSTM included, as in training) with that sum (a) recorded by autograd step by step over the padded batch
(``gated_sum_autograd``, the code GRAN-3/4 had) and (b) through ``FusedGatedSum`` (real tokens only, a hand-written
backward pass), beside GRAN's own pass for scale. Batches of 200 sentences (100 pairs) with SimpWiki-like lengths;
(a) and (b) alternate, and each one's median of --repeats counts. Both must give the same gradients (the benchmark
fails if not). Prints a Markdown table and writes benchmarks/results/gated_sum.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from paraphrastic.data.batching import pad
from paraphrastic.models.encoders import build_model
from paraphrastic.models.recurrent import gated_sum_autograd

HERE = Path(__file__).resolve().parent
VOCAB = 5_000


def batch(generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    # SimpWiki's sentence lengths: mostly 10-35 tokens, a long tail to ~60
    lengths = (torch.randn(200, generator=generator) * 9 + 24).clamp(3, 60).long().tolist()
    return pad([torch.randint(1, VOCAB, (n,), generator=generator).tolist() for n in lengths])


def step_by_step(model, tokens, mask) -> torch.Tensor:
    x = model.embed(tokens)
    pre = model.gate_preactivations(x, model.states(x, mask))
    return gated_sum_autograd(x, pre, mask, model.weight_a()) / mask.sum(1, keepdim=True).clamp(min=1.0)


def timed(model, forward, tokens, mask) -> tuple[float, list[torch.Tensor]]:
    model.zero_grad()
    started = time.perf_counter()
    forward(model, tokens, mask).pow(2).sum().backward()
    return time.perf_counter() - started, [p.grad.clone() for p in model.parameters()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--dims", type=int, nargs="+", default=[50, 300])
    parser.add_argument("--out", type=Path, default=HERE / "results" / "gated_sum.json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    for dim in args.dims:
        generator = torch.Generator().manual_seed(dim)
        tokens, mask = batch(generator)
        embeddings = torch.randn(VOCAB, dim, generator=generator)
        torch.manual_seed(0)
        gran = build_model("gran", embeddings)
        gran_seconds = statistics.median(timed(gran, lambda m, t, k: m(t, k), tokens, mask)[0]
                                         for _ in range(args.repeats))
        for name in ("gran3", "gran4"):
            torch.manual_seed(0)
            model = build_model(name, embeddings)
            forms = {"step by step": step_by_step, "fused": lambda m, t, k: m(t, k)}
            seconds = {form: [] for form in forms}
            for _ in range(args.repeats + 1):  # the first round warms up and is not counted
                grads = {}
                for form, forward in forms.items():
                    took, grads[form] = timed(model, forward, tokens, mask)
                    seconds[form].append(took)
                for a, b in zip(grads["step by step"], grads["fused"], strict=True):
                    torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
            median = {form: statistics.median(values[1:]) for form, values in seconds.items()}
            rows.append({"model": name, "dim": dim, "step_by_step_ms": 1e3 * median["step by step"],
                         "fused_ms": 1e3 * median["fused"], "gran_ms": 1e3 * gran_seconds,
                         "speedup": median["step by step"] / median["fused"]})
    result = {"machine": f"{platform.machine()}, torch {torch.__version__}, 1 thread", "sentences_per_batch": 200,
              "repeats": args.repeats, "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


def markdown(result: dict) -> str:
    lines = [f"A training step's encoder pass (forward and backward, {result['sentences_per_batch']} sentences), "
             f"median of {result['repeats']} ({result['machine']}):", "",
             "| model | d | step by step (ms) | fused (ms) | speed-up | GRAN's pass (ms) |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['model']} | {r['dim']} | {r['step_by_step_ms']:,.1f} | {r['fused_ms']:,.1f} | "
              f"{r['speedup']:.2f}× | {r['gran_ms']:,.1f} |" for r in result["rows"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
