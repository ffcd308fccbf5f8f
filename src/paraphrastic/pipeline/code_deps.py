"""A stage's code dependencies, derived from the source: the import closure of the module that implements it.

Both engines rerun a stage when a file of its closure changes (the Snakemake rules take their digest as a param;
under DVC each stage depends on its listing of them, with their sha256, which the ``code_digests`` stage writes), so
an edit can never leave a stale result behind, and editing a module no stage imports (the report's captions, say)
reruns nothing it does not feed.

What counts as imported, read with :mod:`ast` (nothing is executed):

- every ``import`` and ``from ... import`` of a ``paraphrastic`` module, at module level or inside a function
  (a function-level import runs whenever the stage calls that function);
- ``from package import name`` imports ``package.name`` when that is a module, else ``package`` itself;
- importing a module runs the ``__init__.py`` of each package above it, so those files are in the closure
  too; only their module-level imports are followed, since their functions run only when something calls
  them, and a caller imports the package directly.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from pathlib import Path

from paraphrastic.atomic import sha256_file

PACKAGE = "paraphrastic"
SOURCE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the package (src/)


def module_path(module: str, root: Path = SOURCE_ROOT) -> Path | None:
    """The file of a dotted module name under ``root``: ``a/b.py`` or ``a/b/__init__.py``; None if neither."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _absolute(node: ast.ImportFrom, module: str, path: Path) -> str:
    if not node.level:
        return node.module or ""
    parts = _package_of(module, path).split(".")
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@cache
def imports_of(module: str, root: Path = SOURCE_ROOT, *, module_level_only: bool = False) -> tuple[str, ...]:
    """The ``paraphrastic`` modules ``module`` imports (see the module docstring for what counts)."""
    path = module_path(module, root)
    if path is None:
        return ()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    found: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, path)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append(submodule if module_path(submodule, root) else source)
    ours = (name for name in found if name == PACKAGE or name.startswith(PACKAGE + "."))
    return tuple(dict.fromkeys(name for name in ours if module_path(name, root)))


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def closure(modules: list[str] | tuple[str, ...], root: Path = SOURCE_ROOT, *, functions: bool = True) -> list[str]:
    """Every ``paraphrastic`` module that running ``modules`` can execute, sorted. With ``functions=False``,
    only what importing them loads (module-level imports alone)."""
    seen: set[str] = set()
    executed_packages: set[str] = set()
    pending = list(modules)
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        pending += imports_of(module, root, module_level_only=not functions)
        for package in _ancestors(module):
            if package not in seen and package not in executed_packages:
                executed_packages.add(package)
                pending += imports_of(package, root, module_level_only=True)
    return sorted(seen | executed_packages)


# Run by every stage, yet no result depends on it: the version string. A release bump must rerun nothing.
NO_RESULT = frozenset({f"{PACKAGE}.version"})


def closure_files(modules: list[str] | tuple[str, ...], root: Path = SOURCE_ROOT) -> list[Path]:
    """The source files of :func:`closure`, relative to ``root``'s parent (``src/paraphrastic/...``): a stage's
    code deps (:data:`NO_RESULT` left out)."""
    return [module_path(m, root).relative_to(root.parent) for m in closure(modules, root) if m not in NO_RESULT]


def digest(files: list[str], base: Path | str = ".") -> str:
    """sha256 over files (paths relative to ``base``), names included: a Snakemake param, so an edit
    reruns a stage whatever the files' modification times."""
    total = hashlib.sha256()
    for name in files:
        total.update(name.encode() + b"\0" + (Path(base) / name).read_bytes() + b"\0")
    return total.hexdigest()


def sha256sum(files: list[str], base: Path | str = ".") -> str:
    """``sha256sum``'s listing of files (paths relative to ``base``): a line ``<sha256>  <path>`` each, which
    ``sha256sum -c`` checks. Every file is read before anything is returned, so a missing one is an
    :class:`OSError` naming it."""
    return "".join(f"{sha256_file(Path(base) / name)}  {name}\n" for name in files)
