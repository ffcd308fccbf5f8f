"""The docs' table of fault categories (docs/faults.md) counts the test cases each category has (marked
`fault(category)`)."""

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import FAULT_COUNTS

REPO = Path(__file__).resolve().parents[1]


def readme_table() -> dict[str, int]:
    text = (REPO / "docs/faults.md").read_text()
    table = text.split("<!-- fault table -->")[1].split("<!-- /fault table -->")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| ([^|]+?) \|.*\| (\d+) \|$", table, re.M)}


def collected_counts(session, tmp_path) -> dict[str, int]:
    """The fault cases of every test module: from this session where it collected them all (the whole suite, as CI
    runs it, on every xdist worker), else from a collection of its own (half a minute)."""
    modules = {path.resolve() for path in (REPO / "tests").rglob("test_*.py")}
    if modules <= {Path(item.path).resolve() for item in session.items}:
        return dict(collections.Counter(m.args[0] for item in session.items for m in item.iter_markers("fault")))
    counts = tmp_path / "counts.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
                          cwd=REPO, env=dict(os.environ, **{FAULT_COUNTS: str(counts)}), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(counts.read_text())


def test_the_readme_fault_table_counts_the_tests(request, tmp_path):
    assert readme_table() == collected_counts(request.session, tmp_path), \
        "update the fault table of docs/faults.md to these counts"
