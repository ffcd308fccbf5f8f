"""What every benchmark writes beside its measurements: the commit of the code measured, and the result itself as
``NAME.json`` (for scripts and tests) and ``NAME.md`` (the table ``pages/readme.py`` puts on the pages)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from paraphrastic.atomic import write_json, write_text  # noqa: E402


def commit() -> str | None:
    """The commit of the code measured (``+`` where the working tree's code differs from it: results and docs, which
    the measurements themselves rewrite, do not count), or None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":(exclude)benchmarks/results", ":(exclude)docs"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")


def published(out: Path, suffix: str) -> Path:
    """Where :func:`publish` writes ``out``'s ``.json`` or ``.md`` (``out`` may end in either already; a name with
    another dot keeps it): what a script reads back as its earlier result."""
    out = Path(out)
    stem = out.with_suffix("") if out.suffix in (".json", ".md") else out
    return stem.parent / f"{stem.name}{suffix}"


def publish(out: Path, result, text: str) -> None:
    """``result`` written to ``out``.json and its table ``text`` to ``out``.md (each whole or not at all; ``out``
    may end in either already), and the table printed as it is written."""
    write_json(published(out, ".json"), result)
    write_text(published(out, ".md"), text)
    print(text, end="" if text.endswith("\n") else "\n")
