"""params.yaml: loading, schema validation and the derived facts every phase needs.

Snakemake validates the same file against the same schema (workflow/schemas/params.schema.yaml)
with its own ``validate``; the library validates again so a CLI call or a DVC stage gets the same
error message.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import jsonschema
import yaml

from paraphrastic.data import datasets
from paraphrastic.data.pwim_tasks import raw_files as pwim_raw_files
from paraphrastic.data.supervised_tasks import raw_files as supervised_raw_files
from paraphrastic.errors import PipelineError

MIRROR_ENV = "PARAPHRASTIC_MIRROR"
DEFAULT_SCHEMA = Path("workflow/schemas/params.schema.yaml")


def load(path="params.yaml", schema=DEFAULT_SCHEMA) -> dict:
    with open(path, encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    validate(config, schema, source=str(path))
    return config


def validate(config: dict, schema=DEFAULT_SCHEMA, *, source: str = "config") -> None:
    with open(schema, encoding="utf-8") as handle:
        schema_doc = yaml.safe_load(handle)
    validator = jsonschema.Draft202012Validator(schema_doc)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]
        raise PipelineError(f"{source} does not match {schema}:\n" + "\n".join(lines))
    datasets.resolve(config["evaluation"]["sets"])
    datasets.resolve(config["evaluation"]["selection"])


def mirror_dir(config: dict) -> Path | None:
    """The offline mirror: $PARAPHRASTIC_MIRROR, else params ``mirror``; empty/null means download."""
    value = os.environ.get(MIRROR_ENV, config.get("mirror"))
    return Path(value) if value else None


def profile(config: dict) -> dict:
    return config["profiles"][config["data_profile"]]


def simpwiki_files(config: dict) -> list[list[str]]:
    prof = profile(config)
    pairs = [list(p) for p in prof["simpwiki"]["pairs"]]
    if config["data"].get("simpwiki_extra") and prof["simpwiki"].get("extra_pairs"):
        pairs += [list(p) for p in prof["simpwiki"]["extra_pairs"]]
    return pairs


def eval_sets(config: dict) -> list[datasets.EvalSet]:
    """Every set that is scored: the configured evaluation sets plus the model-selection sets."""
    wanted = datasets.resolve(config["evaluation"]["sets"]) + datasets.resolve(config["evaluation"]["selection"])
    ids = {s.id for s in wanted}
    return [s for s in datasets.EVAL_SETS if s.id in ids]


def selection_ids(config: dict) -> list[str]:
    """The model-selection sets ("test" selection: the five STS 2016 sets)."""
    return [s.id for s in datasets.resolve(config["evaluation"]["selection"])]


def required_raw_files(config: dict) -> list[str]:
    """Paths under data/raw the active profile and evaluation sets need (the fetch stage's work list)."""
    prof = profile(config)
    files = [f for pair in simpwiki_files(config) for f in pair]
    files.append(prof["ppdb"]["path"])
    files.append(prof["embeddings"])
    files += [prof["treebank"]["train"], prof["treebank"]["dev"]]
    files += [f for s in eval_sets(config) for f in s.files]
    files += supervised_raw_files()
    files += pwim_raw_files()
    return list(dict.fromkeys(files))


# Training sets an experiment may name. The *_matched pair is token-matched (paper Sec. 4.1.2).
TRAIN_SETS = {name: f"data/corpus/{name}.parquet" for name in ("simpwiki", "ppdb", "simpwiki_matched", "ppdb_matched")}


def runs(config: dict) -> dict[str, dict]:
    """Every training run: the explicit ``experiments`` and each point of each grid row."""
    from paraphrastic.experiments.grids import expand

    return expand(config)[0]


def seed_list(value) -> list[int]:
    """A ``seeds`` setting as the seeds themselves: a count N means seeds 1..N."""
    return list(range(1, value + 1)) if isinstance(value, int) else [int(v) for v in value]


def seeds_of(config: dict, run: dict) -> list[int]:
    """The seeds one run is trained with: its own ``seeds`` (or ``seed``), else the top-level
    ``seeds``, else [``train.seed``], else [``seed``]."""
    if "seeds" in run:
        return seed_list(run["seeds"])
    if "seed" in run:
        return [int(run["seed"])]
    if config.get("seeds") is not None:
        return seed_list(config["seeds"])
    return [int(config["train"].get("seed", config["seed"]))]


def job_key(run: str, seed: int) -> str:
    """One training job, as DVC's foreach key and Snakemake's target: a run and one of its seeds."""
    return f"{run}.seed{seed}"


def jobs(config: dict, all_runs: dict[str, dict] | None = None) -> dict[str, dict]:
    """Every training job: each run once per seed (the ``{seed}`` wildcard)."""
    all_runs = runs(config) if all_runs is None else all_runs
    table = {}
    for name, settings in all_runs.items():
        for seed in seeds_of(config, settings):
            key = job_key(name, seed)
            if key in table:
                raise PipelineError(f"training job {key!r} is named twice (rename run {name!r})")
            table[key] = {"run": name, "seed": seed, "train_set": settings["train_set"]}
    return table


def experiment(config: dict, name: str, all_runs: dict[str, dict] | None = None, seed: int | None = None) -> dict:
    """The training settings of one job: ``train`` defaults overlaid with the run's own keys, and its seed.

    ``all_runs`` is :func:`runs` of the same config, for callers that look up many runs; ``seed``
    defaults to the run's first seed. The settings hold the one seed, never the list, so adding
    a seed to a run leaves its other jobs' settings (and their results) untouched.
    """
    all_runs = runs(config) if all_runs is None else all_runs
    if name not in all_runs:
        raise PipelineError(f"no experiment or grid run {name!r} in params ({len(all_runs)} known)")
    seeds = seeds_of(config, all_runs[name])
    if seed is None:
        seed = seeds[0]
    elif seed not in seeds:
        raise PipelineError(f"run {name!r} is trained with seeds {seeds}, not {seed}")
    settings = copy.deepcopy(config["train"])
    settings.update(copy.deepcopy(all_runs[name]))
    settings.pop("seeds", None)
    settings["name"] = name
    settings["seed"] = int(seed)
    return settings


def supervised_runs(config: dict) -> dict[str, dict]:
    """Every supervised run (Sec. 4.3): each point of each supervised grid row."""
    from paraphrastic.experiments.grids import expand_supervised

    return expand_supervised(config)[0]


def supervised_job_key(task: str, run: str, seed: int) -> str:
    return f"{task}.{run}.seed{seed}"


def supervised_jobs(config: dict, all_runs: dict[str, dict] | None = None) -> dict[str, dict]:
    """Every supervised job: each run on each of its tasks, once per seed. ``init`` is the transfer
    row a universal run starts from (empty otherwise)."""
    all_runs = supervised_runs(config) if all_runs is None else all_runs
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


def supervised_experiment(config: dict, name: str, task: str, seed: int,
                          all_runs: dict[str, dict] | None = None) -> dict:
    """The settings of one supervised job: ``supervised.train`` overlaid with the run's own keys."""
    all_runs = supervised_runs(config) if all_runs is None else all_runs
    if name not in all_runs:
        raise PipelineError(f"no supervised run {name!r} in params ({len(all_runs)} known)")
    job = supervised_jobs(config, {name: all_runs[name]}).get(supervised_job_key(task, name, seed))
    if job is None:
        raise PipelineError(f"supervised run {name!r} has no job for task {task!r} and seed {seed}")
    settings = copy.deepcopy(config["supervised"]["train"])
    settings.update({k: copy.deepcopy(v) for k, v in all_runs[name].items() if k not in ("seeds", "tasks")})
    settings.update(name=name, task=task, seed=int(seed))
    return settings


# ---- the other seed systems (issue 8): Siamese CBOW and PWIM -------------------------------------------

def siamese_jobs(config: dict) -> dict[str, dict]:
    """One Siamese CBOW job per run of ``siamese_cbow.runs`` (DVC's foreach, Snakemake's {scbow_run})."""
    return {name: {"run": name} for name in config["siamese_cbow"]["runs"]}


def siamese_experiment(config: dict, name: str) -> dict:
    """The settings of one Siamese CBOW run: ``siamese_cbow.train`` overlaid with the run's own keys."""
    runs = config["siamese_cbow"]["runs"]
    if name not in runs:
        raise PipelineError(f"no Siamese CBOW run {name!r} in params (known: {sorted(runs)})")
    return {**config["siamese_cbow"]["train"], **(runs[name] or {}), "name": name,
            "seed": int(config["seed"])}


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


def pwim_experiment(config: dict, name: str, task: str) -> dict:
    """The settings of one PWIM job: ``pwim.train``, the task's padding, then the run's own keys."""
    runs = config["pwim"]["runs"]
    if name not in runs:
        raise PipelineError(f"no PWIM run {name!r} in params (known: {sorted(runs)})")
    if task not in config["pwim"]["tasks"]:
        raise PipelineError(f"PWIM task {task!r} is not in pwim.tasks {sorted(config['pwim']['tasks'])}")
    own = {k: v for k, v in (runs[name] or {}).items() if k != "tasks"}
    return {**config["pwim"]["train"], "padding": config["pwim"]["tasks"][task]["padding"], **own,
            "name": name, "task": task, "seed": int(config["seed"])}
