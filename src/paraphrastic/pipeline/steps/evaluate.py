"""evaluate: a trained model's Pearson and Spearman on every evaluation set, and their means (the explicit
experiments' model.pt; grid rows are scored per epoch during training)."""

from __future__ import annotations

from paraphrastic.configuration.params import selection_ids
from paraphrastic.evaluation.similarity import write_scores
from paraphrastic.models.files import load_model
from paraphrastic.phases import phase
from paraphrastic.runtime import prepare_job


def run(config: dict, *, model, eval, out, device=None, threads=None) -> None:
    device = prepare_job(device or config["device"], threads)
    with phase("loading"):
        encoder, vocab, payload = load_model(model, device)
    trained = payload["settings"]
    with phase("evaluation"):
        summary = write_scores(encoder, vocab, eval_path=eval, out=out, name=trained["name"],
                               meta={"model": payload["model"], "trained": True, "seed": trained["seed"],
                                     "selected_epoch": payload["epoch"]},
                               selection=selection_ids(config), batch_size=config["evaluation"]["batch_size"],
                               device=device, stage="evaluate")
    print(f"{trained['name']}: transfer mean {summary['transfer_pearson']:.2f} over {summary['transfer_sets']} sets, "
          f"STS16 {summary['selection_pearson']:.2f}")
