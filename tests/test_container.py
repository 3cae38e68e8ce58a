"""The Dockerfile: the image builds, the app in it answers its health check, and it runs without root.

Needs a Docker engine; where none runs (the project's CI machines have the client only) the test is skipped and
says why. Building downloads the base image and packages, so it is slow (minutes) where it runs.
"""

import shutil
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from bench.app_server import free_port

ROOT = Path(__file__).resolve().parents[1]


def _engine_runs() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


pytestmark = pytest.mark.skipif(not _engine_runs(), reason="no Docker engine runs on this machine")


def test_the_image_builds_serves_the_app_and_runs_as_a_user():
    tag = f"posenc-test-{uuid.uuid4().hex[:8]}"
    subprocess.run(["docker", "build", "-t", tag, str(ROOT)], check=True, timeout=1800)
    port = free_port()
    container = subprocess.run(
        ["docker", "run", "-d", "--rm", "-p", f"127.0.0.1:{port}:8501", tag],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    try:
        deadline, answer = time.monotonic() + 120, b""
        while time.monotonic() < deadline and answer != b"ok":
            try:
                answer = urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=3).read()
            except OSError:
                time.sleep(1)
        assert answer == b"ok"
        uid = subprocess.run(["docker", "exec", container, "id", "-u"], capture_output=True, text=True).stdout
        assert uid.strip() != "0"
        fonts = subprocess.run(["docker", "exec", container, "fc-list", ":lang=ko"], capture_output=True, text=True)
        assert "Noto" in fonts.stdout
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)
