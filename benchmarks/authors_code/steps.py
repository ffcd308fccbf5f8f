"""Their training steps beside ours, on the same batches with the same weights and dropout masks (issue 32):
python benchmarks/authors_code/steps.py CHECKOUT --run RUN [--steps 20] [--data data] [--work WORK]

Where a run's results differ from theirs by more than the seeds' spread (run.py's table), this says whether one
training step differs. Both sides start from our model's initial weights for RUN's first seed; for each of
``--steps`` batches of ``--batch-size`` pairs drawn from RUN's training set (scrambling left out), each of the four
stochastic passes (the pairs' two sides and their negatives) gets the same dropout mask per sentence, and each
side chooses its negatives on its own deterministic pass, computes its loss and gradients, and takes its Adam step.
Printed: whether the negatives agree, the losses, the gradients (at ``--grad-steps``) and the weights after the last
step, each as the largest difference relative to the larger side. What ours does differently in a step shows at
once; what only adds up (Adam's ε placement, rounding) grows with the steps.

Runs their models.py under their Python 2.7 through steps_theirs.py, in the environment run.py installs
(WORK/py2-site); it does not run in CI.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from authors_code import run as harness  # noqa: E402  (puts src/ on the path)
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.jobs import JobTables  # noqa: E402
from paraphrastic.configuration.settings import experiment  # noqa: E402
from paraphrastic.data.batching import pad  # noqa: E402
from paraphrastic.data.corpus import read_table  # noqa: E402
from paraphrastic.data.vocab import Vocabulary, load_matrix  # noqa: E402
from paraphrastic.losses.margin import choose_negatives  # noqa: E402
from paraphrastic.models.encoders import build_model  # noqa: E402
from paraphrastic.training.epochs import ADAM_EPSILONS, adam, seed_everything  # noqa: E402
from paraphrastic.training.transfer import margin_loss_deterministic_negatives  # noqa: E402

PASSES = ("g1", "g2", "p1", "p2")


def lasagne_names(model: torch.nn.Module, gradients: bool = False) -> dict[str, np.ndarray]:
    """Our GRAN-1 / LSTMavg / avg weights (or their ``gradients``) under the names of their Lasagne layers'
    parameters (``W`` the word embeddings; the LSTM's four gates i, f, c, o are our stacked columns in that order)."""
    def of(p: torch.nn.Parameter) -> np.ndarray:
        return (p.grad if gradients else p).detach().numpy().copy()

    found = {"W": of(model.embedding.weight)}
    lstm = getattr(model, "lstm", None)
    if lstm is not None:
        weight_x, weight_h, bias, peephole = of(lstm.weight_x), of(lstm.weight_h), of(lstm.bias), of(lstm.peephole)
        for k, gate in enumerate(("ingate", "forgetgate", "cell", "outgate")):
            columns = slice(k * lstm.hidden_dim, (k + 1) * lstm.hidden_dim)
            found |= {f"W_in_to_{gate}": weight_x[:, columns], f"W_hid_to_{gate}": weight_h[:, columns],
                      f"b_{gate}": bias[columns]}
        found |= {f"W_cell_to_{gate}": peephole[k] for k, gate in enumerate(("ingate", "forgetgate", "outgate"))}
    if hasattr(model, "gate_x"):
        found |= {"W_avg1": of(model.gate_x[0].weight).T, "b_avg": of(model.gate_x[0].bias),
                  "W_avg2": of(model.gate_h[0].weight).T}
    return found


def their_settings(settings, dim: int, steps: int, grad_steps: list[int]) -> dict:
    models = {"avg": "wordaverage", "lstmavg": "lstmavg", "gran": "gran"}
    if settings.model not in models:
        raise SystemExit(f"steps.py compares avg, LSTMavg and GRAN-1 runs, not {settings.model}")
    return {"model": models[settings.model], "gran_type": 1, "outgate": settings.output_gate is not False,
            "dim": dim, "dropout": settings.dropout, "word_dropout": settings.word_dropout, "LC": settings.lambda_c,
            "LW": settings.lambda_w, "margin": settings.margin, "eta": settings.learning_rate,
            "samplingtype": settings.sampling.upper(), "sumlayer": False, "steps": steps, "grad_steps": grad_steps}


def relative(ours: np.ndarray, theirs: np.ndarray) -> float:
    scale = max(float(np.abs(ours).max()), float(np.abs(theirs).max()), 1e-30)
    return float(np.abs(ours - theirs).max()) / scale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of jwieting/acl2017 (holds main/models.py)")
    parser.add_argument("--run", required=True, help="a transfer run of params.yaml (avg, LSTMavg or GRAN-1)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--grad-steps", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--adam-epsilon", choices=ADAM_EPSILONS,
                        help="ours with Adam's ε placed so (default: the run's `adam_epsilon`)")
    parser.add_argument("--data", type=Path, default=Path("data"), help="the project's data folder")
    parser.add_argument("--work", type=Path, default=Path("authors_code"), help="run.py's work folder")
    parser.add_argument("--lasagne", default=harness.LASAGNE, help="Lasagne to install (see run.py)")
    args = parser.parse_args(argv)
    config = cfg.load(harness.REPO / "params.yaml")
    tables = JobTables.of(config)
    settings = experiment(config, args.run, tables.runs)
    harness.install(args.work, args.lasagne)

    vocab_dir = args.data / ("distilled" if settings.word_vectors == "distilled" else "vocab")
    vocab = Vocabulary.load(vocab_dir / "vocab.txt")
    embeddings = torch.from_numpy(load_matrix(vocab_dir / "embeddings.npy"))
    corpus = read_table(args.data / "corpus" / f"{settings.train_set}.parquet")
    seed_everything(settings.seed)
    model = build_model(settings.model, embeddings, **settings.model_options())
    start = lasagne_names(model)

    rng = np.random.RandomState(settings.seed)
    given = {"settings": json.dumps(their_settings(settings, embeddings.shape[1], args.steps, args.grad_steps)),
             "embeddings": embeddings.numpy()} | {f"param.{k}": v for k, v in start.items()}
    batches = []
    for step in range(args.steps):
        rows = rng.choice(len(corpus), args.batch_size, replace=False)
        first = [vocab.ids(corpus["tokens1"].iloc[r]) for r in rows]
        second = [vocab.ids(corpus["tokens2"].iloc[r]) for r in rows]
        width = max(map(len, first + second))
        batches.append((first, second))
        for side, sentences in (("first", first), ("second", second)):
            ids = np.full((len(rows), width), -1, dtype=np.int64)
            for i, s in enumerate(sentences):
                ids[i, : len(s)] = s
            given[f"batch.{step}.{side}"] = ids
        for name in PASSES:  # a sentence's row of each pass, as long as the batch's longest sentence
            given[f"mask.{step}.{name}"] = (rng.random_sample((len(rows), width, embeddings.shape[1]))
                                            >= settings.dropout).astype(np.float32)
    args.work.mkdir(parents=True, exist_ok=True)
    source, target = args.work / "steps.in.npz", args.work / "steps.out.npz"
    np.savez(source, **given)
    proc = subprocess.run([harness.python2(), str(HERE / "steps_theirs.py"), str(source.resolve()),
                           str(target.resolve())], cwd=args.checkout / "main", capture_output=True, text=True,
                          env=harness.environment(args.work.resolve()))
    if proc.returncode:
        raise SystemExit(f"steps_theirs.py failed:\n{proc.stderr[-3000:]}")
    theirs = dict(np.load(target))

    optimizer = adam(model.parameters(), settings.learning_rate, epsilon=args.adam_epsilon or settings.adam_epsilon)
    queue: list[torch.Tensor] = []
    real_dropout = torch.nn.functional.dropout

    def given_dropout(x, p=0.5, training=True, inplace=False):
        return x * queue.pop(0)[:, : x.shape[1]] / (1 - p) if training and p else real_dropout(x, p, training)

    print(f"{args.run} ({settings.model}, dropout {settings.dropout}, adam_epsilon "
          f"{args.adam_epsilon or settings.adam_epsilon}), seed {settings.seed}: "
          f"{args.steps} steps of {args.batch_size} pairs; ours − theirs relative to the larger")
    with mock.patch.object(torch.nn.functional, "dropout", given_dropout):
        for step, (first, second) in enumerate(batches):
            tokens, mask = pad(first + second)
            masks = {name: torch.from_numpy(given[f"mask.{step}.{name}"]) for name in PASSES}
            queue[:] = [torch.cat([masks["g1"], masks["g2"]]), torch.cat([masks["p1"], masks["p2"]])]
            chosen = []
            with mock.patch("paraphrastic.training.transfer.choose_negatives", new=recording(chosen)):
                loss = margin_loss_deterministic_negatives(model, tokens, mask, settings.margin,
                                                           sampling=settings.sampling)
            optimizer.zero_grad()
            loss.backward()
            differ, gap = negative_differences(tokens, chosen, theirs[f"negatives.{step}.p1"],
                                               theirs[f"negatives.{step}.p2"])
            line = (f"step {step:2d}: negatives " + (f"{differ} differ (cosine gap {gap:.1e})" if differ else "agree")
                    + f", loss ours {loss.item():.6f} theirs {float(theirs[f'loss.{step}']):.6f}")
            if step in args.grad_steps:
                grads = lasagne_names(model, gradients=True)
                worst = max(grads, key=lambda k: relative(grads[k], theirs[f"grad.{step}.{k}"]))
                line += f"; gradients: largest difference {relative(grads[worst], theirs[f'grad.{step}.{worst}']):.1e}"
                line += f" ({worst})"
            optimizer.step()
            print(line, flush=True)
    final = lasagne_names(model)
    for name in final:
        moved = np.abs(theirs[f"param.{name}"] - start[name]).max()
        print(f"after {args.steps} steps, {name}: difference {relative(final[name], theirs[f'param.{name}']):.1e} "
              f"of the weights; their step moved it by {moved:.1e} at most, ours differs from theirs by "
              f"{np.abs(final[name] - theirs[f'param.{name}']).max():.1e}")
    return 0


def recording(chosen: list):
    """choose_negatives, appending the embeddings it chose on and what it chose to ``chosen``."""
    def wrapped(g1, g2, **kwargs):
        picked = choose_negatives(g1, g2, **kwargs)
        chosen.append((torch.cat([g1, g2]), torch.cat(picked)))
        return picked
    return wrapped


def negative_differences(tokens: torch.Tensor, chosen: list, p1: np.ndarray, p2: np.ndarray) -> tuple[int, float]:
    """How many sentences' negatives differ from theirs, and the largest gap, on our deterministic pass, between
    the cosines of our choice and of theirs with the sentence: a near-tie that rounding breaks (two near-identical
    candidates, such as a pair's two sides) has a gap of float32's rounding, 1e-7."""
    clean, picked = chosen[0]
    unit = torch.nn.functional.normalize(clean, dim=1)
    words = [tuple(row[row != 0].tolist()) for row in tokens.numpy()]
    differ, gap = 0, 0.0
    for anchor, (ours, theirs) in enumerate(zip(picked.tolist(), [*p1, *p2], strict=True)):
        wanted = tuple(theirs[theirs != 0].tolist())
        if words[ours] != wanted:
            differ += 1
            j = words.index(wanted)
            gap = max(gap, abs(float(unit[anchor] @ unit[ours] - unit[anchor] @ unit[j])))
    return differ, gap


if __name__ == "__main__":
    sys.exit(main())
