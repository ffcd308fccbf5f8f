"""Training: the resumable epoch loop every trainer shares, and one trainer per model family."""
