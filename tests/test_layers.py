"""The layers hold: posenc_core (the formulas) and posenc_lab (the models built on them) import torch, never
Streamlit or Plotly, and the core never imports the lab. Checked in a fresh interpreter that imports every module
of both packages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

IMPORT_ALL = """
import importlib, json, pkgutil, sys
import posenc_core
core = [m.name for m in pkgutil.walk_packages(posenc_core.__path__, "posenc_core.") if not m.name.endswith("_moved")]
for name in core:
    importlib.import_module(name)
after_core = sorted(sys.modules)
import posenc_lab
for m in pkgutil.walk_packages(posenc_lab.__path__, "posenc_lab."):
    importlib.import_module(m.name)
print(json.dumps({"core": after_core, "all": sorted(sys.modules)}))
"""


def _loaded() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_core_and_the_lab_load_no_streamlit_or_plotly_and_the_core_no_lab():
    loaded = _loaded()
    tops = {name.split(".")[0] for name in loaded["all"]}
    assert "torch" in tops
    assert not {"streamlit", "plotly", "posenc"} & tops, sorted({"streamlit", "plotly", "posenc"} & tops)
    assert not any(name.startswith("posenc_lab") for name in loaded["core"]), "the core imported the lab"
