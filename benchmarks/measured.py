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


def publish(out: Path, result, text: str) -> None:
    """``result`` written to ``out``.json and its table ``text`` to ``out``.md (each whole or not at all; ``out``
    may end in either already), and the table printed as it is written."""
    out = Path(out)
    stem = out.with_suffix("") if out.suffix in (".json", ".md") else out  # a name with a dot keeps it
    write_json(stem.parent / f"{stem.name}.json", result)
    write_text(stem.parent / f"{stem.name}.md", text)
    print(text, end="" if text.endswith("\n") else "\n")
