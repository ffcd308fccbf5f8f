"""Everything params.yaml sets, checked before any job starts: the schema (:mod:`.config`), then what a schema
cannot say. Every job's settings are built (:mod:`.settings` checks each run, grid point and supervised row
against its family's definition), thinning names axes some grid searches, and every key that names a row
elsewhere in the config names one that exists. Snakemake runs this while it parses, ``paraphrastic grids``
prints it, and dvc.yaml's first stage runs it, so `dvc repro` stops before it removes any stage's outputs.
"""

from __future__ import annotations

from paraphrastic.configuration import settings
from paraphrastic.configuration.jobs import JobTables
from paraphrastic.errors import PipelineError


def _axes(rows: list[dict]) -> set[str]:
    """The keys thinning can name: an axis of plain values, and the keys a dict-valued axis sets (thinning
    looks inside those values; see grids.row_points)."""
    keys = set()
    for row in rows:
        for axis, values in (row.get("search") or {}).items():
            keys.update(k for v in values if isinstance(v, dict) for k in v)
            if any(not isinstance(v, dict) for v in values):
                keys.add(axis)
    return keys


def _check_thinning(thinning: dict | None, rows: list[dict], where: str) -> None:
    axes = _axes(rows)
    for profile, keep in (thinning or {}).items():
        unknown = sorted(set(keep or {}) - axes)
        if unknown:
            raise PipelineError(f"{where}.{profile}: {unknown} is not a search axis of any grid row "
                                f"(axes: {sorted(axes)})")


def _references(config: dict) -> list[tuple[str, str, bool]]:
    """(config key, the row it names, whether that is a supervised row) for every row reference."""
    report, sup = config["report"], config["supervised"]["report"]
    refs = [("gates.gran_row", config["gates"]["gran_row"], False)]
    refs += [(f"error_analysis.rows.{k}", v, False) for k, v in config["error_analysis"]["rows"].items()]
    refs += [(f"report.table1.{data}.{col}", row, False) for data, cols in report["table1"].items()
             for col, row in cols.items()]
    refs += [(f"report.table4.{k}", v, False) for k, v in report["table4"].items()]
    refs += [(f"report.{table}", row, False) for table in ("table2", "table3") for row in report.get(table) or []]
    refs += [(f"supervised.report.{table}", row, True) for table in ("table5", "table6") for row in sup[table]]
    refs += [("supervised.report.table8", row, True) for pair in sup["table8"] for row in pair]
    return refs


def check(config: dict, tables: JobTables | None = None) -> JobTables:
    """Raise a :class:`PipelineError` naming the run or key at fault, or return the config's job tables."""
    _check_thinning(config.get("grid_thinning"), config.get("grids") or [], "grid_thinning")
    _check_thinning((config.get("word_vectors") or {}).get("distilled_thinning"), config.get("grids") or [],
                    "word_vectors.distilled_thinning")
    _check_thinning(config["supervised"].get("thinning"), config["supervised"].get("grids") or [],
                    "supervised.thinning")
    split = config["supervised"]["split"]
    if split["train"] + split["validation"] >= 1:
        raise PipelineError(f"supervised.split: train {split['train']} + validation {split['validation']} leave no "
                            "test split (the rest of each set is its test split): make their sum less than 1")
    tables = JobTables.of(config) if tables is None else tables
    for key, row, supervised in _references(config):
        if row not in (tables.supervised_rows if supervised else tables.rows):
            kind = "supervised grid row" if supervised else "experiment or grid row"
            raise PipelineError(f"{key}: no {kind} named {row!r} in params")
    for job in tables.jobs.values():
        settings.experiment(config, job["run"], tables.runs, job["seed"])
    for name, run in tables.supervised_runs.items():
        # A universal run's encoder keeps its transfer model's vocabulary, and supervised jobs read data/vocab.
        init = run.get("init")
        other = {tables.runs[r].get("word_vectors", "pretrained") for r in tables.rows.get(init, ())} - {"pretrained"}
        if init and other:
            raise PipelineError(f"supervised run {name!r}: its init row {init!r} trains on the {sorted(other)[0]} "
                                "word vectors; universal runs start from rows on the pretrained vectors")
    for job in tables.supervised_jobs.values():
        settings.supervised_experiment(config, job["run"], job["task"], job["seed"], tables.supervised_runs,
                                       transfer_rows=tables.rows)
    for name in tables.siamese_jobs:
        settings.siamese_experiment(config, name)
    for job in tables.pwim_jobs.values():
        settings.pwim_experiment(config, job["run"], job["task"])
    return tables
