"""Stanza's training entry points, one after another in one process:
``python -m paraphrastic.training.stanza_trainers PLAN.json``.

Each of Stanza's trainers (``stanza.models.tagger``, ``.lemmatizer``, ``.parser``) is a command of its own, and
each command imports Stanza, torch and transformers first: about 7 s on a CPU, more than a small model's
training. Run here in one process, the trainers share that import. Each trainer's ``main`` seeds its own random
generators from its arguments, so a trainer run after another trains the model it trains alone.

PLAN.json is a list of ``{"module": ..., "args": [...]}``. Before each trainer a line ``BEGIN<module>`` goes to
stdout, so that the caller (:func:`paraphrastic.training.stanza.run_stanza`) can give each trainer's
output a log of its own.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from paraphrastic.allocator import keep_freed_memory

BEGIN = "@@paraphrastic.stanza_trainers: "


def main(argv: list[str] | None = None) -> None:
    keep_freed_memory()  # the trainers' own process (see the function): bit-identical models, ~10% faster
    (plan,) = sys.argv[1:] if argv is None else argv
    for step in json.loads(Path(plan).read_text(encoding="utf-8")):
        print(f"{BEGIN}{step['module']}", flush=True)
        importlib.import_module(step["module"]).main(step["args"])
        sys.stdout.flush()
        sys.stderr.flush()


if __name__ == "__main__":
    main()
