"""The module names of posenc 0.1 before the commands had one room still import, as the very module in its room,
with a warning that names the new place; ``python -m posenc.export`` still runs the exporter; names that never
existed still fail."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from posenc._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]
IMPORTED = sorted((old, new) for old, new in MOVED.items() if not old.endswith("__main__"))


@pytest.mark.parametrize(("old", "new"), IMPORTED)
def test_an_old_name_is_the_module_in_its_room(old, new):
    for name in (f"posenc.{old}", "posenc.export"):
        sys.modules.pop(name, None)
    with pytest.warns(DeprecationWarning, match=r"posenc\.\S+ is now posenc\."):
        module = importlib.import_module(f"posenc.{old}")
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new, "the module itself is unchanged"


def test_the_old_import_forms_work_in_a_fresh_interpreter():
    script = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from posenc.cli import main, BAD_INPUT\n"
        "from posenc.export import cli\n"
        "from posenc.export.cli import main as export_main\n"
        "import posenc.plan_report, posenc.commands.plan_report as report\n"
        "from posenc import api_inputs\n"
        "assert posenc.plan_report is report and cli.main is export_main\n"
        "assert api_inputs.__name__ == 'posenc.api.inputs'\n"
        "print(main.__module__, export_main.__module__, BAD_INPUT)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split() == ["posenc.commands.router", "posenc.commands.export", "2"]


def test_python_m_posenc_export_still_runs_the_exporter_with_a_warning():
    done = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-m", "posenc.export", "list"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "rope-angles" in done.stdout
    assert "posenc.export is now posenc.commands.export" in done.stderr


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # posenc.export itself is an old name
def test_a_name_that_never_existed_is_still_missing():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("posenc.plan_commands")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("posenc.export.cli2")
