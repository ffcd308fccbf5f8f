"""train-pwim: one PWIM run (He & Lin 2016) on one task; the epoch is chosen on validation, test scored once."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.settings import pwim_experiment
from paraphrastic.training.pwim import train_pwim


def run(config: dict, *, run_name, task, data_dir, out_dir, checkpoints, device=None, threads=None,
        progress=True) -> None:
    data = Path(data_dir)
    info = train_pwim(pwim_experiment(config, run_name, task), table_path=data / f"{task}.parquet", vocab_dir=data,
                      out_dir=out_dir, checkpoint_dir=checkpoints, device=device or config["device"],
                      threads=threads, progress=progress)
    if "test" in info:
        print(f"{task}/{run_name}: selected epoch {info['selected_epoch']}, test r {info['test']['pearson']:.2f}, "
              f"{info['mean_epoch_seconds']:.0f} s/epoch")
