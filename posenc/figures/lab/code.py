"""The code behind the length lab's figures: read the lab's results (``posenc_lab.results``) or run its trained
models (``posenc_lab.probes``), as the figures do. Each snippet names the folder the app reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing import registry
from posenc.drawing.code import Snippet, assignments, code_block, expect, literal, register_code
from posenc.figures.lab import source
from posenc.figures.lab.attention import FLOOR, MULTIPLES
from posenc_lab.checkpoints import SHIPPED
from posenc_lab.scaling import SCALING_TYPES

IMPORTS = ("numpy as np",)


def nothing(figure_id: str, values: Mapping[str, Any]) -> Snippet:
    """The snippet while the lab has no results: the figure's values, and nothing computed from them."""
    names = registry.get_spec(figure_id).params
    text = code_block(
        assignments(values, *names), "result = {}  # no lab results yet: posenc lab train --all", imports=()
    )
    return Snippet(text, dict)


def _load() -> str:
    """The line that reads the results the app reads."""
    shipped = source.folder() == SHIPPED
    where = "" if shipped else literal(str(source.results_path()))
    return f"from posenc_lab.results import load_results\n\nresults = load_results({where})"


def _checkpoint(scheme: str) -> str:
    return (
        "from posenc_lab import checkpoints, probes\n\n"
        f"model = checkpoints.load({literal(str(source.checkpoint_path(scheme)))}).model  # the trained {scheme} model"
    )


def _rows_to_arrays(rows: str, key: str, x: str = '"length": np.array(results["lengths"], dtype=float)') -> str:
    return f"""
        result = {{{x}}}
        for scheme, rows in {rows}.items():  # a row per length; None where a learned table has no row
            result[scheme] = np.array([np.nan if row["{key}"] is None else row["{key}"] for row in rows])
        """


@register_code("lab-lengths")
def lengths_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-lengths", values)
    rows = f'results["lm"][{literal(values["lab_mode"])}]'
    source_text = code_block(_load(), _rows_to_arrays(rows, values["lab_metric"]), imports=IMPORTS)
    return Snippet(source_text, expect("lab-lengths", values))


COPY_LETTERS = '"letters": (np.array(results["copy_lengths"], dtype=float) - 1) // 2'  # strings of n letters


@register_code("lab-copy")
def copy_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-copy", values)
    rows = _rows_to_arrays('results["copy"]', values["lab_copy_metric"], COPY_LETTERS)
    source_text = code_block(_load(), rows, imports=IMPORTS)
    return Snippet(source_text, expect("lab-copy", values))


@register_code("lab-positions")
def positions_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-positions", values)
    body = f"""
        window = {literal(values["lab_smooth"])}
        n = results["positions"]["length"]
        result = {{"position": np.arange(n, dtype=float)}}
        for scheme, loss in results["positions"]["loss"].items():
            if loss is None:  # a learned table has no row past L
                continue
            sums = np.cumsum(np.concatenate([[0.0], loss]))
            ends = np.arange(1, n + 1)
            starts = np.maximum(ends - window, 0)
            result[scheme] = (sums[ends] - sums[starts]) / (ends - starts)  # trailing mean of the last `window`
        """
    return Snippet(code_block(_load(), body, imports=IMPORTS), expect("lab-positions", values))


@register_code("lab-scaling")
def scaling_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-scaling", values)
    factor, mode = values["factor"], values["lab_mode"]
    shipped = source.results().get("scaling", {})
    if shipped.get("factor") == factor and shipped.get("mode") == mode:
        rows = 'results["scaling"]["rows"]'  # evaluated with the lab, at this factor and mode
        return Snippet(
            code_block(_load(), _rows_to_arrays(rows, "loss"), imports=IMPORTS), expect("lab-scaling", values)
        )
    body = f"""
        from posenc_lab import checkpoints
        from posenc_lab.results import scaled_rows

        checkpoint = checkpoints.load({literal(str(source.checkpoint_path("rope")))})
        factor, mode = {literal(float(factor))}, {literal(mode)}
        rows = {{"default": results["lm"][mode]["rope"]}}  # no scaling: the rows evaluated with the lab
        for rope_type in {literal(tuple(kind for kind in SCALING_TYPES if kind != "default"))}:
            rows[rope_type] = scaled_rows(checkpoint, rope_type, factor, results["lengths"], mode)
        """
    return Snippet(
        code_block(_load(), body, _rows_to_arrays("rows", "loss"), imports=IMPORTS),
        expect("lab-scaling", values),
        rtol=1e-4,
    )


@register_code("lab-attention")
def attention_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-attention", values)
    body = f"""
        layer, head = {literal(values["lab_layer"])}, {literal(values["lab_head"])}
        result = {{}}
        for multiple in {literal(MULTIPLES)}:
            tokens = probes.window(multiple * results["train_length"])  # the held-out text's first tokens
            try:
                result[f"attention_{{multiple}}L"] = probes.attention(model, tokens, layer)[head].numpy()
            except ValueError:  # a learned table has no row past L
                pass
        # drawn as log10(max(A, 1e{int(FLOOR)})), the keys after each query masked
        """
    return Snippet(
        code_block(_load(), _checkpoint(values["lab_scheme"]), body, imports=IMPORTS),
        expect("lab-attention", values),
        rtol=1e-4,
        atol=1e-6,
    )


@register_code("lab-pair-norms")
def pair_norms_code(values: Mapping[str, Any]) -> Snippet:
    if not source.available():
        return nothing("lab-pair-norms", values)
    body = f"""
        tokens = probes.window(results["train_length"])
        query, key = probes.pair_norms(model, tokens, layer={literal(values["lab_layer"])})  # (heads, pairs) each
        result = {{"query": query.numpy(), "key": key.numpy()}}
        """
    return Snippet(
        code_block(_load(), _checkpoint("rope"), body, imports=IMPORTS), expect("lab-pair-norms", values), rtol=1e-4
    )
