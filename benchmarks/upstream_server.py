"""A loopback HTTP server standing in for the upstream hosts (fetch tests and the paper-data rehearsal).

It serves ``<root>/<host>/<path>`` at ``/<host>/<path>``, which is where the fetcher looks when
$PARAPHRASTIC_UPSTREAM_BASE is the server's address, so the manifest's real URLs are used unchanged.
Files may also be given in memory (``files``). It honours single byte ranges (``Range: bytes=N-``),
as the real hosts do, and can inject the faults a download meets: a connection cut after some bytes,
a Content-Length that overstates the body, a server that ignores ranges.
"""

from __future__ import annotations

import http.server
import re
import threading
from pathlib import Path


class UpstreamServer:
    def __init__(self, root: Path | None = None):
        self.root = None if root is None else Path(root)
        self.files: dict[str, bytes] = {}
        self.cut_after: dict[str, int] = {}  # path -> bytes sent before the next response is cut (once)
        self.lie_about_length: set[str] = set()
        self.ignore_range: set[str] = set()
        self.requests: list[tuple[str, str | None]] = []  # (path, Range header)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> UpstreamServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def body(self, path: str) -> tuple[bytes | None, Path | None]:
        if path in self.files:
            return self.files[path], None
        if self.root is not None:
            local = (self.root / path.lstrip("/")).resolve()
            if local.is_file() and self.root.resolve() in local.parents:
                return None, local
        return None, None


def _handler(server: UpstreamServer):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            requested = self.headers.get("Range")
            server.requests.append((self.path, requested))
            data, local = server.body(self.path)
            if data is None and local is None:
                self.send_error(404)
                return
            total = len(data) if data is not None else local.stat().st_size
            start = 0
            match = re.fullmatch(r"bytes=(\d+)-", requested or "")
            if match and self.path not in server.ignore_range:
                start = int(match.group(1))
                if start >= total:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{total}")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{total - 1}/{total}")
            else:
                self.send_response(200)
            length = total - start
            claimed = length + 100 if self.path in server.lie_about_length else length
            self.send_header("Content-Length", str(claimed))
            self.end_headers()
            limit = server.cut_after.pop(self.path, None)
            send = length if limit is None else min(limit, length)
            if data is not None:
                self.wfile.write(data[start:start + send])
            else:
                with open(local, "rb") as handle:
                    handle.seek(start)
                    _copy(handle, self.wfile, send)
            if limit is not None:
                self.close_connection = True

        def log_message(self, *args):
            pass

    return Handler


def _copy(source, target, count: int) -> None:
    remaining = count
    while remaining:
        block = source.read(min(1 << 20, remaining))
        if not block:
            break
        target.write(block)
        remaining -= len(block)


def serve_forever(root: Path) -> None:  # pragma: no cover - a manual convenience
    with UpstreamServer(root) as server:
        print(f"serving {root} at {server.base}; export PARAPHRASTIC_UPSTREAM_BASE={server.base}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    import sys

    serve_forever(Path(sys.argv[1]))
