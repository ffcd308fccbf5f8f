"""train-siamese: one Siamese CBOW run (Kenter et al. 2016), scored on the STS 2012-2015 sets every epoch."""

from __future__ import annotations

from paraphrastic.configuration.settings import siamese_experiment
from paraphrastic.data.similarity_tasks import STS_2012_2015
from paraphrastic.training.siamese_cbow import train_siamese


def run(config: dict, *, run_name, corpus_dir, eval, out_dir, checkpoints, device=None, threads=None,
        progress=True) -> None:
    info = train_siamese(siamese_experiment(config, run_name), corpus_dir=corpus_dir, eval_path=eval,
                         sets=list(STS_2012_2015), out_dir=out_dir, checkpoint_dir=checkpoints,
                         device=device or config["device"], threads=threads, progress=progress,
                         eval_batch_size=config["evaluation"]["batch_size"])
    if "final" in info:
        print(f"{run_name}: STS 2012-2015 mean r {info['initial']['mean_pearson']:.2f} -> "
              f"{info['final']['mean_pearson']:.2f}")
