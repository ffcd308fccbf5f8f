"""A stage's code dependencies are derived from the source: the import closure of its step module."""

from pathlib import Path

import pytest

from paraphrastic.pipeline import code_deps
from paraphrastic.pipeline.code_deps import closure, closure_files, digest, imports_of
from paraphrastic.pipeline.graph import STAGES, code_digest, code_paths

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def package(tmp_path):
    """A small `paraphrastic` package: every way of importing the closure must follow."""
    files = {
        "__init__.py": "def load():\n    from paraphrastic.api import thing\n    return thing\n",
        "api.py": "thing = 1\n",
        "base.py": "import json\n",
        "data/__init__.py": "",
        "data/tables.py": "from paraphrastic import base\n",
        "data/unused.py": "",
        "models/__init__.py": "from paraphrastic.models import registry\n",
        "models/registry.py": "",
        "models/encoders.py": "from ..data.tables import x\nfrom . import registry\n",
        "steps/__init__.py": "",
        "steps/train.py": "import numpy\nfrom paraphrastic.models.encoders import build\n\n\n"
                          "def run():\n    from paraphrastic.report import sections\n",
        "report/__init__.py": "",
        "report/sections.py": "",
    }
    root = tmp_path / "src"
    for name, text in files.items():
        path = root / "paraphrastic" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    imports_of.cache_clear()
    yield root
    imports_of.cache_clear()


def test_closure_follows_every_kind_of_import(package):
    found = closure(["paraphrastic.steps.train"], package)
    assert "paraphrastic.models.encoders" in found  # absolute
    assert "paraphrastic.data.tables" in found  # relative, `from ..data.tables import x`
    assert "paraphrastic.models.registry" in found  # `from . import registry`: a submodule
    assert "paraphrastic.base" in found  # `from paraphrastic import base`
    assert "paraphrastic.report.sections" in found  # imported inside a function: it runs when the step runs
    assert "paraphrastic.data.unused" not in found and "numpy" not in found and "json" not in found


def test_packages_above_a_module_run_but_only_their_module_level_imports_count(package):
    found = closure(["paraphrastic.steps.train"], package)
    assert {"paraphrastic", "paraphrastic.steps", "paraphrastic.models", "paraphrastic.data"} <= set(found)
    # paraphrastic/__init__.py runs, but its load() is never called by the step: its import is not followed
    assert "paraphrastic.api" not in found
    # a caller that imports the package itself may call load(): then it counts
    assert "paraphrastic.api" in closure(["paraphrastic"], package)


def test_closure_without_functions_is_what_importing_loads(package):
    found = closure(["paraphrastic.steps.train"], package, functions=False)
    assert "paraphrastic.report.sections" not in found and "paraphrastic.models.encoders" in found


def test_files_and_digest(package):
    files = [p.as_posix() for p in closure_files(["paraphrastic.data.tables"], package)]
    assert files == ["src/paraphrastic/__init__.py", "src/paraphrastic/base.py", "src/paraphrastic/data/__init__.py",
                     "src/paraphrastic/data/tables.py"]
    before = digest(files, package.parent)
    (package / "paraphrastic/base.py").write_text("import os\n")
    assert digest(files, package.parent) != before


def test_every_stage_runs_its_step_and_nothing_of_the_report_unless_it_is_the_report():
    for name, stage in STAGES.items():
        paths = code_paths(name)
        assert f"src/{stage.step.replace('.', '/')}.py" in paths, name
        assert all((REPO / p).is_file() for p in paths), name
        if name != "report":
            # editing a report caption reruns nothing but the report
            assert not any(p.startswith("src/paraphrastic/report/") for p in paths), name
        # the CLI only parses arguments: editing its help text reruns nothing
        assert not any(p.startswith("src/paraphrastic/cli/") for p in paths), name


def test_stages_depend_on_what_they_run_and_not_on_their_neighbours():
    train = set(code_paths("train"))
    assert {"src/paraphrastic/training/transfer.py", "src/paraphrastic/losses/margin.py",
            "src/paraphrastic/data/batching.py", "src/paraphrastic/models/recurrent.py"} <= train
    # neither the other families' trainers nor model selection feed a transfer job
    assert not train & {"src/paraphrastic/training/pwim.py", "src/paraphrastic/training/supervised.py",
                        "src/paraphrastic/evaluation/selection.py", "src/paraphrastic/models/pwim.py"}
    # universal jobs check the model their row's record names (selection's code); plain supervised jobs do not
    assert "src/paraphrastic/evaluation/selection.py" in code_paths("train_universal")
    assert "src/paraphrastic/evaluation/selection.py" not in code_paths("train_supervised")
    # every stage runs the version module (paraphrastic/__init__.py imports it), but a release bump reruns none
    assert "src/paraphrastic/__init__.py" in train and not [s for s in STAGES if "src/paraphrastic/version.py"
                                                            in code_paths(s)]
    assert "src/paraphrastic/data/fetch.py" in code_paths("fetch") and "src/paraphrastic/data/fetch.py" not in train
    # fetching depends on the manifest's reader and the lists of files, not on how the files are read or tokenised
    assert not set(code_paths("fetch")) & {"src/paraphrastic/data/tokenize.py", "src/paraphrastic/data/readers.py",
                                           "src/paraphrastic/data/vocab.py", "src/paraphrastic/data/corpus.py"}


def test_no_stage_loads_nltk_before_it_tokenises():
    """NLTK (with what it imports) is about a second of a job's start-up: the stages that read tokens never load it,
    and those that tokenise raw text import the tokeniser in the function that tokenises."""
    loads = {name for name, stage in STAGES.items()
             if "paraphrastic.data.tokenize" in closure([stage.step], functions=False)}
    assert not loads, loads
    assert "src/paraphrastic/data/tokenize.py" in code_paths("prepare_eval")  # through a function-level import


def test_code_digest_follows_the_source(tmp_path):
    for path in code_paths("match"):
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((REPO / path).read_text())
    assert code_digest("match", tmp_path) == code_digest("match", REPO)
    (tmp_path / "src/paraphrastic/data/corpus.py").write_text("x = 2\n")
    assert code_digest("match", tmp_path) != code_digest("match", REPO)


def test_source_root_is_this_checkouts_src():
    assert code_deps.SOURCE_ROOT == REPO / "src"
