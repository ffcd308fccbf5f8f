"""word2vec: Siamese CBOW's baseline, averaged word2vec vectors (CBOW and skip-gram) trained on the same corpus."""

from __future__ import annotations

from paraphrastic.data.similarity_tasks import STS_2012_2015
from paraphrastic.training.word2vec import train_baselines


def run(config: dict, *, corpus_dir, eval, out_dir, threads=None) -> None:
    train_baselines(config["siamese_cbow"]["word2vec"], corpus_dir=corpus_dir, eval_path=eval,
                    sets=list(STS_2012_2015), out_dir=out_dir, seed=int(config["seed"]), threads=threads,
                    eval_batch_size=config["evaluation"]["batch_size"])
