"""``paraphrastic verify``: every artifact of a data folder checked by hash against its record, whatever the files'
times say, for an auditor (and after an edit that kept a raw file's size and set its time back, which neither
Snakemake's nor a stage's quick check sees).

- raw files: each against the sha256 fetch verified (``FETCHED.json``);
- tables (``.parquet``) and matrices (``.npy``): each against the record written with it (rows, sha256, role: a
  valid artifact in another's place is named), a matrix also against the file whose rows it holds (``vocab.txt``);
- results (``.json`` with a record: scores, a run's ``train.json``, counts): each against its record, a run's
  ``history.json``, ``history.csv`` and ``model.pt`` against the digests its ``train.json`` holds (a run trained
  before the last two were recorded: its history alone); a file where the stage graph puts a result that has no
  record (stripped, or another program's file) or is not JSON is named too;
- files in other programs' formats, which hold no record: each against the sha256 a record beside it holds (a
  run's ``model.pt`` and ``history.csv``, its ``train.json``; Stanza's models, ``scores.json``; the report's files,
  ``record.json``; the static model's, sentence-transformers' files, its ``paraphrastic_export.json``), where the
  record was written since it held them;
- nothing is written, and a job's checkpoints (its restart state) are left to the job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from paraphrastic.data.corpus import read_table
from paraphrastic.data.fetch import FETCHED, raw_problems
from paraphrastic.data.vocab import RECORDED, load_matrix
from paraphrastic.errors import PipelineError
from paraphrastic.layout import DataLayout
from paraphrastic.pipeline.graph import STAGES
from paraphrastic.provenance import check_result, data_folder, has_record

ONE = {"raw files": "raw file", "tables": "table", "matrices": "matrix", "results": "result",  # a kind, of one file
       "files beside a record": "file beside a record"}


@dataclass
class Verified:
    checked: dict[str, int] = field(default_factory=dict)  # files checked, by kind
    problems: list[str] = field(default_factory=list)

    def counted(self) -> str:
        """What was checked, as "71 raw files, 1 matrix, ..."."""
        return ", ".join(f"{count} {ONE.get(kind, kind) if count == 1 else kind}"
                         for kind, count in self.checked.items())


def verify(data: Path) -> Verified:
    """Every raw file, table, matrix and result under ``data`` (a checkout's ``data/``), and the files their records
    hold the digests of, checked by hash."""
    data = Path(data)
    if not data.is_dir():
        raise PipelineError(f"{data}: no such folder (the pipeline's data folder, data/ in a checkout)")
    with data_folder(data):  # roles are paths relative to it, wherever it is
        return _verify(data)


def _verify(data: Path) -> Verified:
    result = Verified()
    raw = data / "raw"
    result.problems += raw_problems(raw, by_hash=True)
    try:
        result.checked["raw files"] = len(json.loads((raw / FETCHED).read_text(encoding="utf-8")))
    except (OSError, ValueError):  # missing or unreadable: raw_problems has named it
        pass
    held = 0
    skipped = ("checkpoints", "downloads")  # a job's own restart state; fetch's partial downloads
    checks = {".parquet": read_table, ".npy": lambda path: load_matrix(path, rows_of=RECORDED), ".json": check_result}
    for kind, suffix in (("tables", ".parquet"), ("matrices", ".npy"), ("results", ".json")):
        paths = [p for p in sorted(data.rglob(f"*{suffix}"))
                 if p.is_file() and not set(skipped) & set(p.relative_to(data).parts)]
        if suffix == ".json":  # the stages' results; FETCHED.json, the report's metrics and Stanza's files have none
            paths = [p for p in paths if is_result_path(p.relative_to(data)) or has_record(p)]
        result.checked[kind] = len(paths)
        for path in paths:
            try:
                found = checks[suffix](path)
            except PipelineError as exc:
                result.problems.append(str(exc))
            else:
                if suffix == ".json":  # a result's check returns how many files its record held to their digests
                    held += found
    static = DataLayout(data).static_model
    if static.is_dir():
        from paraphrastic.export import check_export  # torch, which nothing else here needs

        result.checked["static model"] = 1
        try:
            held += check_export(static, digests_required=True)  # written with them since they were recorded
        except PipelineError as exc:
            result.problems.append(str(exc))
    if held:  # files in other formats (models, curves, Stanza's, the report's), each against a record's digest
        result.checked["files beside a record"] = held
    result.problems += missing_inputs(data)
    return result


WILDCARD = re.compile(r"\{[^}]+\}")  # a stage graph path's {wildcard}: one name in the data folder


def _pattern_text(path: str) -> str:
    """A stage graph path (``data/...``, with ``{wildcards}``) as the regex of paths relative to the data folder."""
    return "[^/]+".join(map(re.escape, WILDCARD.split(path.removeprefix("data/"))))


@cache
def _pattern(path: str) -> re.Pattern:
    return re.compile(_pattern_text(path))


def writer_of(relative: str) -> str | None:
    """The stage that writes ``relative`` (a path in the data folder), or None."""
    return next((stage.name for stage in STAGES.values() for out in stage.outs.values()
                 if _pattern(out.path).fullmatch(relative)), None)


def _rerun(stage: str | None) -> str:
    if stage is None:
        return "rerun the stage that writes it"
    return f"rerun {stage} (snakemake --forcerun {stage}, or dvc repro --force {stage})"


def missing_inputs(data: Path) -> list[str]:
    """Each file a stage reads that is missing while an output that stage built from it is there, named with that
    output and the stage that writes the file: Snakemake plans nothing for a missing intermediate whose readers are
    done, so only this check sees it. A stage's inputs are its file deps in the graph (a folder it reads, such as
    the report's data/results, is not one of them); the report's own inputs are those its record lists
    (``built_from``: every file of the folders it read, as they were when it was written)."""
    problems = []
    files = {out.path for stage in STAGES.values() for out in stage.outs.values()
             if "{" not in out.path and Path(out.path).suffix}
    for stage in STAGES.values():
        deps = [dep for dep in stage.deps if dep in files]
        if not deps:
            continue
        built = next((hit for out in stage.outs.values() if out.path.startswith("data/")
                      for hit in _present(data, out.path)), None)
        if built is None:
            continue
        for dep in deps:
            if not (data / dep.removeprefix("data/")).exists():
                problems.append(f"{dep}: missing, though data/{built} ({stage.name}'s output, built from it) is "
                                f"there; {_rerun(writer_of(dep.removeprefix('data/')))}")
    record_path = STAGES["report"].outs["record"].path
    record = data / record_path.removeprefix("data/")
    try:
        built_from = json.loads(record.read_text(encoding="utf-8")).get("built_from", [])
    except (OSError, ValueError, AttributeError):  # missing or unreadable: the results' check names it
        built_from = []
    named = {problem.split(":", 1)[0] for problem in problems}
    for relative in built_from:
        if f"data/{relative}" not in named and not (data / relative).exists():
            problems.append(f"data/{relative}: missing, though the report ({record_path}) was built from it; "
                            f"{_rerun(writer_of(relative))}")
    return problems


def _present(data: Path, path: str):
    """The paths (relative to ``data``) of the files a graph path with wildcards names that exist."""
    relative = path.removeprefix("data/")
    if "{" not in relative:
        if (data / relative).exists():
            yield relative
        return
    pattern = _pattern(path)
    for found in data.glob(WILDCARD.sub("*", relative)):
        if pattern.fullmatch(found.relative_to(data).as_posix()):
            yield found.relative_to(data).as_posix()


@cache
def _result_paths() -> re.Pattern:
    """Where the stage graph puts a recorded JSON result, relative to the data folder (a wildcard is one name)."""
    return re.compile("|".join(_pattern_text(out.path) for stage in STAGES.values() for out in stage.outs.values()
                               if out.path.endswith(".json") and out.recorded))


def is_result_path(relative: Path) -> bool:
    """Whether a stage writes a recorded JSON result at ``relative`` (a path in the data folder)."""
    return _result_paths().fullmatch(relative.as_posix()) is not None
