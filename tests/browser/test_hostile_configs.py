"""Hostile config.json files through the real upload path: the sidebar's uploader in a real browser (which refuses a
20 MB file itself), Streamlit's upload endpoint, the reader. Each is refused in place with its reason (no
traceback), the server keeps answering, and a valid config uploaded after them is read. (The figures drawn beside
a refused config, and the reader's own size limit: tests/ui/test_config_reader.py.)"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

from posenc.ui.navigation import URL_PATHS
from tests.browser.helpers import exceptions_on_page

pytestmark = pytest.mark.browser

SIDEBAR = "[data-testid='stSidebar']"
EXAMPLE = "examples/llama-3.1-8b-config.json"
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}


def _hostile_configs(tmp_path):
    """(file, what the message says) for each kind: deep nesting, a 400-digit number, not JSON."""
    files = {
        "deep.json": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        "giant.json": (json.dumps({**LLAMA, "max_position_embeddings": 10**400}), "max_position_embeddings must be"),
        "not-json.json": ("{'hidden_size': 4096,", "not valid JSON"),
    }
    made = []
    for name, (text, says) in files.items():
        (tmp_path / name).write_text(text)
        made.append((tmp_path / name, says))
    return made


def test_hostile_configs_are_refused_in_place_and_a_valid_one_is_read(app_url, tab, tmp_path):
    page = URL_PATHS["glossary"]  # no figures: each rerun is quick
    tab.goto(f"{app_url}/{page}?preset=config")
    file_input = tab.locator(f"{SIDEBAR} [data-testid='stFileUploader'] input[type='file']")
    file_input.wait_for(state="attached", timeout=60_000)
    lost = tab.locator(f"{SIDEBAR} [data-testid='stAlert']").filter(has_text="does not hold the config")
    lost.wait_for(state="visible", timeout=30_000)  # a link that chose a config but holds none says so
    big = tmp_path / "big.json"
    with big.open("wb") as sparse:  # 20 MB, written sparse: the uploader refuses it before sending it
        sparse.truncate(20 << 20)
    file_input.set_input_files(str(big))
    uploader = tab.locator(f"{SIDEBAR} [data-testid='stFileUploader']")
    uploader.get_by_text(re.compile(r"1(\.0)?\s?MB or smaller")).wait_for(timeout=30_000)
    for path, says in _hostile_configs(tmp_path):
        file_input.set_input_files(str(path))
        alert = tab.locator(f"{SIDEBAR} [data-testid='stAlert']").filter(has_text="config.json:").filter(has_text=says)
        alert.first.wait_for(state="visible", timeout=30_000)
        said = alert.first.inner_text()
        assert "Traceback" not in said and len(said) < 400, f"{path.name}: {said!r}"
        assert exceptions_on_page(tab) == [], path.name
        with urllib.request.urlopen(f"{app_url}/_stcore/health", timeout=10) as answer:  # the server still answers
            assert answer.status == 200
    file_input.set_input_files(EXAMPLE)
    tab.locator(f"{SIDEBAR} [data-testid='stAlert']").filter(has_text="Read my-llama-3.1-style-model").wait_for(
        state="visible", timeout=30_000
    )
    assert "does not hold the config" not in tab.locator(SIDEBAR).inner_text()
    assert exceptions_on_page(tab) == []
