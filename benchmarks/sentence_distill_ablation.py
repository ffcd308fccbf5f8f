"""What each change to sentence-level distillation does, one change at a time from Tokenlearn's recipe (the
`distill_sentences` stage as it was): python benchmarks/sentence_distill_ablation.py [--data data] [--only NAME ...]
[--seeds 1 ...] [--work DIR] [--threads 1] [--table]

Every variant trains the `distill` stage's vectors (data/distilled) towards the `teacher_targets` stage's teacher
embeddings (data/sentence_distilled/targets.*) with the pipeline's own trainer
(:func:`paraphrastic.training.sentence_distillation.train`), selects its epoch on STS 2016 as the stage does, and
scores the kept vectors under avg: STS 2016 (the selection), our 22-set mean Pearson, and MTEB's pooled STS12-16 mean
Spearman. No variant is chosen on the 22 sets or MTEB's. The untrained distilled vectors, as they are and whitened
on the training texts, are the first rows. A variant may start from the distill stage's vectors made with other
settings (distilled into WORK first), and ``paraphrase-avg-twin`` trains the pipeline's avg twin (the paper's
objective alone, its own search) from a variant's kept vectors. With ``--seeds``, each variant is trained with
each seed (its held-out split, initialisation and order), and the table gives the mean ± sd; the line under it,
the default's distance to the static model's targets.

A variant's result is written to WORK/NAME.json as soon as it is measured and a variant found there is not trained
again (the trainer resumes a killed variant from its checkpoint), so the variants can run in several processes
(`--only`) and the table be assembled afterwards (`--table`). Writes benchmarks/results/sentence_distill_ablation.
{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pandas as pd
import torch

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from measured import commit, publish  # noqa: E402

from paraphrastic.atomic import write_json  # noqa: E402
from paraphrastic.configuration.params import load  # noqa: E402
from paraphrastic.training.sentence_distillation import SentenceDistillationSettings  # noqa: E402

# The stage as it was (Tokenlearn's recipe on our vocabulary): every variant below changes one thing from it, except
# the combinations at the end, which are named as such.
TOKENLEARN = SentenceDistillationSettings(target_dims=256, loss="squared_error", map="dropped", post_processing="none",
                                          output_dims=None, epochs=5, batch_size=256, learning_rate=1e-3,
                                          weight_decay=0.01, held_out=0.05, seed=1)
UNTRAINED = {"untrained": "the distilled vectors, untrained",
             "untrained-whitened": "the distilled vectors, untrained, whitened (ZCA on the training texts)"}
# The static model's targets: MTEB's mean ahead of these published static models, and this 22-set mean Pearson
TARGET_MODELS = ("minishlab/potion-base-8M", "sentence-transformers/static-similarity-mrl-multilingual-v1")
TARGET_22 = 71.0
PROBE = {"map_init": "least_squares", "target_dims": None, "loss": "cosine", "weight_decay": 0.0, "epochs": 8}
PARAPHRASE = {**PROBE, "post_processing": "whiten", "paraphrase_weight": 1.0}  # probe-whitened-paraphrase's
# name -> (what changes, the settings changed, the sources kept: None for all the targets' texts)
VARIANTS: dict[str, tuple[str, dict, list[str] | None]] = {
    "tokenlearn": ("Tokenlearn's recipe, as the stage was (squared error to 256-d PCA'd targets, map dropped, "
                   "5 epochs, AdamW lr 1e-3, weight decay 0.01)", {}, None),
    "map-folded": ("the map folded into the vectors (256-d)", {"map": "folded"}, None),
    "whitened": ("whitened after training (ZCA on the training texts)", {"post_processing": "whiten"}, None),
    "cosine": ("cosine instead of squared error", {"loss": "cosine"}, None),
    "full-targets": ("the teacher's 384-d embeddings as they are, not PCA'd", {"target_dims": None}, None),
    "epochs-10": ("10 epochs", {"epochs": 10}, None),
    "lr-3e-3": ("learning rate 3e-3", {"learning_rate": 3e-3}, None),
    "lr-3e-4": ("learning rate 3e-4", {"learning_rate": 3e-4}, None),
    "no-weight-decay": ("no weight decay", {"weight_decay": 0.0}, None),
    "map-least-squares": ("the map started at the least-squares fit of the targets on the untrained vectors",
                          {"map_init": "least_squares"}, None),
    "pairs-only": ("only the training pairs' texts (SimpWiki, PPDB), not SimpWiki's extra pairs or the treebank",
                   {}, ["simpwiki", "ppdb"]),
    # combinations
    "folded-full": ("map folded, full targets (384-d vectors)", {"map": "folded", "target_dims": None}, None),
    "folded-full-256": ("map folded, full targets, PCA'd back to 256-d", {"map": "folded", "target_dims": None,
                                                                            "output_dims": 256}, None),
    "folded-full-cosine": ("map folded, full targets, cosine", {"map": "folded", "target_dims": None,
                                                                "loss": "cosine"}, None),
    "whitened-cosine-full": ("whitened, full targets, cosine", {"post_processing": "whiten", "target_dims": None,
                                                                "loss": "cosine"}, None),
    "folded-least-squares": ("map folded, started at the least-squares fit", {"map": "folded",
                                                                             "map_init": "least_squares"}, None),
    # the recipe of a probe made outside the pipeline before this benchmark: the map fit first, then trained with the
    # vectors, cosine to the teacher's own embeddings, no weight decay, 8 epochs; the map folded in, or dropped and
    # the vectors whitened instead
    "probe-folded": ("map folded and started at the least-squares fit, full targets, cosine, no weight decay, "
                     "8 epochs", {**PROBE, "map": "folded"}, None),
    "probe-whitened": ("as probe-folded, but the map dropped and the vectors whitened", {**PROBE,
                                                                                         "post_processing": "whiten"},
                       None),
    "probe-whitened-lr-3e-4": ("probe-whitened at learning rate 3e-4", {**PROBE, "post_processing": "whiten",
                                                                        "learning_rate": 3e-4}, None),
    # both objectives: the paper's margin loss on SimpWiki's training pairs beside the teacher's
    "probe-whitened-paraphrase": ("probe-whitened with the margin loss on SimpWiki's pairs (weight 1)", PARAPHRASE,
                                  None),
    "probe-whitened-paraphrase-0.1": ("probe-whitened with the margin loss on SimpWiki's pairs (weight 0.1)",
                                      {**PROBE, "post_processing": "whiten", "paraphrase_weight": 0.1}, None),
    # the word weights, from probe-whitened-paraphrase: after training (SIF on the training texts' frequencies,
    # Tokenlearn's last step), and before it (the distilled vectors carry the distill stage's Zipf weights; divided
    # out here)
    "paraphrase-sif-after": ("probe-whitened-paraphrase, SIF weights (1e-3) after training, before whitening",
                             {**PARAPHRASE, "sif_after": 1e-3}, None),
    "paraphrase-unweighted-start": ("probe-whitened-paraphrase from the distilled vectors without their Zipf weights",
                                    {**PARAPHRASE, "start_weights": "none"}, None),
    "paraphrase-unweighted-start-sif-after": ("probe-whitened-paraphrase from the distilled vectors without their Zipf "
                                              "weights, SIF weights (1e-3) after training",
                                              {**PARAPHRASE, "start_weights": "none", "sif_after": 1e-3}, None),
    "paraphrase-unweighted-start-ppdb": ("paraphrase-unweighted-start with the margin loss on PPDB's pairs instead",
                                         {**PARAPHRASE, "start_weights": "none", "paraphrase_pairs": "ppdb"}, None),
    "paraphrase-unweighted-start-384": ("paraphrase-unweighted-start from the distill stage's vectors without PCA "
                                        "(`dims: null`: the teacher's 384 dimensions)",
                                        {**PARAPHRASE, "start_weights": "none"}, None),
    # against the overfitting after the first epochs (the histories): regularising the texts, weighting the pairs
    "unweighted-start-token-dropout": ("paraphrase-unweighted-start, each word of a training text left out of its "
                                       "mean with chance 0.1 (`token_dropout`)",
                                       {**PARAPHRASE, "start_weights": "none", "token_dropout": 0.1}, None),
    "unweighted-start-paraphrase-3": ("paraphrase-unweighted-start with the margin loss at weight 3",
                                      {**PARAPHRASE, "start_weights": "none", "paraphrase_weight": 3.0}, None),
}
# variants that start from the distill stage's vectors made with other settings (`word_vectors.distilled`), which
# the benchmark distils into WORK/distilled-<variant> first
OTHER_START = {"paraphrase-unweighted-start-384": {"dims": None}}
# the paper's objective on top: the pipeline's avg twin (`sentence_distilled_rows`, its λ_w search, selected on STS
# 2016) trained from the kept vectors of the variant named
TWINS = {"paraphrase-avg-twin": ("probe-whitened-paraphrase, then avg trained on SimpWiki's pairs from its vectors "
                                 "(the pipeline's twin: its λ_w search, selected on STS 2016)",
                                 "probe-whitened-paraphrase")}


def load_inputs(data: Path):
    """What every variant reads: the config, the selection, the distill stage's vocabulary and vectors, the teacher's
    texts (with their words as the folder's tokenizer reads them, column ``tokens``) and embeddings, the evaluation
    table read by that tokenizer, and the tokenizer's kind: as the stage reads them."""
    from paraphrastic.configuration.params import selection_ids
    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.static_tokenizer import load_tokenizer, read_with, shipped_tokens
    from paraphrastic.data.vocab import Vocabulary, load_matrix
    from paraphrastic.provenance import read_result

    config = load(REPO / "params.yaml")
    vocab = Vocabulary.load(data / "distilled" / "vocab.txt")
    start = torch.from_numpy(load_matrix(data / "distilled" / "embeddings.npy"))
    tokenizer = load_tokenizer(data / "distilled")
    if tokenizer is None:
        raise SystemExit(f"{data / 'distilled'}: holds no tokenizer.json (made before the static tokenizer); rerun "
                         "`snakemake --cores 2 data/distilled/tokenizer.json`")
    texts = read_table(data / "sentence_distilled" / "targets.parquet")
    texts = texts.assign(tokens=shipped_tokens(tokenizer, texts["text"]))
    teacher = load_matrix(data / "sentence_distilled" / "targets.npy")
    table = read_with(read_table(data / "corpus" / "eval.parquet"), tokenizer)
    kind = read_result(data / "distilled" / "coverage.json")["tokenizer"]
    return config, selection_ids(config), vocab, start, texts, teacher, table, tokenizer, kind


def scores(vectors: torch.Tensor, vocab, table: pd.DataFrame, selection: list[str]) -> dict:
    """STS 2016, the 22-set mean Pearson and MTEB's mean Spearman of ``vectors`` averaged (× 100)."""
    from paraphrastic.evaluation.mteb_sts import MTEB_TASKS, mean_over_tasks, pooled
    from paraphrastic.evaluation.similarity import score_sets, summarize
    from paraphrastic.models.encoders import build_model

    both = pd.concat([table, pooled(table)], ignore_index=True)
    results = score_sets(build_model("avg", vectors.float()), vocab, both)
    summary = summarize(results, selection)
    return {"sts16": summary["selection_pearson"], "sts22": summary["transfer_pearson"],
            "mteb": mean_over_tasks({task: results[task] for task in MTEB_TASKS}),
            "mteb_tasks": {task: results[task]["spearman"] for task in MTEB_TASKS}, "dims": int(vectors.shape[1])}


def measure(name: str, inputs, data: Path, work: Path, threads: int, seed: int = 1) -> dict:
    """One variant trained with ``seed`` (the seed of its texts' held-out split, initialisation and order)."""
    from paraphrastic.training.sentence_distillation import post_process

    config, selection, vocab, start, texts, teacher, table, tokenizer, kind = inputs
    started = time.time()
    if name in UNTRAINED:
        torch.set_num_threads(threads)
        ids = [vocab.ids(tokens) for tokens in texts["tokens"]]
        held = round(len(ids) * TOKENLEARN.held_out)  # fit on the texts a trained variant trains on
        order = np.random.default_rng([TOKENLEARN.seed, 0]).permutation(len(ids))
        vectors = start if name == "untrained" else post_process(
            start.float(), [ids[i] for i in order[held:]], whiten=True, output_dims=None)
        return {"name": name, "what": UNTRAINED[name], "tokenizer": kind, **scores(vectors, vocab, table, selection),
                "seconds": time.time() - started}
    if name in TWINS:
        what, base = TWINS[name]
        result, settings = distil(base, inputs, data, work, threads, seed)  # resumed from the base's checkpoints
        twin = train_twin(torch.from_numpy(result["vectors"]), inputs, data, work / "checkpoints" / stem(name, seed),
                          threads, seed)
        measured = scores(twin["vectors"], vocab, table, selection)
        return {"name": name, "seed": seed, "what": what, "tokenizer": kind, "settings": asdict(settings),
                "sources": None, "twin": True,
                "texts": result["texts"], **measured, "selected_epoch": twin["selected_epoch"],
                "twin_run": twin["run"], "seconds": time.time() - started}
    result, settings = distil(name, inputs, data, work, threads, seed)
    measured = scores(torch.from_numpy(result["vectors"]), vocab, table, selection)
    best = result["selected"]
    assert abs(measured["sts16"] - best["selection_pearson"]) < 1e-6, (name, measured["sts16"], best)
    return {"name": name, "seed": seed, "what": VARIANTS[name][0], "tokenizer": kind, "settings": asdict(settings),
            "sources": VARIANTS[name][2],
            "texts": result["texts"], **measured, "selected_epoch": best["epoch"],
            "history": [{k: row[k] for k in ("epoch", "loss", "held_out_loss", "selection_pearson", "transfer_pearson",
                                             "train_seconds")} for row in result["history"]],
            "seconds": time.time() - started}


def distil(name: str, inputs, data: Path, work: Path, threads: int, seed: int):
    """Variant ``name``'s training with ``seed`` (resumed from its checkpoints where they are complete): the trainer's
    result and the settings."""
    from paraphrastic.data.vocab import Vocabulary
    from paraphrastic.pipeline.steps.distill_sentences import starting_vectors
    from paraphrastic.training.sentence_distillation import train

    config, selection, vocab, _, texts, teacher, table, tokenizer, kind = inputs
    _, changes, sources = VARIANTS[name]
    settings = replace(TOKENLEARN, **changes, seed=seed)
    distilled = data / "distilled"
    if name in OTHER_START:
        distilled = distil_start(config, OTHER_START[name], data, work / f"distilled-{name}", threads)
        assert Vocabulary.load(distilled / "vocab.txt").words == vocab.words, "another vocabulary"
    start = torch.from_numpy(starting_vectors(distilled, settings)[1])  # as the stage starts
    ids = [vocab.ids(tokens) for tokens in texts["tokens"]]
    keep = np.ones(len(ids), dtype=bool) if sources is None else texts["source"].isin(sources).to_numpy()
    pairs = None
    if settings.paraphrase_weight:  # as the stage reads them
        from paraphrastic.data.corpus import read_table
        from paraphrastic.data.sentence_targets import sentence_set, training_pairs
        from paraphrastic.data.static_tokenizer import read_with

        kept, _ = training_pairs(read_with(read_table(data / "corpus" / f"{settings.paraphrase_pairs}.parquet"),
                                           tokenizer), excluded=sentence_set(table))
        pairs = [(vocab.ids(a), vocab.ids(b)) for a, b in kept]
    result = train(settings, vocab=vocab, embeddings=start, texts=[ids[i] for i in np.flatnonzero(keep)],
                   targets=teacher[keep], eval_frame=table, selection=selection, inputs=[], pairs=pairs,
                   checkpoint_dir=work / "checkpoints" / stem(name, seed), device="cpu", threads=threads,
                   progress=False)
    return result, settings


def distil_start(config: dict, changes: dict, data: Path, out: Path, threads: int) -> Path:
    """The distill stage's vectors with ``changes`` to ``word_vectors.distilled``, in ``out`` (made once)."""
    from paraphrastic.pipeline.steps import distill

    if not (out / "coverage.json").is_file():
        settings = {**config["word_vectors"], "distilled": {**config["word_vectors"]["distilled"], **changes}}
        distill.run({**config, "word_vectors": settings}, corpus=data / "corpus", out_dir=out, device="cpu",
                    threads=threads)
    return out


def train_twin(vectors: torch.Tensor, inputs, data: Path, work: Path, threads: int, seed: int) -> dict:
    """The pipeline's avg twin (params.yaml's first ``sentence_distilled_rows`` row, each run of its search) trained
    with ``seed`` from ``vectors``, the run with the best STS 2016 kept: its embeddings, selected epoch and name."""
    from paraphrastic.configuration import grids
    from paraphrastic.configuration.settings import experiment
    from paraphrastic.data import vocab as vocabulary
    from paraphrastic.models.files import load_model
    from paraphrastic.training.transfer import train

    config, selection, vocab, _, _, _, table, _, _ = inputs
    row = f"{config['word_vectors']['sentence_distilled_rows'][0]}-sentence_distilled"
    runs, rows = grids.expand(config)
    folder = work / "vectors"
    vocab.save(folder / "vocab.txt")
    vocabulary.save_matrix(folder / "embeddings.npy", vectors.numpy().astype(np.float32), stage="distill_sentences")
    trained = []
    for run in rows[row]:
        settings = replace(experiment(config, run, runs), seed=seed)
        info = train(settings, train_path=data / "corpus" / f"{settings.train_set}.parquet", vocab_dir=folder,
                     eval_path=data / "corpus" / "eval.parquet", selection=selection, out_dir=work / run,
                     checkpoint_dir=work / "checkpoints" / run, device="cpu", threads=threads, progress=False,
                     eval_batch_size=config["evaluation"]["batch_size"])
        trained.append((info["selection_pearson"], run, info["selected_epoch"]))
    _, run, epoch = max(trained)
    encoder, _, _ = load_model(work / run / "model.pt")
    return {"vectors": encoder.embedding.weight.detach().float(), "selected_epoch": epoch, "run": run}


def stem(name: str, seed: int) -> str:
    """A variant's file name in the work folder: seed 1 as the name alone."""
    return name if seed == 1 else f"{name}@seed{seed}"


def _seed_of(key: str) -> int:
    return int(key.rpartition("@seed")[2]) if "@seed" in key else 1


def configured(row: dict, settings: dict) -> bool:
    """Whether ``row`` trained with the settings ``settings`` (``word_vectors.sentence_distilled``) names, on all
    the texts, from the distill stage's vectors as params.yaml makes them, and was not trained further."""
    ours = row.get("settings")
    return (ours is not None and row.get("sources") is None and not row.get("twin") and row["name"] not in OTHER_START
            and all(ours[key] == settings[key] for key in ours if key != "seed" and key in settings))


def _spread(rows: list[dict], key: str) -> str:
    values = [row[key] for row in rows]
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def _against_targets(rows: list[dict]) -> str:
    """The configured variant's seed mean against the targets: MTEB's mean ahead of each published static model
    (their published means, workflow/published/mteb_sts.csv) and the 22-set floor."""
    from paraphrastic.evaluation.mteb_sts import mean_over_tasks, published
    from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS

    mteb, sts22 = statistics.mean(row["mteb"] for row in rows), statistics.mean(row["sts22"] for row in rows)
    cited = published(REPO / PUBLISHED_MTEB_STS)
    parts = []
    for model in TARGET_MODELS:
        target = mean_over_tasks(cited[model])
        parts.append(f"{model.split('/')[-1]}'s published {target:.2f} by {mteb - target:+.2f}")
    return (f"The default (*italic*), over its {len(rows)} seed(s): MTEB's mean {mteb:.2f} against "
            + " and ".join(parts) + f"; the 22-set mean {sts22:.2f} against the floor of {TARGET_22:.1f} by "
            f"{sts22 - TARGET_22:+.2f}.")


EARLIER = "treebank"  # the text's reading of a row measured before the static tokenizer (it records none)


def _table(rows_of: dict[str, list[dict]], settings: dict | None) -> list[str]:
    """A row per variant (the mean ± sample sd of its seeds where it has several); with ``settings``, the one STS 2016
    picks in bold and the one ``settings`` (params.yaml's ``word_vectors.sentence_distilled``) names in italics."""
    best = max(rows_of, key=lambda name: statistics.mean(row["sts16"] for row in rows_of[name])) if settings else None
    lines = ["| variant | what changes | dims | seeds | epoch | STS 2016 | 22 sets | MTEB STS12–16 | s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, rows in rows_of.items():
        epochs = ", ".join(str(row["selected_epoch"]) for row in rows) if "selected_epoch" in rows[0] else "–"
        label = f"**{name}**" if name == best else name
        label = f"*{label}*" if settings and configured(rows[0], settings) else label
        lines.append(f"| {label} | {rows[0]['what']} | {rows[0]['dims']} | {len(rows)} | {epochs} | "
                     f"{_spread(rows, 'sts16')} | {_spread(rows, 'sts22')} | {_spread(rows, 'mteb')} | "
                     f"{statistics.mean(row['seconds'] for row in rows):.0f} |")
    return lines


def markdown(result: dict, settings: dict, tokenizer: str) -> str:
    """The table of the variants measured with ``tokenizer`` (params.yaml's ``word_vectors.tokenizer``): the export's
    scores as model2vec loads it. Rows measured otherwise (before the static tokenizer, on the Treebank tokens) follow
    in a table of their own, for the record."""
    groups: dict[str, dict[str, list[dict]]] = {}
    for row in result["rows"]:
        groups.setdefault(row.get("tokenizer", EARLIER), {}).setdefault(row["name"], []).append(row)
    current = groups.pop(tokenizer, {})
    lines = ["Sentence-level distillation, one change at a time from Tokenlearn's recipe (the stage as it was), then "
             "the combinations named: each variant's epoch selected on STS 2016 as the stage selects, its kept "
             "vectors averaged (avg, untrained after distillation), every text read by the tokenizer the static model "
             f"ships (`word_vectors.tokenizer: {tokenizer}`), so its scores are the export's as model2vec and "
             "sentence-transformers load it. STS 2016 and the 22-set mean: Pearson × 100 (one "
             "correlation per source); MTEB: the mean Spearman × 100 over its pooled STS12–STS16. "
             f"{result['texts']:,} unlabelled texts, 5% held out; on CPU, {result['threads']} torch thread(s) a "
             "variant; a variant with several seeds: the mean ± sample sd over them. **Bold**: the best STS 2016 (the "
             "selection); *italic*: the settings params.yaml names.", ""]
    lines += _table(current, settings) if current else ["(none measured yet)"]
    chosen = next((rows for rows in current.values() if configured(rows[0], settings)), None)
    if chosen is not None:
        lines += ["", _against_targets(chosen)]
    for reading, rows_of in groups.items():
        commits = sorted({row.get("measured_at", "unrecorded") for rows in rows_of.values() for row in rows})
        lines += ["", f"Measured before the static tokenizer (at {', '.join(commits)}), on the "
                      f"{'Treebank' if reading == EARLIER else reading} tokens: the vectors' scores under the "
                      "project's reading of the sets, not the export's as loaded, which scored lower "
                      "(docs/fidelity.md, \"The static model's tokenizer\"); kept for the record of what each change "
                      "did.", "",
                  *_table(rows_of, None)]
    return "\n".join(lines) + f"\n\nMeasured at {result['commit']} by `benchmarks/sentence_distill_ablation.py`.\n"


def main(argv: list[str] | None = None) -> int:
    names = [*UNTRAINED, *VARIANTS, *TWINS]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "data", help="a run's data folder (default: %(default)s)")
    parser.add_argument("--only", nargs="*", choices=names, default=None, help="measure these variants only")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "sentence_distill",
                        help="each variant's result and checkpoints (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads a variant (default: %(default)s)")
    parser.add_argument("--seeds", nargs="*", type=int, default=[1], help="train each variant with these seeds "
                        "(default: %(default)s)")
    parser.add_argument("--table", action="store_true", help="only assemble the table from WORK's results")
    parser.add_argument("--earlier", type=Path, help="a result written before (benchmarks/results/"
                        "sentence_distill_ablation.json): its rows not in WORK are tabled too, apart where they were "
                        "measured on other tokens")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "sentence_distill_ablation",
                        help="writes OUT.json and OUT.md (default: %(default)s)")
    args = parser.parse_args(argv)
    for needed in ("distilled/vocab.txt", "distilled/embeddings.npy", "sentence_distilled/targets.parquet",
                   "sentence_distilled/targets.npy", "corpus/eval.parquet"):
        if not (args.data / needed).is_file():
            parser.error(f"{args.data / needed}: no such file (run `snakemake --cores 2 "
                         "data/sentence_distilled/targets.npy` first)")
    args.work.mkdir(parents=True, exist_ok=True)
    if not args.table:
        inputs = load_inputs(args.data)
        for name, seed in [(name, seed) for name in args.only or names for seed in args.seeds
                           if name not in UNTRAINED or seed == 1]:
            path = args.work / f"{stem(name, seed)}.json"
            if path.is_file():
                continue
            row = measure(name, inputs, args.data, args.work, args.threads, seed)
            write_json(path, row)
            print(f"{stem(name, seed)}: STS16 {row['sts16']:.2f}, 22 sets {row['sts22']:.2f}, MTEB {row['mteb']:.2f} "
                  f"({row['seconds']:.0f} s)", flush=True)
    found = {path.stem: path for path in args.work.glob("*.json")}
    rows = [json.loads(found[key].read_text()) for name in names
            for key in sorted((k for k in found if k == name or k.startswith(f"{name}@seed")), key=_seed_of)]
    for row in rows:  # a row measured before the setting existed started from the vectors as distill weights them,
        # except the first unweighted start's, which the benchmark marked as such
        if "settings" in row:
            row["settings"].setdefault("start_weights", "none" if row.pop("start", None) == "unweighted" else "zipf")
    if args.earlier:
        made = {(row["name"], row.get("seed", 1), row.get("tokenizer")) for row in rows}
        earlier = json.loads(args.earlier.read_text())
        rows += [{**row, "measured_at": row.get("measured_at", earlier["commit"])} for row in earlier["rows"]
                 if (row["name"], row.get("seed", 1), row.get("tokenizer")) not in made]
    texts = next((row["texts"] for row in rows if row.get("sources") is None and "texts" in row), 0)
    result = {"commit": commit(), "threads": args.threads, "texts": texts, "rows": rows}
    config = load(REPO / "params.yaml")
    publish(args.out, result, markdown(result, config["word_vectors"]["sentence_distilled"],
                                       config["word_vectors"]["tokenizer"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
