"""Models: the sentence encoders of both papers, their recurrent cells, PWIM, and model files."""
