"""A loopback stand-in for the Hugging Face Hub's file server, for offline tests (stdlib only).

It serves ``HEAD`` and ``GET /{repo}/resolve/{revision}/{filename}`` the way huggingface.co does: ``ETag``,
``X-Repo-Commit`` (a 40-hex commit per repo and revision), ``Content-Length``, ``Range`` reads (206 and
``Content-Range``), and errors as ``X-Error-Code`` ``RepoNotFound`` / ``RevisionNotFound`` / ``EntryNotFound``
(404) and ``GatedRepo`` (401 without a token, 403 with a wrong one). Files lie under ``root`` as
``{org}/{name}/{filename}`` (revision ``main``) and ``{org}/{name}/.revisions/{revision}/{filename}``; a repo
with a ``.gated`` file is gated, and the token it holds opens it; one with a ``.status`` file answers every
request with that HTTP status; one with a ``.no-range`` file ignores Range headers. ``bytes_sent`` counts the
body bytes served.

    python tests/hub_stub.py DIR PORT      # serve DIR on 127.0.0.1:PORT (0: any free port), print the URL
"""

from __future__ import annotations

import hashlib
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


class HubStub(ThreadingHTTPServer):
    """The server: ``url``, ``bytes_sent`` and ``requests`` (method, path, Range header, status, body bytes)."""

    daemon_threads = True

    def __init__(self, root: str | Path, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self.root, self.bytes_sent, self.requests = Path(root), 0, []
        self.lock = threading.Lock()
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> HubStub:
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def gets(self, filename: str) -> int:
        """How many GETs asked for ``filename``."""
        return sum(1 for method, path, *_ in self.requests if method == "GET" and path.endswith("/" + filename))

    def sent_for(self, filename: str) -> int:
        """Body bytes served for ``filename``."""
        return sum(size for _, path, _, _, size in self.requests if path.endswith("/" + filename))


def commit_of(repo: str, revision: str) -> str:
    """The commit hash the stub gives ``repo`` at ``revision``."""
    return hashlib.sha1(f"{repo}@{revision}".encode()).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    server: HubStub

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def do_GET(self) -> None:
        self._serve(body=True)

    def _serve(self, body: bool) -> None:
        repo, _, rest = self.path.split("?")[0].lstrip("/").partition("/resolve/")
        revision, _, filename = rest.partition("/")
        repo, revision, filename = unquote(repo), unquote(revision), unquote(filename)
        folder = self.server.root / repo
        if not repo or not filename or not folder.is_dir() or ".." in filename:
            return self._reply(404, {"X-Error-Code": "RepoNotFound"}, b"Repository not found", body)
        if (folder / ".status").is_file():  # a failing server: every request answers this status
            return self._reply(int((folder / ".status").read_text()), {}, b"Server failure", body)
        gate = folder / ".gated"
        if gate.is_file():
            sent = self.headers.get("Authorization", "")
            if sent != f"Bearer {gate.read_text().strip()}":
                return self._reply(403 if sent else 401, {"X-Error-Code": "GatedRepo"}, b"Access restricted", body)
        revisions = {"main": folder, **{p.name: p for p in (folder / ".revisions").glob("*") if p.is_dir()}}
        by_commit = {commit_of(repo, name): name for name in revisions}
        revision = by_commit.get(revision, revision)
        if revision not in revisions:
            return self._reply(404, {"X-Error-Code": "RevisionNotFound"}, b"Revision not found", body)
        commit = {"X-Repo-Commit": commit_of(repo, revision)}
        path = revisions[revision] / filename
        if not path.is_file():
            return self._reply(404, {"X-Error-Code": "EntryNotFound", **commit}, b"Entry not found", body)
        data = path.read_bytes()
        headers = {**commit, "ETag": f'"{hashlib.sha256(data).hexdigest()}"', "Accept-Ranges": "bytes"}
        wanted = self.headers.get("Range")
        if wanted is None or (folder / ".no-range").is_file():  # .no-range: a server that ignores Range
            return self._reply(200, headers, data, body)
        start, _, end = wanted.removeprefix("bytes=").partition("-")
        first = len(data) - int(end) if not start else int(start)
        last = min(int(end), len(data) - 1) if start and end else len(data) - 1
        if not 0 <= first <= last:
            return self._reply(416, {"Content-Range": f"bytes */{len(data)}"}, b"", body)
        headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
        return self._reply(206, headers, data[first : last + 1], body)

    def _reply(self, status: int, headers: dict[str, str], data: bytes, body: bool) -> None:
        with self.server.lock:
            sent = len(data) if body else 0
            self.server.requests.append((self.command, self.path, self.headers.get("Range"), status, sent))
            self.server.bytes_sent += sent
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(data))}.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tests/hub_stub.py DIR PORT")
    stub = HubStub(sys.argv[1], int(sys.argv[2]))
    print(stub.url, flush=True)
    stub.serve_forever()
