"""Hostile table files through the real upload path: the browser's file input, Streamlit's upload endpoint, the
UploadedFile the Learned page reads. Each is refused in place with its reason (no traceback), no pickle runs, the
server's peak memory stays within a budget, a file over the upload limit is refused by the uploader itself, and a
valid table drawn after all of them shows the page still works."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest

from posenc.ui.navigation import URL_PATHS
from tests.browser.helpers import exceptions_on_page, wait_until_drawn
from tests.hostile_tables import hostile_tables, npy_bytes, reset_peak, status_kib

pytestmark = pytest.mark.browser

SERVER_PEAK_BUDGET_KIB = 1536 * 1024  # 1.5 GiB: the app at rest takes about 400 MB; the bombs declare 1 and 3 GiB
UPLOAD_LIMIT_MB = 65  # .streamlit/config.toml server.maxUploadSize
MAIN = "[data-testid='stMain']"


def _server_pid(app_url: str) -> int:
    """The process serving ``app_url``: the ``streamlit run`` whose command line names its port."""
    port = str(urlparse(app_url).port)
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(argv) and port.encode() in argv:
            return int(proc.name)
    raise AssertionError(f"no streamlit process serves port {port}")


def _refusal(page, name: str) -> str:
    """The text of the error that names ``name`` in the main area, once it is there."""
    alert = page.locator(f"{MAIN} [data-testid='stAlert']").filter(has_text=f"{name}:")
    alert.first.wait_for(state="visible", timeout=30_000)
    return alert.first.inner_text()


def test_hostile_uploads_are_refused_in_place_nothing_runs_and_memory_stays_flat(app_url, tab, tmp_path):
    marker = tmp_path / "pickle-ran"
    pid = _server_pid(app_url)
    learned = URL_PATHS["learned"]
    tab.goto(f"{app_url}/{learned}?table_source=upload")
    file_input = tab.locator(f"{MAIN} [data-testid='stFileUploader'] input[type='file']")
    file_input.wait_for(state="attached", timeout=60_000)
    reset_peak(pid)
    for name, data, says in hostile_tables(marker):
        path = tmp_path / "files" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        file_input.set_input_files(str(path))  # by path: Chromium reads the file itself, as from a reader's disk
        said = _refusal(tab, name)
        assert re.search(says, said), f"{name}: {said!r} does not say {says!r}"
        assert "Traceback" not in said and "Exception" not in said and "allow_pickle" not in said
        assert exceptions_on_page(tab) == [], name
    peak = status_kib("VmHWM", pid)
    assert not marker.exists(), "a pickle's code ran in the server"
    assert peak < SERVER_PEAK_BUDGET_KIB, f"the server's peak memory reached {peak / 1024:.0f} MiB"

    too_big = tmp_path / "too_big.npy"
    with too_big.open("wb") as sparse:  # sparse: no disk written, the browser checks the size before sending
        sparse.truncate((UPLOAD_LIMIT_MB + 1) << 20)
    file_input.set_input_files(str(too_big))
    uploader = tab.locator(f"{MAIN} [data-testid='stFileUploader']")
    uploader.get_by_text(re.compile(rf"{UPLOAD_LIMIT_MB}(\.0)?\s?MB or smaller")).wait_for(timeout=30_000)

    table = np.random.default_rng(0).normal(size=(40, 12)).astype(np.float32)
    fine = tmp_path / "files" / "fine.npy"
    fine.write_bytes(npy_bytes(table))
    file_input.set_input_files(str(fine))  # the last refusal's run may still be ending: wait for the table's title
    tab.locator(f"{MAIN} .gtitle").filter(has_text="fine.npy").first.wait_for(timeout=90_000)
    wait_until_drawn(tab)
    assert exceptions_on_page(tab) == []
