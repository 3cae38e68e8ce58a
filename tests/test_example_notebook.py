"""The example notebook (examples/quickstart.ipynb) runs from top to bottom in a Jupyter kernel of this interpreter.

The kernel is declared in a kernelspec under ``tmp_path`` (JUPYTER_PATH points there; Jupyter's runtime and
IPython's profile folders are in ``tmp_path`` too), so nothing is installed on the machine. The notebook runs in a
copy of examples/, as Jupyter runs it: in its own folder, where it finds its config.json and writes its exports.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager

import posenc

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KERNEL = "posenc-test-python"
PLOTLY_MIME = "application/vnd.plotly.v1+json"


@pytest.fixture
def kernel(tmp_path, monkeypatch) -> str:
    """A kernelspec running ``sys.executable -m ipykernel_launcher``, found through JUPYTER_PATH only; the kernel
    imports the posenc this test imports."""
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    package_root = str(Path(posenc.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    assert KernelSpecManager().get_kernel_spec(KERNEL).argv[0] == sys.executable
    return KERNEL


def test_the_quickstart_notebook_runs_and_draws_its_figures(kernel, tmp_path):
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("exports", ".ipynb_checkpoints"))
    notebook = nbformat.read(folder / "quickstart.ipynb", as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # shipped cleared
    client = nbclient.NotebookClient(
        notebook, kernel_name=kernel, timeout=120, startup_timeout=60, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()

    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    errors = [f"{o.ename}: {o.evalue}" for o in outputs if o.output_type == "error"]
    assert not errors
    figures = [o.data[PLOTLY_MIME] for o in outputs if PLOTLY_MIME in o.get("data", {})]
    assert len(figures) >= 3 and all(figure["data"] for figure in figures)
    printed = "".join(o.text for o in outputs if o.output_type == "stream" and o.name == "stdout")
    assert "config equals preset: True" in printed
    assert "ValueError: factor=1000" in printed
    assert (folder / "exports" / "rope-angles.html").stat().st_size > 100_000
