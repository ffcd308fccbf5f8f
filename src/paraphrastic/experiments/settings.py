"""The settings of one training job: the family's defaults in params.yaml overlaid with its run's own keys."""

from __future__ import annotations

import copy

from paraphrastic.errors import PipelineError
from paraphrastic.experiments import grids
from paraphrastic.experiments.jobs import seeds_of, supervised_job_key, supervised_jobs


def experiment(config: dict, name: str, all_runs: dict[str, dict] | None = None, seed: int | None = None) -> dict:
    """The training settings of one job: ``train`` defaults overlaid with the run's own keys, and its seed.

    ``all_runs`` is :func:`runs` of the same config, for callers that look up many runs; ``seed``
    defaults to the run's first seed. The settings hold the one seed, never the list, so adding
    a seed to a run leaves its other jobs' settings (and their results) untouched.
    """
    all_runs = grids.expand(config)[0] if all_runs is None else all_runs
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


def supervised_experiment(config: dict, name: str, task: str, seed: int,
                          all_runs: dict[str, dict] | None = None) -> dict:
    """The settings of one supervised job: ``supervised.train`` overlaid with the run's own keys."""
    all_runs = grids.expand_supervised(config)[0] if all_runs is None else all_runs
    if name not in all_runs:
        raise PipelineError(f"no supervised run {name!r} in params ({len(all_runs)} known)")
    job = supervised_jobs(config, {name: all_runs[name]}).get(supervised_job_key(task, name, seed))
    if job is None:
        raise PipelineError(f"supervised run {name!r} has no job for task {task!r} and seed {seed}")
    settings = copy.deepcopy(config["supervised"]["train"])
    settings.update({k: copy.deepcopy(v) for k, v in all_runs[name].items() if k not in ("seeds", "tasks")})
    settings.update(name=name, task=task, seed=int(seed))
    return settings


def siamese_experiment(config: dict, name: str) -> dict:
    """The settings of one Siamese CBOW run: ``siamese_cbow.train`` overlaid with the run's own keys."""
    runs = config["siamese_cbow"]["runs"]
    if name not in runs:
        raise PipelineError(f"no Siamese CBOW run {name!r} in params (known: {sorted(runs)})")
    return {**config["siamese_cbow"]["train"], **(runs[name] or {}), "name": name,
            "seed": int(config["seed"])}


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
