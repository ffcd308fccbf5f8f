"""One subcommand per pipeline stage. Each declares its options (its paths' defaults are those the stage graph
passes) and hands them, with the loaded params.yaml, to ``run`` in :mod:`paraphrastic.pipeline.steps.<command>`;
nothing else happens here."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from paraphrastic import phases, resources
from paraphrastic.cli import add_example
from paraphrastic.data.similarity_tasks import PWIM_TASKS, SUPERVISED_TASKS
from paraphrastic.pipeline.dvc import CHECK_PARAMS, CODE_DIGESTS
from paraphrastic.pipeline.graph import STAGES, literal_options

# What argparse adds beside the stage's own options.
_NOT_OPTIONS = ("params", "schema", "profile", "command", "func", "step")


def run_stage(args, load_config) -> None:
    phases.start()
    step = import_module(f"paraphrastic.pipeline.steps.{args.step}")
    config = load_config(args)
    phases.started_up()
    step.run(config, **{k: v for k, v in vars(args).items() if k not in _NOT_OPTIONS})
    sys.stdout.flush()  # the step's own lines first
    print(phases.line(), file=sys.stderr)  # to the job's log: where its time went (benchmarks/time_profile.py)


def _stage(sub, command: str, helptext: str, load_config) -> argparse.ArgumentParser:
    parser = sub.add_parser(command, help=helptext, description=helptext)
    parser.set_defaults(func=lambda args: run_stage(args, load_config), step=command.replace("-", "_"))
    return parser


def _threads(p) -> None:
    p.add_argument("--threads", type=int, help="torch threads (the rules pass params.yaml `threads`; default: "
                                               "torch's own choice)")


def _device(p) -> None:
    p.add_argument("--device", help="where to train or score: auto (CUDA when present), cpu, cuda or cuda:N "
                                    "(default: params.yaml `device`)")


def _training(p) -> None:
    p.add_argument("--out-dir", required=True, help="where model.pt, history.csv/json and train.json go")
    p.add_argument("--checkpoints", required=True, help="the job's checkpoint folder (a rerun resumes from it)")
    _device(p)
    _threads(p)
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


# Each stage's paths are declared once, in the stage graph: a command's path options default to the paths the
# pipeline's stage of the same name passes (its step: `prepare-eval` is the stage prepare_eval).
_DECLARED = {stage.name: literal_options(stage) for stage in (CHECK_PARAMS, CODE_DIGESTS, *STAGES.values())}


def _paths(p, **paths: str | tuple[str, str]) -> None:
    """Path options, ``name=help``, each defaulting to the path the stage graph gives it (``name=(default, help)``
    only where the command's default differs from the pipeline's); ``out_dir`` becomes ``--out-dir``."""
    declared = _DECLARED[p.get_default("step")]
    for name, given in paths.items():
        default, helptext = given if isinstance(given, tuple) else (declared[name], given)
        p.add_argument(f"--{name.replace('_', '-')}", default=default, help=f"{helptext} (default: %(default)s)")


RAW = "the fetched upstream files"
EVAL = "the tokenised evaluation sets"
VOCAB = "vocab.txt and embeddings.npy"
DATA = "the pipeline's data folder, where the trained models are"


def add_commands(sub, load_config) -> None:
    def stage(command: str, helptext: str) -> argparse.ArgumentParser:
        return _stage(sub, command, helptext, load_config)

    # ---- data ---------------------------------------------------------------------------------------
    p = stage("check-params", "check params.yaml (every job's settings, every row a key names) and that "
                              "workflow/runs.yaml is current; dvc.yaml's first stage")
    _paths(p, runs="the job tables dvc.yaml iterates over",
           out="written when the check passes")
    p = stage("code-digests", "list the source files each stage runs, with their sha256 (data/code/<stage>.sha256, "
                              "what a stage of dvc.yaml depends on for its code); dvc.yaml's second stage")
    _paths(p, out_dir="where the listings go")
    p = stage("fetch", "fetch and verify every upstream file the data profile needs into data/raw")
    _paths(p, manifest=(str(resources.find(resources.MANIFEST)),
                        "the sources manifest: URL, sha256 and mirror path per file"),
           out="where the files go",
           downloads="the download cache: complete bodies, and partial ones a rerun resumes "
                     "(no stage's output, so it survives reruns; delete it to reclaim the space)")
    p = stage("prepare-eval", "read and tokenise every evaluation set into one parquet table")
    _paths(p, raw=RAW, out=EVAL, stats="token statistics per set")
    p = stage("prepare-train", "read and tokenise SimpWiki and PPDB into parquet tables")
    _paths(p, raw=RAW, out_dir="where simpwiki.parquet, ppdb.parquet and train_stats.json go")
    p = stage("match", "the token-matched PPDB / SimpWiki training sets (Sec. 4.1.2)")
    _paths(p, corpus="reads {simpwiki,ppdb}.parquet, writes *_matched.parquet beside them")
    p = stage("vocab", "vocabulary, initial embedding matrix and coverage report")
    _paths(p, raw=RAW, corpus="the tokenised tables", out_dir="where they go")

    # ---- transfer training and scoring ------------------------------------------------------------------
    p = stage("train", "train one transfer job: a run of a grid row or experiment, with one of its seeds")
    # --experiment: its name before 0.2 (a run was called an experiment in some places and a run in others)
    p.add_argument("--run", "--experiment", dest="run_name", required=True, metavar="RUN",
                   help="a run: an experiment name or a grid run (see `paraphrastic grids`)")
    p.add_argument("--seed", type=int, help="one of the run's seeds (default: its first)")
    _paths(p, corpus_dir="where the run's training set ({train_set}.parquet) is", eval=EVAL)
    p.add_argument("--vocab-dir", help="vocab.txt and embeddings.npy of the run's starting vectors (default: "
                                       "data/vocab, or data/distilled for a run with `word_vectors: distilled`)")
    _training(p)
    p = stage("evaluate", "score a trained model.pt on every evaluation set")
    p.add_argument("--model", required=True, help="a model.pt written by `train`")
    p.add_argument("--out", required=True, help="the results file (JSON)")
    _paths(p, eval=EVAL)
    _device(p)
    _threads(p)
    p = stage("baseline", "score the untrained baseline, the averaged initial word vectors")
    p.add_argument("--out", required=True, help="the results file (JSON)")
    _paths(p, vocab_dir=VOCAB, eval=EVAL)
    _device(p)
    _threads(p)
    p = stage("distill", "word vectors for the corpora's words, distilled from a sentence transformer (model2vec)")
    _paths(p, corpus="the tokenised tables",
           out_dir="where vocab.txt, embeddings.npy and coverage.json go")
    _device(p)
    _threads(p)
    p = stage("teacher-targets", "the unlabelled text the mirror holds, with the teacher's embedding of each text")
    _paths(p, raw=RAW, corpus="the tokenised tables", treebank="the treebank's tokenised sentences",
           out="the texts (parquet)", embeddings="their teacher embeddings (.npy)", stats="counts and timing (JSON)",
           checkpoints="the embedded chunks' folder (a rerun resumes from it)")
    _device(p)
    _threads(p)
    p = stage("distill-sentences", "the distilled word vectors trained towards the teacher's sentence embeddings")
    _paths(p, distilled="the distilled vectors' folder", targets="the texts", target_embeddings="their embeddings",
           eval=EVAL, corpus="the training pairs' folder (paraphrase_weight reads its pairs)",
           out_dir="where vocab.txt, embeddings.npy and training.json go",
           checkpoints="the training's checkpoint folder (a rerun resumes from it)")
    _device(p)
    _threads(p)
    p = stage("static-model", "the sentence-distilled vectors as a static model with its model card")
    _paths(p, vectors="the sentence-distilled vectors' folder (with training.json and targets.json)",
           distilled="the distilled vectors' folder (its coverage.json)", eval=EVAL,
           published_scores="the published MTEB STS scores put beside ours (CSV)",
           out_dir="the export folder (replaced if it holds an earlier export)",
           scores="the export's scores as model2vec and sentence-transformers load it, and its speed (JSON)")
    _threads(p)
    p = stage("reference-scores", "all-MiniLM-L6-v2 on the same sets with the same scorer, and its encoding speed")
    _paths(p, eval=EVAL, out="its scores and speed (JSON)")
    _threads(p)
    p = stage("compare-encoders", "Table 4's models beside all-MiniLM-L6-v2: scores and encoding speed")
    _paths(p, data_dir=DATA, reference="all-MiniLM-L6-v2's scores and speed (reference-scores' JSON)",
           out="the comparison (JSON)",
           published="the published MTEB STS scores put beside ours (CSV; none without it)")
    _threads(p)

    # ---- gate analysis ----------------------------------------------------------------------------------
    p = stage("stanza-models", "train (or take pretrained) the Stanza tagger, lemmatizer and parser")
    p.add_argument("--compared", action="store_true",
                   help="the parser comparison's models: gates.stanza with gates.stanza_compared's settings over it")
    _paths(p, raw=RAW)
    # the comparison's models have folders of their own: its defaults are its stage's, never the analysis models'
    analysis, comparison = _DECLARED["stanza_models"], _DECLARED["stanza_models_compared"]
    for name, helptext in (("out_dir", "where the models and their dev scores go"),
                           ("checkpoints", "the training's folder (a rerun resumes from it)")):
        p.add_argument(f"--{name.replace('_', '-')}",
                       help=f"{helptext} (default: {analysis[name]}; with --compared, {comparison[name]})")

    def stanza_models(args) -> None:
        chosen = comparison if args.compared else analysis
        args.out_dir, args.checkpoints = args.out_dir or chosen["out_dir"], args.checkpoints or chosen["checkpoints"]
        run_stage(args, load_config)
    p.set_defaults(func=stanza_models)
    p = stage("gate-sentences", "the Wikipedia sentences the gate analysis parses")
    _paths(p, raw=RAW, corpus="the tokenised tables",
           out="the sample", stats="what qualified")
    p = stage("parse", "tag and parse the gate sentences with Stanza")
    _paths(p, sentences="the sample",
           models="the Stanza models", out="the parses")
    _threads(p)
    p = stage("gates", "GRAN gate L1 norms by POS tag and dependency label (Tables 9-11)")
    _paths(p, data_dir=DATA, parses="the parses",
           out_dir="where the tables and the plot go")
    _threads(p)
    p = stage("gates-compared", "the parser comparison: the gate analysis's agreement with the paper from the second "
                                "Stanza models' parses, and the two parsers' agreement (with extended: true)")
    _paths(p, data_dir=DATA, parses="the parses of the analysis's models",
           compared_parses="the same sentences parsed by the second models",
           compared_models="the second models' scores.json", out="the comparison (JSON)")
    _threads(p)

    # ---- supervised -------------------------------------------------------------------------------------
    p = stage("prepare-supervised", "STS 40/10/50 split and SICK train/trial/test tables (Sec. 4.3)")
    _paths(p, raw=RAW, out_dir="where sts.parquet, sick.parquet and stats.json go")
    p = stage("universal-init", "record the transfer model a universal row starts from (Table 8): the init row's "
                                "STS-2016-selected run, each seed's model.pt with its sha256")
    p.add_argument("--row", required=True, help="a transfer table row named as `init` by a supervised grid row")
    _paths(p, data_dir=DATA)
    p.add_argument("--out", required=True, help="the record (JSON) the row's universal jobs read")
    for command, helptext in (("train-supervised", "train one supervised STS/SICK job (Tai et al. head, KL loss)"),
                              ("train-universal", "train one universal supervised job, from a transfer model "
                                                  "(Table 8)")):
        p = stage(command, helptext)
        p.add_argument("--run", "--experiment", dest="run_name", required=True, metavar="RUN",
                       help="a supervised run (a point of a supervised grid row)")
        p.add_argument("--task", required=True, choices=SUPERVISED_TASKS, help="the task it trains on")
        p.add_argument("--seed", type=int, required=True, help="one of the run's seeds")
        _paths(p, supervised_dir="the task tables", vocab_dir=VOCAB)
        if command == "train-universal":
            p.add_argument("--init", required=True, help="the init row's record, written by universal-init")
        _training(p)
    p = stage("error-analysis", "avg vs LSTMavg errors on the STS 2012-2015 pairs (Table 7)")
    _paths(p, data_dir=DATA, out_dir="where the pairs, examples and summary go")
    _threads(p)

    # ---- the other seed systems -------------------------------------------------------------------------
    p = stage("siamese-corpus", "ordered treebank sentences and word table for Siamese CBOW")
    _paths(p, raw=RAW, eval=EVAL, out_dir="where the corpus, words and vectors go")
    p = stage("train-siamese", "train one Siamese CBOW run (Kenter et al. 2016)")
    p.add_argument("--run", dest="run_name", required=True, metavar="RUN", help="a run of siamese_cbow.runs")
    _paths(p, corpus_dir="the ordered corpus", eval=EVAL)
    _training(p)
    p = stage("word2vec", "the word2vec (CBOW, skip-gram) averaging baseline of Siamese CBOW")
    _paths(p, corpus_dir="the ordered corpus", eval=EVAL,
           out_dir="where both models and their scores go")
    _threads(p)
    p = stage("prepare-pwim", "SICK, MSRvid and STS 2014 tables and vectors for PWIM (He & Lin 2016)")
    _paths(p, raw=RAW, out_dir="where the task tables, vocabulary and vectors go")
    p = stage("train-pwim", "train one PWIM run on one task")
    p.add_argument("--run", dest="run_name", required=True, metavar="RUN", help="a run of pwim.runs")
    p.add_argument("--task", required=True, choices=PWIM_TASKS, help="the task it trains on")
    _paths(p, data_dir="the task tables, vocabulary and vectors")
    _training(p)

    # ---- report -----------------------------------------------------------------------------------------
    p = add_example(stage("report", "the report, in Markdown and HTML: every table and figure, with the papers' "
                                    "numbers beside ours"), "paraphrastic report --data-dir data --out-dir data/report")
    _paths(p, data_dir=DATA, out_dir="where the report, metrics.json, timings.json and runs.csv go")
