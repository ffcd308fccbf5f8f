"""`embed` and `similarity` against the user's filesystem: nothing of theirs is deleted, standard input works,
and every failure is one line naming the path."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

import paraphrastic
from paraphrastic.cli import main as cli
from tests.test_atomic import full_disk
from tests.test_encoder import SENTENCES, model_file  # noqa: F401  (a fixture)


@pytest.fixture
def model(model_file):  # noqa: F811
    return str(model_file[0])


@pytest.mark.fault("filesystem")
@pytest.mark.parametrize("where", ["folder", "cwd"])
def test_embed_never_deletes_an_existing_folder_given_as_output(model, tmp_path, monkeypatch, capsys, where):
    (tmp_path / "sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    monkeypatch.chdir(folder)
    output = "." if where == "cwd" else str(folder)
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "sentences.txt"), "--output", output,
                     "--device", "cpu"]) == 1
    assert "is a directory" in capsys.readouterr().err
    assert (folder / "notes.txt").read_text() == "keep me" and sorted(os.listdir(folder)) == ["notes.txt"]


@pytest.mark.fault("data files")
def test_similarity_reads_pairs_from_standard_input(model, monkeypatch, capsys):
    pairs = "".join(f"{a}\t{b}\n" for a, b in zip(SENTENCES, SENTENCES[::-1], strict=True))
    monkeypatch.setattr("sys.stdin", io.StringIO(pairs))
    assert cli.main(["similarity", "--model", model, "--input", "-", "--device", "cpu"]) == 0
    printed = [float(v) for v in capsys.readouterr().out.split()]
    expected = paraphrastic.load(model, device="cpu").similarity_pairwise(SENTENCES, SENTENCES[::-1])
    assert len(printed) == 3 and np.allclose(printed, expected, atol=1e-5)


@pytest.mark.fault("data files")
def test_embed_reads_standard_input(model, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(SENTENCES) + "\n"))
    assert cli.main(["embed", "--model", model, "--input", "-", "--output", str(tmp_path / "v.npy"),
                     "--device", "cpu"]) == 0
    assert np.load(tmp_path / "v.npy").shape[0] == 3


@pytest.mark.fault("filesystem")
def test_a_missing_input_is_one_line_naming_it(model, tmp_path, capsys):
    for command in (["embed", "--output", str(tmp_path / "v.npy")], ["similarity"]):
        assert cli.main([*command, "--model", model, "--input", str(tmp_path / "nope.txt"), "--device", "cpu"]) == 1
        assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope.txt'}: No such file or directory"
    assert not (tmp_path / "v.npy").exists()


@pytest.mark.fault("filesystem")
def test_a_full_disk_keeps_the_previous_output(model, tmp_path, monkeypatch, capsys):
    (tmp_path / "sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    previous = tmp_path / "v.npy"
    np.save(previous, np.zeros((1, 1)))
    full_disk(monkeypatch)
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "sentences.txt"), "--output",
                     str(previous), "--device", "cpu"]) == 1
    assert f"{previous}: could not write it (No space left on device)" in capsys.readouterr().err
    assert np.load(previous).shape == (1, 1)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]


# One process embeds into each output in turn (torch is imported once): its standard output gets the arrays written
# to `-` and /dev/stdout, one after the other
EMBED_INTO_EACH = """
import os
import sys
from paraphrastic.cli import main as cli
model, sentences, *outputs = sys.argv[1:]
print("as user", os.geteuid(), file=sys.stderr)
for output in outputs:
    if cli.main(["embed", "--model", model, "--input", sentences, "--output", output, "--device", "cpu"]):
        sys.exit(1)
"""


@pytest.mark.fault("filesystem")
@pytest.mark.parametrize("user", ["this user", "nobody"])
def test_outputs_that_are_not_files_are_written_through_and_stay_what_they_are(model, user):
    """`-` and /dev/stdout write to standard output; a named pipe, /dev/null and a link to a file are written
    through and are still a pipe, a device and a link afterwards: as root (whose rename would replace a system
    file) and as an unprivileged user."""
    import shutil
    import stat
    import subprocess
    import sys
    import tempfile
    import threading
    from pathlib import Path

    if user == "nobody" and os.geteuid() != 0:
        pytest.skip("only root can run a command as another user (this user is not root: the first case is it)")
    folder = Path(tempfile.mkdtemp(prefix="outputs-", dir="/tmp"))  # one an unprivileged user can write
    try:
        folder.chmod(0o777)
        (folder / "sentences.txt").write_text("\n".join(SENTENCES) + "\n")
        shutil.copyfile(model, folder / "model.pt")
        for name in ("sentences.txt", "model.pt"):
            (folder / name).chmod(0o644)
        fifo, link, target = folder / "pipe", folder / "link.npy", folder / "target.npy"
        os.mkfifo(fifo)
        fifo.chmod(0o666)
        target.write_bytes(b"the link's earlier target")
        target.chmod(0o666)
        link.symlink_to(target.name)
        piped = []
        reader = threading.Thread(target=lambda: piped.append(fifo.read_bytes()), daemon=True)
        reader.start()
        as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if user == "nobody" else []
        devices = {name: os.lstat(name).st_mode for name in ("/dev/stdout", "/dev/null")}
        proc = subprocess.run([*as_user, sys.executable, "-c", EMBED_INTO_EACH, str(folder / "model.pt"),
                               str(folder / "sentences.txt"), "-", "/dev/stdout", str(fifo), str(link), "/dev/null"],
                              capture_output=True, timeout=300, cwd=folder)
        assert proc.returncode == 0, proc.stderr.decode()[-3000:]
        reader.join(timeout=60)
        expected = paraphrastic.load(model, device="cpu").encode(SENTENCES)
        printed = io.BytesIO(proc.stdout)
        for _ in ("-", "/dev/stdout"):
            assert np.allclose(np.load(printed), expected, atol=1e-6)
        assert printed.read() == b""
        assert proc.stderr.decode().count("3 sentences -> standard output") == 2
        assert f"as user {65534 if user == 'nobody' else os.geteuid()}" in proc.stderr.decode()
        assert np.allclose(np.load(io.BytesIO(piped[0])), expected, atol=1e-6)
        assert np.allclose(np.load(target), expected, atol=1e-6)
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink() and os.readlink(link) == target.name
        assert {name: os.lstat(name).st_mode for name in devices} == devices  # still a link and a device
        assert sorted(p.name for p in folder.iterdir()) == ["link.npy", "model.pt", "pipe", "sentences.txt",
                                                           "target.npy"]  # no temporary file left
    finally:
        shutil.rmtree(folder)



@pytest.mark.fault("command inputs")
def test_sentences_without_a_known_word_are_warned_of_once(model, tmp_path, monkeypatch, capsys):
    """Two sentences of words the model lacks are both the unknown word's vector: their similarity, 1.0, means
    nothing, so one warning names how many there are and the first (its line, and in a TSV its column)."""
    pairs = f"{SENTENCES[0]}\t{SENTENCES[1]}\nqzxv wqpz\tzzkq vvxq\nxqzj\t{SENTENCES[2]}\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(pairs))
    assert cli.main(["similarity", "--model", model, "--input", "-", "--device", "cpu"]) == 0
    out, err = capsys.readouterr()
    assert float(out.split()[1]) == pytest.approx(1.0)
    assert err.count("warning:") == 1
    assert ("warning: 3 of 6 sentences hold no word the model knows (the first, <stdin>:2, column 1: 'qzxv wqpz')"
            in err)
    (tmp_path / "s.txt").write_text(f"{SENTENCES[0]}\nqzxv\n")
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "s.txt"), "--output",
                     str(tmp_path / "v.npy"), "--device", "cpu"]) == 0
    assert f"warning: 1 of 2 sentences hold no word the model knows (the first, {tmp_path / 's.txt'}:2: 'qzxv')" \
        in capsys.readouterr().err
    (tmp_path / "known.txt").write_text("\n".join(SENTENCES) + "\n")
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "known.txt"), "--output",
                     str(tmp_path / "w.npy"), "--device", "cpu"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.fault("command inputs")
def test_similarity_refuses_a_line_of_another_field_count_and_reads_the_columns_named(model, tmp_path, capsys):
    """`id<TAB>s1<TAB>s2` is never read as a pair of the id and s1: without --columns a line of another count than
    two is an error naming the line and its count; --columns names the two to read."""
    (tmp_path / "ids.tsv").write_text("".join(f"{n}\t{a}\t{b}\n" for n, (a, b) in
                                              enumerate(zip(SENTENCES, SENTENCES[::-1], strict=True))))
    command = ["similarity", "--model", model, "--input", str(tmp_path / "ids.tsv"), "--device", "cpu"]
    assert cli.main(command) == 1
    out, err = capsys.readouterr()
    assert not out and (f"error: {tmp_path / 'ids.tsv'}:1: has 3 tab-separated fields; similarity reads two "
                        "(sentence<TAB>sentence): name the two to read with --columns (e.g. --columns 2 3)") in err
    assert cli.main([*command, "--columns", "2", "3"]) == 0
    printed = [float(v) for v in capsys.readouterr().out.split()]
    expected = paraphrastic.load(model, device="cpu").similarity_pairwise(SENTENCES, SENTENCES[::-1])
    assert np.allclose(printed, expected, atol=1e-5)


@pytest.mark.fault("command inputs")
@pytest.mark.parametrize("command", ["embed", "similarity"])
def test_an_empty_input_is_an_error_naming_it_and_nothing_is_written(model, tmp_path, capsys, command):
    (tmp_path / "empty.txt").write_text("")
    output = tmp_path / "v.npy"
    args = [command, "--model", model, "--input", str(tmp_path / "empty.txt"), "--device", "cpu"]
    assert cli.main([*args, "--output", str(output)] if command == "embed" else args) == 1
    out, err = capsys.readouterr()
    assert not out and f"error: {tmp_path / 'empty.txt'}: holds no line, so there is no sentence to read" in err
    assert not output.exists()


@pytest.mark.fault("command inputs")
def test_invisible_format_characters_are_removed_before_lookup_and_counted_in_a_warning(model, tmp_path, capsys):
    """A zero-width space, a direction mark, a soft hyphen or a byte-order mark inside a word would make it the
    unknown word: they are removed (as NFC is applied) and one warning counts them."""
    plain = SENTENCES[0]
    marked = plain.replace(" ", " \u200b", 1).replace(plain.split()[1], "\u200f" + plain.split()[1], 1) + "\ufeff"
    (tmp_path / "pairs.tsv").write_text(f"{plain}\t{marked}\n{plain}\t{plain}\n")
    assert cli.main(["similarity", "--model", model, "--input", str(tmp_path / "pairs.tsv"), "--device",
                     "cpu"]) == 0
    out, err = capsys.readouterr()
    assert [float(v) for v in out.split()] == pytest.approx([1.0, 1.0], abs=1e-6)
    assert (f"warning: 1 of 4 sentences hold 3 invisible format characters (U+200B ZERO WIDTH SPACE, U+200F "
            f"RIGHT-TO-LEFT MARK, U+FEFF ZERO WIDTH NO-BREAK SPACE; the first at {tmp_path / 'pairs.tsv'}:1, column "
            "2), removed before the words are looked up") in err


@pytest.mark.fault("filesystem")
def test_an_output_ending_in_a_slash_names_a_folder_and_is_refused(model, tmp_path, capsys):
    (tmp_path / "s.txt").write_text("\n".join(SENTENCES) + "\n")
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "s.txt"), "--output",
                     f"{tmp_path / 'newdir'}/", "--device", "cpu"]) == 1
    assert "names a folder, and no such folder exists" in capsys.readouterr().err
    assert not (tmp_path / "newdir").exists()
