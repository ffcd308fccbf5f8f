"""stanza-models: the Stanza tagger, lemmatizer and parser of the gate analysis, trained offline on the
profile's UD English EWT files (or taken pretrained), with their dev scores."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.analysis.stanza_models import build
from paraphrastic.experiments.config import profile


def run(config: dict, *, raw, out_dir, threads=None) -> None:
    prof, settings = profile(config), config["gates"]["stanza"]
    raw = Path(raw)
    vectors = raw / prof["embeddings"] if settings["word_vectors"] == "embeddings" else None
    summary = build(settings, train_file=raw / prof["treebank"]["train"], dev_file=raw / prof["treebank"]["dev"],
                    out_dir=Path(out_dir), threads=threads or 1, word_vectors=vectors)
    dev = summary["dev"]
    print(f"Stanza models ({summary['source']}): dev UPOS {dev['upos']:.1f}, XPOS {dev['xpos']:.1f}, "
          f"LAS {dev['las']:.1f} on {dev['sentences']} sentences")
