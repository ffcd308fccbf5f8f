"""train-universal: a universal supervised job (Table 8): it starts from the STS-2016-selected transfer model
of the run's ``init`` row, as the ``universal_init`` stage recorded it, and regularises back to it."""

from __future__ import annotations

from paraphrastic.configuration.settings import supervised_experiment
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.selection import universal_init_model
from paraphrastic.pipeline.steps.train_supervised import train_job
from paraphrastic.provenance import read_result


def run(config: dict, *, run_name, task, seed, init, **job) -> None:
    settings = supervised_experiment(config, run_name, task, seed)
    if not settings.init:
        raise PipelineError(f"supervised run {run_name!r} has no `init` row: train it with train-supervised")
    record = read_result(init)
    try:
        row, models = record["row"], record["models"]
    except (KeyError, TypeError) as exc:
        raise PipelineError(f"{init}: not a record written by universal-init ({exc})") from exc
    if row != settings.init or not models:
        raise PipelineError(f"{init}: the record of row {row!r}, but run {run_name!r} starts from row "
                            f"{settings.init!r}")
    path = universal_init_model(record, seed, str(init))
    print(f"initialised from {path}")
    train_job(config, settings, task=task, init_path=path, **job)
