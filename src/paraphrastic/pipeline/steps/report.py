"""report: our numbers beside the papers' tables, as data/report/report.md and a self-contained report.html,
with metrics.json (every row's score: what `dvc metrics diff` compares), timings.json (what the hardware
measured), runs.csv (every transfer job) and record.json (the sha256 of each of the report's files, which carry no
record of their own: metrics.json is DVC's to read; `verify` checks them)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.atomic import sha256_file
from paraphrastic.errors import PipelineError
from paraphrastic.pipeline.graph import STAGES
from paraphrastic.provenance import recorded_files, write_result
from paraphrastic.report.build import build_report

RECORD_OUTPUT = "record"  # the report stage's output that records the others


def run(config: dict, *, data_dir, out_dir) -> None:
    out_dir = Path(out_dir)
    outs = STAGES["report"].outs
    written = tuple(sorted(Path(out.path).name for name, out in outs.items() if name != RECORD_OUTPUT))
    record = out_dir / Path(outs[RECORD_OUTPUT].path).name
    refuse_replacing_foreign_files(out_dir, record, written)
    data_dir = Path(data_dir)
    path = build_report(config, data_dir=data_dir, out_dir=out_dir)
    write_result(record, {"files": list(written), "built_from": built_from(data_dir)}, stage="report", files=written)
    print(f"report written to {path}")


def built_from(data_dir: Path) -> list[str]:
    """The files the report read, as paths in the data folder: its file deps and every file of the folders it
    reads (data/results, data/models, ...), so that `paraphrastic verify` names each one later found missing
    (Snakemake plans nothing for a missing intermediate whose readers are done)."""
    found = set()
    for dep in STAGES["report"].deps:
        path = data_dir / dep.removeprefix("data/")
        if path.is_file():
            found.add(dep.removeprefix("data/"))
        elif path.is_dir():
            found.update(p.relative_to(data_dir).as_posix() for p in path.rglob("*") if p.is_file())
    return sorted(found)


def refuse_replacing_foreign_files(out_dir: Path, record: Path, written: tuple[str, ...]) -> None:
    """Before anything is written: a file of the report's names in ``out_dir`` that an earlier report did not write
    there as it is now (its ``record`` holds each file's sha256) is the user's, and is never replaced (as
    ``export`` refuses a folder that is not an earlier export). Snakemake and DVC remove a stage's outputs before
    they run it, so only a report run by hand into a folder of the user's meets this."""
    present = [name for name in written if (out_dir / name).exists()]
    if not present:
        return
    if not record.exists():
        digests, why = {}, f"no {record.name} of an earlier report beside them"
    else:
        try:
            digests, why = recorded_files(record), f"they differ from what {record} records"
        except PipelineError as exc:  # not the report's, or edited
            digests, why = {}, str(exc)
    foreign = [name for name in present if digests.get(name) != sha256_file(out_dir / name)]
    if foreign:
        raise PipelineError(f"{out_dir}: holds {', '.join(foreign)}, which the report would replace and which no "
                            f"earlier report wrote there as they are ({why}); nothing was written: give a new or "
                            "empty folder, or move those files")
