"""Fetch upstream files into data/raw: from the offline mirror when configured, else from the URL.

Every file is verified against the manifest's sha256 (and size) before it is renamed into place, so
a mismatch or a truncated download stops with an error naming the file and leaves nothing behind.

Downloads go through a cache outside data/raw (``data/downloads``: both engines delete a stage's
outputs before rerunning it, and the cache is no stage's output). A body is renamed into the cache
only once it is complete; an interrupted one stays as ``<name>.part`` and the next run resumes it
with an HTTP range request (or starts it again where the server ignores ranges). So after a failure
nothing verified is fetched again: not a finished file in data/raw, not a finished archive.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from paraphrastic.atomic import atomic_path, sha256_file, write_json
from paraphrastic.errors import ChecksumMismatch, MissingSource, PipelineError, TruncatedDownload

# Tests and rehearsals serve the upstream files from elsewhere: with this set, a manifest URL
# http://host/path is fetched from <base>/host/path. The manifest's URLs stay the real ones.
UPSTREAM_ENV = "PARAPHRASTIC_UPSTREAM_BASE"
FETCHED = "FETCHED.json"  # the records of what fetch verified, beside the files in the raw folder


def _load_yaml(path) -> dict:
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    return document if isinstance(document, dict) else {}


def load_manifest(path) -> dict[str, dict]:
    files = _load_yaml(path).get("files")
    if not isinstance(files, dict):
        raise PipelineError(f"{path}: expected a top-level `files:` mapping")
    return files


def load_archive_listings(path) -> dict[str, list[str]]:
    """The manifest's ``archives:`` section: archive URL -> the file members it is known to hold."""
    archives = _load_yaml(path).get("archives") or {}
    return {url: list(entry["members"]) for url, entry in archives.items()}


def pick_member(names: list[str], member: str) -> list[str]:
    """The archive names ``member`` denotes: an exact match, else those ending in ``/member``."""
    exact = [n for n in names if n == member]
    return exact or [n for n in names if n.endswith("/" + member)]


def member_problems(manifest: dict[str, dict], listings: dict[str, list[str]]) -> list[str]:
    """Entries whose ``member`` their archive's known listing lacks (or matches more than once)."""
    problems = []
    for name, entry in manifest.items():
        url, member = entry.get("url"), entry.get("member")
        if member and url in listings:
            found = pick_member(listings[url], member)
            if len(found) != 1:
                problems.append(f"{name}: {url} holds {'no' if not found else len(found)} member(s) {member!r}")
    return problems


def upstream_url(url: str, base: str | None) -> str:
    if not base:
        return url
    parts = urlsplit(url)
    return f"{base.rstrip('/')}/{parts.netloc}{parts.path}" + (f"?{parts.query}" if parts.query else "")


def download(url: str, dest: Path, *, timeout: float = 60.0) -> None:
    """Stream ``url`` to ``dest``, resuming a partial ``dest`` with a range request.

    A server that ignores the range (200) is read from the start again. A body shorter than the
    length the server announced is a truncated download; what arrived stays in ``dest`` for the
    next attempt to resume.
    """
    offset = dest.stat().st_size if dest.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={offset}-"} if offset else {})
    try:
        try:
            response = urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            # 416: the part is already the whole body (or the server no longer agrees on its size).
            if exc.code == 416 and offset:
                total = exc.headers.get("Content-Range", "").rpartition("/")[2]
                if total.isdigit() and int(total) == offset:
                    return
                dest.unlink()
                return download(url, dest, timeout=timeout)
            raise
        with response:
            resumed = offset and response.status == 206
            if resumed and not response.headers.get("Content-Range", "").startswith(f"bytes {offset}-"):
                raise TruncatedDownload(f"{url}: the server answered a resume at byte {offset} with range "
                                        f"{response.headers.get('Content-Range')!r}")
            start = offset if resumed else 0
            length = response.headers.get("Content-Length")
            expected = None if length is None else start + int(length)
            with open(dest, "ab" if resumed else "wb") as out:
                shutil.copyfileobj(response, out, length=1 << 20)
    except http.client.IncompleteRead as exc:
        raise TruncatedDownload(f"truncated download of {url}: connection closed after {len(exc.partial)} "
                                f"more bytes, {exc.expected} still expected; {dest.stat().st_size} bytes kept "
                                f"in {dest}, a rerun resumes") from None
    except OSError as exc:
        raise MissingSource(f"cannot download {url}: {exc}") from None
    got = dest.stat().st_size
    if expected is not None and got != expected:
        raise TruncatedDownload(f"truncated download of {url}: got {got} of {expected} bytes; kept in {dest}, "
                                "a rerun resumes")


class DownloadCache:
    """Complete download bodies under ``root``, one per URL, laid out as ``<host>/<path>``."""

    def __init__(self, root: Path, upstream_base: str | None = None):
        self.root = Path(root)
        self.upstream_base = upstream_base

    def path(self, url: str) -> Path:
        parts = urlsplit(url)
        return self.root / parts.netloc / parts.path.lstrip("/")

    def get(self, url: str) -> Path:
        final = self.path(url)
        if not final.is_file():
            final.parent.mkdir(parents=True, exist_ok=True)
            part = final.with_name(final.name + ".part")
            download(upstream_url(url, self.upstream_base), part)
            os.replace(part, final)
        return final

    def discard(self, url: str) -> None:
        """Forget a body that failed verification, so the next run downloads it afresh."""
        self.path(url).unlink(missing_ok=True)


def extract_member(archive: Path, member: str, dest: Path, *, origin: str) -> None:
    """Copy one member out of a zip or tar archive; ``member`` may be a trailing part of the path."""

    def pick(names: list[str]) -> str:
        matches = pick_member(names, member)
        if len(matches) != 1:
            found = "none" if not matches else ", ".join(matches[:5])
            raise MissingSource(f"{origin}: archive member {member!r} not found unambiguously (matches: {found})")
        return matches[0]

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            name = pick([i.filename for i in zf.infolist() if not i.is_dir()])
            with zf.open(name) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, length=1 << 20)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            name = pick([m.name for m in tf.getmembers() if m.isfile()])
            src = tf.extractfile(name)
            with src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, length=1 << 20)
    else:
        raise PipelineError(f"{origin}: expected a zip or tar archive to extract {member!r} from")


def verify(name: str, path: Path, entry: dict, origin: str) -> str:
    actual = sha256_file(path)
    size = entry.get("size")
    if size is not None and path.stat().st_size != size:
        raise TruncatedDownload(
            f"{name} (from {origin}): {path.stat().st_size} bytes, expected {size} "
            f"(truncated or wrong file); sha256 {actual}, expected {entry.get('sha256')}"
        )
    expected = entry.get("sha256")
    if expected and actual != expected:
        raise ChecksumMismatch(name, origin, expected, actual)
    return actual


def _origin(name: str, entry: dict, mirror: Path | None) -> str:
    if mirror is not None and entry.get("mirror"):
        return str(mirror / entry["mirror"])
    if entry.get("url"):
        return entry["url"] + (f"#{entry['member']}" if entry.get("member") else "")
    where = "no offline mirror is configured" if mirror is None else "the mirror has no copy"
    raise MissingSource(f"{name}: {where} and the manifest gives no URL; set `mirror` in params.yaml "
                        "or $PARAPHRASTIC_MIRROR to the offline data mirror")


def _record(name: str, entry: dict, origin: str, sha: str, dest: Path) -> dict:
    stat = dest.stat()
    return {"file": name, "origin": origin, "sha256": sha, "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "pinned": bool(entry.get("sha256")), "licence": entry.get("licence")}


def verify_raw(raw_root) -> None:
    """Every file FETCHED.json records under ``raw_root`` is still what fetch verified: the same size and, where its
    modification time moved (a copy, a checkout, an edit), the same sha256. A stage that reads raw files calls it
    first, so a file edited or damaged after fetch stops the stage naming it rather than being read as it is (Snakemake
    compares times, not contents). Cheap when nothing moved: one stat a file. An edit that keeps the size and sets
    the time back passes; ``paraphrastic verify`` (:func:`raw_problems` with ``by_hash``) hashes every file."""
    found = raw_problems(raw_root)
    if found:
        raise PipelineError(found[0])


def raw_problems(raw_root, *, by_hash: bool = False) -> list[str]:
    """What differs from what fetch verified, one line a file (:func:`verify_raw`); ``by_hash`` compares every
    file's sha256, whatever its time says."""
    raw_root = Path(raw_root)
    try:
        records = json.loads((raw_root / FETCHED).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"{raw_root / FETCHED}: missing (fetch writes it beside the files it verified): run fetch"]
    except (OSError, ValueError) as exc:
        return [f"{raw_root / FETCHED}: not readable ({exc}): rerun fetch"]
    again = "rerun fetch (snakemake --forcerun fetch, or dvc repro --force fetch), which fetches it again"
    found = []
    for record in records:
        path = raw_root / record["file"]
        try:
            stat = path.stat()
        except FileNotFoundError:
            found.append(f"{path}: missing, though fetch verified it; {again}")
            continue
        if stat.st_size != record["bytes"]:
            found.append(f"{path}: {stat.st_size} bytes where fetch verified {record['bytes']} (edited or damaged "
                         f"since); {again}")
        elif ((by_hash or stat.st_mtime_ns != record.get("mtime_ns"))
              and sha256_file(path) != record["sha256"]):
            found.append(f"{path}: its sha256 differs from the one fetch verified (edited or damaged since); {again}")
    return found


def already_fetched(name: str, entry: dict, origin: str, dest: Path, earlier: dict | None) -> dict | None:
    """The record of ``dest`` if it is verified already: by the manifest's sha256 where pinned, else by
    the sha256 an earlier fetch from the same origin recorded."""
    if entry.get("sha256"):
        pinned = entry
    elif earlier is not None and earlier.get("origin") == origin and earlier.get("sha256"):
        pinned = {**entry, "sha256": earlier["sha256"]}
    else:
        return None
    if not dest.is_file():
        return None
    try:
        sha = verify(name, dest, pinned, origin)
    except (ChecksumMismatch, TruncatedDownload):
        return None
    return _record(name, entry, origin, sha, dest)


def fetch_file(name: str, entry: dict, dest_root: Path, mirror: Path | None, downloads: DownloadCache) -> dict:
    """Fetch one manifest entry to ``dest_root/name``; return a provenance record."""
    dest = dest_root / name
    origin = _origin(name, entry, mirror)
    with atomic_path(dest) as tmp:
        if mirror is not None and entry.get("mirror"):
            source = mirror / entry["mirror"]
            if not source.is_file():
                raise MissingSource(f"{name}: not in the offline mirror (looked for {source})")
            shutil.copyfile(source, tmp)
            sha = verify(name, tmp, entry, origin)
        else:
            body = downloads.get(entry["url"])
            try:
                if entry.get("member"):
                    # Several files share one archive (an STS year, the demo bundle): it is downloaded once.
                    extract_member(body, entry["member"], tmp, origin=origin)
                else:
                    shutil.copyfile(body, tmp)
                sha = verify(name, tmp, entry, origin)
            except MissingSource:
                raise  # a member the archive lacks is the manifest's fault: the archive is kept
            except (PipelineError, zipfile.BadZipFile, tarfile.TarError, EOFError):
                # A body that does not verify, or an archive that does not unpack (an error page, a
                # corrupt download), is not kept: a rerun downloads it afresh.
                downloads.discard(entry["url"])
                raise
    return _record(name, entry, origin, sha, dest)


def missing_mirror(mirror: Path) -> str:
    """What to say of a mirror folder that is not there: the setting that names it, and where a relative one was
    looked for (Snakemake's and DVC's working directory)."""
    read_from = "" if mirror.is_absolute() else f", read from {Path.cwd()}"
    return (f"offline mirror {mirror} does not exist (params `mirror` / $PARAPHRASTIC_MIRROR{read_from}): put the data "
            "mirror there (data in the shared folder beside the checkout), or set `mirror: null` to download")


def fetch_all(names: list[str], manifest: dict[str, dict], dest_root, mirror, *, downloads=None,
              upstream_base: str | None = None) -> list[dict]:
    """Fetch ``names`` into ``dest_root`` (normally data/raw) and record them in FETCHED.json beside them.

    ``downloads`` is the download cache (normally data/downloads); without one, downloads go to a
    temporary folder that is removed afterwards. FETCHED.json is rewritten after every file, so a
    failure leaves the record of everything verified before it, and a rerun skips those files.
    """
    dest_root = Path(dest_root)
    mirror = None if mirror is None else Path(mirror)
    if mirror is not None and not mirror.is_dir():
        raise MissingSource(missing_mirror(mirror))
    missing = [n for n in names if n not in manifest]
    if missing:
        raise MissingSource(f"not in the sources manifest: {missing}")
    dest_root.mkdir(parents=True, exist_ok=True)
    upstream_base = upstream_base if upstream_base is not None else os.environ.get(UPSTREAM_ENV)
    earlier = _earlier_records(dest_root / FETCHED)
    records: list[dict] = []
    scratch = tempfile.TemporaryDirectory(dir=dest_root) if downloads is None else contextlib.nullcontext()
    with scratch as scratch_dir:
        cache = DownloadCache(Path(scratch_dir or downloads), upstream_base)
        for position, name in enumerate(names):
            entry = manifest[name]
            origin = _origin(name, entry, mirror)
            record = already_fetched(name, entry, origin, dest_root / name, earlier.get(name))
            records.append(record or fetch_file(name, entry, dest_root, mirror, cache))
            # Until the list is done, keep what an earlier run verified of the files still ahead.
            ahead = [earlier[n] for n in names[position + 1:] if n in earlier]
            write_json(dest_root / FETCHED, records + ahead)
    return records


def _earlier_records(path: Path) -> dict[str, dict]:
    """Records of an earlier (possibly interrupted) fetch; an unreadable file just means none."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
        return {r["file"]: r for r in records if isinstance(r, dict) and "file" in r}
    except (OSError, ValueError, TypeError):
        return {}
