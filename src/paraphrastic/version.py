"""The package's version, single-sourced here: pyproject.toml reads it, ``paraphrastic --version`` prints it, an
export records it. A foundation module, so any layer may import it (``paraphrastic`` itself is the top)."""

__version__ = "0.2.0.dev0"  # the next release (CHANGELOG.md "Unreleased"); 0.1.0 is tag v0.1.0
