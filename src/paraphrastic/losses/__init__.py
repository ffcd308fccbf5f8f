"""Losses: the margin objective with in-batch negatives, the KL loss of the supervised heads, regularisers."""
