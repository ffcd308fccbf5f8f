"""The pipeline: the one stage graph that Snakemake's rules and dvc.yaml are built from."""
