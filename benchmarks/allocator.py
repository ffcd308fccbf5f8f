"""A training step with the C allocator's defaults against one that keeps freed memory for the next step:
python benchmarks/allocator.py

``paraphrastic.runtime.keep_freed_memory`` (which every stage command calls at start) lets glibc reuse a freed
block of up to 1 GiB instead of unmapping it. Times whole transfer training steps (batching, encoder, margin loss,
λ_w penalty, backward, Adam) of the offline profile's shapes, the GloVe vocabulary (50,192 × 50) and the distilled
one (62,130 × 256), each case in fresh processes with the setting on and off (``PARAPHRASTIC_KEEP_FREED_MEMORY=0``),
alternating, --rounds of each; a process's figure is its median step after a warm-up, and a case's the median
over its rounds. The random batches have SimpWiki's sentence lengths; both processes of a round draw the same
ones, and the benchmark fails unless their losses are identical (the setting changes no result). Each process's
peak memory (its maximum resident set) is the price: the median per column is in the table. Prints a Markdown
table and writes benchmarks/results/allocator.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = [  # model, vocabulary, dimensions, lambda_w
    ("avg", 50_192, 50, 0.0),
    ("lstmavg", 50_192, 50, 0.0),
    ("gran", 50_192, 50, 0.0),
    ("avg", 62_130, 256, 0.0),
    ("avg", 62_130, 256, 1e-5),
    ("lstmavg", 62_130, 256, 0.0),
]


def child(model_name: str, vocab: int, dim: int, lambda_w: float, steps: int, warmup: int) -> dict:
    """One process: ``steps`` training steps after ``warmup``; the median step and the last loss."""
    from paraphrastic.allocator import keep_freed_memory

    kept = keep_freed_memory()
    import torch

    from paraphrastic.configuration.settings import TransferSettings
    from paraphrastic.data.batching import pad
    from paraphrastic.losses.margin import margin_loss
    from paraphrastic.losses.regularization import regularization
    from paraphrastic.models.encoders import build_model
    from paraphrastic.training.epochs import adam

    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(dim)
    torch.manual_seed(0)
    model = build_model(model_name, torch.randn(vocab, dim, generator=generator))
    optimizer = adam(model.parameters(), 1e-3, epsilon=TransferSettings.adam_epsilon)  # the pipeline's default
    seconds, loss = [], None
    for _ in range(warmup + steps):
        lengths = (torch.randn(200, generator=generator) * 9 + 24).clamp(3, 60).long().tolist()
        sentences = [torch.randint(1, vocab, (n,), generator=generator).tolist() for n in lengths]
        started = time.perf_counter()
        tokens, mask = pad(sentences)
        embedded = model(tokens, mask)
        loss = margin_loss(embedded[:100], embedded[100:], 0.4) + regularization(model, 0.0, lambda_w)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        seconds.append(time.perf_counter() - started)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    return {"kept": kept, "ms": 1e3 * statistics.median(seconds[warmup:]), "loss": loss.item(), "peak_mib": peak_mib}


def run_child(case: tuple, keep: bool, steps: int, warmup: int) -> dict:
    env = dict(os.environ, PARAPHRASTIC_KEEP_FREED_MEMORY="1" if keep else "0")
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps([*case, steps, warmup])], env=env,
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out.splitlines()[-1])
    if result["kept"] != keep:
        raise SystemExit(f"the allocator setting was {'not ' if keep else ''}made in the process that should "
                         f"{'' if keep else 'not '}have it (not glibc?)")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "allocator.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*json.loads(args.child))))
        return
    import torch

    rows = []
    for case in CASES:
        ms, peaks = {True: [], False: []}, {True: [], False: []}
        for _ in range(args.rounds):
            results = {keep: run_child(case, keep, args.steps, args.warmup) for keep in (False, True)}
            if results[True]["loss"] != results[False]["loss"]:
                raise SystemExit(f"{case}: the losses differ ({results[True]['loss']!r} with the setting, "
                                 f"{results[False]['loss']!r} without)")
            for keep, result in results.items():
                ms[keep].append(result["ms"])
                peaks[keep].append(result["peak_mib"])
        model, vocab, dim, lambda_w = case
        default, kept = statistics.median(ms[False]), statistics.median(ms[True])
        rows.append({"model": model, "vocabulary": vocab, "dim": dim, "lambda_w": lambda_w,
                     "default_ms": default, "kept_ms": kept, "speedup": default / kept,
                     "default_peak_mib": statistics.median(peaks[False]),
                     "kept_peak_mib": statistics.median(peaks[True])})
        print(rows[-1], flush=True)
    result = {"machine": f"{platform.machine()}, torch {torch.__version__}, 1 thread", "sentences_per_batch": 200,
              "rounds": args.rounds, "steps": args.steps, "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


def markdown(result: dict) -> str:
    lines = [f"A whole training step ({result['sentences_per_batch']} sentences: batching, encoder, loss, "
             f"backward, Adam), median of {result['steps']} steps in each of {result['rounds']} processes per "
             f"column ({result['machine']}):", "",
             "| model | embedding | λ_w | glibc's defaults (ms) | freed memory kept (ms) | speed-up | "
             "peak MiB, defaults | peak MiB, kept |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['model']} | {r['vocabulary']:,} × {r['dim']} | {r['lambda_w']:g} | {r['default_ms']:,.1f} | "
              f"{r['kept_ms']:,.1f} | {r['speedup']:.2f}× | {r['default_peak_mib']:,.0f} | {r['kept_peak_mib']:,.0f} |"
              for r in result["rows"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
