"""The layers hold: posenc_core (the formulas) and posenc_lab (the models built on them) import torch, never
Streamlit or Plotly, and the core never imports the lab (checked in a fresh interpreter that imports every module
of both packages). No two modules of posenc_core, posenc_lab, posenc or bench import each other (checked on the
source: every import statement, at the top, in a function or under TYPE_CHECKING)."""

from __future__ import annotations

import ast
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


PACKAGES = ("posenc_core", "posenc_lab", "posenc", "bench")


def _module_names() -> dict[str, Path]:
    """Every module of :data:`PACKAGES` in the source tree by its dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported_modules(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports anywhere in its source: ``from P import x`` counts as
    importing ``P.x`` when that is a module, else ``P``; a module importing its own package does not count (Python
    imports the package first in any case)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the importing module's package
                here = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join([*here[: len(here) - node.level + 1], *([base] if base else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(f"{target}."):
                found.add(target)
    return found


def two_module_circles(known: dict[str, Path]) -> list[tuple[str, str]]:
    graph = {name: imported_modules(name, path, known) for name, path in known.items()}
    return sorted({tuple(sorted((a, b))) for a, imports in graph.items() for b in imports if a in graph.get(b, ())})


def test_the_walker_sees_an_import_inside_a_function_and_under_type_checking(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n"
    )
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from . import a\n")
    known = {"pkg": tmp_path / "pkg" / "__init__.py", "pkg.a": tmp_path / "pkg/a.py", "pkg.b": tmp_path / "pkg/b.py"}
    assert two_module_circles(known) == [("pkg.a", "pkg.b")]


def test_no_two_modules_import_each_other():
    known = _module_names()
    assert {"posenc_core.plan.plan", "posenc_lab.train", "bench.soak", "posenc.commands.router"} <= set(known)
    assert two_module_circles(known) == []


def test_drawing_imports_nothing_from_the_figures():
    """posenc.figures draws with posenc.drawing, never the other way: the families are registered by whoever starts
    the app or the API (posenc.figures.register_all)."""
    known = _module_names()
    drawing = {
        name: path for name, path in known.items() if name == "posenc.drawing" or name.startswith("posenc.drawing.")
    }
    assert len(drawing) > 10
    upward = {
        name: sorted(m for m in imported_modules(name, path, known) if m.startswith("posenc.figures"))
        for name, path in drawing.items()
    }
    assert {name: found for name, found in upward.items() if found} == {}
    script = (
        "import importlib, pkgutil, sys, posenc.drawing\n"
        "for m in pkgutil.walk_packages(posenc.drawing.__path__, 'posenc.drawing.'): importlib.import_module(m.name)\n"
        "from posenc.drawing import registry\n"
        "print(len(registry.FIGURES), sorted(m for m in sys.modules if m.startswith('posenc.figures')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["0", "[]"], "importing posenc.drawing registered or loaded a figure family"


def test_register_all_fills_both_registries_once():
    script = (
        "from posenc.drawing import params, registry\n"
        "import posenc.figures as figures\n"
        "counts = (len(registry.FIGURES), len(params.PARAMS))\n"
        "figures.register_all()\n"
        "assert (len(registry.FIGURES), len(params.PARAMS)) == counts\n"
        "print(*counts)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    figures_count, params_count = map(int, done.stdout.split())
    assert figures_count > 50 and params_count > 50


def test_the_lessons_load_in_a_fresh_interpreter_with_nothing_else_imported():
    """A lesson names figures, so reading one registers the families itself (the lesson presenter's browser test
    imports only the reader: before, it failed with "'why-attention' is not a figure")."""
    script = "from posenc.lessons.reader import load_lessons\nprint(len(load_lessons()))\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 4
