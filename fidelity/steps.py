"""Their training steps beside ours, on the same batches with the same weights and dropout masks:
python fidelity/steps.py CHECKOUT --run RUN [--steps 20] [--data data] [--work WORK] [--their-negatives]

Where a run's results differ from theirs by more than the seeds' spread (run.py's table), this says whether a
training step differs. Both sides start from our model's initial weights for RUN's first seed; for each of
``--steps`` batches of ``--batch-size`` pairs drawn from RUN's training set (``--data``'s tables, so a reading's
folder of reading.py compares on that reading) and scrambled as RUN scrambles, each of the four stochastic passes
(the pairs' two sides and their negatives) gets the same dropout or word-dropout mask per sentence, and each side
chooses its negatives on its own pass without dropout, computes its loss and the gradients of the loss plus λ_c's
and λ_w's penalties, and takes its Adam step; ours twice, with Adam's ε where Lasagne adds it and where torch adds
it. Written to OUT.{json,md}: per step, the loss beside theirs and how many negatives differ from theirs; the first
step's gradients; the weights after 1, 5 and the last step. What ours computes differently shows in the first step's
gradients; what only adds up (Adam's ε, rounding) grows with the steps; a negative that rounding chooses differently
(a near-tie) moves the loss at that step and the weights after it.

Runs their models.py under their Python 2.7 through steps_theirs.py, in the environment run.py installs
(WORK/py2-site); it does not run in CI.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: importing fidelity puts src/, benchmarks/ on the path
import fidelity  # noqa: E402

REPO = fidelity.REPO
from measured import commit, publish  # noqa: E402

from fidelity import run as harness  # noqa: E402  (puts src/ on the path)
from paraphrastic.configuration import params as cfg  # noqa: E402
from paraphrastic.configuration.jobs import JobTables  # noqa: E402
from paraphrastic.configuration.settings import experiment  # noqa: E402
from paraphrastic.data.batching import pad  # noqa: E402
from paraphrastic.data.corpus import read_table  # noqa: E402
from paraphrastic.data.vocab import Vocabulary, load_matrix  # noqa: E402
from paraphrastic.losses.margin import choose_negatives  # noqa: E402
from paraphrastic.losses.regularization import regularization, with_penalty  # noqa: E402
from paraphrastic.models.encoders import build_model  # noqa: E402
from paraphrastic.training.epochs import ADAM_EPSILONS, adam, seed_everything  # noqa: E402
from paraphrastic.training.transfer import margin_loss_deterministic_negatives  # noqa: E402

PASSES = ("g1", "g2", "p1", "p2")
THEIR_NEGATIVES = "uncorrected, their negatives"  # --their-negatives' run of ours, beside the two ε placements
GATES = ("ingate", "forgetgate", "cell", "outgate")  # Lasagne's LSTM gates, our stacked columns' order
PEEPHOLES = ("ingate", "forgetgate", "outgate")  # the gates a peephole reaches, our peephole rows' order


def lasagne_names(model: torch.nn.Module, gradients: bool = False) -> dict[str, np.ndarray]:
    """Our GRAN-1 / LSTM / LSTMavg / avg weights (or their ``gradients``) under the names of their Lasagne layers'
    parameters (``W`` the word embeddings; the LSTM's four gates i, f, c, o are our stacked columns in that order)."""
    def of(p: torch.nn.Parameter) -> np.ndarray:
        return (p.grad if gradients else p).detach().numpy().copy()

    found = {"W": of(model.embedding.weight)}
    lstm = getattr(model, "lstm", None)
    if lstm is not None:
        weight_x, weight_h, bias, peephole = of(lstm.weight_x), of(lstm.weight_h), of(lstm.bias), of(lstm.peephole)
        for k, gate in enumerate(GATES):
            columns = slice(k * lstm.hidden_dim, (k + 1) * lstm.hidden_dim)
            found |= {f"W_in_to_{gate}": weight_x[:, columns], f"W_hid_to_{gate}": weight_h[:, columns],
                      f"b_{gate}": bias[columns]}
        found |= {f"W_cell_to_{gate}": peephole[k] for k, gate in enumerate(PEEPHOLES)}
    if hasattr(model, "gate_x"):
        found |= {"W_avg1": of(model.gate_x[0].weight).T, "b_avg": of(model.gate_x[0].bias),
                  "W_avg2": of(model.gate_h[0].weight).T}
    return found


def load_lasagne_names(model: torch.nn.Module, weights: dict[str, np.ndarray]) -> None:
    """Our composition weights set from theirs, by their Lasagne names (:func:`lasagne_names`' inverse; ``W``, the
    word embeddings, is left as it is). Every name the model has must be given, and only those: a weight left at
    our own start would pass for theirs."""
    reached = {"lstm.weight_x", "lstm.weight_h", "lstm.bias", "lstm.peephole", "gate_x.0.weight", "gate_x.0.bias",
               "gate_h.0.weight"}
    left = [name for name, _ in model.named_parameters() if not name.startswith("embedding.") and name not in reached]
    if left:
        raise SystemExit(f"their names do not reach our weights {left}: LSTM, LSTMavg and GRAN-1 only")
    ours = set(lasagne_names(model)) - {"W"}
    if ours != set(weights) - {"W"}:
        raise SystemExit(f"their weights and ours have other names: only theirs {sorted(set(weights) - ours - {'W'})}"
                         f", only ours {sorted(ours - set(weights))}")
    given = {name: torch.from_numpy(np.asarray(value, dtype=np.float32)) for name, value in weights.items()}
    with torch.no_grad():
        lstm = getattr(model, "lstm", None)
        if lstm is not None:
            for k, gate in enumerate(GATES):
                columns = slice(k * lstm.hidden_dim, (k + 1) * lstm.hidden_dim)
                lstm.weight_x[:, columns] = given[f"W_in_to_{gate}"]
                lstm.weight_h[:, columns] = given[f"W_hid_to_{gate}"]
                lstm.bias[columns] = given[f"b_{gate}"]
            for k, gate in enumerate(PEEPHOLES):
                lstm.peephole[k] = given[f"W_cell_to_{gate}"]
        if hasattr(model, "gate_x"):
            model.gate_x[0].weight.copy_(given["W_avg1"].T)
            model.gate_x[0].bias.copy_(given["b_avg"])
            model.gate_h[0].weight.copy_(given["W_avg2"].T)


# the types their train.py's argparse gives the flags run.py writes (train.py:49-71); the others stay strings
THEIR_TYPES = {"dim": int, "epochs": int, "batchsize": int, "gran_type": int, "eta": float, "margin": float,
               "LW": float, "LC": float, "scramble": float, "dropout": float, "word_dropout": float}


def their_settings(settings, dim: int, steps: int, grad_steps: list[int], weight_steps: list[int]) -> dict:
    """Their ``params`` for RUN as their train.py parses run.py's flags for it (which name any setting their code
    has no equivalent of), with this comparison's steps."""
    if settings.model not in ("avg", "lstm", "lstmavg", "gran"):  # the models lasagne_names maps
        raise SystemExit(f"steps.py compares avg, LSTM, LSTMavg and GRAN-1 runs, not {settings.model}")
    flags = harness.their_flags(settings, dim)
    given = {flag[1:]: THEIR_TYPES.get(flag[1:], str)(value) for flag, value in zip(flags[::2], flags[1::2],
                                                                                     strict=True)}
    return {"gran_type": 1, **given, "outgate": given.get("outgate", "True") == "True", "sumlayer": False,
            "steps": steps, "grad_steps": grad_steps, "weight_steps": weight_steps}


def relative(ours: np.ndarray, theirs: np.ndarray) -> float:
    scale = max(float(np.abs(ours).max()), float(np.abs(theirs).max()), 1e-30)
    return float(np.abs(ours - theirs).max()) / scale


def batches_and_masks(settings, corpus, vocab: Vocabulary, dim: int, steps: int, batch_size: int) -> tuple[list, dict]:
    """``steps`` batches of pairs drawn from the training set (seeded by the run's seed), scrambled as the run
    scrambles (each pair with probability ``scramble``: both its sentences' words shuffled, the same for both
    sides), as our id lists and as the padded arrays steps_theirs.py reads, and for each the four passes' masks (a
    sentence's row of each, as long as the batch's longest sentence): dropout's per value, word dropout's per word
    (the same over a word's dimensions, as their ``shared_axes=(2,)``)."""
    rng = np.random.RandomState(settings.seed)
    batches, arrays = [], {}
    for step in range(steps):
        rows = rng.choice(len(corpus), batch_size, replace=False)
        first = [vocab.ids(corpus["tokens1"].iloc[r]) for r in rows]
        second = [vocab.ids(corpus["tokens2"].iloc[r]) for r in rows]
        for j in np.flatnonzero(rng.random_sample(len(rows)) < settings.scramble):
            first[j], second[j] = list(rng.permutation(first[j])), list(rng.permutation(second[j]))
        width = max(map(len, first + second))
        batches.append((first, second))
        for side, sentences in (("first", first), ("second", second)):
            ids = np.full((len(rows), width), -1, dtype=np.int64)
            for i, sentence in enumerate(sentences):
                ids[i, : len(sentence)] = sentence
            arrays[f"batch.{step}.{side}"] = ids
        for name in PASSES:
            if settings.word_dropout:
                words = rng.random_sample((len(rows), width, 1)) >= settings.word_dropout
                arrays[f"mask.{step}.{name}"] = np.repeat(words, dim, axis=2)
            else:
                arrays[f"mask.{step}.{name}"] = rng.random_sample((len(rows), width, dim)) >= settings.dropout
    return batches, arrays


def our_steps(settings, model: torch.nn.Module, batches: list, given: dict, theirs: dict, epsilon: str,
              grad_steps: list[int], weight_steps: list[int], their_negatives: bool = False) -> dict:
    """Our steps on the same batches and masks, each beside theirs: negatives, loss, gradients (at ``grad_steps``)
    and the weights' largest difference (after each of ``weight_steps``). With ``their_negatives``, ours takes the
    negatives their get_pairs chose instead of its own, so a near-tie that rounding breaks the other way on our
    pass does not part the two runs and what is left to differ is the loss, gradients and step."""
    optimizer = adam(model.parameters(), settings.learning_rate, epsilon=epsilon)
    queue: list[torch.Tensor] = []
    real_dropout = torch.nn.functional.dropout

    def given_dropout(x, p=0.5, training=True, inplace=False):
        return x * queue.pop(0)[:, : x.shape[1]] / (1 - p) if training and p else real_dropout(x, p, training)

    def given_word_draws(shape, device=None):  # the encoder keeps a word where its draw >= p: 1 keeps, 0 drops
        return queue.pop(0)[:, : shape[1], 0].to(device)

    steps, weights = [], {}
    with mock.patch.object(torch.nn.functional, "dropout", given_dropout), \
            mock.patch("paraphrastic.models.encoders.torch.rand", given_word_draws):
        for step, (first, second) in enumerate(batches):
            tokens, mask = pad(first + second)
            masks = {name: torch.from_numpy(given[f"mask.{step}.{name}"].astype(np.float32)) for name in PASSES}
            queue[:] = [torch.cat([masks["g1"], masks["g2"]]), torch.cat([masks["p1"], masks["p2"]])]
            chosen: list = []
            forced = their_indices(sentences(tokens), theirs[f"negatives.{step}.p1"],
                                   theirs[f"negatives.{step}.p2"]) if their_negatives else None
            with mock.patch("paraphrastic.training.transfer.choose_negatives", new=recording(chosen, forced)):
                objective = margin_loss_deterministic_negatives(model, tokens, mask, settings.margin,
                                                                sampling=settings.sampling)
            # the step descends the objective plus λ_c's and λ_w's penalties, as training's and their cost does
            penalty = regularization(model, settings.penalty(settings.lambda_c), settings.penalty(settings.lambda_w))
            optimizer.zero_grad()
            with_penalty(objective, penalty).backward()
            differ, gap = negative_differences(tokens, chosen, theirs[f"negatives.{step}.p1"],
                                               theirs[f"negatives.{step}.p2"])
            row = {"step": step, "loss": objective.item(), "theirs_loss": float(theirs[f"loss.{step}"]),
                   "negatives_differ": differ, "cosine_gap": gap}
            if step in grad_steps:
                grads = lasagne_names(model, gradients=True)
                row["gradient_difference"] = max(relative(g, theirs[f"grad.{step}.{k}"]) for k, g in grads.items())
            optimizer.step()
            steps.append(row)
            if step + 1 in weight_steps:
                ours = lasagne_names(model)
                weights[step + 1] = max(float(np.abs(v - theirs[f"param.{step + 1}.{k}"]).max())
                                        for k, v in ours.items())
    return {"steps": steps, "weights": weights}


def markdown(run: str, settings, batch_size: int, compared: dict[str, dict], moved: dict[int, float],
             reading: str = "ours") -> str:
    lines = [f"Their model (models.py, Theano) and ours on the same {len(next(iter(compared.values()))['steps'])} "
             f"batches of {batch_size} SimpWiki pairs (read `data.reading: {reading}`), from the same initial "
             f"weights (ours for {run}, seed "
             f"{settings.seed}: {settings.model}, dropout {settings.dropout}, word dropout {settings.word_dropout}, "
             f"scrambling {settings.scramble}) with the same dropout masks, each "
             "choosing its negatives on its own pass without dropout and taking its own Adam step; ours with Adam's "
             "ε as Lasagne places it (`uncorrected`) and as torch does (`corrected`). `fidelity/"
             "steps.py` wrote it (the first ten steps, every tenth after, and any step where a side's negatives "
             "differ from theirs).", "",
             "| step | theirs: loss | " + " | ".join(f"ours ({e}): loss − theirs | negatives unlike theirs"
                                                     for e in compared) + " |",
             "|---:|---:|" + "---:|---:|" * len(compared)]
    for k, row in enumerate(next(iter(compared.values()))["steps"]):
        if k >= 10 and k % 10 != 9 and not any(side["steps"][k]["negatives_differ"] for side in compared.values()):
            continue  # the first ten steps, every tenth after, and any where a side chose other negatives
        cells = []
        for side in compared.values():
            mine = side["steps"][k]
            cells += [f"{mine['loss'] - mine['theirs_loss']:+.1e}", str(mine["negatives_differ"])]
        lines.append(f"| {row['step']} | {row['theirs_loss']:.6f} | " + " | ".join(cells) + " |")
    lines += ["", "The gradients at the first step, and each weight after step k: the largest difference from theirs "
              "(gradients relative to the larger side; weights absolute, beside the most their steps moved a "
              "weight):", "",
              "| | " + " | ".join(f"ours ({e})" for e in compared) + " | their largest move |",
              "|---|" + "---:|" * (len(compared) + 1)]
    first = [side["steps"][0].get("gradient_difference") for side in compared.values()]
    lines.append("| gradients, step 0 | " + " | ".join(f"{g:.1e}" for g in first) + " | |")
    for k, move in moved.items():
        lines.append(f"| weights after step {k} | " + " | ".join(f"{side['weights'][k]:.1e}"
                                                                for side in compared.values()) + f" | {move:.1e} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of jwieting/acl2017 (holds main/models.py)")
    parser.add_argument("--run", required=True, help="a transfer run of params.yaml or a cell of grid_cells.py "
                        "(avg, LSTM, LSTMavg or GRAN-1)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--data", type=Path, default=Path("data"), help="the project's data folder")
    parser.add_argument("--work", type=Path, default=Path("authors_code"), help="run.py's work folder")
    parser.add_argument("--lasagne", default=harness.LASAGNE, help="Lasagne to install (see run.py)")
    parser.add_argument("--their-negatives", action="store_true",
                        help=f"also step ours taking the negatives theirs chose (`{THEIR_NEGATIVES}`): what "
                        "differs from theirs once a near-tie is broken alike")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "authors_steps",
                        help="writes OUT.json and OUT.md, the table docs/fidelity.md shows (default: %(default)s)")
    args = parser.parse_args(argv)
    config = cfg.load(harness.REPO / "params.yaml")
    runs = JobTables.of(config).runs
    if args.run not in runs:  # a cell of grid_cells.py that the thinned grids do not train
        from fidelity.grid_cells import base_rows, cells
        runs = cells(config, list(base_rows(config)))[0]
    settings = experiment(config, args.run, runs)
    harness.install(args.work, args.lasagne)

    vocab_dir = args.data / ("distilled" if settings.word_vectors == "distilled" else "vocab")
    vocab = Vocabulary.load(vocab_dir / "vocab.txt")
    embeddings = torch.from_numpy(load_matrix(vocab_dir / "embeddings.npy"))
    corpus = read_table(args.data / "corpus" / f"{settings.train_set}.parquet")
    seed_everything(settings.seed)
    model = build_model(settings.model, embeddings, **settings.model_options())
    start, initial = lasagne_names(model), copy.deepcopy(model.state_dict())
    grad_steps, weight_steps = [0], sorted({1, min(5, args.steps), args.steps})
    batches, arrays = batches_and_masks(settings, corpus, vocab, embeddings.shape[1], args.steps, args.batch_size)
    given = {"settings": json.dumps(their_settings(settings, embeddings.shape[1], args.steps, grad_steps,
                                                   weight_steps)),
             "embeddings": embeddings.numpy()} | {f"param.{k}": v for k, v in start.items()} | arrays
    args.work.mkdir(parents=True, exist_ok=True)
    source, target = args.work / "steps.in.npz", args.work / "steps.out.npz"
    np.savez(source, **given)
    proc = subprocess.run([harness.python2(), str(HERE / "steps_theirs.py"), str(source.resolve()),
                           str(target.resolve())], cwd=args.checkout / "main", capture_output=True, text=True,
                          env=harness.environment(args.work.resolve()))
    if proc.returncode:
        raise SystemExit(f"steps_theirs.py failed:\n{proc.stderr[-3000:]}")
    theirs = dict(np.load(target))

    compared = {}
    for epsilon in ADAM_EPSILONS:
        model.load_state_dict(initial)
        compared[epsilon] = our_steps(settings, model, batches, given, theirs, epsilon, grad_steps, weight_steps)
    if args.their_negatives:
        model.load_state_dict(initial)
        compared[THEIR_NEGATIVES] = our_steps(settings, model, batches, given, theirs, "uncorrected", grad_steps,
                                              weight_steps, their_negatives=True)
    moved = {k: max(float(np.abs(theirs[f"param.{k}.{name}"] - value).max()) for name, value in start.items())
             for k in weight_steps}
    reading = harness.our_reading(args.data, settings.train_set) or "ours"  # a run before the record: ours
    text = markdown(args.run, settings, args.batch_size, compared, moved, reading)
    publish(args.out, {"run": args.run, "seed": settings.seed, "reading": reading, "commit": commit(),
                       "compared": compared, "their_largest_move": moved}, text)
    return 0


def recording(chosen: list, forced: tuple[torch.Tensor, torch.Tensor] | None = None):
    """choose_negatives, appending the embeddings it chose on and what it chose to ``chosen``; with ``forced``
    (:func:`their_indices`), what it returns and records is that choice instead of its own."""
    def wrapped(g1, g2, **kwargs):
        picked = forced if forced is not None else choose_negatives(g1, g2, **kwargs)
        chosen.append((torch.cat([g1, g2]), torch.cat(picked)))
        return picked
    return wrapped


def sentences(tokens: torch.Tensor) -> list[tuple[int, ...]]:
    """Each row of a padded batch as its word ids (their padding and ours are 0)."""
    return [tuple(row[row != 0].tolist()) for row in tokens.numpy()]


def their_indices(words: list[tuple[int, ...]], p1: np.ndarray, p2: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """The negatives their get_pairs chose (padded word ids) as indices into our batch (``words``: its
    :func:`sentences`, the first sentences, then their paraphrases), as choose_negatives returns them; of sentences
    repeated in the batch, the first (the same words embed alike)."""
    picked = torch.tensor([words.index(tuple(row[row != 0].tolist())) for row in [*p1, *p2]])
    return picked[: len(p1)], picked[len(p1):]


def negative_differences(tokens: torch.Tensor, chosen: list, p1: np.ndarray, p2: np.ndarray) -> tuple[int, float]:
    """How many sentences' negatives differ from theirs, and the largest gap, on our deterministic pass, between
    the cosines of our choice and of theirs with the sentence: a near-tie that rounding breaks (two near-identical
    candidates, such as a pair's two sides, or an LSTM's two sentences ending in the same long run of words) has a
    gap of float32's rounding, 1e-7."""
    clean, picked = chosen[0]
    unit = torch.nn.functional.normalize(clean, dim=1)
    words = sentences(tokens)
    theirs = torch.cat(their_indices(words, p1, p2)).tolist()
    differ, gap = 0, 0.0
    for anchor, (ours, j) in enumerate(zip(picked.tolist(), theirs, strict=True)):
        if words[ours] != words[j]:
            differ += 1
            gap = max(gap, abs(float(unit[anchor] @ unit[ours] - unit[anchor] @ unit[j])))
    return differ, gap


if __name__ == "__main__":
    sys.exit(main())
