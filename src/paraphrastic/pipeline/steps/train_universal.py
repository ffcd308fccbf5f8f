"""train-universal: a universal supervised job (Table 8): it starts from the STS-2016-selected transfer model
of the run's ``init`` row and regularises back to it."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.selection import universal_init_path
from paraphrastic.experiments.settings import supervised_experiment
from paraphrastic.pipeline.steps.train_supervised import train_job


def run(config: dict, *, experiment_name, task, seed, data_dir, **job) -> None:
    settings = supervised_experiment(config, experiment_name, task, seed)
    if not settings.init:
        raise PipelineError(f"supervised run {experiment_name!r} has no `init` row: train it with train-supervised")
    init = universal_init_path(config, Path(data_dir), settings.init, seed)
    print(f"initialised from {init}")
    train_job(config, settings, task=task, init_path=init, **job)
