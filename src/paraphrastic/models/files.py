"""Model files (model.pt): one self-contained file per trained model, holding its architecture name and
options, its vocabulary, its weights and the settings it was trained with.

Transfer and Siamese CBOW models are sentence encoders (:func:`save_model`); supervised ones add the
similarity head (:func:`save_scorer`); a PWIM model holds its own network (:func:`save_pwim`).
"""

from __future__ import annotations

import torch

from paraphrastic.atomic import atomic_path
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.models.encoders import SentenceEncoder, build_model
from paraphrastic.models.heads import PairScorer, SimilarityHead


def _write(path, payload: dict) -> None:
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)


def _weights(model: torch.nn.Module) -> dict:
    return {k: v.cpu() for k, v in model.state_dict().items()}


def save_model(path, model: SentenceEncoder, model_name: str, options: dict, vocab: Vocabulary,
               extra: dict) -> None:
    """A sentence encoder's file: architecture name and options, vocabulary, weights and ``extra``
    (the settings it was trained with and the selected epoch)."""
    _write(path, {"model": model_name, "options": options, "vocab": vocab.words, "state_dict": _weights(model),
                  **extra})


def model_from_payload(payload: dict) -> SentenceEncoder:
    """The encoder a loaded model.pt describes (its architecture, options and weights)."""
    shape = payload["state_dict"]["embedding.weight"].shape
    model = build_model(payload["model"], torch.zeros(shape), **payload["options"])
    model.load_state_dict(payload["state_dict"])
    return model


def load_model(path, device: torch.device | str = "cpu") -> tuple[SentenceEncoder, Vocabulary, dict]:
    """A transfer (or Siamese CBOW, word2vec) model.pt: its encoder on ``device``, vocabulary and payload."""
    payload = torch.load(path, map_location="cpu", weights_only=False)
    return model_from_payload(payload).to(device), Vocabulary(payload["vocab"]), payload


def save_scorer(path, model: PairScorer, model_name: str, options: dict, vocab: Vocabulary, extra: dict) -> None:
    """A supervised model's file: its encoder as :func:`save_model` writes one, and the head's shape."""
    head = model.head
    _write(path, {"model": model_name, "options": options, "vocab": vocab.words, "state_dict": _weights(model),
                  "head": {"dim": head.product.in_features, "hidden": head.product.out_features, "low": head.low,
                           "high": head.high}, **extra})


def scorer_from_payload(payload: dict) -> PairScorer:
    """The encoder and head a loaded supervised model.pt describes."""
    shape = payload["state_dict"]["encoder.embedding.weight"].shape
    encoder = build_model(payload["model"], torch.zeros(shape), **payload["options"])
    if payload["settings"].get("init"):
        encoder.remember_initial_compositional()  # a universal run's anchors are part of its state
    model = PairScorer(encoder, SimilarityHead(**payload["head"]))
    model.load_state_dict(payload["state_dict"])
    return model


def load_scorer(path, device="cpu") -> tuple[PairScorer, Vocabulary, dict]:
    """A supervised model.pt: encoder and head on ``device``, vocabulary and payload."""
    payload = torch.load(path, map_location="cpu", weights_only=False)
    return scorer_from_payload(payload).to(device), Vocabulary(payload["vocab"]), payload


def save_pwim(path, model: torch.nn.Module, options: dict, task: str, vocab: Vocabulary, extra: dict) -> None:
    """A PWIM model (He & Lin 2016): its options, the task it was trained on, vocabulary and weights."""
    _write(path, {"model": "pwim", "options": options, "task": task, "vocab": vocab.words, **extra,
                  "state_dict": _weights(model)})
