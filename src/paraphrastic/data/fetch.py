"""Fetch upstream files into data/raw: from the offline mirror when configured, else from the URL.

Every file is verified against the manifest's sha256 (and size) before it is renamed into place, so
a mismatch or a truncated download stops with an error naming the file and leaves nothing behind.
"""

from __future__ import annotations

import http.client
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

import yaml

from paraphrastic.atomic import atomic_path, sha256_file, write_json
from paraphrastic.errors import ChecksumMismatch, MissingSource, PipelineError, TruncatedDownload


def load_manifest(path) -> dict[str, dict]:
    with open(path, encoding="utf-8") as handle:
        manifest = yaml.safe_load(handle)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict):
        raise PipelineError(f"{path}: expected a top-level `files:` mapping")
    return files


def download(url: str, dest: Path, *, timeout: float = 60.0) -> None:
    """Stream ``url`` to ``dest``; a body shorter than Content-Length is a truncated download."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(dest, "wb") as out:
            expected = response.headers.get("Content-Length")
            shutil.copyfileobj(response, out, length=1 << 20)
    except http.client.IncompleteRead as exc:
        raise TruncatedDownload(f"truncated download of {url}: connection closed after {len(exc.partial)} "
                                f"more bytes, {exc.expected} still expected") from None
    except OSError as exc:
        raise MissingSource(f"cannot download {url}: {exc}") from None
    got = dest.stat().st_size
    if expected is not None and got != int(expected):
        raise TruncatedDownload(f"truncated download of {url}: got {got} of {expected} bytes")


def extract_member(archive: Path, member: str, dest: Path, *, origin: str) -> None:
    """Copy one member out of a zip or tar archive; ``member`` may be a trailing part of the path."""

    def pick(names: list[str]) -> str:
        exact = [n for n in names if n == member]
        matches = exact or [n for n in names if n.endswith("/" + member)]
        if len(matches) != 1:
            found = "none" if not matches else ", ".join(matches[:5])
            raise MissingSource(f"{origin}: archive member {member!r} not found unambiguously (matches: {found})")
        return matches[0]

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            name = pick([i.filename for i in zf.infolist() if not i.is_dir()])
            with zf.open(name) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            name = pick([m.name for m in tf.getmembers() if m.isfile()])
            src = tf.extractfile(name)
            with src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
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


def fetch_file(name: str, entry: dict, dest_root: Path, mirror: Path | None, *, cache: dict | None = None) -> dict:
    """Fetch one manifest entry to ``dest_root/name``; return a provenance record."""
    dest = dest_root / name
    with tempfile.TemporaryDirectory(dir=dest_root) as scratch, atomic_path(dest) as tmp:
        scratch = Path(scratch)
        if mirror is not None and entry.get("mirror"):
            source = mirror / entry["mirror"]
            if not source.is_file():
                raise MissingSource(f"{name}: not in the offline mirror (looked for {source})")
            origin = str(source)
            shutil.copyfile(source, tmp)
        elif entry.get("url"):
            url = entry["url"]
            origin = url + (f"#{entry['member']}" if entry.get("member") else "")
            if entry.get("member"):
                # Several files share one archive (an STS year, a demo bundle): download it once.
                archive = (cache or {}).get(url)
                if archive is None:
                    archive = scratch / "archive"
                    download(url, archive)
                    if cache is not None:
                        kept = dest_root / f".archive-{len(cache)}"
                        shutil.move(archive, kept)
                        cache[url] = archive = kept
                extract_member(archive, entry["member"], tmp, origin=origin)
            else:
                download(url, tmp)
        else:
            where = "no offline mirror is configured" if mirror is None else "the mirror has no copy"
            raise MissingSource(f"{name}: {where} and the manifest gives no URL; set `mirror` in params.yaml "
                                "or $PARAPHRASTIC_MIRROR to the offline data mirror")
        sha = verify(name, tmp, entry, origin)
    return {"file": name, "origin": origin, "sha256": sha, "bytes": dest.stat().st_size,
            "pinned": bool(entry.get("sha256")), "licence": entry.get("licence")}


def fetch_all(names: list[str], manifest: dict[str, dict], dest_root, mirror) -> list[dict]:
    """Fetch ``names`` into ``dest_root`` (normally data/raw) and write FETCHED.json beside them."""
    dest_root = Path(dest_root)
    dest_root.mkdir(parents=True, exist_ok=True)
    mirror = None if mirror is None else Path(mirror)
    if mirror is not None and not mirror.is_dir():
        raise MissingSource(f"offline mirror {mirror} does not exist (params `mirror` / $PARAPHRASTIC_MIRROR)")
    missing = [n for n in names if n not in manifest]
    if missing:
        raise MissingSource(f"not in the sources manifest: {missing}")
    cache: dict[str, Path] = {}
    try:
        records = [fetch_file(n, manifest[n], dest_root, mirror, cache=cache) for n in names]
    finally:
        for kept in cache.values():
            kept.unlink(missing_ok=True)
    write_json(dest_root / "FETCHED.json", records)
    return records
