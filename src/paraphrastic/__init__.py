"""Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017) as an importable library.

Every Snakemake rule and DVC stage runs ``python -m paraphrastic <command>``: the command line
(:mod:`paraphrastic.cli`) calls the stage's module in :mod:`paraphrastic.pipeline.steps`. Nothing here
imports Snakemake or DVC.
"""

from paraphrastic.version import __version__  # noqa: F401 (paraphrastic.__version__)


def load(path, device: str = "auto", batch_size: int = 256):
    """A trained model.pt as an encoder: ``paraphrastic.load(path).encode(["a sentence", ...])``."""
    from paraphrastic.encoder import load as load_encoder

    return load_encoder(path, device=device, batch_size=batch_size)
