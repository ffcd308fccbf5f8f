"""The pipeline's stage graph, defined once: Snakemake's rules and dvc.yaml are both built from it.

Each :class:`Stage` gives the CLI command a stage runs, the files it reads and writes and the
params.yaml keys it depends on; the code it runs is derived, the import closure of its step module
(:mod:`paraphrastic.pipeline.steps`, :mod:`paraphrastic.pipeline.code_deps`). The Snakemake rules
(workflow/rules/*.smk) take their inputs, outputs, rerun-trigger params and shell command from
here; dvc.yaml is generated from here by ``python -m paraphrastic dvc-yaml --write dvc.yaml``
(a test fails when the committed file is stale), so the two tools cannot drift apart. The folders of the data
layout come from :mod:`paraphrastic.layout`, which the report and the analyses read through too, and the
command line's path defaults from the commands here (:func:`literal_options`).

Placeholders in commands and paths: ``{run}`` and ``{seed}`` are the wildcards of a
per-job stage (a run and one of its seeds; DVC's ``${item.run}``/``${item.seed}``),
``{train_set}`` is the job's training set, ``{vocab_dir}`` the vocabulary folder of its starting word
vectors and ``{threads}`` the torch threads of a job. A supervised job is a run (``{run}``, DVC's
``${item.run}``), a task (``{task}``) and a seed; ``{init_row}`` is the transfer row a universal run starts
from (DVC's ``${item.init}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paraphrastic.layout import DataLayout
from paraphrastic.pipeline.code_deps import closure_files, digest, sha256sum

# The data layout's folders (declared once, in paraphrastic.layout), as the commands and outputs name them.
_DATA = DataLayout()
_CORPUS = str(_DATA.corpus)
_EVAL = str(_DATA.eval_table)
_TRAIN_STATS = str(_DATA.train_stats)
_MATCH_SUMMARY = str(_DATA.match_summary)
_VOCAB_DIR = str(_DATA.vocab)
_DISTILLED_DIR = str(_DATA.distilled)
_SENTENCE_DISTILLED_DIR = str(_DATA.sentence_distilled)
_MODELS = str(_DATA.models)
_JOB = str(_DATA.job("{run}", "{seed}"))  # one training job: a run and one of its seeds
_RESULTS = str(_DATA.results)
_GATES = str(_DATA.gates)
_SUPERVISED = str(_DATA.supervised)
_ERROR_ANALYSIS = str(_DATA.error_analysis)
_SIAMESE = str(_DATA.siamese)
_PWIM = str(_DATA.pwim)
# Static models' (and all-MiniLM-L6-v2's) published scores on MTEB's STS tasks, carried from the public MTEB results
# repository with each figure's file there (those models cannot be downloaded here): compare_encoders reads them
PUBLISHED_MTEB_STS = "workflow/published/mteb_sts.csv"
_VOCAB = (f"{_VOCAB_DIR}/vocab.txt", f"{_VOCAB_DIR}/embeddings.npy")
# ... and the static model's tokenizer over their words (word_vectors.tokenizer), which reads every text they score
_DISTILLED = (f"{_DISTILLED_DIR}/vocab.txt", f"{_DISTILLED_DIR}/embeddings.npy", f"{_DISTILLED_DIR}/tokenizer.json")
_SENTENCE_DISTILLED = (f"{_SENTENCE_DISTILLED_DIR}/vocab.txt", f"{_SENTENCE_DISTILLED_DIR}/embeddings.npy",
                       f"{_SENTENCE_DISTILLED_DIR}/tokenizer.json")
_TARGETS = (f"{_SENTENCE_DISTILLED_DIR}/targets.parquet", f"{_SENTENCE_DISTILLED_DIR}/targets.npy")
_STATIC_MODEL_DIR = str(_DATA.static_model)
# What the static export holds (sentence-transformers' own files, its model card and our marker)
STATIC_MODEL_FILES = ("modules.json", "config_sentence_transformers.json", "paraphrastic_export.json", "README.md",
                      "tokenizer.json", "model.safetensors")
JOB_DIR = "{run}/seed{seed}"  # a training job's scores and checkpoints are named as its folder
_SIAMESE_CORPUS = f"{_SIAMESE}/corpus"
_SIAMESE_INPUTS = tuple(f"{_SIAMESE_CORPUS}/{name}" for name in ("corpus.parquet", "words.parquet", "embeddings.npy"))
_PWIM_JOB = "{pwim_task}/{run}"  # one PWIM job: a run on a task
UNIVERSAL_INIT = f"{_SUPERVISED}/init/{{init_row}}.json"  # the model a universal row starts from (universal_init)


@dataclass(frozen=True)
class Output:
    path: str
    # out | metric | plot (a CSV plotted per epoch). One metric file, the report's metrics.json: the scores a researcher
    # compares across experiments (`dvc metrics diff`, `dvc exp show`). Per-job results, timings and analysis
    # summaries are plain outputs, so hundreds of per-set numbers, seconds and strings do not drown them.
    kind: str = "out"
    plot: dict = field(default_factory=dict)
    # A JSON output holds its provenance record (written with provenance.write_result), which `verify` requires of
    # it. False for one in another program's format (sentence-transformers', DVC's metrics) or whose digest the
    # result beside it holds (a run's history.json).
    recorded: bool = True


@dataclass(frozen=True)
class Stage:
    name: str
    command: str  # arguments of `python -m paraphrastic`
    deps: tuple[str, ...]  # data the stage reads
    outs: dict[str, Output]  # named outputs (Snakemake's output names)
    params: tuple[str, ...]  # params.yaml keys the stage reads (dotted paths)
    foreach: str | None = None  # a per-job stage: `jobs` (every run x seed) or `experiment_jobs`
    # The job's checkpoint folder: its own scratch, which must survive a failed or killed job so the rerun
    # resumes. Neither engine's output: Snakemake deletes a failed job's outputs, and DVC would find an
    # uncached output missing after `dvc checkout` (switching experiments) and retrain an unchanged job.
    checkpoints: tuple[str, ...] = ()
    # also depends on the run's own settings: this entry of workflow/runs.yaml (its table, then the job's keys)
    run_settings: str | None = None
    threads: str = "threads"  # the params.yaml key giving the stage's threads (its `{threads}`)

    @property
    def step(self) -> str:
        """The module that implements the stage: its command's, in :mod:`paraphrastic.pipeline.steps`."""
        return f"paraphrastic.pipeline.steps.{self.command.split()[0].replace('-', '_')}"


def literal_options(stage: Stage) -> dict[str, str]:
    """The options the stage's command gives a fixed value (no placeholder), by their argparse name
    (``--out-dir data/corpus`` -> ``{"out_dir": "data/corpus"}``): the paths a stage reads and writes are declared
    here once, and the command line takes them as its options' defaults (:mod:`paraphrastic.cli.stages`)."""
    words = stage.command.split()[1:]
    return {option[2:].replace("-", "_"): value for option, value in zip(words, [*words[1:], ""], strict=True)
            if option.startswith("--") and value and not value.startswith("--") and "{" not in value}


# What choosing a transfer row's model reads (evaluation.selection.Selection): its runs, their seeds and settings.
# What decides the runs, their seeds and so each row's selected model (gates.seeds adds seeds to gates.gran_row).
_SELECTION_PARAMS = ("grids", "grid_thinning", "experiments", "extended", "word_vectors.distilled_rows",
                     "word_vectors.extended_distilled_rows",
                     "word_vectors.sentence_distilled_rows",
                     "word_vectors.distilled_thinning", "gates.gran_row", "gates.seeds", "seeds", "seed", "train")


def _supervised_stage(name: str, foreach: str, *, universal: bool = False) -> Stage:
    # Universal jobs sit in their own subfolder of the same models folder, which the report depends on.
    job = str(_DATA.supervised_job("{task}", "{run}", "{seed}", universal))
    checkpoints = job.replace(f"{_SUPERVISED}/models/", f"{_SUPERVISED}/checkpoints/", 1)  # the same tree
    command = (f"{'train-universal' if universal else 'train-supervised'} --run {{run}} --task {{task}} "
               f"--seed {{seed}} --supervised-dir {_SUPERVISED} --vocab-dir {_VOCAB_DIR} --out-dir {job} "
               f"--checkpoints {checkpoints} --threads {{threads}}"
               + (f" --init {UNIVERSAL_INIT}" if universal else ""))
    deps = (f"{_SUPERVISED}/{{task}}.parquet", *_VOCAB, *((UNIVERSAL_INIT,) if universal else ()))
    return Stage(name, command, deps=deps,
                 outs={"model": Output(f"{job}/model.pt"),
                       "history": Output(f"{job}/history.csv", "plot", {"x": "epoch", "y": "validation_pearson"}),
                       "history_json": Output(f"{job}/history.json", recorded=False),
                       "info": Output(f"{job}/train.json")},
                 params=("supervised.train", "seed", "device", "evaluation.batch_size"),
                 foreach=foreach, checkpoints=(checkpoints,), run_settings="supervised_runs.{run}")


# The parser comparison's stages run once with `extended` and not at all without
# (configuration.jobs.parser_comparisons): DVC's foreach over a table of one job or none
_COMPARISON = "parser_comparisons"
_GATE_PARAMS = ("gates.min_count", "gates.min_pair_count", "gates.batch_size", "gates.bootstrap", "gates.seed")


def _stanza_stage(*, compared: bool) -> Stage:
    """The Stanza models of the gate analysis, or (``compared``) those of the parser comparison."""
    suffix = "_compared" if compared else ""
    folder = str(_DATA.stanza(compared))
    checkpoints = f"data/checkpoints/stanza{suffix}"  # the trainers resume from it (Stage.checkpoints)
    return Stage(f"stanza_models{suffix}",
                 f"stanza-models {'--compared ' if compared else ''}--raw data/raw --out-dir {folder} "
                 f"--checkpoints {checkpoints}",
                 deps=("data/raw",),
                 outs={"resources": Output(f"{folder}/resources"), "scores": Output(f"{folder}/scores.json")},
                 params=("data_profile", "profiles", "gates.stanza", *(("gates.stanza_compared",) if compared else ())),
                 foreach=_COMPARISON if compared else None, checkpoints=(checkpoints,))


def _parse_stage(*, compared: bool) -> Stage:
    """The gate sentences parsed by the models of :func:`_stanza_stage` (cached: the analysis never re-parses)."""
    suffix = "_compared" if compared else ""
    models = f"{_DATA.stanza(compared)}/resources"
    return Stage(f"parse{suffix}", f"parse --sentences {_GATES}/sentences.parquet --models {models} "
                                   f"--out {_GATES}/parses{suffix}.parquet --threads {{threads}}",
                 deps=(f"{_GATES}/sentences.parquet", models),
                 outs={"parses": Output(f"{_GATES}/parses{suffix}.parquet")},
                 params=("gates.parse_batch_size", "device"), foreach=_COMPARISON if compared else None)


STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("fetch", "fetch --manifest workflow/sources.yaml --out data/raw --downloads data/downloads",
          deps=("workflow/sources.yaml",), outs={"raw": Output("data/raw")},
          params=("data_profile", "profiles", "evaluation.sets", "evaluation.selection", "data.simpwiki_extra",
                  "gates.extra_sentences")),
    Stage("prepare_eval",
          f"prepare-eval --raw data/raw --out {_EVAL} --stats {_CORPUS}/eval_stats.json",
          deps=("data/raw",),
          outs={"table": Output(_EVAL), "stats": Output(f"{_CORPUS}/eval_stats.json")},
          params=("evaluation",)),
    Stage("prepare_train", f"prepare-train --raw data/raw --out-dir {_CORPUS}",
          deps=("data/raw",),
          outs={"simpwiki": Output(f"{_CORPUS}/simpwiki.parquet"), "ppdb": Output(f"{_CORPUS}/ppdb.parquet"),
                "stats": Output(_TRAIN_STATS)},
          params=("data_profile", "profiles", "data", "seed")),
    Stage("match", f"match --corpus {_CORPUS}",
          deps=(f"{_CORPUS}/simpwiki.parquet", f"{_CORPUS}/ppdb.parquet"),
          outs={"simpwiki": Output(f"{_CORPUS}/simpwiki_matched.parquet"),
                "ppdb": Output(f"{_CORPUS}/ppdb_matched.parquet"),
                "summary": Output(_MATCH_SUMMARY)},
          params=("data",)),
    Stage("vocab", f"vocab --raw data/raw --corpus {_CORPUS} --out-dir {_VOCAB_DIR}",
          deps=("data/raw", f"{_CORPUS}/simpwiki.parquet", f"{_CORPUS}/ppdb.parquet", _EVAL),
          outs={"words": Output(f"{_VOCAB_DIR}/vocab.txt"), "embeddings": Output(f"{_VOCAB_DIR}/embeddings.npy"),
                "coverage": Output(f"{_VOCAB_DIR}/coverage.json")},
          params=("data_profile", "profiles")),
    # Word vectors distilled from a sentence transformer (beyond the paper): a vocabulary folder like vocab's.
    Stage("distill", f"distill --corpus {_CORPUS} --out-dir {_DISTILLED_DIR} --threads {{threads}}",
          deps=(f"{_CORPUS}/simpwiki.parquet", f"{_CORPUS}/ppdb.parquet", _EVAL),
          outs={"words": Output(_DISTILLED[0]), "embeddings": Output(_DISTILLED[1]),
                # the tokenizers library's own JSON, bound by the sha256 coverage.json holds of it
                "tokenizer": Output(_DISTILLED[2], recorded=False),
                "coverage": Output(f"{_DISTILLED_DIR}/coverage.json")},
          params=("word_vectors.distilled", "word_vectors.tokenizer", "device")),
    # ... and trained towards the teacher's sentence embeddings of the unlabelled text (Tokenlearn's idea).
    Stage("teacher_targets", f"teacher-targets --raw data/raw --corpus {_CORPUS} "
                             f"--treebank {_SIAMESE_CORPUS}/corpus.parquet --out {_TARGETS[0]} "
                             f"--embeddings {_TARGETS[1]} --stats {_SENTENCE_DISTILLED_DIR}/targets.json "
                             "--checkpoints data/checkpoints/teacher_targets --threads {threads}",
          deps=("data/raw", f"{_CORPUS}/simpwiki.parquet", f"{_CORPUS}/ppdb.parquet", _EVAL,
                f"{_SIAMESE_CORPUS}/corpus.parquet"),
          outs={"texts": Output(_TARGETS[0]), "embeddings": Output(_TARGETS[1]),
                "stats": Output(f"{_SENTENCE_DISTILLED_DIR}/targets.json")},
          params=("word_vectors.sentence_distilled.sources", "word_vectors.sentence_distilled.max_per_source",
                  "word_vectors.distilled.teacher", "word_vectors.tokenizer", "data_profile", "profiles", "device"),
          checkpoints=("data/checkpoints/teacher_targets",)),
    Stage("distill_sentences", f"distill-sentences --distilled {_DISTILLED_DIR} --targets {_TARGETS[0]} "
                               f"--target-embeddings {_TARGETS[1]} --eval {_EVAL} --corpus {_CORPUS} "
                               f"--out-dir {_SENTENCE_DISTILLED_DIR} "
                               "--checkpoints data/checkpoints/sentence_distilled --threads {threads}",
          deps=(*_DISTILLED, f"{_DISTILLED_DIR}/coverage.json", *_TARGETS, _EVAL, f"{_CORPUS}/simpwiki.parquet",
                f"{_CORPUS}/ppdb.parquet"),
          outs={"words": Output(_SENTENCE_DISTILLED[0]), "embeddings": Output(_SENTENCE_DISTILLED[1]),
                "tokenizer": Output(_SENTENCE_DISTILLED[2], recorded=False),  # bound by training.json's sha256
                "training": Output(f"{_SENTENCE_DISTILLED_DIR}/training.json")},
          params=("word_vectors.sentence_distilled", "evaluation.selection", "device"),
          checkpoints=("data/checkpoints/sentence_distilled",)),
    # {vocab_dir}: the job's starting vectors (its run's `word_vectors`), data/vocab or data/distilled.
    Stage("train", f"train --run {{run}} --seed {{seed}} --corpus-dir {_CORPUS} "
                   f"--vocab-dir {{vocab_dir}} --eval {_EVAL} --out-dir {_JOB} "
                   f"--checkpoints data/checkpoints/{JOB_DIR} --threads {{threads}}",
          deps=(f"{_CORPUS}/{{train_set}}.parquet", "{vocab_dir}/vocab.txt", "{vocab_dir}/embeddings.npy",
                _EVAL),
          outs={"model": Output(f"{_JOB}/model.pt"),
                "history": Output(f"{_JOB}/history.csv", "plot",
                                  {"x": "epoch", "y": "selection_pearson"}),
                "history_json": Output(f"{_JOB}/history.json", recorded=False),
                "info": Output(f"{_JOB}/train.json")},
          params=("train", "seed", "device", "evaluation"),
          foreach="jobs", checkpoints=(f"data/checkpoints/{JOB_DIR}",), run_settings="runs.{run}"),
    Stage("evaluate", f"evaluate --model {_JOB}/model.pt --eval {_EVAL} "
                      f"--out {_RESULTS}/{JOB_DIR}.json --threads {{threads}}",
          deps=(f"{_JOB}/model.pt", _EVAL),
          outs={"results": Output(f"{_RESULTS}/{JOB_DIR}.json")},
          params=("evaluation",),
    foreach="experiment_jobs"),
    Stage("baseline", f"baseline --vocab-dir {_VOCAB_DIR} --eval {_EVAL} "
                      f"--out {_RESULTS}/baseline.json --threads {{threads}}",
          deps=(*_VOCAB, _EVAL),
          outs={"results": Output(f"{_RESULTS}/baseline.json")},
          params=("evaluation",)),
    Stage("baseline_distilled", f"baseline --vocab-dir {_DISTILLED_DIR} --eval {_EVAL} "
                                f"--out {_RESULTS}/baseline_distilled.json --threads {{threads}}",
          deps=(*_DISTILLED, _EVAL),
          outs={"results": Output(f"{_RESULTS}/baseline_distilled.json")},
          params=("evaluation",)),
    Stage("baseline_sentence_distilled", f"baseline --vocab-dir {_SENTENCE_DISTILLED_DIR} --eval {_EVAL} "
                                         f"--out {_RESULTS}/baseline_sentence_distilled.json --threads {{threads}}",
          deps=(*_SENTENCE_DISTILLED, _EVAL),
          outs={"results": Output(f"{_RESULTS}/baseline_sentence_distilled.json")},
          params=("evaluation",)),
    # Gate analysis (Sec. 5.2): Stanza models, sentences, parses (cached: the analysis never re-parses), norms.
    _stanza_stage(compared=False),
    # The parser comparison: second models (`gates.stanza_compared` over `gates.stanza`) parse the same sentences.
    _stanza_stage(compared=True),
    Stage("gate_sentences", f"gate-sentences --raw data/raw --corpus {_CORPUS} --out {_GATES}/sentences.parquet "
                            f"--stats {_GATES}/sentences.json",
          deps=("data/raw", f"{_CORPUS}/simpwiki.parquet", _EVAL),
          outs={"sentences": Output(f"{_GATES}/sentences.parquet"), "stats": Output(f"{_GATES}/sentences.json")},
          params=("gates.sentences", "gates.max_tokens", "gates.seed", "gates.extra_sentences", "evaluation.selection",
                  "data_profile", "profiles")),
    _parse_stage(compared=False),
    _parse_stage(compared=True),
    # Snakemake reads only the analysed row's jobs (workflow/rules/gates.smk); DVC hashes data/models.
    Stage("gates", f"gates --data-dir data --parses {_GATES}/parses.parquet --out-dir {_GATES}/analysis "
                   "--threads {threads}",
          deps=(f"{_GATES}/parses.parquet", _MODELS),
          outs={"tokens": Output(f"{_GATES}/analysis/tokens.parquet"),
                "by_pos": Output(f"{_GATES}/analysis/by_pos.csv"),
                "by_label": Output(f"{_GATES}/analysis/by_label.csv"),
                "by_ud_label": Output(f"{_GATES}/analysis/by_ud_label.csv"),
                "by_pos_label": Output(f"{_GATES}/analysis/by_pos_label.csv"),
                "plot": Output(f"{_GATES}/analysis/norms_by_pos.png"),
                "summary": Output(f"{_GATES}/analysis/summary.json")},
          params=(*_GATE_PARAMS, *_SELECTION_PARAMS, "paper_tables", "device")),
    # The parser comparison (with `extended`): the agreement with the paper measured again from the second models'
    # tags and labels, and the two parsers' agreement with each other, with those models' dev scores for the report
    Stage("gates_compared", f"gates-compared --data-dir data --parses {_GATES}/parses.parquet "
                            f"--compared-parses {_GATES}/parses_compared.parquet "
                            f"--compared-models {_DATA.stanza(compared=True)}/scores.json "
                            f"--out {_GATES}/compared.json --threads {{threads}}",
          deps=(f"{_GATES}/parses.parquet", f"{_GATES}/parses_compared.parquet",
                f"{_DATA.stanza(compared=True)}/scores.json", _MODELS),
          outs={"summary": Output(f"{_GATES}/compared.json")},
          params=(*_GATE_PARAMS, *_SELECTION_PARAMS, "paper_tables", "device"), foreach=_COMPARISON),
    # Supervised similarity (Sec. 4.3, Tables 5-8): STS split 40/10/50 and SICK; one job per task, run and seed.
    Stage("prepare_supervised", f"prepare-supervised --raw data/raw --out-dir {_SUPERVISED}",
          deps=("data/raw",),
          outs={"sts": Output(f"{_SUPERVISED}/sts.parquet"), "sick": Output(f"{_SUPERVISED}/sick.parquet"),
                "stats": Output(f"{_SUPERVISED}/stats.json")},
          params=("supervised.sts_sets", "supervised.split", "supervised.max_pairs")),
    _supervised_stage("train_supervised", "supervised_jobs"),
    # Universal (Table 8): starts from the STS-2016-selected transfer model of the run's `init` row, chosen once
    # per row and recorded with its sha256: the universal jobs depend on the record, not on every transfer model.
    Stage("universal_init", f"universal-init --row {{init_row}} --data-dir data --out {UNIVERSAL_INIT}",
          deps=(_MODELS,), outs={"record": Output(UNIVERSAL_INIT)}, params=_SELECTION_PARAMS,
          foreach="universal_inits"),
    _supervised_stage("train_universal", "universal_jobs", universal=True),
    # Error analysis (Sec. 5.1, Table 7): avg and LSTMavg cosines against gold on the STS 2012-2015 sets.
    Stage("error_analysis", f"error-analysis --data-dir data --out-dir {_ERROR_ANALYSIS} --threads {{threads}}",
          deps=(_EVAL, _MODELS),
          outs={"pairs": Output(f"{_ERROR_ANALYSIS}/pairs.parquet"),
                "examples": Output(f"{_ERROR_ANALYSIS}/examples.csv"),
                "summary": Output(f"{_ERROR_ANALYSIS}/summary.json")},
          params=("error_analysis", *_SELECTION_PARAMS, "device")),
    # What a user would pick instead: all-MiniLM-L6-v2, same sets and scorer, and its speed; scored once, while the
    # models train, for the encoder comparison
    Stage("reference_scores", f"reference-scores --eval {_EVAL} --out {_RESULTS}/reference.json --threads {{threads}}",
          deps=(_EVAL,), outs={"results": Output(f"{_RESULTS}/reference.json")},
          params=("reference_encoder", "evaluation")),
    # ... beside Table 4's models and the untrained vectors: scores and speed.
    Stage("compare_encoders", f"compare-encoders --data-dir data --reference {_RESULTS}/reference.json "
                              f"--out {_RESULTS}/encoders.json --published {PUBLISHED_MTEB_STS} --threads {{threads}}",
          deps=(_EVAL, _MODELS, *_VOCAB, *_DISTILLED, *_SENTENCE_DISTILLED, f"{_RESULTS}/reference.json",
                PUBLISHED_MTEB_STS),
          outs={"results": Output(f"{_RESULTS}/encoders.json")},
          params=("report.table4", "evaluation", *_SELECTION_PARAMS)),
    # The sentence-distilled vectors as a static model with its card (beyond the paper): what a user picks up, scored
    # as a user loads it. From the distillation stages alone: no model of the paper's tables is trained for it.
    Stage("static_model", f"static-model --vectors {_SENTENCE_DISTILLED_DIR} --distilled {_DISTILLED_DIR} "
                          f"--eval {_EVAL} --published-scores {PUBLISHED_MTEB_STS} --out-dir {_STATIC_MODEL_DIR} "
                          f"--scores {_RESULTS}/static_model.json --threads {{threads}}",
          deps=(*_SENTENCE_DISTILLED, f"{_SENTENCE_DISTILLED_DIR}/training.json",
                f"{_SENTENCE_DISTILLED_DIR}/targets.json", f"{_DISTILLED_DIR}/coverage.json", _EVAL,
                PUBLISHED_MTEB_STS),
          outs={**{name.replace(".", "_"): Output(f"{_STATIC_MODEL_DIR}/{name}", recorded=False)
                   for name in STATIC_MODEL_FILES},
                "scores": Output(f"{_RESULTS}/static_model.json")},
          params=("word_vectors.distilled.teacher", "evaluation", "reference_encoder")),
    # Siamese CBOW (Kenter et al. 2016): ordered sentences of the treebank, one job per run, the word2vec baseline.
    Stage("siamese_corpus",
          f"siamese-corpus --raw data/raw --eval {_EVAL} --out-dir {_SIAMESE_CORPUS}",
          deps=("data/raw", _EVAL),
          outs={"corpus": Output(f"{_SIAMESE}/corpus/corpus.parquet"),
                "words": Output(f"{_SIAMESE}/corpus/words.parquet"),
                "embeddings": Output(f"{_SIAMESE}/corpus/embeddings.npy"),
                "stats": Output(f"{_SIAMESE}/corpus/stats.json")},
          params=("data_profile", "profiles", "siamese_cbow.corpus", "siamese_cbow.max_sentences")),
    Stage("train_siamese", f"train-siamese --run {{run}} --corpus-dir {_SIAMESE_CORPUS} "
                           f"--eval {_EVAL} --out-dir {_SIAMESE}/models/{{run}} "
                           f"--checkpoints {_SIAMESE}/checkpoints/{{run}} --threads {{threads}}",
          deps=(*_SIAMESE_INPUTS, _EVAL),
          outs={"model": Output(f"{_SIAMESE}/models/{{run}}/model.pt"),
                "history": Output(f"{_SIAMESE}/models/{{run}}/history.csv", "plot",
                                  {"x": "epoch", "y": "mean_pearson"}),
                "history_json": Output(f"{_SIAMESE}/models/{{run}}/history.json", recorded=False),
                "info": Output(f"{_SIAMESE}/models/{{run}}/train.json")},
          params=("siamese_cbow.train", "seed", "device", "evaluation.batch_size"),
    foreach="siamese_jobs",
          checkpoints=(f"{_SIAMESE}/checkpoints/{{run}}",), run_settings="siamese_runs.{run}"),
    Stage("word2vec", f"word2vec --corpus-dir {_SIAMESE_CORPUS} --eval {_EVAL} "
                      f"--out-dir {_SIAMESE}/word2vec --threads {{threads}}",
          deps=(f"{_SIAMESE_CORPUS}/corpus.parquet", _EVAL),
          outs={"cbow": Output(f"{_SIAMESE}/word2vec/cbow/model.pt"),
                "skipgram": Output(f"{_SIAMESE}/word2vec/skipgram/model.pt"),
                "results": Output(f"{_SIAMESE}/word2vec/results.json")},
          params=("siamese_cbow.word2vec", "seed", "evaluation.batch_size")),
    # PWIM (He & Lin 2016): SICK, MSRvid and STS 2014 tables with their own frozen vectors; one job per run and task.
    Stage("prepare_pwim", f"prepare-pwim --raw data/raw --out-dir {_PWIM}",
          deps=("data/raw",),
          outs={**{task: Output(f"{_PWIM}/{task}.parquet") for task in ("sick", "msrvid", "sts2014")},
                "words": Output(f"{_PWIM}/vocab.txt"), "embeddings": Output(f"{_PWIM}/embeddings.npy"),
                "stats": Output(f"{_PWIM}/stats.json")},
          params=("data_profile", "profiles", "pwim.tasks", "pwim.validation_fraction", "pwim.split_seed",
                  "pwim.max_pairs")),
    Stage("train_pwim", f"train-pwim --run {{run}} --task {{pwim_task}} --data-dir {_PWIM} "
                        f"--out-dir {_PWIM}/models/{_PWIM_JOB} --checkpoints {_PWIM}/checkpoints/{_PWIM_JOB} "
                        "--threads {threads}",
          deps=(f"{_PWIM}/{{pwim_task}}.parquet", f"{_PWIM}/vocab.txt", f"{_PWIM}/embeddings.npy"),
          outs={"model": Output(f"{_PWIM}/models/{_PWIM_JOB}/model.pt"),
                "history": Output(f"{_PWIM}/models/{_PWIM_JOB}/history.csv", "plot",
                                  {"x": "epoch", "y": "validation_pearson"}),
                "history_json": Output(f"{_PWIM}/models/{_PWIM_JOB}/history.json", recorded=False),
                "info": Output(f"{_PWIM}/models/{_PWIM_JOB}/train.json")},
          params=("seed", "device"),
          foreach="pwim_jobs", checkpoints=(f"{_PWIM}/checkpoints/{_PWIM_JOB}",),
          run_settings="pwim_runs.{pwim_task}.{run}"),
    # Snakemake lists the report's inputs file by file (workflow/rules/report.smk); DVC hashes the folders.
    Stage("report", "report --data-dir data --out-dir data/report",
          deps=(_RESULTS, _MODELS, _TRAIN_STATS, _MATCH_SUMMARY,
                f"{_VOCAB_DIR}/coverage.json", f"{_DISTILLED_DIR}/coverage.json",
                f"{_SENTENCE_DISTILLED_DIR}/training.json", f"{_SENTENCE_DISTILLED_DIR}/targets.json",
                _GATES, f"{_DATA.stanza()}/scores.json",  # data/gates: with `extended`, the parser comparison too
                f"{_SUPERVISED}/stats.json",
                f"{_SUPERVISED}/models", _ERROR_ANALYSIS, f"{_SIAMESE}/corpus/stats.json",
                f"{_SIAMESE}/models", f"{_SIAMESE}/word2vec/results.json", f"{_PWIM}/stats.json",
                f"{_PWIM}/models"),
          outs={"runs": Output("data/report/runs.csv"), "md": Output("data/report/report.md"),
                "html": Output("data/report/report.html"), "plot": Output("data/report/learning_curves.png"),
                "gate_plot": Output("data/report/gate_norms_by_pos.png"),
                "stanza_plot": Output("data/report/stanza_learning_curves.png"),
                "speed_plot": Output("data/report/accuracy_speed.png"),
                "metrics": Output("data/report/metrics.json", "metric", recorded=False),
                "timings": Output("data/report/timings.json", recorded=False),
                "record": Output("data/report/record.json")},
          params=("report", "paper_tables", "experiments", "grids", "grid_thinning", "word_vectors", "train", "seed",
                  "seeds", "supervised", "error_analysis", "siamese_cbow", "pwim")),
)}

def code_paths(stage: str | Stage) -> list[str]:
    """The source files a stage (or the stage of that name) runs, relative to the repository root: the import
    closure of its step."""
    step = (STAGES[stage] if isinstance(stage, str) else stage).step
    return [path.as_posix() for path in closure_files([step])]


def code_listing(stage: str, root: Path | str = ".") -> str:
    """``sha256sum``'s listing of a stage's source files: what a DVC stage depends on for its code (one file, which
    the ``code_digests`` stage writes, rather than each source file: see :mod:`paraphrastic.pipeline.dvc`)."""
    return sha256sum(code_paths(stage), root)


def code_digest(stage: str, root: Path | str = ".") -> str:
    """sha256 over a stage's source files: a Snakemake param, so an edit reruns the stage without mtimes."""
    return digest(code_paths(stage), root)
