"""Command-line entry points: one subcommand per pipeline stage (Snakemake rules and DVC stages call these)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from paraphrastic.errors import PipelineError
from paraphrastic.experiments import config as cfg


def _set_threads(threads: int | None) -> None:
    """An explicit torch thread count: Snakemake limits a job's threads through OMP_NUM_THREADS and DVC
    does not, and float results depend on the thread count, so both tools must give the same one."""
    if threads:
        import torch

        torch.set_num_threads(threads)


def _load(args) -> dict:
    config = cfg.load(args.params, args.schema)
    if getattr(args, "profile", None):
        config["data_profile"] = args.profile
        cfg.validate(config, args.schema, source=f"{args.params} (data_profile={args.profile})")
    return config


def cmd_fetch(args) -> None:
    from paraphrastic.data.fetch import fetch_all, load_manifest

    config = _load(args)
    records = fetch_all(cfg.required_raw_files(config), load_manifest(args.manifest), args.out, cfg.mirror_dir(config))
    print(f"fetched {len(records)} files into {args.out}")


def cmd_prepare_eval(args) -> None:
    from paraphrastic.atomic import write_json
    from paraphrastic.data.corpus import EVAL_SCHEMA, build_eval_table, token_stats, write_table

    config = _load(args)
    frame = build_eval_table(cfg.eval_sets(config), args.raw)
    write_table(frame, EVAL_SCHEMA, args.out)
    stats = {name: token_stats(rows) for name, rows in frame.groupby("dataset", sort=False)}
    write_json(args.stats, stats)
    print(f"{len(frame)} scored pairs in {len(stats)} evaluation sets -> {args.out}")


def cmd_prepare_train(args) -> None:
    from paraphrastic.atomic import write_json
    from paraphrastic.data import readers
    from paraphrastic.data.corpus import TRAIN_SCHEMA, build_train_table, token_stats, write_table

    config = _load(args)
    prof = cfg.profile(config)
    raw = Path(args.raw)
    cap, seed = config["data"].get("max_train_pairs"), config["seed"]
    simpwiki_pairs = []
    for first, second in cfg.simpwiki_files(config):
        simpwiki_pairs += readers.read_aligned_pairs(raw / first, raw / second, fmt=prof["simpwiki"]["format"])
    ppdb_pairs = readers.read_ppdb(raw / prof["ppdb"]["path"], fmt=prof["ppdb"]["format"])
    out = Path(args.out_dir)
    stats = {}
    for name, pairs in (("simpwiki", simpwiki_pairs), ("ppdb", ppdb_pairs)):
        frame = build_train_table(pairs, max_pairs=cap, seed=seed)
        write_table(frame, TRAIN_SCHEMA, out / f"{name}.parquet")
        stats[name] = token_stats(frame)
    write_json(out / "train_stats.json", stats)
    print(stats)


def cmd_match(args) -> None:
    from paraphrastic.atomic import write_json
    from paraphrastic.data.corpus import TRAIN_SCHEMA, read_table, token_match, write_table

    config = _load(args)
    corpus = Path(args.corpus)
    simpwiki, ppdb, summary = token_match(read_table(corpus / "simpwiki.parquet"), read_table(corpus / "ppdb.parquet"),
                                          config["data"]["match_seed"])
    write_table(simpwiki, TRAIN_SCHEMA, corpus / "simpwiki_matched.parquet")
    write_table(ppdb, TRAIN_SCHEMA, corpus / "ppdb_matched.parquet")
    write_json(corpus / "match_summary.json", summary)
    print(summary)


def cmd_vocab(args) -> None:
    from paraphrastic.atomic import write_json
    from paraphrastic.data import vocab as vocab_mod
    from paraphrastic.data.corpus import read_table

    config = _load(args)
    corpus = Path(args.corpus)
    tables = {name: read_table(corpus / f"{name}.parquet") for name in ("simpwiki", "ppdb", "eval")}

    def sentences(frame):
        return list(frame["tokens1"]) + list(frame["tokens2"])

    everything = [s for frame in tables.values() for s in sentences(frame)]
    vocab, matrix = vocab_mod.build(everything, Path(args.raw) / cfg.profile(config)["embeddings"])
    out = Path(args.out_dir)
    vocab.save(out / "vocab.txt")
    vocab_mod.save_matrix(out / "embeddings.npy", matrix)
    report = {"words": len(vocab), "dim": int(matrix.shape[1]),
              "embeddings": cfg.profile(config)["embeddings"],
              "coverage": {name: vocab_mod.coverage(vocab, sentences(frame)) for name, frame in tables.items()}}
    write_json(out / "coverage.json", report)
    print(report)


def cmd_train(args) -> None:
    from paraphrastic.experiments.settings import experiment
    from paraphrastic.training.transfer import train

    config = _load(args)
    settings = experiment(config, args.experiment, seed=args.seed)
    info = train(settings, train_path=cfg.TRAIN_SETS[settings["train_set"]], vocab_dir=args.vocab_dir,
                 eval_path=args.eval, selection=cfg.selection_ids(config),
                 out_dir=args.out_dir, checkpoint_dir=args.checkpoints, device=args.device or config["device"],
                 threads=args.threads, progress=not args.no_progress,
                 eval_batch_size=config["evaluation"]["batch_size"])
    print(f"selected epoch {info['selected_epoch']}: STS16 {info['selection_pearson']:.2f}, "
          f"transfer {info['transfer_pearson']:.2f}")


def cmd_evaluate(args) -> None:
    import numpy as np
    import torch

    from paraphrastic.atomic import write_json
    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.vocab import Vocabulary
    from paraphrastic.evaluation import similarity as evaluate
    from paraphrastic.models.encoders import build_model
    from paraphrastic.models.files import load_model
    from paraphrastic.runtime import resolve_device

    config = _load(args)
    device = resolve_device(args.device or config["device"])
    _set_threads(args.threads)
    if args.baseline:
        # The untrained baseline: averaged initial word vectors.
        vocab = Vocabulary.load(Path(args.vocab_dir) / "vocab.txt")
        model = build_model("avg", torch.from_numpy(np.load(Path(args.vocab_dir) / "embeddings.npy"))).to(device)
        name, meta = "baseline", {"model": "avg", "trained": False}
    else:
        model, vocab, payload = load_model(args.model, device)
        trained = payload["settings"]
        name, meta = trained["name"], {"model": payload["model"], "trained": True, "seed": trained["seed"],
                                       "selected_epoch": payload["epoch"]}
    started = time.time()
    frame = read_table(args.eval)
    results = evaluate.score_sets(model, vocab, frame, batch_size=config["evaluation"]["batch_size"], device=device)
    summary = evaluate.summarize(results, cfg.selection_ids(config))
    write_json(args.out, {"experiment": name, **meta, "seconds": time.time() - started,
                          "summary": summary, "datasets": results})
    print(f"{name}: transfer mean {summary['transfer_pearson']:.2f} over {summary['transfer_sets']} sets, "
          f"STS16 {summary['selection_pearson']:.2f}")


def cmd_grids(args) -> None:
    from paraphrastic.atomic import write_text
    from paraphrastic.experiments.grids import expand
    from paraphrastic.experiments.jobs import jobs as all_jobs
    from paraphrastic.pipeline.dvc import runs_file

    config = _load(args)
    runs, rows = expand(config)
    for row, names in rows.items():
        print(f"{row}: {len(names)} run(s)")
    jobs = all_jobs(config, runs)
    print(f"{len(runs)} runs, {len(jobs)} jobs counting seeds (data profile {config['data_profile']})")
    if args.write:
        write_text(args.write, runs_file(config, runs))
        print(f"wrote {args.write}")


def cmd_stanza_models(args) -> None:
    from paraphrastic.analysis.stanza_models import build

    config = _load(args)
    treebank = cfg.profile(config)["treebank"]
    raw = Path(args.raw)
    summary = build(config["gates"]["stanza"], train_file=raw / treebank["train"], dev_file=raw / treebank["dev"],
                    out_dir=Path(args.out_dir), threads=args.threads or 1)
    dev = summary["dev"]
    print(f"Stanza models ({summary['source']}): dev UPOS {dev['upos']:.1f}, XPOS {dev['xpos']:.1f}, "
          f"LAS {dev['las']:.1f} on {dev['sentences']} sentences")


def cmd_gate_sentences(args) -> None:
    from paraphrastic.atomic import atomic_path, write_json
    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.gate_sentences import sample_sentences

    config = _load(args)
    settings = config["gates"]
    simpwiki = read_table(Path(args.corpus) / "simpwiki.parquet")
    evaluation = read_table(Path(args.corpus) / "eval.parquet")
    selection = evaluation[evaluation["dataset"].isin(cfg.selection_ids(config))]
    excluded = {tuple(t) for t in selection["tokens1"]} | {tuple(t) for t in selection["tokens2"]}
    frame, stats = sample_sentences(simpwiki["s1"].tolist(), excluded, n=settings["sentences"],
                                    max_tokens=settings["max_tokens"], seed=settings["seed"])
    with atomic_path(args.out) as tmp:
        frame.to_parquet(tmp, index=False)
    write_json(args.stats, {"source": "SimpWiki, Wikipedia (normal) side", **stats})
    print(f"{stats['sampled']} of {stats['qualified']} qualifying sentences (<= {stats['max_tokens']} tokens, "
          f"not in the selection sets) -> {args.out}")


def cmd_parse(args) -> None:
    import pandas as pd

    from paraphrastic.analysis.stanza_models import load_pipeline, parse
    from paraphrastic.atomic import atomic_path
    from paraphrastic.runtime import resolve_device

    config = _load(args)
    _set_threads(args.threads)
    sentences = pd.read_parquet(args.sentences)
    pipeline = load_pipeline(Path(args.models), str(resolve_device(config["device"])))
    started = time.time()
    frame = parse(pipeline, [list(t) for t in sentences["tokens"]], batch_size=config["gates"]["parse_batch_size"])
    with atomic_path(args.out) as tmp:
        frame.to_parquet(tmp, index=False)
    print(f"parsed {len(sentences)} sentences ({len(frame)} words) in {time.time() - started:.0f} s -> {args.out}")


def cmd_gates(args) -> None:
    from paraphrastic.analysis.gates import analyse

    _set_threads(args.threads)
    config = _load(args)
    summary = analyse(config, data_dir=Path(args.data_dir), parses_path=args.parses, out_dir=args.out_dir,
                      device=config["device"])
    print(f"gate norms of {summary['model']['run']} over {summary['tokens']} words -> {args.out_dir}")


def cmd_prepare_supervised(args) -> None:
    from paraphrastic.atomic import write_json
    from paraphrastic.data.corpus import write_table
    from paraphrastic.data.supervised_tasks import SUPERVISED_SCHEMA, TASKS, build_task_table, task_stats

    config = _load(args)
    out = Path(args.out_dir)
    stats = {}
    for task in TASKS:
        frame = build_task_table(config, task, args.raw)
        write_table(frame, SUPERVISED_SCHEMA, out / f"{task}.parquet")
        stats[task] = task_stats(task, frame)
        print(f"{task}: " + ", ".join(f"{n} {s}" for s, n in stats[task]["splits"].items()) + " pairs")
    write_json(out / "stats.json", stats)


def cmd_train_supervised(args) -> None:
    from paraphrastic.evaluation.selection import universal_init_path
    from paraphrastic.experiments.settings import supervised_experiment
    from paraphrastic.training.supervised import train_supervised

    config = _load(args)
    settings = supervised_experiment(config, args.experiment, args.task, args.seed)
    init = None
    if settings.get("init"):
        if not args.data_dir:
            raise PipelineError(f"{args.experiment} starts from transfer row {settings['init']!r}: pass --data-dir")
        init = universal_init_path(config, Path(args.data_dir), settings["init"], args.seed)
        print(f"initialised from {init}")
    info = train_supervised(settings, table_path=Path(args.supervised_dir) / f"{args.task}.parquet",
                            vocab_dir=args.vocab_dir, out_dir=args.out_dir, checkpoint_dir=args.checkpoints,
                            init_path=init, device=args.device or config["device"], threads=args.threads,
                            progress=not args.no_progress, eval_batch_size=config["evaluation"]["batch_size"])
    print(f"selected epoch {info['selected_epoch']}: validation r {info['validation_pearson']:.2f}, "
          f"test r {info['test_pearson']:.2f}")


def cmd_error_analysis(args) -> None:
    from paraphrastic.analysis.error_analysis import analyse

    _set_threads(args.threads)
    config = _load(args)
    summary = analyse(config, Path(args.data_dir), Path(args.out_dir), device=config["device"])
    print(f"{summary['pairs']} STS pairs from {summary['datasets']} sets -> {args.out_dir}")


def cmd_compare_encoders(args) -> None:
    from paraphrastic.evaluation.reference import compare

    result = compare(_load(args), Path(args.data_dir), Path(args.out), threads=args.threads)
    ref = result["reference"]
    print(f"{ref['model']}: 22-set r {ref['summary']['transfer_pearson']:.1f}, "
          f"{ref['sentences_per_second']:.0f} sentences/s; " + "; ".join(
              f"{label}: r {o['summary']['transfer_pearson']:.1f}, {o['sentences_per_second']:.0f} sentences/s"
              for label, o in result["ours"].items()) + f" ({result['threads']} threads) -> {args.out}")


def _sts_2012_2015() -> list[str]:
    """The 20 STS 2012-2015 sets Siamese CBOW is scored on (the supervised STS task's "all")."""
    from paraphrastic.data.supervised_tasks import sts_sets

    return [s.id for s in sts_sets("all")]


def cmd_siamese_corpus(args) -> None:
    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.siamese_corpus import prepare

    config = _load(args)
    prof = cfg.profile(config)
    siamese = config["siamese_cbow"]
    paths = [Path(args.raw) / prof["treebank"][part] for part in siamese["corpus"]]
    frame = read_table(args.eval)
    frame = frame[frame["dataset"].isin(_sts_2012_2015())]
    stats = prepare(paths, Path(args.raw) / prof["embeddings"], frame, args.out_dir,
                    max_sentences=siamese.get("max_sentences"))
    print(f"{stats['sentences']} sentences in {stats['documents']} documents, {stats['tokens']} tokens -> "
          f"{args.out_dir}")


def cmd_train_siamese(args) -> None:
    from paraphrastic.experiments.settings import siamese_experiment
    from paraphrastic.training.siamese_cbow import train_siamese

    config = _load(args)
    info = train_siamese(siamese_experiment(config, args.run), corpus_dir=args.corpus_dir, eval_path=args.eval,
                         sets=_sts_2012_2015(), out_dir=args.out_dir, checkpoint_dir=args.checkpoints,
                         device=args.device or config["device"], threads=args.threads, progress=not args.no_progress,
                         eval_batch_size=config["evaluation"]["batch_size"])
    if "final" in info:
        print(f"{args.run}: STS 2012-2015 mean r {info['initial']['mean_pearson']:.2f} -> "
              f"{info['final']['mean_pearson']:.2f}")


def cmd_word2vec(args) -> None:
    from paraphrastic.training.word2vec import train_baselines

    config = _load(args)
    train_baselines(config["siamese_cbow"]["word2vec"], corpus_dir=args.corpus_dir, eval_path=args.eval,
                    sets=_sts_2012_2015(), out_dir=args.out_dir, seed=int(config["seed"]), threads=args.threads,
                    eval_batch_size=config["evaluation"]["batch_size"])


def cmd_prepare_pwim(args) -> None:
    from paraphrastic.data.pwim_tasks import prepare

    config = _load(args)
    prof = cfg.profile(config)
    summary = prepare(config["pwim"], args.raw, Path(args.raw) / prof["embeddings"], args.out_dir)
    for task, stats in summary["tasks"].items():
        print(f"{task}: " + ", ".join(f"{n} {s}" for s, n in stats["pairs"].items()) + " pairs")


def cmd_train_pwim(args) -> None:
    from paraphrastic.experiments.settings import pwim_experiment
    from paraphrastic.training.pwim import train_pwim

    config = _load(args)
    data = Path(args.data_dir)
    info = train_pwim(pwim_experiment(config, args.run, args.task), table_path=data / f"{args.task}.parquet",
                      vocab_dir=data, out_dir=args.out_dir, checkpoint_dir=args.checkpoints,
                      device=args.device or config["device"], threads=args.threads, progress=not args.no_progress)
    if "test" in info:
        print(f"{args.task}/{args.run}: selected epoch {info['selected_epoch']}, test r {info['test']['pearson']:.2f}, "
              f"{info['mean_epoch_seconds']:.0f} s/epoch")


def cmd_embed(args) -> None:
    import numpy as np

    from paraphrastic.atomic import atomic_path
    from paraphrastic.encoder import load, read_sentences

    encoder = load(args.model, device=args.device)
    vectors = encoder.encode(read_sentences(args.input, args.column))
    with atomic_path(args.output) as tmp:
        with open(tmp, "wb") as handle:
            np.save(handle, vectors)
    print(f"{len(vectors)} sentences -> {args.output} ({vectors.shape[1]}-d, {encoder.source})", file=sys.stderr)


def cmd_similarity(args) -> None:
    from paraphrastic.encoder import load, read_sentences

    encoder = load(args.model, device=args.device)
    first, second = read_sentences(args.input, 0), read_sentences(args.input, 1)
    for value in encoder.similarity(first, second):
        print(f"{value:.6f}")


def cmd_dvc_yaml(args) -> None:
    from paraphrastic.atomic import write_text
    from paraphrastic.pipeline.dvc import dvc_yaml

    text = dvc_yaml()
    if args.write:
        write_text(args.write, text)
        print(f"wrote {args.write}")
    else:
        print(text, end="")


def cmd_report(args) -> None:
    from paraphrastic.report.build import build_report

    config = _load(args)
    path = build_report(config, data_dir=Path(args.data_dir), out_dir=Path(args.out_dir))
    print(f"report written to {path}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paraphrastic", description=__doc__)
    parser.add_argument("--params", default="params.yaml", help="the pipeline config (default params.yaml)")
    parser.add_argument("--schema", default=str(cfg.DEFAULT_SCHEMA))
    parser.add_argument("--profile", help="override params data_profile (offline | paper)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fetch", help="fetch and verify upstream files into data/raw")
    p.add_argument("--manifest", default="workflow/sources.yaml")
    p.add_argument("--out", default="data/raw")
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("prepare-eval", help="read + tokenise every evaluation set into one parquet table")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--out", default="data/corpus/eval.parquet")
    p.add_argument("--stats", default="data/corpus/eval_stats.json")
    p.set_defaults(func=cmd_prepare_eval)

    p = sub.add_parser("prepare-train", help="read + tokenise SimpWiki and PPDB into parquet tables")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--out-dir", default="data/corpus")
    p.set_defaults(func=cmd_prepare_train)

    p = sub.add_parser("match", help="token-matched PPDB / SimpWiki training sets (Sec. 4.1.2)")
    p.add_argument("--corpus", default="data/corpus", help="reads {simpwiki,ppdb}.parquet, writes *_matched.parquet")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("vocab", help="vocabulary, initial embedding matrix and coverage report")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--corpus", default="data/corpus")
    p.add_argument("--out-dir", default="data/vocab")
    p.set_defaults(func=cmd_vocab)

    for name, func, helptext in (("train", cmd_train, "train one experiment"),
                                 ("evaluate", cmd_evaluate, "score a model on every evaluation set")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--vocab-dir", default="data/vocab")
        p.add_argument("--eval", default="data/corpus/eval.parquet")
        p.add_argument("--device", help="cpu | cuda | auto (default: params device)")
        p.add_argument("--threads", type=int, help="torch intra-op threads (Snakemake passes {threads})")
        p.set_defaults(func=func)
        if name == "train":
            p.add_argument("--experiment", required=True)
            p.add_argument("--seed", type=int, help="one of the run's seeds (default: its first)")
            p.add_argument("--out-dir", required=True)
            p.add_argument("--checkpoints", required=True)
            p.add_argument("--no-progress", action="store_true")
        else:
            group = p.add_mutually_exclusive_group(required=True)
            group.add_argument("--model", help="a model.pt written by `train`")
            group.add_argument("--baseline", action="store_true", help="averaged initial word vectors, untrained")
            p.add_argument("--out", required=True)

    p = sub.add_parser("grids", help="list the training runs the grids expand into")
    p.add_argument("--write", help="also write them as YAML for dvc.yaml (workflow/runs.yaml)")
    p.set_defaults(func=cmd_grids)

    p = sub.add_parser("stanza-models", help="train (or take pretrained) Stanza tagger/lemmatizer/parser")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--out-dir", default="data/stanza")
    p.add_argument("--threads", type=int)
    p.set_defaults(func=cmd_stanza_models)

    p = sub.add_parser("gate-sentences", help="the Wikipedia sentences the gate analysis parses")
    p.add_argument("--corpus", default="data/corpus")
    p.add_argument("--out", default="data/gates/sentences.parquet")
    p.add_argument("--stats", default="data/gates/sentences.json")
    p.set_defaults(func=cmd_gate_sentences)

    p = sub.add_parser("parse", help="tag and parse the gate sentences with Stanza")
    p.add_argument("--sentences", default="data/gates/sentences.parquet")
    p.add_argument("--models", default="data/stanza/resources")
    p.add_argument("--out", default="data/gates/parses.parquet")
    p.add_argument("--threads", type=int)
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("gates", help="GRAN gate L1 norms by POS tag and dependency label")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--parses", default="data/gates/parses.parquet")
    p.add_argument("--out-dir", default="data/gates/analysis")
    p.add_argument("--threads", type=int)
    p.set_defaults(func=cmd_gates)

    p = sub.add_parser("prepare-supervised", help="STS 40/10/50 split and SICK train/trial/test tables (Sec. 4.3)")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--out-dir", default="data/supervised")
    p.set_defaults(func=cmd_prepare_supervised)

    p = sub.add_parser("train-supervised", help="train one supervised STS/SICK job (Tai et al. head, KL loss)")
    p.add_argument("--experiment", required=True, help="a supervised run")
    p.add_argument("--task", required=True, choices=["sts", "sick"])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--supervised-dir", default="data/supervised")
    p.add_argument("--vocab-dir", default="data/vocab")
    p.add_argument("--data-dir", help="the pipeline's data folder: universal runs take their transfer model there")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--checkpoints", required=True)
    p.add_argument("--device", help="cpu | cuda | auto (default: params device)")
    p.add_argument("--threads", type=int)
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_train_supervised)

    p = sub.add_parser("error-analysis", help="avg vs LSTMavg errors on the STS 2012-2015 pairs (Table 7)")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--out-dir", default="data/error_analysis")
    p.add_argument("--threads", type=int)
    p.set_defaults(func=cmd_error_analysis)

    p = sub.add_parser("compare-encoders",
                       help="all-MiniLM-L6-v2 on the same STS sets, and encoding speed beside the Table 4 models")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--out", default="data/results/encoders.json")
    p.add_argument("--threads", type=int)
    p.set_defaults(func=cmd_compare_encoders)

    p = sub.add_parser("siamese-corpus", help="ordered treebank sentences and word table for Siamese CBOW")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--eval", default="data/corpus/eval.parquet")
    p.add_argument("--out-dir", default="data/siamese/corpus")
    p.set_defaults(func=cmd_siamese_corpus)

    p = sub.add_parser("train-siamese", help="train one Siamese CBOW run (Kenter et al. 2016)")
    p.add_argument("--run", required=True, help="a run of siamese_cbow.runs")
    p.add_argument("--corpus-dir", default="data/siamese/corpus")
    p.add_argument("--eval", default="data/corpus/eval.parquet")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--checkpoints", required=True)
    p.add_argument("--device", help="cpu | cuda | auto (default: params device)")
    p.add_argument("--threads", type=int)
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_train_siamese)

    p = sub.add_parser("word2vec", help="the word2vec (CBOW, skip-gram) averaging baseline of Siamese CBOW")
    p.add_argument("--corpus-dir", default="data/siamese/corpus")
    p.add_argument("--eval", default="data/corpus/eval.parquet")
    p.add_argument("--out-dir", default="data/siamese/word2vec")
    p.add_argument("--threads", type=int)
    p.set_defaults(func=cmd_word2vec)

    p = sub.add_parser("prepare-pwim", help="SICK, MSRvid and STS 2014 tables and vectors for PWIM (He & Lin 2016)")
    p.add_argument("--raw", default="data/raw")
    p.add_argument("--out-dir", default="data/pwim")
    p.set_defaults(func=cmd_prepare_pwim)

    p = sub.add_parser("train-pwim", help="train one PWIM run on one task")
    p.add_argument("--run", required=True, help="a run of pwim.runs")
    p.add_argument("--task", required=True, choices=["sick", "msrvid", "sts2014"])
    p.add_argument("--data-dir", default="data/pwim")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--checkpoints", required=True)
    p.add_argument("--device", help="cpu | cuda | auto (default: params device)")
    p.add_argument("--threads", type=int)
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_train_pwim)

    p = sub.add_parser("embed", help="embed sentences (one per line, or a TSV column) with a trained model.pt")
    p.add_argument("--model", required=True, help="a model.pt written by `train` or `train-supervised`")
    p.add_argument("--input", required=True, help="text file, one sentence per line ('-' = stdin)")
    p.add_argument("--column", type=int, help="read this 0-based column of a tab-separated file instead")
    p.add_argument("--output", required=True, help="a .npy file: one row per sentence")
    p.add_argument("--device", default="auto")
    p.set_defaults(func=cmd_embed)

    p = sub.add_parser("similarity", help="cosine similarity of sentence pairs (TSV: s1<TAB>s2), one per line")
    p.add_argument("--model", required=True, help="a model.pt written by `train` or `train-supervised`")
    p.add_argument("--input", required=True, help="tab-separated pairs ('-' = stdin)")
    p.add_argument("--device", default="auto")
    p.set_defaults(func=cmd_similarity)

    p = sub.add_parser("dvc-yaml", help="dvc.yaml, generated from the stage graph in pipeline/graph.py")
    p.add_argument("--write", help="write it to this path (dvc.yaml) instead of stdout")
    p.set_defaults(func=cmd_dvc_yaml)

    p = sub.add_parser("report", help="markdown + HTML report with the paper's numbers beside ours")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--out-dir", default="data/report")
    p.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
