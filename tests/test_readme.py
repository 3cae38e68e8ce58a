"""The README's notebook example runs as written (in a folder holding a model's config.json, as it assumes)."""

import re
import shutil
from pathlib import Path

import plotly.graph_objects as go

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_notebook_example_runs(tmp_path, monkeypatch):
    (example,) = [block for block in _python_blocks((ROOT / "README.md").read_text()) if "import posenc\n" in block]
    shutil.copy(ROOT / "examples" / "llama-3.1-8b-config.json", tmp_path / "config.json")
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(compile(example, "README.md", "exec"), names)
    assert isinstance(names["fig"], go.Figure) and names["data"]
    assert (tmp_path / "alibi.pdf").read_bytes().startswith(b"%PDF")
