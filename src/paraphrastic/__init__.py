"""Paraphrastic sentence embeddings (Wieting & Gimpel, ACL 2017) as an importable library.

Every Snakemake rule and DVC stage is a thin call into :mod:`paraphrastic.cli`; nothing here
imports Snakemake or DVC.
"""

__version__ = "0.1.0"
