"""stanza-models: the Stanza tagger, lemmatizer and parser of the gate analysis, trained offline on the
profile's UD English EWT files (or taken pretrained), with their dev scores; with ``compared``, the second
models of the parser comparison."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import profile, stanza_settings
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.transformer_folders import transformer_folder
from paraphrastic.training.stanza import build


def run(config: dict, *, raw, out_dir, checkpoints=None, compared=False) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    prof, settings = profile(config), stanza_settings(config, compared)
    raw = Path(raw)
    vectors = raw / prof["embeddings"] if settings["word_vectors"] == "embeddings" else None
    transformer = None
    if settings["transformer"] and not (settings["pretrained"] or settings["download"]):
        section = "stanza_compared" if compared and "transformer" in config["gates"]["stanza_compared"] else "stanza"
        transformer = transformer_folder(settings["transformer"], where=f"gates.{section}.transformer")
    summary = build(settings, train_file=raw / prof["treebank"]["train"], dev_file=raw / prof["treebank"]["dev"],
                    out_dir=Path(out_dir), threads=settings["threads"], word_vectors=vectors, transformer=transformer,
                    stage="stanza_models_compared" if compared else "stanza_models", checkpoints=checkpoints)
    dev = summary["dev"]
    print(f"Stanza models ({summary['source']}): dev UPOS {dev['upos']:.1f}, XPOS {dev['xpos']:.1f}, "
          f"LAS {dev['las']:.1f} on {dev['sentences']} sentences")
