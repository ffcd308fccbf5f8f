"""The jobs params.yaml defines: every run of every grid and experiment, once per seed (transfer and
supervised, the latter once per task too), every Siamese CBOW run and every PWIM run on each of its tasks.
Snakemake's rules and workflow/runs.yaml (DVC's ``foreach``) are built from these tables."""

from __future__ import annotations

from dataclasses import dataclass

from paraphrastic.configuration import grids
from paraphrastic.configuration.grids import seeds_of
from paraphrastic.errors import PipelineError

# Where each source of word vectors is in the data folder, as a vocabulary folder (vocab.txt, embeddings.npy,
# coverage.json): the data profile's file (`vocab`), the vectors `distill` makes and those `distill_sentences` trains
# from them (training.json in place of coverage.json).
VECTOR_FOLDERS = {"pretrained": "vocab", "distilled": "distilled", "sentence_distilled": "sentence_distilled"}


def vocab_dir(word_vectors: str, data_dir: str = "data") -> str:
    return f"{data_dir}/{VECTOR_FOLDERS[word_vectors]}"


def job_key(run: str, seed: int) -> str:
    """One training job, as DVC's foreach key and Snakemake's target: a run and one of its seeds."""
    return f"{run}.seed{seed}"


def jobs(config: dict, all_runs: dict[str, dict] | None = None) -> dict[str, dict]:
    """Every training job: each run once per seed (the ``{seed}`` wildcard)."""
    all_runs = grids.expand(config)[0] if all_runs is None else all_runs
    table = {}
    for name, settings in all_runs.items():
        for seed in seeds_of(config, settings):
            key = job_key(name, seed)
            if key in table:
                raise PipelineError(f"training job {key!r} is named twice (rename run {name!r})")
            vectors = settings.get("word_vectors", "pretrained")
            if vectors not in VECTOR_FOLDERS:  # before the settings are checked: name the run
                raise PipelineError(f"run {name!r}: word_vectors {vectors!r} is not one of {list(VECTOR_FOLDERS)}")
            table[key] = {"run": name, "seed": seed, "train_set": settings["train_set"],
                          "vocab_dir": vocab_dir(vectors)}
    return table


def supervised_job_key(task: str, run: str, seed: int) -> str:
    return f"{task}.{run}.seed{seed}"


def supervised_jobs(config: dict, all_runs: dict[str, dict] | None = None) -> dict[str, dict]:
    """Every supervised job: each run on each of its tasks, once per seed. ``init`` is the transfer
    row a universal run starts from (empty otherwise)."""
    all_runs = grids.expand_supervised(config)[0] if all_runs is None else all_runs
    tasks = config["supervised"]["tasks"]
    table = {}
    for name, settings in all_runs.items():
        extra = sorted(set(settings.get("tasks", tasks)) - set(tasks))
        if extra:
            raise PipelineError(f"supervised run {name!r}: tasks {extra} are not in supervised.tasks {tasks}")
        for task in settings.get("tasks", tasks):
            for seed in seeds_of(config, settings):
                table[supervised_job_key(task, name, seed)] = {"task": task, "run": name, "seed": seed,
                                                                "init": settings.get("init", "")}
    return table


def siamese_jobs(config: dict) -> dict[str, dict]:
    """One Siamese CBOW job per run of ``siamese_cbow.runs`` (DVC's foreach, Snakemake's {run})."""
    return {name: {"run": name} for name in config["siamese_cbow"]["runs"]}


def pwim_job_key(task: str, run: str) -> str:
    return f"{task}.{run}"


def pwim_jobs(config: dict) -> dict[str, dict]:
    """Every PWIM job: each run of ``pwim.runs`` on each of its tasks (all of ``pwim.tasks`` by default)."""
    tasks = list(config["pwim"]["tasks"])
    table = {}
    for name, run in config["pwim"]["runs"].items():
        chosen = (run or {}).get("tasks", tasks)
        unknown = sorted(set(chosen) - set(tasks))
        if unknown:
            raise PipelineError(f"PWIM run {name!r}: tasks {unknown} are not in pwim.tasks {tasks}")
        for task in chosen:
            table[pwim_job_key(task, name)] = {"run": name, "task": task}
    return table


PARSER_COMPARISON = "compared"  # the parser comparison's models are gates.stanza with gates.stanza_compared over it


def parser_comparisons(config: dict) -> dict[str, dict]:
    """The parser comparison's jobs (DVC's foreach over the stages that train, parse and compare with the second
    Stanza models): one with ``extended``, none in the default run, which leaves the robustness check out for its
    cost (docs/performance.md)."""
    return {PARSER_COMPARISON: {"parser": PARSER_COMPARISON}} if config.get("extended") else {}


@dataclass(frozen=True)
class JobTables:
    """Every job of a config, by the stages that run them, computed once (the Snakefile's index of jobs)."""

    runs: dict[str, dict]  # every transfer run: experiments and grid points, by name
    rows: dict[str, list[str]]  # each table row's runs (an experiment is a row of one run)
    jobs: dict[str, dict]  # each transfer run once per seed
    experiment_jobs: dict[str, dict]  # the jobs of the explicit experiments (`evaluate` scores their model.pt)
    supervised_runs: dict[str, dict]
    supervised_rows: dict[str, list[str]]
    supervised_jobs: dict[str, dict]  # each supervised run on each of its tasks, once per seed
    siamese_jobs: dict[str, dict]
    pwim_jobs: dict[str, dict]
    parser_comparisons: dict[str, dict]  # the parser comparison's one job with `extended`, else none

    @classmethod
    def of(cls, config: dict) -> JobTables:
        runs, rows = grids.expand(config)
        supervised_runs, supervised_rows = grids.expand_supervised(config)
        every = jobs(config, runs)
        experiments = {key: job for key, job in every.items() if job["run"] in config["experiments"]}
        return cls(runs, rows, every, experiments, supervised_runs, supervised_rows,
                   supervised_jobs(config, supervised_runs), siamese_jobs(config), pwim_jobs(config),
                   parser_comparisons(config))

    def row_jobs(self, *rows: str, where: str = "params") -> dict[str, dict]:
        """The transfer jobs of these table rows (the models an analysis or a universal run reads); ``where``
        names the config key that named them, for the error when one is not a row."""
        unknown = [row for row in rows if row not in self.rows]
        if unknown:
            raise PipelineError(f"{where}: no experiment or grid row named {unknown[0]!r} in params")
        wanted = {run for row in rows for run in self.rows[row]}
        return {key: job for key, job in self.jobs.items() if job["run"] in wanted}

    def supervised_jobs_of(self, *, universal: bool) -> dict[str, dict]:
        """The supervised jobs that start from the initial word vectors, or (``universal``) from a transfer model."""
        return {key: job for key, job in self.supervised_jobs.items() if bool(job["init"]) == universal}

    @property
    def universal_inits(self) -> dict[str, dict]:
        """The transfer rows universal runs start from, once each (the universal_init stage's jobs)."""
        return {job["init"]: {"init": job["init"]} for job in self.supervised_jobs_of(universal=True).values()}
