"""The code behind every figure: a few lines of NumPy or PyTorch that compute a figure's data from the formula.

A family registers one snippet per figure id in ``figures/<family>/code.py`` (imported with the family's other
modules)::

    @register_code("rope-wavelengths")
    def wavelengths_code(values: Mapping[str, Any]) -> Snippet:
        source = code_block(
            assignments(values, "head_dim", "base"),
            '''
            inv_freq = 1.0 / base ** (np.arange(0, head_dim, 2) / head_dim)  # θ_i = base^(-2i/d)
            result = 2 * math.pi / inv_freq  # λ_i = 2π / θ_i, in tokens
            ''',
            imports=("math", "numpy as np"),
        )
        return Snippet(source, expected=lambda: figure_data("rope-wavelengths", values)["wavelength"])

``source`` is plain Python importing only numpy, torch and math, with the parameters written in as literals, and
it leaves its answer in a variable ``result`` (an array, a number, or a dict of them). The app shows it under the
figure (``ui.show``); the tests run it (:func:`run_snippet`) and compare ``result`` with ``expected()``, what the
figure draws for the same values (:func:`assert_matches`), so a snippet cannot drift from its figure.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from posenc.drawing import registry

ALLOWED_IMPORTS = frozenset({"math", "numpy", "torch", "transformers", "posenc_lab"})
"""The only modules a snippet may import: a learner can paste it anywhere with numpy and torch installed
(transformers too for the one figure that measures a real model's attention, which is a trained network's
output, not a formula; and posenc_lab, installed with posenc, for the length lab's trained models)."""


@dataclass(frozen=True)
class Snippet:
    """A figure's code: ``source`` (defines ``result``), ``expected()`` (what the figure draws for the same
    values) and the tolerance of the comparison."""

    source: str
    expected: Callable[[], Any]
    rtol: float = 1e-5
    atol: float = 1e-6


SnippetBuilder = Callable[[Mapping[str, Any]], Snippet]
CODE: dict[str, SnippetBuilder] = {}


def register_code(figure_id: str) -> Callable[[SnippetBuilder], SnippetBuilder]:
    """Decorator registering ``builder(values) -> Snippet`` as the code of figure ``figure_id``."""

    def decorate(builder: SnippetBuilder) -> SnippetBuilder:
        if figure_id in CODE:
            raise ValueError(f"figure {figure_id!r} has two code snippets")
        CODE[figure_id] = builder
        return builder

    return decorate


def snippet_for(figure_id: str, values: Mapping[str, Any]) -> Snippet | None:
    """The snippet of ``figure_id`` for the figure's parameter ``values``; None when it has none."""
    builder = CODE.get(figure_id)
    return None if builder is None else builder(values)


def run_snippet(snippet: Snippet) -> Any:
    """Execute ``snippet.source`` in a fresh namespace and return its ``result``."""
    namespace: dict[str, Any] = {"__name__": "__snippet__"}
    exec(compile(snippet.source, "<snippet>", "exec"), namespace)  # our own registered source, not user input
    if "result" not in namespace:
        raise ValueError("the snippet does not define a variable named result")
    return namespace["result"]


def imported_modules(source: str) -> set[str]:
    """The top-level modules ``source`` imports ({'numpy', 'math'} for ``import numpy as np; import math``)."""
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    return modules


def assert_matches(result: Any, expected: Any, *, rtol: float = 1e-5, atol: float = 1e-6, where: str = "result"):
    """Raise AssertionError unless ``result`` equals ``expected`` within tolerance: arrays and tensors element by
    element (same shape), dicts key by key, strings exactly."""
    if isinstance(expected, Mapping):
        assert isinstance(result, Mapping), f"{where}: expected a dict with keys {sorted(expected)}"
        assert set(result) == set(expected), f"{where}: keys {sorted(result)} != {sorted(expected)}"
        for key in expected:
            assert_matches(result[key], expected[key], rtol=rtol, atol=atol, where=f"{where}[{key!r}]")
    elif isinstance(expected, str):
        assert result == expected, f"{where}: {result!r} != {expected!r}"
    else:
        got, want = _as_float_array(result), _as_float_array(expected)
        assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)


def figure_data(figure_id: str, values: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The arrays figure ``figure_id`` draws for ``values`` (``FigureResult.data``): what most snippets equal."""
    spec = registry.get_spec(figure_id)
    return registry.build(figure_id, registry.params_for(spec, values)).data


def expect(figure_id: str, values: Mapping[str, Any], *keys: str) -> Callable[[], Any]:
    """An ``expected`` for a Snippet: the figure's array ``keys[0]`` for one key, a dict of ``keys`` for several,
    all its arrays for none (built when called, not before)."""

    def expected() -> Any:
        data = figure_data(figure_id, values)
        if not keys:
            return data
        return data[keys[0]] if len(keys) == 1 else {key: data[key] for key in keys}

    return expected


def literal(value: Any) -> str:
    """``value`` as a Python literal a learner can read: 10000.0, 128, 'half', (16, 24, 24)."""
    if isinstance(value, bool | str | type(None)):
        return repr(value)
    if isinstance(value, int | np.integer):
        return repr(int(value))
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, tuple | list):
        items = ", ".join(literal(item) for item in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    raise TypeError(f"no literal for {type(value).__name__}")


def assignments(values: Mapping[str, Any], *names: str) -> str:
    """One line ``name = value`` per parameter, in the order given."""
    return "\n".join(f"{name} = {literal(values[name])}" for name in names)


def index_code(indices: Any, module: str = "np") -> str:
    """An expression for a 1-D run of integers: ``np.arange(0, 1024, 2)`` when evenly spaced, ``np.unique(
    np.linspace(0, 99999, 2048).round().astype(int))`` when it is that (sampled positions), else a list."""
    items = [int(i) for i in np.asarray(indices).reshape(-1)]
    steps = {b - a for a, b in itertools.pairwise(items)}
    if len(items) > 1 and len(steps) == 1 and steps.pop() > 0:
        step = items[1] - items[0]
        stop = items[-1] + 1
        return f"{module}.arange({items[0]}, {stop})" if step == 1 else f"{module}.arange({items[0]}, {stop}, {step})"
    if len(items) > 2:
        first, last = items[0], items[-1]
        for count in (len(items), *_LINSPACE_COUNTS):
            if module == "torch":
                spaced = torch.linspace(first, last, count, dtype=torch.float64).round().long().unique_consecutive()
                expression = f"torch.linspace({first}, {last}, {count}, dtype=torch.float64).round().long().unique()"
            else:
                spaced = np.unique(np.linspace(first, last, count).round().astype(int))
                expression = f"np.unique(np.linspace({first}, {last}, {count}).round().astype(int))"
            if spaced.tolist() == items:
                return expression
    return f"{module}.tensor({items})" if module == "torch" else f"{module}.array({items})"


_LINSPACE_COUNTS = (256, 384, 512, 1024, 2048, 4096)  # the sample counts of drawing.shown and posenc_core.sampling


def code_block(*parts: str, imports: tuple[str, ...] = ("numpy as np",)) -> str:
    """A snippet's source: the import lines, then each part (dedented, its blank lines dropped), separated by one
    blank line. A part may hold a multi-line value formatted into it: its lines that lack the part's indentation
    (that of its first line) are kept as they are."""
    head = "\n".join(f"import {name}" for name in imports)
    body = "\n\n".join(block for block in map(_dedent, parts) if block)
    return f"{head}\n\n{body}\n"


def _dedent(part: str) -> str:
    lines = [line for line in part.splitlines() if line.strip()]
    if not lines:
        return ""
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    return "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)


def _as_float_array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().double().numpy()
    return np.asarray(value, dtype=np.float64)
