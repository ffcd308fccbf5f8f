"""What an artifact's record says it is, beside what it holds: its role and the config that wrote it; and the
records of the JSON results (:func:`write_result`, :func:`read_result`, :func:`read_with_beside`).

A table (:func:`paraphrastic.data.corpus.write_table`), a matrix (:func:`paraphrastic.data.vocab.save_matrix`) and a
result JSON carry a record of their content's sha256, so damage and edits are noticed. A valid artifact in
another's place (two outputs of one stage swapped, one stage's matrix copied over another's) passes those checks:
the record also names the artifact's **role**, its path relative to the data folder it was written to
(``corpus/ppdb_matched.parquet``), and a reader compares it with the place it reads from. The record also names
the digest of the config the job read (``params``), for an auditor: which config wrote this file.

The data folder is ``data/`` under the working directory, where Snakemake, DVC and the stage commands run (also in a
copy of the checkout: the quick look's folder, a DVC experiment's workspace), or the one ``paraphrastic verify
--data`` names. A file outside it (a test's scratch file, a copy of ``data/`` read by the report elsewhere) has no
role to check.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from paraphrastic.atomic import json_ready, sha256_file, write_json
from paraphrastic.errors import PipelineError

DATA_FOLDER = "data"
_config_digest: list[str] = []  # the digest of the config this process's stage read (the command line sets it)
_data_folder: list[Path] = []  # another data folder than the working directory's (`paraphrastic verify --data`)


def artifact_role(path: str | os.PathLike) -> str | None:
    """``path`` relative to the working directory's data folder (``corpus/eval.parquet``); None outside it. The
    folders are resolved (``data`` may be a link to a scratch disk), the file's own name is not (DVC may link it
    into its cache)."""
    where = Path(os.path.abspath(path))
    folder = _data_folder[0] if _data_folder else Path.cwd() / DATA_FOLDER
    try:
        return (where.parent.resolve() / where.name).relative_to(folder.resolve()).as_posix()
    except (ValueError, OSError):
        return None


@contextmanager
def data_folder(folder: str | os.PathLike) -> Iterator[None]:
    """Roles relative to ``folder`` within the block (a data folder read from elsewhere)."""
    _data_folder.insert(0, Path(os.path.abspath(folder)))
    try:
        yield
    finally:
        _data_folder.pop(0)


def read_under(config: dict) -> None:
    """This process's stage reads ``config``: the records it writes name its digest."""
    text = json.dumps(config, sort_keys=True, default=str)
    _config_digest[:] = [hashlib.sha256(text.encode()).hexdigest()[:16]]


def identity(path: str | os.PathLike) -> dict:
    """The record's part that says what the artifact is: its role and the config's digest (None when unknown)."""
    return {"role": artifact_role(path), "params": _config_digest[0] if _config_digest else None}


def check_role(path: str | os.PathLike, record: dict) -> None:
    """Stop when the record says the artifact at ``path`` was written as another one (a record with no role, from
    before roles or from outside a data folder, and a path outside the data folder are not checked)."""
    written, here = record.get("role"), artifact_role(path)
    if written is None or here is None or written == here:
        return
    stage = record.get("stage") or "its stage"
    raise PipelineError(f"{path}: holds what {stage} wrote as {DATA_FOLDER}/{written}, not this file: a valid "
                        f"artifact in another's place (copied, moved or swapped); rebuild it with `snakemake "
                        f"--forcerun STAGE` (or `dvc repro --force STAGE`) for the stage that writes {path}")


RECORD = "record"  # the key of a JSON result's record


def _digest(values: dict) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _sealed(values: dict, record: dict) -> str:
    """The sha256 a record holds: of the values, and of the files' digests where it holds those (so an entry
    deleted from them, or a digest rewritten to fit an edited file, is an edit of the result too)."""
    if "files" not in record:  # every record written before it held files
        return _digest(values)
    return _digest({"values": values, "files": record["files"]})


def write_result(path: str | os.PathLike, values: dict, *, stage: str | None,
                 beside: dict[str, object] | None = None, files: tuple[str, ...] = (),
                 with_config: bool = True) -> None:
    """A JSON result that the report (or another stage) reads, with its record under :data:`RECORD`: the stage,
    its role, the config's digest and the sha256 of its values (key order and layout aside). ``beside``: the
    values of JSON files written next to it, by name (a run's ``history.json``, a list that has no room for a
    record of its own): the record holds their sha256 too, which :func:`read_with_beside` checks. ``files``: the
    paths, relative to its folder, of other files written before it (a run's ``model.pt``), whose sha256 the record
    holds for :func:`check_result` (``paraphrastic verify``). ``with_config=False``
    leaves the config's digest out, for a result that must stay byte-identical when settings it does not depend
    on change (``universal_init``'s: its stage reads every grid row, and a new byte would retrain every universal
    job)."""
    values = json_ready(values)
    record = {"stage": stage, **identity(path)}
    if not with_config:
        record["params"] = None
    if beside:
        record["beside"] = {name: _digest(json_ready(kept)) for name, kept in beside.items()}
    if files:
        record["files"] = {name: sha256_file(Path(path).parent / name) for name in files}
    record["sha256"] = _sealed(values, record)
    write_json(path, {**values, RECORD: record})


def _checked(path: str | os.PathLike) -> tuple[dict, dict]:
    """A result's values and record, checked: see :func:`read_result`."""
    try:
        values = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PipelineError(f"{path}: no such result (an earlier stage writes it: run the pipeline up to it)") from None
    except (OSError, ValueError) as exc:
        raise PipelineError(f"{path}: not readable JSON ({exc}); rerun the stage that writes it") from None
    record = values.pop(RECORD, None) if isinstance(values, dict) else None
    if not isinstance(record, dict):
        raise PipelineError(f"{path}: holds no record of what the pipeline wrote there (written by another program, "
                            "edited, or by a version before records): rerun the stage that writes it")
    check_role(path, record)
    if _sealed(values, record) != record.get("sha256"):
        what = "its values" if "files" not in record else "its values or the digests it holds of the files beside it"
        raise PipelineError(f"{path}: {what} differ from what {_writer(record)} wrote (the sha256 of its values): "
                            f"edited or damaged; rerun {_writer(record)}")
    return values, record


def _writer(record: dict) -> str:
    return record.get("stage") or "the stage that writes it"


def read_result(path: str | os.PathLike) -> dict:
    """A JSON result :func:`write_result` wrote, checked against its record: a missing or unreadable one, one
    without a record, in another's place, or whose values were edited (a score set to 99.0 by hand) is an error
    naming it, never a published number."""
    return _checked(path)[0]


def read_with_beside(path: str | os.PathLike, name: str) -> tuple[dict, object]:
    """The result at ``path`` (:func:`read_result`) and the JSON file ``name`` next to it, checked against the sha256
    that result's record holds for it (:func:`write_result`'s ``beside``): an edited one, or another run's copied
    there, is an error naming both files. The result is read once for both."""
    values, record = _checked(path)
    return values, _beside(path, record, name)


def _beside(path: str | os.PathLike, record: dict, name: str):
    kept = Path(path).with_name(name)
    written = (record.get("beside") or {}).get(name)
    if written is None:
        raise PipelineError(f"{path}: its record holds no digest of {kept} (written by a version before records): "
                            f"rerun {_writer(record)}")
    try:
        values = json.loads(kept.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PipelineError(f"{kept}: missing beside {path}; rerun {_writer(record)}") from None
    except (OSError, ValueError) as exc:
        raise PipelineError(f"{kept}: not readable JSON ({exc}); rerun {_writer(record)}") from None
    if _digest(values) != written:
        raise PipelineError(f"{kept}: differs from what {_writer(record)} wrote beside {path} (its sha256 there): "
                            f"edited, damaged, or another run's copied in; rerun {_writer(record)}")
    return values


def recorded_files(path: str | os.PathLike) -> dict[str, str]:
    """The sha256 of each file beside it that the result at ``path`` records (:func:`write_result`'s ``files``),
    by its path relative to that folder; the result itself checked as :func:`read_result` checks it."""
    return dict(_checked(path)[1].get("files") or {})


def check_against_record(path: str | os.PathLike, record_name: str) -> bool:
    """``path`` held to the sha256 that the result ``record_name`` beside it records of it (:func:`write_result`'s
    ``files``: a job's train.json of its model.pt), so a file changed in place stops the stage that reads it with
    an error naming the file and the stage that wrote it. True when checked; False where there is no such result
    or it records no digest of ``path`` (a model of the user's, copied alone)."""
    path = Path(path)
    holder = path.with_name(record_name)
    if not holder.is_file():
        return False
    _, record = _checked(holder)
    digest = (record.get("files") or {}).get(path.name)
    if digest is None:
        return False
    check_files(holder, {path.name: digest}, writer=_writer(record))
    return True


def has_record(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a JSON result with a record (:func:`write_result`), to check with :func:`check_result`."""
    try:
        values = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(values, dict) and isinstance(values.get(RECORD), dict) and "sha256" in values[RECORD]


def check_result(path: str | os.PathLike) -> int:
    """A result checked as its readers check it, with each file its record holds the digest of (``beside``, and
    ``files``: a run's model, by the sha256 of its bytes); the number of those files."""
    _, record = _checked(path)
    beside, files = record.get("beside") or {}, record.get("files") or {}
    for name in beside:
        _beside(path, record, name)
    check_files(Path(path), files, writer=_writer(record))
    return len(beside) + len(files)


def check_files(holder: Path, digests: dict[str, str], *, writer: str) -> None:
    """Each file ``digests`` names (by its path relative to ``holder``'s folder) has the sha256 given there, which
    ``holder`` records of what ``writer`` wrote: every one missing, unreadable or different is named, with
    ``holder``, in one error. A name that is not a path inside that folder is an error before any file is read."""
    if not isinstance(digests, dict) or not all(_inside(name) and isinstance(digest, str)
                                                for name, digest in digests.items()):
        raise PipelineError(f"{holder}: its record of the files beside it is not names in its folder with their "
                            f"sha256 (edited, or not written by the pipeline); rerun {writer}")
    problems = []
    for name, written in digests.items():
        kept = holder.parent / name
        if not kept.is_file():  # a folder, a device or a pipe is never what was written (and a pipe would block)
            problems.append(f"{kept}: {'missing' if not kept.exists() else 'not a file'} beside {holder}; "
                            f"rerun {writer}")
            continue
        try:
            found = sha256_file(kept)
        except OSError as exc:
            problems.append(f"{kept}: not readable ({exc}); rerun {writer}")
            continue
        if found != written:
            problems.append(f"{kept}: differs from what {writer} wrote beside {holder} (its sha256 there): edited, "
                            f"damaged, or another run's copied in; rerun {writer}")
    if problems:
        raise PipelineError("\n".join(problems))


def _inside(name: object) -> bool:
    """Whether ``name`` is a relative path that stays in its folder (no ``..``, not absolute)."""
    return isinstance(name, str) and bool(name) and not Path(name).is_absolute() and ".." not in Path(name).parts
