"""Write-then-rename helpers, so a killed job never leaves a half-written artifact behind."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from paraphrastic.errors import PipelineError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary file path beside ``path``; rename it onto ``path`` only if the block succeeds.

    The temporary lives in the same directory so the final ``os.replace`` is atomic on POSIX. The
    target is a file: an existing directory there is an error before the block runs, never replaced
    (``embed --output .`` must not empty the working directory). A failed write (a full disk, a
    read-only folder) is a :class:`PipelineError` naming ``path``; the temporary is removed and
    whatever was at ``path`` before is left as it was.
    """
    path = Path(path)
    if path.is_dir():
        raise PipelineError(f"{path}: is a directory; give a file name to write (nothing was written)")
    tmp = written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        os.close(fd)
        tmp = written = Path(tmp_name)
        tmp.unlink()  # the block creates it: a block that writes nothing fails below, not with an empty file
        yield tmp
        # Flush to disk before the rename: after a node crash the name must not point at a truncated
        # file (checkpoints are what a resubmitted job trusts). A full disk often shows only here.
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        tmp = None
        _fsync_dir(path.parent)
    except (OSError, RuntimeError) as exc:
        # Errors of writing this file (not those of reading the block's own inputs) name the file meant.
        if _about(exc, written, path):
            reason = (exc.strerror if isinstance(exc, OSError) and exc.strerror
                      else f"a short write, as a full disk gives: {exc}")
            raise PipelineError(f"{path}: could not write it ({reason}); "
                                "nothing was written and what was there is unchanged") from exc
        raise
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


# What a full disk (or a file-size limit) looks like where a library writes through its own code rather than
# Python's file objects: numpy's tofile ("800000 requested and 496 written", no errno) and torch's zip writer
# (a RuntimeError from inline_container.cc: "unexpected pos ...", "file write failed")
_SHORT_WRITES = re.compile(r"^\d+ requested and \d+ written$|inline_container\.cc|PytorchStreamWriter")


def _about(exc: OSError | RuntimeError, tmp: Path | None, path: Path) -> bool:
    """Whether ``exc`` is about writing ``path``: a full disk or quota (which often name no file), a short write of
    numpy's or torch's writer, or an error naming its temporary, it or a folder above it."""
    if isinstance(exc, RuntimeError) or exc.errno is None:
        return bool(_SHORT_WRITES.search(str(exc)))
    if exc.filename is None:
        return exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS)
    try:
        named = Path(os.fsdecode(exc.filename))
    except TypeError:
        return False
    return named == tmp or path.is_relative_to(named)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # some filesystems do not allow opening directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | os.PathLike, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=False, default=_json_default) + "\n")


def json_ready(obj):
    """``obj`` as :func:`write_json` writes it and ``json.loads`` reads it back (numpy scalars and paths made plain)."""
    return json.loads(json.dumps(obj, default=_json_default))


def _json_default(obj):
    # numpy scalars and paths show up in metrics; keep the JSON plain.
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
