"""A :class:`tests.hub_stub.HubStub` on 127.0.0.1 serving ``tmp_path/hub``, with HF_ENDPOINT pointing at it,
HF_HOME / HF_HUB_CACHE in ``tmp_path`` and no token, so a test never reaches the internet or the user's cache.

A test module makes it a fixture in three lines::

    @pytest.fixture
    def hub(tmp_path, monkeypatch):
        yield from serve_hub(tmp_path, monkeypatch)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hub_stub import HubStub


class Hub:
    """The running stub and helpers that put files in its repos."""

    def __init__(self, stub: HubStub, root: Path, cache: Path):
        self.stub, self.root, self.cache = stub, root, cache
        self.url = stub.url

    def add(self, repo: str, filename: str, content: bytes | str | dict, *, revision: str = "main") -> Path:
        """Put ``content`` (bytes, text, or a dict written as JSON) at ``repo``'s ``filename``."""
        folder = self.root / repo if revision == "main" else self.root / repo / ".revisions" / revision
        path = folder / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            content = json.dumps(content, indent=2)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    def gate(self, repo: str, token: str) -> None:
        """Make ``repo`` gated: only ``Authorization: Bearer <token>`` opens it."""
        (self.root / repo).mkdir(parents=True, exist_ok=True)
        (self.root / repo / ".gated").write_text(token)


def serve_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    """Start the stub, point the Hugging Face environment at it, yield it, stop it."""
    root, home = tmp_path / "hub", tmp_path / "hf-home"
    root.mkdir()
    stub = HubStub(root).start()
    monkeypatch.setenv("HF_ENDPOINT", stub.url)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(home / "hub"))
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield Hub(stub, root, home / "hub")
    finally:
        stub.stop()
