"""Where a transfer training step's time goes, per part of the step, on the offline profile's data:
python benchmarks/step_profile.py DATA [--steps 20]

DATA is a pipeline run's data folder (its corpus/simpwiki.parquet and eval.parquet, vocab/ and distilled/). For
each kind of job of the offline profile's transfer grid (the model, its starting vectors, λ_w, dropout), builds the
model as a job does (its trainable word vectors the rows its pairs and the evaluation sets reach) and times --steps
mini-batches of 100 pairs after 3 warm-up steps, on one thread: the forward passes (with dropout, the negatives' pass
without it and the negatives' own training pass, as the authors' code), the λ_w penalty, the backward pass and the
Adam step. Writes benchmarks/results/step_profile.{json,md}. The shares say what a faster step would
have to cut; the milliseconds are this machine's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from measured import commit, publish  # noqa: E402

from paraphrastic.configuration.settings import TransferSettings  # noqa: E402
from paraphrastic.data.batching import pad  # noqa: E402
from paraphrastic.data.corpus import read_table  # noqa: E402
from paraphrastic.data.vocab import Vocabulary, load_matrix  # noqa: E402
from paraphrastic.evaluation.similarity import PreparedSets  # noqa: E402
from paraphrastic.losses.margin import margin_loss  # noqa: E402
from paraphrastic.losses.regularization import regularization  # noqa: E402
from paraphrastic.models.encoders import build_model  # noqa: E402
from paraphrastic.training.epochs import adam  # noqa: E402
from paraphrastic.training.reached_rows import narrow_embedding, reached_ids  # noqa: E402
from paraphrastic.training.transfer import margin_loss_deterministic_negatives  # noqa: E402

# (label, model, vectors folder, λ_w, dropout): the offline grid's kinds of transfer job
KINDS = [("avg, GloVe 50-d", "avg", "vocab", 0.0, 0.0),
         ("avg, distilled 256-d, λ_w 1e-5", "avg", "distilled", 1e-5, 0.0),
         ("LSTMavg, GloVe, dropout 0.2", "lstmavg", "vocab", 0.0, 0.2),
         ("GRAN, GloVe, dropout 0.2", "gran", "vocab", 0.0, 0.2),
         ("GRAN, distilled, dropout 0.2, λ_w 1e-5", "gran", "distilled", 1e-5, 0.2)]
PARTS = ("forward", "penalty", "backward", "optimizer")


def profile(data: Path, model_name: str, folder: str, lambda_w: float, dropout: float, steps: int) -> dict:
    torch.manual_seed(0)
    vocab = Vocabulary.load(data / folder / "vocab.txt")
    settings = TransferSettings(name="p", model=model_name, train_set="simpwiki", epochs=1, seed=1, batch_size=100,
                                learning_rate=1e-3, margin=0.4, lambda_w=lambda_w, lambda_c=0.0, dropout=dropout)
    model = build_model(model_name, torch.from_numpy(load_matrix(data / folder / "embeddings.npy")),
                        **settings.model_options())
    corpus = read_table(data / "corpus" / "simpwiki.parquet")
    left, right = [vocab.ids(t) for t in corpus["tokens1"]], [vocab.ids(t) for t in corpus["tokens2"]]
    scored = PreparedSets.for_model(model, vocab, read_table(data / "corpus" / "eval.parquet"))
    narrow_embedding(model, reached_ids(left, right, scored.token_ids()))  # as the job trains: its reached rows
    model.train()
    optimizer = adam(model.parameters(), 1e-3, epsilon=TransferSettings.adam_epsilon)  # the pipeline's default
    rng = np.random.default_rng(0)
    penalty = settings.penalty(lambda_w)
    seconds = dict.fromkeys(PARTS, 0.0)
    for step in range(steps + 3):
        batch = rng.choice(len(left), 100, replace=False)
        tokens, mask = pad([left[i] for i in batch] + [right[i] for i in batch])
        marks = [time.perf_counter()]
        if dropout:
            loss = margin_loss_deterministic_negatives(model, tokens, mask, 0.4)
        else:
            embedded = model(tokens, mask)
            loss = margin_loss(embedded[:100], embedded[100:], 0.4)
        marks.append(time.perf_counter())
        total = loss + regularization(model, 0.0, penalty)
        marks.append(time.perf_counter())
        optimizer.zero_grad(set_to_none=True)
        total.backward()
        marks.append(time.perf_counter())
        optimizer.step()
        marks.append(time.perf_counter())
        if step >= 3:
            for part, (start, end) in zip(PARTS, zip(marks, marks[1:], strict=False), strict=True):
                seconds[part] += end - start
    return {part: 1000 * value / steps for part, value in seconds.items()}


def markdown(result: dict) -> str:
    lines = [f"One transfer training step (100 pairs) of each kind of offline job, on one thread: milliseconds per "
             f"part and share of the step (mean of {result['steps']} steps after 3 warm-up steps; "
             f"{result['note']}).", "",
             "| job | step ms | " + " | ".join(PARTS) + " |", "|---|---:|" + "---:|" * len(PARTS)]
    for label, parts in result["kinds"].items():
        step = sum(parts.values())
        cells = [f"{parts[p]:.0f} ({100 * parts[p] / step:.0f}%)" for p in PARTS]
        lines.append(f"| {label} | {step:.0f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\nMeasured at {result['commit']} by `benchmarks/step_profile.py`.\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="a pipeline run's data folder")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--note", default="an idle machine", help="what else ran beside it (stated in the table)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "step_profile")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    kinds = {label: profile(args.data, model, folder, lambda_w, dropout, args.steps)
             for label, model, folder, lambda_w, dropout in KINDS}
    result = {"commit": commit(), "steps": args.steps, "threads": 1, "note": args.note, "kinds": kinds}
    publish(args.out, result, markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
