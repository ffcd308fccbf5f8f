"""Fetching: mirror copies and downloads are sha256-verified; failures name the file and leave nothing."""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from pathlib import Path

import pytest

from paraphrastic.configuration.params import load
from paraphrastic.data import fetch
from paraphrastic.errors import ChecksumMismatch, MissingSource, PipelineError, TruncatedDownload
from paraphrastic.pipeline.steps.fetch import required_raw_files

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from upstream_server import UpstreamServer  # noqa: E402


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


@pytest.mark.fault("pipeline artifacts")
@pytest.mark.parametrize("change, says", [
    ("touched", None),
    ("edited in place", "its sha256 differs from the one fetch verified"),
    ("cut short", "5 bytes where fetch verified 6"),
    ("removed", "missing, though fetch verified it"),
    ("no record", "missing \\(fetch writes it beside the files it verified\\)"),
])
def test_a_raw_file_changed_after_fetch_stops_the_stage_that_reads_it(tmp_path, mirror_dir, change, says):
    import os

    manifest = {"sts/a.txt": {"url": None, "sha256": sha(b"hello\n"), "size": 6, "mirror": "sts/a.txt"}}
    fetch.fetch_all(["sts/a.txt"], manifest, tmp_path / "raw", mirror_dir)
    path = tmp_path / "raw" / "sts" / "a.txt"
    if change == "touched":  # a checkout or copy moves the time only: the hash says it is the same
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    elif change == "edited in place":
        path.write_bytes(b"HELLO\n")
    elif change == "cut short":
        path.write_bytes(b"hello")
    elif change == "removed":
        path.unlink()
    else:
        (tmp_path / "raw" / "FETCHED.json").unlink()
    if says is None:
        fetch.verify_raw(tmp_path / "raw")
        return
    with pytest.raises(PipelineError, match=f"{tmp_path / 'raw'}/(sts/a.txt|FETCHED.json): {says}"):
        fetch.verify_raw(tmp_path / "raw")


@pytest.mark.fault("downloads")
def test_checksum_mismatch_names_file_and_hashes_and_leaves_nothing(tmp_path, mirror_dir):
    manifest = {"sts/a.txt": {"sha256": "0" * 64, "size": None, "mirror": "sts/a.txt"}}
    with pytest.raises(ChecksumMismatch) as err:
        fetch.fetch_all(["sts/a.txt"], manifest, tmp_path / "raw", mirror_dir)
    message = str(err.value)
    assert "sts/a.txt" in message and "0" * 64 in message and sha(b"hello\n") in message
    assert leftovers(tmp_path / "raw") == []


@pytest.mark.fault("downloads")
def test_size_mismatch_is_reported_as_truncation(tmp_path, mirror_dir):
    manifest = {"sts/a.txt": {"sha256": sha(b"hello\n"), "size": 600, "mirror": "sts/a.txt"}}
    with pytest.raises(TruncatedDownload, match="sts/a.txt.*6 bytes, expected 600"):
        fetch.fetch_all(["sts/a.txt"], manifest, tmp_path / "raw", mirror_dir)
    assert leftovers(tmp_path / "raw") == []


@pytest.mark.fault("downloads")
def test_missing_mirror_and_missing_file(tmp_path, mirror_dir, monkeypatch):
    manifest = {"sts/b.txt": {"sha256": None, "mirror": "sts/b.txt", "url": None}}
    with pytest.raises(MissingSource, match=r"nowhere does not exist \(params `mirror` / \$PARAPHRASTIC_MIRROR\)"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", tmp_path / "nowhere")
    assert not (tmp_path / "raw").exists()  # nothing made for a fetch that cannot start
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MissingSource, match=rf"mirror nowhere does not exist \(.*, read from {tmp_path}\)"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", Path("nowhere"))
    with pytest.raises(MissingSource, match=r"sts/b.txt: not in the offline mirror"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", mirror_dir)
    with pytest.raises(MissingSource, match="no offline mirror is configured"):
        fetch.fetch_all(["sts/b.txt"], manifest, tmp_path / "raw", None)


@pytest.fixture
def server():
    with UpstreamServer() as upstream:
        yield upstream.base, upstream


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


@pytest.mark.fault("downloads")
def test_truncated_download_names_url_and_leaves_nothing(tmp_path, server):
    base, handler = server
    handler.files = {"/big.txt": b"partial body"}
    handler.lie_about_length = {"/big.txt"}
    manifest = {"x/big.txt": {"url": base + "/big.txt", "sha256": None}}
    with pytest.raises(TruncatedDownload, match="truncated download of .*/big.txt"):
        fetch.fetch_all(["x/big.txt"], manifest, tmp_path / "raw", None)
    assert leftovers(tmp_path / "raw") == []


@pytest.mark.fault("downloads")
def test_download_checksum_mismatch(tmp_path, server):
    base, handler = server
    handler.files = {"/f.txt": b"tampered"}
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


def test_every_member_is_in_its_archives_known_listing():
    """The manifest never names a file its archive lacks (the official STS 2013 zip has no SMT input)."""
    sources = REPO / "workflow" / "sources.yaml"
    manifest, listings = fetch.load_manifest(sources), fetch.load_archive_listings(sources)
    assert fetch.member_problems(manifest, listings) == []
    archived = {entry["url"] for entry in manifest.values() if entry.get("member")}
    assert len(archived & listings.keys()) >= 7  # every STS year, SimpWiki v2 and GloVe have a known listing
    sts2013 = "http://ixa2.si.ehu.es/stswiki/images/2/2f/STS2013-en-test.zip"
    old_entry = {"sts/2013/STS.input.SMT.txt": {"url": sts2013, "member": "test-gs/STS.input.SMT.txt"}}
    assert fetch.member_problems(old_entry, listings) == [
        f"sts/2013/STS.input.SMT.txt: {sts2013} holds no member(s) 'test-gs/STS.input.SMT.txt'"]


def test_paper_profile_fetches_every_file_from_a_pinned_url():
    """Every file the paper profile needs has a URL; GitHub URLs name a commit, never a branch."""
    config = load(REPO / "params.yaml")
    config["data_profile"] = "paper"
    manifest = fetch.load_manifest(REPO / "workflow" / "sources.yaml")
    for name in required_raw_files(config):
        url = manifest[name].get("url")
        assert url, name
        if "github" in url:
            assert "/refs/heads/" not in url and "/master" not in url, name
            assert any(len(part) == 40 and all(c in "0123456789abcdef" for c in part) for part in url.split("/")), name


def test_upstream_base_override_keeps_the_manifests_urls(tmp_path, server):
    base, upstream = server
    upstream.files = {"/example.org/data/f.txt": b"body"}
    manifest = {"x/f.txt": {"url": "http://example.org/data/f.txt", "sha256": sha(b"body")}}
    records = fetch.fetch_all(["x/f.txt"], manifest, tmp_path / "raw", None, upstream_base=base)
    assert records[0]["origin"] == "http://example.org/data/f.txt"
    assert upstream.requests == [("/example.org/data/f.txt", None)]


@pytest.mark.fault("downloads")
def test_a_cut_download_resumes_with_a_range_request(tmp_path, server):
    base, upstream = server
    body = bytes(range(256)) * 4000
    upstream.files = {"/big.bin": body}
    upstream.cut_after = {"/big.bin": 300_000}
    manifest = {"x/big.bin": {"url": base + "/big.bin", "sha256": sha(body), "size": len(body)}}
    downloads = tmp_path / "downloads"
    with pytest.raises(TruncatedDownload, match="a rerun resumes"):
        fetch.fetch_all(["x/big.bin"], manifest, tmp_path / "raw", None, downloads=downloads)
    part = next(downloads.rglob("big.bin.part"))
    assert part.stat().st_size == 300_000
    assert leftovers(tmp_path / "raw") == []
    fetch.fetch_all(["x/big.bin"], manifest, tmp_path / "raw", None, downloads=downloads)
    assert (tmp_path / "raw/x/big.bin").read_bytes() == body
    assert upstream.requests[-1] == ("/big.bin", "bytes=300000-")
    assert not part.exists()


@pytest.mark.fault("downloads")
def test_a_server_that_ignores_ranges_restarts_the_download(tmp_path, server):
    base, upstream = server
    body = b"0123456789" * 10_000
    upstream.files = {"/f.bin": body}
    upstream.cut_after = {"/f.bin": 1000}
    upstream.ignore_range = {"/f.bin"}
    manifest = {"x/f.bin": {"url": base + "/f.bin", "sha256": sha(body)}}
    downloads = tmp_path / "downloads"
    with pytest.raises(TruncatedDownload):
        fetch.fetch_all(["x/f.bin"], manifest, tmp_path / "raw", None, downloads=downloads)
    fetch.fetch_all(["x/f.bin"], manifest, tmp_path / "raw", None, downloads=downloads)
    assert (tmp_path / "raw/x/f.bin").read_bytes() == body


@pytest.mark.fault("downloads")
def test_a_failure_keeps_what_was_verified_and_a_rerun_fetches_only_the_rest(tmp_path, server):
    base, upstream = server
    archive = _zip({"d/one.txt": b"one\n", "d/two.txt": b"two\n"})
    upstream.files = {"/bundle.zip": archive, "/three.txt": b"three\n"}
    manifest = {
        "a/one.txt": {"url": base + "/bundle.zip", "member": "one.txt", "sha256": None},
        "a/two.txt": {"url": base + "/bundle.zip", "member": "two.txt", "sha256": sha(b"two\n")},
        "a/three.txt": {"url": base + "/three.txt", "sha256": sha(b"three\n")},
        "a/four.txt": {"url": base + "/four.txt", "sha256": None},  # not on the server: fails last
    }
    names, raw, downloads = list(manifest), tmp_path / "raw", tmp_path / "downloads"
    with pytest.raises(MissingSource, match="four.txt"):
        fetch.fetch_all(names, manifest, raw, None, downloads=downloads)
    assert leftovers(raw) == ["FETCHED.json", "one.txt", "three.txt", "two.txt"]
    assert [path for path, _ in upstream.requests] == ["/bundle.zip", "/three.txt", "/four.txt"]
    upstream.files["/four.txt"] = b"four\n"
    upstream.requests.clear()
    records = fetch.fetch_all(names, manifest, raw, None, downloads=downloads)
    assert upstream.requests == [("/four.txt", None)]
    assert [r["file"] for r in records] == names
    assert records[0]["sha256"] == sha(b"one\n") and not records[0]["pinned"]
    # data/raw deleted (as Snakemake and DVC do before rerunning a stage): the archive is not downloaded again
    for path in raw.rglob("*.txt"):
        path.unlink()
    upstream.requests.clear()
    fetch.fetch_all(names, manifest, raw, None, downloads=downloads)
    assert upstream.requests == []


@pytest.mark.fault("downloads")
def test_a_download_that_fails_its_checksum_is_not_kept(tmp_path, server):
    base, upstream = server
    upstream.files = {"/f.txt": b"tampered"}
    manifest = {"x/f.txt": {"url": base + "/f.txt", "sha256": sha(b"original")}}
    downloads = tmp_path / "downloads"
    with pytest.raises(ChecksumMismatch):
        fetch.fetch_all(["x/f.txt"], manifest, tmp_path / "raw", None, downloads=downloads)
    assert leftovers(downloads) == []
    upstream.files = {"/f.txt": b"original"}
    fetch.fetch_all(["x/f.txt"], manifest, tmp_path / "raw", None, downloads=downloads)
    assert (tmp_path / "raw/x/f.txt").read_bytes() == b"original"


def test_the_plain_treebank_is_pinned_to_the_mirrors_gzip(mirror):
    """The paper profile downloads the UD training file the mirror holds gzipped: the same bytes, so pinned."""
    import gzip

    entry = fetch.load_manifest(REPO / "workflow" / "sources.yaml")["ud-english-ewt/en_ewt-ud-train.conllu"]
    body = gzip.decompress((mirror / "ud-english-ewt/en_ewt-ud-train.conllu.gz").read_bytes())
    assert (entry["sha256"], entry["size"]) == (sha(body), len(body))


@pytest.mark.fault("downloads")
def test_an_archive_whose_member_fails_its_checksum_is_downloaded_again(tmp_path, server):
    base, upstream = server
    upstream.files = {"/bundle.zip": _zip({"d/one.txt": b"tampered\n"})}
    manifest = {"a/one.txt": {"url": base + "/bundle.zip", "member": "one.txt", "sha256": sha(b"one\n")}}
    downloads = tmp_path / "downloads"
    with pytest.raises(ChecksumMismatch):
        fetch.fetch_all(["a/one.txt"], manifest, tmp_path / "raw", None, downloads=downloads)
    assert leftovers(downloads) == []
    upstream.files = {"/bundle.zip": b"<html>not a zip</html>"}
    with pytest.raises(Exception, match="zip or tar"):
        fetch.fetch_all(["a/one.txt"], manifest, tmp_path / "raw", None, downloads=downloads)
    upstream.files = {"/bundle.zip": _zip({"d/one.txt": b"one\n"})}
    fetch.fetch_all(["a/one.txt"], manifest, tmp_path / "raw", None, downloads=downloads)
    assert (tmp_path / "raw/a/one.txt").read_bytes() == b"one\n"
