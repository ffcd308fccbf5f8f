"""train-supervised: one supervised job (a run of a supervised grid row on one task, with one seed) under
Tai et al.'s head and KL loss, from the initial word vectors."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.settings import supervised_experiment
from paraphrastic.errors import PipelineError
from paraphrastic.training.supervised import train_supervised


def train_job(config: dict, settings, *, task, supervised_dir, vocab_dir, out_dir, checkpoints, init_path=None,
              device=None, threads=None, progress=True) -> None:
    """Train one supervised job (shared with train-universal, which adds the transfer model to start from)."""
    info = train_supervised(settings, table_path=Path(supervised_dir) / f"{task}.parquet", vocab_dir=vocab_dir,
                            out_dir=out_dir, checkpoint_dir=checkpoints, init_path=init_path,
                            device=device or config["device"], threads=threads, progress=progress,
                            eval_batch_size=config["evaluation"]["batch_size"])
    print(f"selected epoch {info['selected_epoch']}: validation r {info['validation_pearson']:.2f}, "
          f"test r {info['test_pearson']:.2f}")


def run(config: dict, *, run_name, task, seed, **job) -> None:
    settings = supervised_experiment(config, run_name, task, seed)
    if settings.init:
        raise PipelineError(f"supervised run {run_name!r} starts from transfer row {settings.init!r}: train it "
                            "with train-universal")
    train_job(config, settings, task=task, **job)
