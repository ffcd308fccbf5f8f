"""Evaluation: cosine scoring on the STS sets, model selection within a table row, the reference encoder."""
