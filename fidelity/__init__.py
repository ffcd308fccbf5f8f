"""The differential harness against the authors' own code (jwieting/acl2017, Theano + Lasagne, Python 2).

The project never vendors their code: the harness takes a local checkout of it. ``convert`` writes the project's
data in the formats their ``train.py`` and ``evaluate.py`` read (tests/benchmarks/test_authors_code.py).
"""

import sys
from pathlib import Path

# Imported first by every script here (run as ``python fidelity/NAME.py``): the library's src/ (a checkout without an
# install) and benchmarks/ (measured.py, which records the commit and writes the tables) on the path.
REPO = Path(__file__).resolve().parents[1]
for _folder in (REPO / "benchmarks", REPO / "src"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
