"""Files the package ships beside its code: the params.yaml schema, the sources manifest and the two configs.

In a checkout (and an editable install) they are the repository's own files. A built wheel holds copies,
which setup.py's build step puts in ``paraphrastic/_resources/`` under the same relative paths, so the
installed command finds them from any directory.
"""

from __future__ import annotations

from pathlib import Path

SCHEMA = "workflow/schemas/params.schema.yaml"
MANIFEST = "workflow/sources.yaml"
DEFAULT_PARAMS = "params.yaml"
TINY_PARAMS = "params.test.yaml"
SHIPPED = (SCHEMA, MANIFEST, DEFAULT_PARAMS, TINY_PARAMS)  # what setup.py copies into a wheel

PACKAGED = Path(__file__).resolve().parent / "_resources"
CHECKOUT = Path(__file__).resolve().parents[2]


def find(name: str) -> Path:
    """The shipped file ``name`` (one of :data:`SHIPPED`): the wheel's copy, else the checkout's. Where
    neither exists, the path relative to the working directory, so that opening it names what is missing."""
    for root in (PACKAGED, CHECKOUT):
        if (root / name).is_file():
            return root / name
    return Path(name)
