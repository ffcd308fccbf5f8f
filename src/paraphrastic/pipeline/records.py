"""The JSON records one stage writes and another reads (a run's settings, scores and counts)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from paraphrastic.errors import PipelineError


def read_json(path: str | os.PathLike):
    """A JSON file a stage wrote; unreadable: an error naming it."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PipelineError(f"{path}: not readable JSON ({exc}); rerun the stage that writes it") from None
