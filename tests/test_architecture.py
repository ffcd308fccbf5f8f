"""The package's layers run one way and its modules import each other without cycles, function-level imports
included (read from the source with the same scanner that derives the stages' code dependencies)."""

from pathlib import Path

from paraphrastic.pipeline.code_deps import SOURCE_ROOT, imports_of

PACKAGE_DIR = SOURCE_ROOT / "paraphrastic"

# Bottom to top: a module may import its own layer and the layers below it, never one above.
LAYERS = (
    # foundations: exceptions, atomic writes, device and threads, freed memory, a job's phase clock, the files shipped
    # beside the code, where each artifact lives in the data folder, what an artifact's record says it is
    ("errors", "atomic", "runtime", "allocator", "phases", "resources", "version", "layout", "provenance"),
    ("data",),  # files -> tables, vocabularies, batches
    ("models",),  # encoders, cells, heads, PWIM, model files
    ("losses",),  # objectives and penalties over model outputs
    ("configuration",),  # params.yaml -> runs, jobs, settings
    ("evaluation",),  # scoring, model selection, the reference encoder
    ("encoder", "export"),  # the public API: a model.pt as an encoder, or as a sentence-transformers folder
    ("training",),  # the epoch loop and one trainer per family
    ("analysis",),  # gate and error analyses
    ("report", "model_card"),  # the document and its sections; the static model's card
    ("pipeline",),  # the stage graph, its code deps, one step per stage
    ("cli", "__main__", "__init__"),  # the command line and the package's lazy entry point
)
LAYER_OF = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}


def modules() -> list[str]:
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(SOURCE_ROOT).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_belongs_to_a_layer():
    assert {unit(m) for m in modules()} <= set(LAYER_OF), sorted({unit(m) for m in modules()} - set(LAYER_OF))


def test_layers_depend_only_on_layers_below():
    upward = [f"{m} imports {i}" for m in modules() for i in imports_of(m)
              if LAYER_OF[unit(i)] > LAYER_OF[unit(m)]]
    assert not upward, "\n".join(upward)


def test_no_import_cycles_even_through_function_level_imports():
    graph = {m: [i for i in imports_of(m) if i != m] for m in modules()}
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in graph.get(module, []):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in graph:
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(cycles)


def test_subpackage_inits_import_nothing():
    """Importing any module runs its packages' __init__.py: they stay empty, so closures stay precise."""
    for init in PACKAGE_DIR.rglob("__init__.py"):
        if init.parent != PACKAGE_DIR:
            module = ".".join(init.parent.relative_to(SOURCE_ROOT).parts)
            assert not imports_of(module), init


def test_the_scanner_sees_the_cycle_this_test_exists_for(tmp_path):
    """The check above can fail: two modules importing each other inside functions form a cycle."""
    pkg = tmp_path / "paraphrastic"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from paraphrastic import b\n")
    (pkg / "b.py").write_text("def g():\n    from paraphrastic.a import f\n")
    imports_of.cache_clear()
    try:
        assert imports_of("paraphrastic.a", tmp_path) == ("paraphrastic.b",)
        assert imports_of("paraphrastic.b", tmp_path) == ("paraphrastic.a",)
    finally:
        imports_of.cache_clear()


def test_the_package_folder_is_this_checkouts():
    assert PACKAGE_DIR == Path(__file__).resolve().parents[1] / "src" / "paraphrastic"
