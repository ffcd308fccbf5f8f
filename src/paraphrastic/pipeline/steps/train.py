"""train: one transfer training job (a run of a grid row or experiment, and one of its seeds) with the
margin objective; model.pt holds its STS-2016-selected epoch, history and train.json every epoch's scores."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import selection_ids
from paraphrastic.configuration.settings import experiment
from paraphrastic.training.transfer import train


def run(config: dict, *, run_name, seed, corpus_dir, vocab_dir, eval, out_dir, checkpoints, device=None,
        threads=None, progress=True) -> None:
    settings = experiment(config, run_name, seed=seed)
    info = train(settings, train_path=Path(corpus_dir) / f"{settings.train_set}.parquet",
                 vocab_dir=vocab_dir or settings.vocab_dir,
                 eval_path=eval, selection=selection_ids(config), out_dir=out_dir, checkpoint_dir=checkpoints,
                 device=device or config["device"], threads=threads, progress=progress,
                 eval_batch_size=config["evaluation"]["batch_size"])
    print(f"selected epoch {info['selected_epoch']}: STS16 {info['selection_pearson']:.2f}, "
          f"transfer {info['transfer_pearson']:.2f}")
