"""The built wheel, installed into a fresh virtual environment outside the repository, as a user installs it.

The wheel is built from a copy of the tracked tree; the new environment sees the project's installed dependencies
through a ``.pth`` file (so nothing is downloaded) and pip installs the wheel with no index, which also checks
that its declared dependencies are met. Every command then runs from a folder outside the repository, so
nothing can be imported from the clone: ``posenc --help``, ``posenc config`` against a loopback Hub, ``posenc
export`` with Korean text (the catalogues are in the wheel), ``posenc app`` answering its health check, the
installed app's first page through AppTest, and the example notebook.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
from pathlib import Path

import pytest

from bench.app_server import free_port, wait_healthy
from tests.hub_stub import HubStub

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", "screenshots")


class Installed:
    """A fresh environment with the wheel installed: ``run(*args)`` runs one of its programs in ``home``."""

    def __init__(self, venv: Path, home: Path, wheel: Path):
        self.venv, self.home, self.wheel = venv, home, wheel
        self.bin = venv / "bin"

    def env(self, extra: dict | None = None) -> dict[str, str]:
        """This process's environment without Python's or coverage's settings (nothing points into the clone)."""
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "COV_", "COVERAGE"))}
        return clean | (extra or {})

    def run(self, program: str, *args: str, env: dict | None = None, timeout: float = 180):
        return subprocess.run(
            [str(self.bin / program), *args],
            cwd=self.home,
            env=self.env(env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT)
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work)]
    subprocess.run([*build, str(source)], check=True, capture_output=True, timeout=300)
    (wheel,) = work.glob("posenc-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = Path(subprocess.check_output([venv / "bin" / "python", "-c", _PURELIB], text=True).strip())
    (purelib / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index", "-q"]
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True, text=True, timeout=300)
    home = work / "home"
    home.mkdir()
    return Installed(venv, home, wheel)


_PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"


def test_the_wheel_adds_only_posenc_posenc_core_and_posenc_lab_to_site_packages(installed):
    listing = subprocess.run(
        [sys.executable, "-m", "zipfile", "-l", str(installed.wheel)], capture_output=True, text=True, check=True
    ).stdout
    tops = {line.split()[0].split("/")[0] for line in listing.splitlines()[1:] if line.strip()}
    assert {name for name in tops if not name.endswith(".dist-info")} == {"posenc", "posenc_core", "posenc_lab"}
    where = installed.run(
        "python",
        "-c",
        "import posenc, posenc_core, posenc_lab; print(posenc.__file__, posenc_core.__file__, posenc_lab.__file__)",
    )
    assert where.returncode == 0, where.stderr
    assert all(path.startswith(str(installed.venv)) for path in where.stdout.split())


def test_the_installed_lab_evaluates_its_shipped_checkpoint(installed):
    evaluated = installed.run("posenc", "lab", "eval", "--scheme", "alibi", "--lengths", "64,256", "--json")
    assert evaluated.returncode == 0, evaluated.stderr
    report = json.loads(evaluated.stdout)
    assert report["scheme"] == "alibi" and [row["length"] for row in report["results"]] == [64, 256]
    assert all(row["loss"] > 0 for row in report["results"])


def test_posenc_help_and_version(installed):
    shown = installed.run("posenc", "--help")
    assert shown.returncode == 0 and "posenc app" in shown.stdout and "posenc config" in shown.stdout
    version = installed.run("posenc", "--version")
    assert version.stdout.split() == ["posenc", _project_version()]


def test_posenc_config_reads_a_model_by_id_from_a_loopback_hub(installed, tmp_path):
    root = tmp_path / "hub"
    (root / "meta-llama" / "Llama-3.1-8B").mkdir(parents=True)
    shutil.copy(ROOT / "tests/fixtures/configs/llama-3.1-8b.json", root / "meta-llama/Llama-3.1-8B/config.json")
    stub = HubStub(root).start()
    try:
        env = {"HF_ENDPOINT": stub.url, "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "0"}
        read = installed.run("posenc", "config", "meta-llama/Llama-3.1-8B", "--json", env=env)
        missing = installed.run("posenc", "config", "meta-llama/No-Such-Model", env=env)
    finally:
        stub.stop()
    assert read.returncode == 0, read.stderr
    assert "500000" in read.stdout and "llama3" in read.stdout
    assert missing.returncode == 2 and "meta-llama/No-Such-Model" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_posenc_export_writes_a_figure_in_korean(installed):
    made = installed.run("posenc", "export", "rope-angles", "--format", "html", "--lang", "ko", "--out", "out")
    assert made.returncode == 0, made.stderr
    (page,) = (installed.home / "out").glob("*.html")
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m[1], 16)), page.read_text(encoding="utf-8"))
    assert "각도" in text and "위치" in text  # Korean title and axis (angle, position): the catalogues are packaged


def test_posenc_app_serves_the_installed_dashboard(installed):
    port = free_port()
    server = subprocess.Popen(
        [str(installed.bin / "posenc"), "app", "--port", str(port)],
        cwd=installed.home,
        env=installed.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_healthy(f"http://127.0.0.1:{port}", server, timeout=90)  # raises unless /_stcore/health says ok
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/rope", timeout=10).status == 200
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert str(installed.venv) in output  # it served the installed copy of the app
    run = installed.run("python", "-c", _APP_TEST, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == {"exceptions": 0, "errors": 0, "charts": True}


_APP_TEST = """
import json
from streamlit.testing.v1 import AppTest
from posenc.commands.app import app_script
at = AppTest.from_file(str(app_script()), default_timeout=120).run()
print(json.dumps({"exceptions": len(at.exception), "errors": len(at.error), "charts": len(at.get("plotly_chart")) > 0}))
"""


def test_the_example_notebook_runs_from_the_installed_package(installed, tmp_path):
    examples = installed.home / "examples"
    shutil.copytree(ROOT / "examples", examples, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    kernels = tmp_path / "jupyter" / "kernels" / "posenc-wheel"
    kernels.mkdir(parents=True)
    argv = [str(installed.bin / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (kernels / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "wheel", "language": "python"}))
    run = installed.run(
        "python",
        "-c",
        _RUN_NOTEBOOK,
        str(examples / "quickstart.ipynb"),
        env={"JUPYTER_PATH": str(tmp_path / "jupyter")},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout.splitlines()[-1])["errors"] == 0


_RUN_NOTEBOOK = """
import json, sys
from pathlib import Path
import nbclient, nbformat
path = Path(sys.argv[1])
notebook = nbformat.read(path, as_version=4)
nbclient.NotebookClient(notebook, kernel_name="posenc-wheel", timeout=240,
                        resources={"metadata": {"path": str(path.parent)}}).execute()
errors = sum(o.get("output_type") == "error" for c in notebook.cells for o in c.get("outputs", []))
print(json.dumps({"errors": errors}))
"""


def _project_version() -> str:
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["project"]["version"]
