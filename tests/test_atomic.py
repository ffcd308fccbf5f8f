"""Write-then-rename: a failed write leaves what was there, names the file meant, and never deletes a folder."""

from __future__ import annotations

import errno
import os

import pytest

from paraphrastic import atomic
from paraphrastic.atomic import atomic_path, write_text
from paraphrastic.errors import PipelineError


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


@pytest.mark.fault("filesystem")
def test_an_existing_folder_is_never_replaced(tmp_path):
    target = tmp_path / "results"
    target.mkdir()
    (target / "precious.txt").write_text("a week of cluster time")
    with pytest.raises(PipelineError, match=f"{target}: is a directory"):
        with atomic_path(target) as tmp:
            tmp.write_text("new")
    assert (target / "precious.txt").read_text() == "a week of cluster time"
    assert leftovers(tmp_path) == []


def full_disk(monkeypatch):
    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", fsync)


@pytest.mark.fault("filesystem")
def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    target = tmp_path / "metrics.json"
    target.write_text("old\n")
    full_disk(monkeypatch)
    with pytest.raises(PipelineError, match=f"{target}: could not write it .No space left on device."):
        write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path) == []


@pytest.mark.fault("filesystem")
def test_a_read_only_folder_names_the_file(tmp_path, monkeypatch):
    target = tmp_path / "out" / "model.pt"

    def mkstemp(**kwargs):  # root ignores permission bits, so the refusal is injected where it happens
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), kwargs["dir"])

    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp)
    with pytest.raises(PipelineError, match=f"{target}: could not write it .Permission denied."):
        write_text(target, "x")


@pytest.mark.fault("filesystem")
def test_errors_of_the_blocks_own_inputs_pass_through(tmp_path):
    missing = tmp_path / "input.txt"
    with pytest.raises(FileNotFoundError) as caught:
        with atomic_path(tmp_path / "out.txt") as tmp:
            tmp.write_text(missing.read_text())
    assert caught.value.filename == str(missing)
    assert not (tmp_path / "out.txt").exists() and leftovers(tmp_path) == []


@pytest.mark.fault("filesystem")
def test_a_block_that_writes_nothing_leaves_no_empty_file(tmp_path):
    with pytest.raises(PipelineError, match="could not write it"):
        with atomic_path(tmp_path / "out.txt"):
            pass
    assert list(tmp_path.iterdir()) == []
