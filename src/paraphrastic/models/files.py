"""Model files (model.pt): one self-contained file per trained model, holding its architecture name and
options, its vocabulary, its weights and the settings it was trained with.

Transfer and Siamese CBOW models are sentence encoders (:func:`save_model`); supervised ones add the
similarity head (:func:`save_scorer`); a PWIM model holds its own network (:func:`save_pwim`).

Every torch file the package reads (model files and training checkpoints) goes through
:func:`read_payload`: ``torch.load(weights_only=True)``, which unpickles tensors and plain values only, so
a crafted file's pickled code never runs; whatever is wrong with a file is one :class:`PipelineError`
naming it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path

import torch

from paraphrastic.atomic import atomic_path
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.models.encoders import SentenceEncoder, build_model, load_weights
from paraphrastic.models.heads import PairScorer, SimilarityHead
from paraphrastic.provenance import RECORD, check_against_record, check_role, identity

# What the weights-only unpickler names when it refuses a file: the global (a function or class, e.g.
# posix.system; "Unsupported class" in torch < 2.4) or the pickle opcode it would have needed.
JOB_RECORD = "train.json"  # a training job's result beside its model.pt, which records the file's sha256
_REFUSED = re.compile(r"(?:unsupported GLOBAL|Unsupported global: GLOBAL|Unsupported class) ([\w.]+)"
                      r"|Unsupported operand (\d+)", re.IGNORECASE)


def brief_error(exc: BaseException, limit: int = 300) -> str:
    """An exception as one short line: its type and the start of its message."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:limit]}{'...' if len(text) > limit else ''}" if text else type(exc).__name__


def _plain_error(path, reason: str) -> PipelineError:
    return PipelineError(f"{path}: {reason}")


def read_payload(path, kind: str = "model file",
                 error: Callable[[Path, str], Exception] = _plain_error) -> object:
    """What the torch file ``path`` holds, read with ``weights_only=True``: tensors and plain values
    (dicts, lists, tuples, str, int, float, bool, None), never pickled code or other objects.

    A missing, empty, truncated or foreign file, or one holding pickled objects (a crafted file that would
    run code when unpickled), raises ``error(path, reason)``: by default a :class:`PipelineError` naming
    ``path`` (a ``kind``) and what is wrong with it, never a raw torch or pickle error.
    """
    path = Path(path)
    if not path.exists():
        raise error(path, f"no such {kind}")
    if not path.is_file():
        raise error(path, f"not a file, so not a {kind}")
    if path.stat().st_size == 0:
        raise error(path, f"empty file (0 bytes), not a {kind}: cut short when it was written or copied")
    try:
        with warnings.catch_warnings():  # e.g. torch's note on the pickle protocol: the error below says it all
            warnings.simplefilter("ignore")
            return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        # from None below: torch's own message advises weights_only=False, i.e. running the file's code
        refused = _REFUSED.search(str(exc))
        if refused is not None and refused.group(2):  # garbage, or a pickle not written by torch.save
            raise error(path, f"not a readable {kind}: not written by torch.save (pickle opcode {refused.group(2)}, "
                              "which it never writes: damaged, or a foreign or crafted file); nothing in it was "
                              "run") from None
        if refused is not None:
            hint = " (older versions' checkpoints held numpy arrays)" if kind == "checkpoint" else ""
            raise error(path, f"refused: it holds pickled code or objects other than tensors and plain values "
                              f"({refused.group(1)}), which no {kind} of this version holds"
                              f"{hint}; nothing in it was run") from None
        raise error(path, f"not a readable {kind}: truncated, damaged or not written by torch.save "
                          f"({brief_error(exc, 160).split('. ')[0]})") from exc


def read_model_file(path) -> dict:
    """A model.pt's payload (:func:`read_payload`), checked to be one of ours: its architecture name and
    options, vocabulary and weights, and (in the data folder) its role: one written as another run's model is an
    error naming both."""
    payload = read_payload(path, "model file")
    if not (isinstance(payload, dict) and isinstance(payload.get("model"), str)
            and isinstance(payload.get("options", {}), dict) and isinstance(payload.get("vocab"), list)
            and isinstance(payload.get("state_dict"), dict)):
        raise PipelineError(f"{path}: not a paraphrastic model file (a torch file, but not a model.pt written by "
                            "`train`, `train-supervised` or `train-siamese`: no model name, options, vocab and "
                            "state_dict)")
    check_role(path, payload.get(RECORD) or {})
    # a job's model.pt is held to the sha256 its train.json records: one changed in place (two vocabulary entries
    # swapped and saved again) stops whatever reads it, naming the file and the stage that wrote it
    check_against_record(path, JOB_RECORD)
    return payload


def model_of(path, payload: dict, build: Callable[[dict], torch.nn.Module]) -> tuple[torch.nn.Module, Vocabulary]:
    """``build(payload)`` (:func:`model_from_payload` or :func:`scorer_from_payload`) and the payload's
    vocabulary; a payload whose weights do not fit the model it names is a :class:`PipelineError` naming
    ``path``."""
    name, options = payload["model"], payload.get("options")
    if name == "pwim":
        raise PipelineError(f"{path}: a PWIM model (it scores sentence pairs), not a sentence encoder")
    try:
        model = build(payload)
        vocab = Vocabulary(payload["vocab"])
        encoder = getattr(model, "encoder", model)
        rows = encoder.embedding.num_embeddings
        if rows != len(vocab):
            raise ValueError(f"{len(vocab)} vocabulary words but {rows} embedding rows")
    except Exception as exc:
        raise PipelineError(f"{path}: its contents do not fit the model it names ({name!r}, options {options}): "
                            f"{brief_error(exc)}") from exc
    return model, vocab


def _write(path, payload: dict) -> None:
    # its role (the path it is written to, relative to the data folder): a model copied over another run's stops
    # the job that loads it (read_model_file)
    payload = {**payload, RECORD: identity(path)}
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
    load_weights(model, payload["state_dict"])
    return model


def load_model(path, device: torch.device | str = "cpu") -> tuple[SentenceEncoder, Vocabulary, dict]:
    """A transfer (or Siamese CBOW, word2vec) model.pt: its encoder on ``device``, vocabulary and payload."""
    payload = read_model_file(path)
    if "head" in payload:
        raise PipelineError(f"{path}: a supervised model file (encoder and similarity head), not a sentence "
                            "encoder's; it loads with load_scorer or paraphrastic.load")
    model, vocab = model_of(path, payload, model_from_payload)
    return model.to(device), vocab, payload


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
    model = PairScorer(encoder, SimilarityHead(**payload["head"]))
    load_weights(model, payload["state_dict"])
    return model


def load_scorer(path, device="cpu") -> tuple[PairScorer, Vocabulary, dict]:
    """A supervised model.pt: encoder and head on ``device``, vocabulary and payload."""
    payload = read_model_file(path)
    if not isinstance(payload.get("head"), dict):
        raise PipelineError(f"{path}: not a supervised model file (it has no similarity head; "
                            "a transfer model's file loads with load_model)")
    model, vocab = model_of(path, payload, scorer_from_payload)
    return model.to(device), vocab, payload


def save_pwim(path, model: torch.nn.Module, options: dict, task: str, vocab: Vocabulary, extra: dict) -> None:
    """A PWIM model (He & Lin 2016): its options, the task it was trained on, vocabulary and weights."""
    _write(path, {"model": "pwim", "options": options, "task": task, "vocab": vocab.words, **extra,
                  "state_dict": _weights(model)})
