"""The pipeline's stage graph, defined once: Snakemake's rules and dvc.yaml are both built from it.

Each :class:`Stage` gives the CLI command a stage runs, the files it reads and writes and the
params.yaml keys it depends on; the code it runs is derived, the import closure of its step module
(:mod:`paraphrastic.pipeline.steps`, :mod:`paraphrastic.pipeline.code_deps`). The Snakemake rules
(workflow/rules/*.smk) take their inputs, outputs, rerun-trigger params and shell command from
here; dvc.yaml is generated from here by ``python -m paraphrastic dvc-yaml --write dvc.yaml``
(a test fails when the committed file is stale), so the two tools cannot drift apart.

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

from paraphrastic.pipeline.code_deps import closure_files, digest, sha256sum

_VOCAB = ("data/vocab/vocab.txt", "data/vocab/embeddings.npy")
_DISTILLED = ("data/distilled/vocab.txt", "data/distilled/embeddings.npy")
JOB_DIR = "{run}/seed{seed}"  # one training job: a run and one of its seeds
SUP_DIR = "{task}/{run}/seed{seed}"  # one supervised job: a task, a run and one of its seeds
_SIAMESE_CORPUS = "data/siamese/corpus"
_SIAMESE_INPUTS = tuple(f"{_SIAMESE_CORPUS}/{name}" for name in ("corpus.parquet", "words.parquet", "embeddings.npy"))
_PWIM_JOB = "{pwim_task}/{run}"  # one PWIM job: a run on a task
UNIVERSAL_INIT = "data/supervised/init/{init_row}.json"  # the model a universal row starts from (universal_init)


@dataclass(frozen=True)
class Output:
    path: str
    # out | metric | plot (a CSV plotted per epoch). One metric file, the report's metrics.json: the scores a researcher
    # compares across experiments (`dvc metrics diff`, `dvc exp show`). Per-job results, timings and analysis
    # summaries are plain outputs, so hundreds of per-set numbers, seconds and strings do not drown them.
    kind: str = "out"
    plot: dict = field(default_factory=dict)


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


# What choosing a transfer row's model reads (evaluation.selection.Selection): its runs, their seeds and settings.
# What decides the runs, their seeds and so each row's selected model (gates.seeds adds seeds to gates.gran_row).
_SELECTION_PARAMS = ("grids", "grid_thinning", "experiments", "word_vectors.distilled_rows",
                     "word_vectors.distilled_thinning", "gates.gran_row", "gates.seeds", "seeds", "seed", "train")


def _supervised_stage(name: str, foreach: str, *, universal: bool = False) -> Stage:
    # Universal jobs sit in their own subfolder of the same models folder, which the report depends on.
    job = f"data/supervised/models/{'universal/' if universal else ''}{SUP_DIR}"
    checkpoints = f"data/supervised/checkpoints/{'universal/' if universal else ''}{SUP_DIR}"
    command = (f"{'train-universal' if universal else 'train-supervised'} --run {{run}} --task {{task}} "
               f"--seed {{seed}} --supervised-dir data/supervised --vocab-dir data/vocab --out-dir {job} "
               f"--checkpoints {checkpoints} --threads {{threads}}"
               + (f" --init {UNIVERSAL_INIT}" if universal else ""))
    deps = ("data/supervised/{task}.parquet", *_VOCAB, *((UNIVERSAL_INIT,) if universal else ()))
    return Stage(name, command, deps=deps,
                 outs={"model": Output(f"{job}/model.pt"),
                       "history": Output(f"{job}/history.csv", "plot", {"x": "epoch", "y": "validation_pearson"}),
                       "history_json": Output(f"{job}/history.json"), "info": Output(f"{job}/train.json")},
                 params=("supervised.train", "seed", "device", "evaluation.batch_size"),
                 foreach=foreach, checkpoints=(checkpoints,), run_settings="supervised_runs.{run}")


def _stanza_stage(*, compared: bool) -> Stage:
    """The Stanza models of the gate analysis, or (``compared``) those of the parser comparison."""
    suffix = "_compared" if compared else ""
    folder = f"data/stanza{suffix}"
    return Stage(f"stanza_models{suffix}",
                 f"stanza-models {'--compared ' if compared else ''}--raw data/raw --out-dir {folder} "
                 "--threads {threads}",
                 deps=("data/raw",),
                 outs={"resources": Output(f"{folder}/resources"), "scores": Output(f"{folder}/scores.json")},
                 params=("data_profile", "profiles", "gates.stanza", *(("gates.stanza_compared",) if compared else ())),
                 threads="gates.stanza.threads")


def _parse_stage(*, compared: bool) -> Stage:
    """The gate sentences parsed by the models of :func:`_stanza_stage` (cached: the analysis never re-parses)."""
    suffix = "_compared" if compared else ""
    models = f"data/stanza{suffix}/resources"
    return Stage(f"parse{suffix}", f"parse --sentences data/gates/sentences.parquet --models {models} "
                                   f"--out data/gates/parses{suffix}.parquet --threads {{threads}}",
                 deps=("data/gates/sentences.parquet", models),
                 outs={"parses": Output(f"data/gates/parses{suffix}.parquet")},
                 params=("gates.parse_batch_size", "device"))


STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("fetch", "fetch --manifest workflow/sources.yaml --out data/raw --downloads data/downloads",
          deps=("workflow/sources.yaml",), outs={"raw": Output("data/raw")},
          params=("data_profile", "profiles", "evaluation.sets", "evaluation.selection", "data.simpwiki_extra",
                  "gates.extra_sentences")),
    Stage("prepare_eval",
          "prepare-eval --raw data/raw --out data/corpus/eval.parquet --stats data/corpus/eval_stats.json",
          deps=("data/raw",),
          outs={"table": Output("data/corpus/eval.parquet"), "stats": Output("data/corpus/eval_stats.json")},
          params=("evaluation",)),
    Stage("prepare_train", "prepare-train --raw data/raw --out-dir data/corpus",
          deps=("data/raw",),
          outs={"simpwiki": Output("data/corpus/simpwiki.parquet"), "ppdb": Output("data/corpus/ppdb.parquet"),
                "stats": Output("data/corpus/train_stats.json")},
          params=("data_profile", "profiles", "data", "seed")),
    Stage("match", "match --corpus data/corpus",
          deps=("data/corpus/simpwiki.parquet", "data/corpus/ppdb.parquet"),
          outs={"simpwiki": Output("data/corpus/simpwiki_matched.parquet"),
                "ppdb": Output("data/corpus/ppdb_matched.parquet"),
                "summary": Output("data/corpus/match_summary.json")},
          params=("data",)),
    Stage("vocab", "vocab --raw data/raw --corpus data/corpus --out-dir data/vocab",
          deps=("data/raw", "data/corpus/simpwiki.parquet", "data/corpus/ppdb.parquet", "data/corpus/eval.parquet"),
          outs={"words": Output("data/vocab/vocab.txt"), "embeddings": Output("data/vocab/embeddings.npy"),
                "coverage": Output("data/vocab/coverage.json")},
          params=("data_profile", "profiles")),
    # Word vectors distilled from a sentence transformer (beyond the paper): a vocabulary folder like vocab's.
    Stage("distill", "distill --corpus data/corpus --out-dir data/distilled --threads {threads}",
          deps=("data/corpus/simpwiki.parquet", "data/corpus/ppdb.parquet", "data/corpus/eval.parquet"),
          outs={"words": Output(_DISTILLED[0]), "embeddings": Output(_DISTILLED[1]),
                "coverage": Output("data/distilled/coverage.json")},
          params=("word_vectors.distilled", "device")),
    # {vocab_dir}: the job's starting vectors (its run's `word_vectors`), data/vocab or data/distilled.
    Stage("train", f"train --run {{run}} --seed {{seed}} --corpus-dir data/corpus "
                   f"--vocab-dir {{vocab_dir}} --eval data/corpus/eval.parquet --out-dir data/models/{JOB_DIR} "
                   f"--checkpoints data/checkpoints/{JOB_DIR} --threads {{threads}}",
          deps=("data/corpus/{train_set}.parquet", "{vocab_dir}/vocab.txt", "{vocab_dir}/embeddings.npy",
                "data/corpus/eval.parquet"),
          outs={"model": Output(f"data/models/{JOB_DIR}/model.pt"),
                "history": Output(f"data/models/{JOB_DIR}/history.csv", "plot",
                                  {"x": "epoch", "y": "selection_pearson"}),
                "history_json": Output(f"data/models/{JOB_DIR}/history.json"),
                "info": Output(f"data/models/{JOB_DIR}/train.json")},
          params=("train", "seed", "device", "evaluation"),
          foreach="jobs", checkpoints=(f"data/checkpoints/{JOB_DIR}",), run_settings="runs.{run}"),
    Stage("evaluate", f"evaluate --model data/models/{JOB_DIR}/model.pt --eval data/corpus/eval.parquet "
                      f"--out data/results/{JOB_DIR}.json --threads {{threads}}",
          deps=(f"data/models/{JOB_DIR}/model.pt", "data/corpus/eval.parquet"),
          outs={"results": Output(f"data/results/{JOB_DIR}.json")},
          params=("evaluation",),
    foreach="experiment_jobs"),
    Stage("baseline", "baseline --vocab-dir data/vocab --eval data/corpus/eval.parquet "
                      "--out data/results/baseline.json --threads {threads}",
          deps=(*_VOCAB, "data/corpus/eval.parquet"),
          outs={"results": Output("data/results/baseline.json")},
          params=("evaluation",)),
    Stage("baseline_distilled", "baseline --vocab-dir data/distilled --eval data/corpus/eval.parquet "
                                "--out data/results/baseline_distilled.json --threads {threads}",
          deps=(*_DISTILLED, "data/corpus/eval.parquet"),
          outs={"results": Output("data/results/baseline_distilled.json")},
          params=("evaluation",)),
    # Gate analysis (Sec. 5.2): Stanza models, sentences, parses (cached: the analysis never re-parses), norms.
    _stanza_stage(compared=False),
    # The parser comparison: second models (`gates.stanza_compared` over `gates.stanza`) parse the same sentences.
    _stanza_stage(compared=True),
    Stage("gate_sentences", "gate-sentences --raw data/raw --corpus data/corpus --out data/gates/sentences.parquet "
                            "--stats data/gates/sentences.json",
          deps=("data/raw", "data/corpus/simpwiki.parquet", "data/corpus/eval.parquet"),
          outs={"sentences": Output("data/gates/sentences.parquet"), "stats": Output("data/gates/sentences.json")},
          params=("gates.sentences", "gates.max_tokens", "gates.seed", "gates.extra_sentences", "evaluation.selection",
                  "data_profile", "profiles")),
    _parse_stage(compared=False),
    _parse_stage(compared=True),
    # Snakemake reads only the analysed row's jobs (workflow/rules/gates.smk); DVC hashes data/models.
    Stage("gates", "gates --data-dir data --parses data/gates/parses.parquet "
                   "--compared-parses data/gates/parses_compared.parquet --out-dir data/gates/analysis "
                   "--threads {threads}",
          deps=("data/gates/parses.parquet", "data/gates/parses_compared.parquet", "data/models"),
          outs={"tokens": Output("data/gates/analysis/tokens.parquet"),
                "by_pos": Output("data/gates/analysis/by_pos.csv"),
                "by_label": Output("data/gates/analysis/by_label.csv"),
                "by_ud_label": Output("data/gates/analysis/by_ud_label.csv"),
                "by_pos_label": Output("data/gates/analysis/by_pos_label.csv"),
                "plot": Output("data/gates/analysis/norms_by_pos.png"),
                "summary": Output("data/gates/analysis/summary.json")},
          params=("gates.min_count", "gates.min_pair_count", "gates.batch_size", "gates.bootstrap", "gates.seed",
                  *_SELECTION_PARAMS, "paper_tables", "device")),
    # Supervised similarity (Sec. 4.3, Tables 5-8): STS split 40/10/50 and SICK; one job per task, run and seed.
    Stage("prepare_supervised", "prepare-supervised --raw data/raw --out-dir data/supervised",
          deps=("data/raw",),
          outs={"sts": Output("data/supervised/sts.parquet"), "sick": Output("data/supervised/sick.parquet"),
                "stats": Output("data/supervised/stats.json")},
          params=("supervised.sts_sets", "supervised.split", "supervised.max_pairs")),
    _supervised_stage("train_supervised", "supervised_jobs"),
    # Universal (Table 8): starts from the STS-2016-selected transfer model of the run's `init` row, chosen once
    # per row and recorded with its sha256: the universal jobs depend on the record, not on every transfer model.
    Stage("universal_init", f"universal-init --row {{init_row}} --data-dir data --out {UNIVERSAL_INIT}",
          deps=("data/models",), outs={"record": Output(UNIVERSAL_INIT)}, params=_SELECTION_PARAMS,
          foreach="universal_inits"),
    _supervised_stage("train_universal", "universal_jobs", universal=True),
    # Error analysis (Sec. 5.1, Table 7): avg and LSTMavg cosines against gold on the STS 2012-2015 sets.
    Stage("error_analysis", "error-analysis --data-dir data --out-dir data/error_analysis --threads {threads}",
          deps=("data/corpus/eval.parquet", "data/models"),
          outs={"pairs": Output("data/error_analysis/pairs.parquet"),
                "examples": Output("data/error_analysis/examples.csv"),
                "summary": Output("data/error_analysis/summary.json")},
          params=("error_analysis", *_SELECTION_PARAMS, "device")),
    # What a user would pick instead (issue 7): all-MiniLM-L6-v2, same sets and scorer; speed beside Table 4's models.
    Stage("compare_encoders", "compare-encoders --data-dir data --out data/results/encoders.json --threads {threads}",
          deps=("data/corpus/eval.parquet", "data/models", *_VOCAB, *_DISTILLED),
          outs={"results": Output("data/results/encoders.json")},
          params=("reference_encoder", "report.table4", "evaluation", *_SELECTION_PARAMS)),
    # Siamese CBOW (Kenter et al. 2016): ordered sentences of the treebank, one job per run, the word2vec baseline.
    Stage("siamese_corpus",
          f"siamese-corpus --raw data/raw --eval data/corpus/eval.parquet --out-dir {_SIAMESE_CORPUS}",
          deps=("data/raw", "data/corpus/eval.parquet"),
          outs={"corpus": Output("data/siamese/corpus/corpus.parquet"),
                "words": Output("data/siamese/corpus/words.parquet"),
                "embeddings": Output("data/siamese/corpus/embeddings.npy"),
                "stats": Output("data/siamese/corpus/stats.json")},
          params=("data_profile", "profiles", "siamese_cbow.corpus", "siamese_cbow.max_sentences")),
    Stage("train_siamese", f"train-siamese --run {{run}} --corpus-dir {_SIAMESE_CORPUS} "
                           f"--eval data/corpus/eval.parquet --out-dir data/siamese/models/{{run}} "
                           f"--checkpoints data/siamese/checkpoints/{{run}} --threads {{threads}}",
          deps=(*_SIAMESE_INPUTS, "data/corpus/eval.parquet"),
          outs={"model": Output("data/siamese/models/{run}/model.pt"),
                "history": Output("data/siamese/models/{run}/history.csv", "plot",
                                  {"x": "epoch", "y": "mean_pearson"}),
                "history_json": Output("data/siamese/models/{run}/history.json"),
                "info": Output("data/siamese/models/{run}/train.json")},
          params=("siamese_cbow.train", "seed", "device", "evaluation.batch_size"),
    foreach="siamese_jobs",
          checkpoints=("data/siamese/checkpoints/{run}",), run_settings="siamese_runs.{run}"),
    Stage("word2vec", f"word2vec --corpus-dir {_SIAMESE_CORPUS} --eval data/corpus/eval.parquet "
                      "--out-dir data/siamese/word2vec --threads {threads}",
          deps=(f"{_SIAMESE_CORPUS}/corpus.parquet", "data/corpus/eval.parquet"),
          outs={"cbow": Output("data/siamese/word2vec/cbow/model.pt"),
                "skipgram": Output("data/siamese/word2vec/skipgram/model.pt"),
                "results": Output("data/siamese/word2vec/results.json")},
          params=("siamese_cbow.word2vec", "seed", "evaluation.batch_size")),
    # PWIM (He & Lin 2016): SICK, MSRvid and STS 2014 tables with their own frozen vectors; one job per run and task.
    Stage("prepare_pwim", "prepare-pwim --raw data/raw --out-dir data/pwim",
          deps=("data/raw",),
          outs={**{task: Output(f"data/pwim/{task}.parquet") for task in ("sick", "msrvid", "sts2014")},
                "words": Output("data/pwim/vocab.txt"), "embeddings": Output("data/pwim/embeddings.npy"),
                "stats": Output("data/pwim/stats.json")},
          params=("data_profile", "profiles", "pwim.tasks", "pwim.validation_fraction", "pwim.split_seed",
                  "pwim.max_pairs")),
    Stage("train_pwim", f"train-pwim --run {{run}} --task {{pwim_task}} --data-dir data/pwim "
                        f"--out-dir data/pwim/models/{_PWIM_JOB} --checkpoints data/pwim/checkpoints/{_PWIM_JOB} "
                        "--threads {threads}",
          deps=("data/pwim/{pwim_task}.parquet", "data/pwim/vocab.txt", "data/pwim/embeddings.npy"),
          outs={"model": Output(f"data/pwim/models/{_PWIM_JOB}/model.pt"),
                "history": Output(f"data/pwim/models/{_PWIM_JOB}/history.csv", "plot",
                                  {"x": "epoch", "y": "validation_pearson"}),
                "history_json": Output(f"data/pwim/models/{_PWIM_JOB}/history.json"),
                "info": Output(f"data/pwim/models/{_PWIM_JOB}/train.json")},
          params=("seed", "device"),
          foreach="pwim_jobs", checkpoints=(f"data/pwim/checkpoints/{_PWIM_JOB}",),
          run_settings="pwim_runs.{pwim_task}.{run}"),
    # Snakemake lists the report's inputs file by file (workflow/rules/report.smk); DVC hashes the folders.
    Stage("report", "report --data-dir data --out-dir data/report",
          deps=("data/results", "data/models", "data/corpus/train_stats.json", "data/corpus/match_summary.json",
                "data/vocab/coverage.json", "data/distilled/coverage.json", "data/gates/analysis",
                "data/gates/sentences.json", "data/stanza/scores.json", "data/stanza_compared/scores.json",
                "data/supervised/stats.json",
                "data/supervised/models", "data/error_analysis", "data/siamese/corpus/stats.json",
                "data/siamese/models", "data/siamese/word2vec/results.json", "data/pwim/stats.json",
                "data/pwim/models"),
          outs={"runs": Output("data/report/runs.csv"), "md": Output("data/report/report.md"),
                "html": Output("data/report/report.html"), "plot": Output("data/report/learning_curves.png"),
                "gate_plot": Output("data/report/gate_norms_by_pos.png"),
                "stanza_plot": Output("data/report/stanza_learning_curves.png"),
                "speed_plot": Output("data/report/accuracy_speed.png"),
                "metrics": Output("data/report/metrics.json", "metric"), "timings": Output("data/report/timings.json")},
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
