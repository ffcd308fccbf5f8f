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


# Written in a child whose files may not grow past 4 KiB (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails with
# EFBIG, as one on a full disk fails with ENOSPC): each writer's old file must survive, its error naming the path.
FILE_SIZE_LIMIT = r"""
import json, resource, signal, sys
from pathlib import Path
import numpy as np, torch
from paraphrastic.cli import main as cli
from paraphrastic.data.vocab import SPECIAL, Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.training.epochs import Run

folder = Path(sys.argv[1])
vocab = Vocabulary([*SPECIAL, *(f"w{i}" for i in range(2000))])
model = build_model("avg", torch.randn(len(vocab.words), 50))
save_model(folder / "model.pt", model, "avg", {}, vocab, {})  # embed's: its 100 x 50 output does not fit
(folder / "in.txt").write_text("w1 w2\n" * 100)
for name in ("model.pt.old", "last.pt", "v.npy"):
    (folder / name).write_bytes(b"old")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
run = Run("r", model, torch.optim.Adam(model.parameters()), folder, "stamp", 1, 1, 10)
outcomes = {}
for name, write in (("checkpoint", lambda: run.save_resume_state(1, [])),
                    ("model", lambda: save_model(folder / "model.pt.old", model, "avg", {}, vocab, {}))):
    try:
        write()
        outcomes[name] = "written"
    except PipelineError as exc:
        outcomes[name] = str(exc)
outcomes["embed"] = cli.main(["embed", "--model", str(folder / "model.pt"), "--input", str(folder / "in.txt"),
                              "--output", str(folder / "v.npy"), "--device", "cpu"])
print(json.dumps(outcomes))
"""


@pytest.mark.fault("filesystem")
def test_a_checkpoint_a_model_and_an_embedding_that_do_not_fit_name_their_file_and_keep_the_old(tmp_path):
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FILE_SIZE_LIMIT, str(tmp_path)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    outcomes = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, path in (("checkpoint", "last.pt"), ("model", "model.pt.old")):
        assert outcomes[name].startswith(f"{tmp_path / path}: could not write it"), outcomes[name]
        assert "what was there is unchanged" in outcomes[name]
    assert outcomes["embed"] == 1 and f"{tmp_path / 'v.npy'}: could not write it" in proc.stderr
    for name in ("model.pt.old", "last.pt", "v.npy"):
        assert (tmp_path / name).read_bytes() == b"old"
    assert leftovers(tmp_path) == []
