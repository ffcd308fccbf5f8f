"""The papers' result tables: the CSVs in the folder the setting ``paper_tables`` names, which the report and the
gate analysis put beside our numbers."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.errors import PipelineError


def paper_table_path(config: dict, name: str) -> Path:
    """The papers' result table ``name`` (``wieting2017_table4.csv``): a missing one is an error naming the setting,
    never a report whose paper columns are quietly empty."""
    folder = Path(config["paper_tables"])
    path = folder / name
    if not path.is_file():
        read_from = "" if folder.is_absolute() else f", read from {Path.cwd()}"
        raise PipelineError(f"{path}: no such file: the setting `paper_tables` ({folder}{read_from}) must name the "
                            "folder of the papers' result tables (papers/tables in the shared folder beside the "
                            "checkout)")
    return path
