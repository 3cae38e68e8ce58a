"""tests/hub_stub.py started as a script serves a folder the way the Hub serves a repo (the packaging test uses it)."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.hub_stub import commit_of

STUB = Path(__file__).resolve().parent / "hub_stub.py"


def test_the_stub_as_a_script_serves_files_ranges_and_errors(tmp_path):
    (tmp_path / "org" / "model").mkdir(parents=True)
    (tmp_path / "org" / "model" / "config.json").write_bytes(b'{"hidden_size": 64}')
    server = subprocess.Popen([sys.executable, str(STUB), str(tmp_path), "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        request = urllib.request.Request(f"{url}/org/model/resolve/main/config.json", headers={"Range": "bytes=2-12"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 206 and response.read() == b"hidden_size"
            assert response.headers["Content-Range"] == "bytes 2-12/19"
            assert response.headers["X-Repo-Commit"] == commit_of("org/model", "main")
        try:
            urllib.request.urlopen(f"{url}/org/model/resolve/main/absent.json", timeout=10)
        except urllib.error.HTTPError as error:
            assert (error.code, error.headers["X-Error-Code"]) == (404, "EntryNotFound")
        else:
            raise AssertionError("a missing file must be a 404")
    finally:
        server.terminate()
        server.wait(timeout=10)
