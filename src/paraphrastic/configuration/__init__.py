"""Experiments: params.yaml, the paper's tuning grids, and the runs and jobs they expand to."""
