"""baseline: the untrained reference of every table, the averaged initial word vectors, scored like a model; a folder
with a tokenizer.json (the distilled ones) reads the sets' text with it, as the static model it makes does."""

from __future__ import annotations

from pathlib import Path

import torch

from paraphrastic.configuration.params import selection_ids
from paraphrastic.data.static_tokenizer import TOKENIZER_FILE, load_tokenizer
from paraphrastic.data.vocab import load_vectors
from paraphrastic.evaluation.similarity import write_scores
from paraphrastic.models.encoders import build_model
from paraphrastic.runtime import prepare_job


def run(config: dict, *, vocab_dir, eval, out, device=None, threads=None) -> None:
    device = prepare_job(device or config["device"], threads)
    vocab, matrix = load_vectors(vocab_dir)
    tokenizer = load_tokenizer(vocab_dir)
    model = build_model("avg", torch.from_numpy(matrix)).to(device)
    summary = write_scores(model, vocab, eval_path=eval, out=out, name="baseline",
                           meta={"model": "avg", "trained": False,
                                 "tokenizer": "treebank" if tokenizer is None else TOKENIZER_FILE},
                           selection=selection_ids(config), tokenizer=tokenizer,
                           batch_size=config["evaluation"]["batch_size"], device=device,
                           stage=Path(out).stem)  # the graph names each baseline stage's result after the stage
    print(f"baseline: transfer mean {summary['transfer_pearson']:.2f} over {summary['transfer_sets']} sets, "
          f"STS16 {summary['selection_pearson']:.2f}")
