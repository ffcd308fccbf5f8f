"""Fetching: mirror copies and downloads are sha256-verified; failures name the file and leave nothing."""

from __future__ import annotations

import hashlib
import http.server
import io
import threading
import zipfile
from pathlib import Path

import pytest

from paraphrastic.data import fetch
from paraphrastic.errors import ChecksumMismatch, MissingSource, TruncatedDownload

REPO = Path(__file__).resolve().parents[2]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if p.is_file())


@pytest.fixture
def mirror_dir(tmp_path):
    root = tmp_path / "mirror"
    (root / "sts").mkdir(parents=True)
    (root / "sts" / "a.txt").write_bytes(b"hello\n")
    return root


def test_mirror_copy_verified(tmp_path, mirror_dir):
    manifest = {"sts/a.txt": {"url": None, "sha256": sha(b"hello\n"), "size": 6, "mirror": "sts/a.txt"}}
    records = fetch.fetch_all(["sts/a.txt"], manifest, tmp_path / "raw", mirror_dir)
    assert (tmp_path / "raw" / "sts" / "a.txt").read_bytes() == b"hello\n"
    assert records[0]["origin"].endswith("sts/a.txt") and records[0]["pinned"]
    assert (tmp_path / "raw" / "FETCHED.json").exists()


def test_checksum_mismatch_names_file_and_hashes_and_leaves_nothing(tmp_path, mirror_dir):
    manifest = {"sts/a.txt": {"sha256": "0" * 64, "size": None, "mirror": "sts/a.txt"}}
    with pytest.raises(ChecksumMismatch) as err:
        fetch.fetch_all(["sts/a.txt"], manifest, tmp_path / "raw", mirror_dir)
    message = str(err.value)
    assert "sts/a.txt" in message and "0" * 64 in message and sha(b"hello\n") in message
    assert leftovers(tmp_path / "raw") == []


def test_size_mismatch_is_reported_as_truncation(tmp_path, mirror_dir):
    manifest = {"sts/a.txt": {"sha256": sha(b"hello\n"), "size": 600, "mirror": "sts/a.txt"}}
    with pytest.raises(TruncatedDownload, match="sts/a.txt.*6 bytes, expected 600"):
        fetch.fetch_all(["sts/a.txt"], manifest, tmp_path / "raw", mirror_dir)
    assert leftovers(tmp_path / "raw") == []


def test_missing_mirror_and_missing_file(tmp_path, mirror_dir):
    manifest = {"sts/b.txt": {"sha256": None, "mirror": "sts/b.txt", "url": None}}
    with pytest.raises(MissingSource, match="does not exist"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", tmp_path / "nowhere")
    with pytest.raises(MissingSource, match=r"sts/b.txt: not in the offline mirror"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", mirror_dir)
    with pytest.raises(MissingSource, match="no offline mirror is configured"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", None)


class _Handler(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    lie_about_length: set[str] = set()

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        claimed = len(body) + 100 if self.path in self.lie_about_length else len(body)
        self.send_header("Content-Length", str(claimed))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Handler
    httpd.shutdown()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_download_archive_members_once_and_verify(tmp_path, server):
    base, handler = server
    handler.files = {"/sts.zip": _zip({"test-gold/STS.input.x.txt": b"a\tb\n", "test-gold/STS.gs.x.txt": b"3\n"})}
    manifest = {
        "sts/2012/STS.input.x.txt": {"url": base + "/sts.zip", "member": "test-gold/STS.input.x.txt",
                                     "sha256": sha(b"a\tb\n"), "mirror": None},
        # a member named by its trailing path only, checksum unknown (recorded, not enforced)
        "sts/2012/STS.gs.x.txt": {"url": base + "/sts.zip", "member": "STS.gs.x.txt", "sha256": None},
    }
    records = fetch.fetch_all(list(manifest), manifest, tmp_path / "raw", None)
    assert (tmp_path / "raw/sts/2012/STS.gs.x.txt").read_bytes() == b"3\n"
    assert [r["pinned"] for r in records] == [True, False]
    assert records[1]["sha256"] == sha(b"3\n")
    assert leftovers(tmp_path / "raw") == ["FETCHED.json", "STS.gs.x.txt", "STS.input.x.txt"]


def test_truncated_download_names_url_and_leaves_nothing(tmp_path, server):
    base, handler = server
    handler.files = {"/big.txt": b"partial body"}
    handler.lie_about_length = {"/big.txt"}
    manifest = {"x/big.txt": {"url": base + "/big.txt", "sha256": None}}
    with pytest.raises(TruncatedDownload, match="truncated download of .*/big.txt"):
        fetch.fetch_all(["x/big.txt"], manifest, tmp_path / "raw", None)
    assert leftovers(tmp_path / "raw") == []


def test_download_checksum_mismatch(tmp_path, server):
    base, handler = server
    handler.files = {"/f.txt": b"tampered"}
    handler.lie_about_length = set()
    manifest = {"x/f.txt": {"url": base + "/f.txt", "sha256": sha(b"original")}}
    with pytest.raises(ChecksumMismatch, match=f"x/f.txt .*expected sha256 {sha(b'original')}"):
        fetch.fetch_all(["x/f.txt"], manifest, tmp_path / "raw", None)
    assert leftovers(tmp_path / "raw") == []


def test_manifest_pins_every_mirror_file(mirror):
    """Every manifest file with a mirror copy carries the sha256 and size of that copy."""
    manifest = fetch.load_manifest(REPO / "workflow" / "sources.yaml")
    from paraphrastic.atomic import sha256_file

    checked = 0
    for name, entry in manifest.items():
        assert entry.get("url") or entry.get("mirror"), name
        assert "licence" in entry, name
        if entry.get("mirror"):
            path = mirror / entry["mirror"]
            assert entry["sha256"] == sha256_file(path), name
            assert entry["size"] == path.stat().st_size, name
            checked += 1
    assert checked >= 60
