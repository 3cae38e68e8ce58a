"""The code behind the sinusoidal figures: the table PE[p, j] from Vaswani's formula in NumPy, for the layout drawn.

Ref: Vaswani et al. 2017, arXiv 1706.03762 §3.5 (see :mod:`posenc_core.encodings.sinusoidal` for the three layouts).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.code import Snippet, assignments, code_block, expect, figure_data, index_code, register_code
from posenc.drawing.shown import shown_channels
from posenc.figures.sinusoidal.add_or_concat import TOKEN_SEED
from posenc.figures.sinusoidal.linear_map import LINEAR_MAP_MAX_D, LINEAR_MAP_PAIRS
from posenc.figures.sinusoidal.params import shown
from posenc.figures.sinusoidal.similarity import SIMILARITY_POSITIONS, measured_rows
from posenc.figures.sinusoidal.table import HEATMAP_PAIRS, HEATMAP_POSITIONS, HEATMAP_WINDOW
from posenc.figures.sinusoidal.waves import CURVE_POSITIONS, ENVELOPE_COLUMNS
from posenc_core import sampling
from posenc_core.encodings import sinusoidal

OMEGA = {  # ω_i of every pair, the unpaired last sin channel of an odd d_model included
    "interleaved": "omega = base ** (-2 * np.arange((d_model + 1) // 2) / d_model)  # ω_i = base^(-2i/d)",
    "half": "omega = base ** (-2 * np.arange((d_model + 1) // 2) / d_model)  # ω_i = base^(-2i/d)",
    "t2t": "omega = base ** (-np.arange(d_model // 2) / (d_model // 2 - 1))  # ω_i = base^(-i/(d/2 - 1))",
}
PAIR = {  # the pair i of every channel j
    "interleaved": "pair = np.arange(d_model) // 2  # channels 2i and 2i + 1 belong to pair i",
    "half": "pair = np.arange(d_model) % ((d_model + 1) // 2)  # sin channels first, then cos",
    "t2t": "pair = np.arange(d_model) % (d_model // 2)  # sin channels first, then cos",
}
_TABLE = {
    "interleaved": """
        pe = np.zeros((len(positions), d_model))
        pe[:, 0::2] = np.sin(angle)  # channel 2i = sin(p·ω_i)
        pe[:, 1::2] = np.cos(angle[:, : d_model // 2])  # channel 2i + 1 = cos(p·ω_i)
        """,
    "half": "pe = np.concatenate([np.sin(angle), np.cos(angle[:, : d_model // 2])], axis=1)  # all sin, then all cos",
    "t2t": """
        pe = np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # all sin, then all cos
        pe = np.pad(pe, ((0, 0), (0, d_model % 2)))  # an odd d_model ends with a zero channel
        """,
}


def table_code(layout: str) -> str:
    """The lines computing ``pe`` (P, d_model) at ``positions`` from ``d_model`` and ``base``."""
    body = "\n".join(line.strip() for line in _TABLE[layout].strip().splitlines())
    return f"{OMEGA[layout]}\nangle = positions[:, None] * omega[None, :]  # (P, pairs): p·ω_i\n{body}"


def table_function(layout: str) -> str:
    """``def encode(positions)`` returning the (P, d_model) table."""
    indented = "\n".join("    " + line for line in table_code(layout).splitlines())
    return f"def encode(positions):\n{indented}\n    return pe"


@register_code("sinusoidal-heatmap")
def heatmap_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown(values, HEATMAP_WINDOW if values["view"] == "window" else HEATMAP_POSITIONS)
    channels, sampled = shown_channels(values["d_model"], values["layout"], HEATMAP_PAIRS)
    pick = f"pe = pe[:, {index_code(channels)}]  # the channels drawn" if sampled else ""
    source = code_block(
        assignments(values, "d_model", "base"),
        f"positions = {index_code(positions)}  # the rows drawn",
        table_code(values["layout"]),
        pick,
        "result = pe  # (positions, channels), the heatmap",
    )
    return Snippet(source, expected=expect("sinusoidal-heatmap", values, "encoding"))


@register_code("sinusoidal-similarity")
def similarity_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown(values, SIMILARITY_POSITIONS)
    source = code_block(
        assignments(values, "d_model", "base"),
        f"positions = {index_code(positions)}  # the rows and columns drawn",
        table_code(values["layout"]),
        "result = pe @ pe.T  # PE(p)·PE(q); for even d_model the diagonal is d_model / 2",
    )
    return Snippet(source, expected=expect("sinusoidal-similarity", values, "similarity"), atol=1e-5)


@register_code("sinusoidal-relative")
def relative_code(values: Mapping[str, Any]) -> Snippet:
    first = values["start"] if values["view"] == "window" else 0
    rows = measured_rows(values["d_model"], values["seq_len"] - first)
    lone = ""
    if values["d_model"] % 2 and values["layout"] != "t2t":  # the unpaired sin channel depends on p
        lone = "closed += np.sin(positions[0] * omega[-1]) * np.sin((positions[0] + offsets) * omega[-1])"
    source = code_block(
        assignments(values, "d_model", "base"),
        f"positions = np.arange({first}, {first + rows})  # consecutive positions the spread is measured on",
        table_code(values["layout"]),
        f"""
        offsets = np.arange({max(1, rows // 2)})
        # PE(p)·PE(p+k) for every p with p + k among the positions, for each offset k
        dots = [(pe[: len(pe) - k] * pe[k:]).sum(axis=1) for k in offsets]
        closed = np.cos(offsets[:, None] * omega[None, : d_model // 2]).sum(axis=1)  # Σ_i cos(k·ω_i)
        {lone}
        result = {{"closed_form": closed, "mean": [d.mean() for d in dots], "std": [d.std() for d in dots]}}
        """,
    )
    keys = ("closed_form", "mean", "std")
    return Snippet(source, expected=expect("sinusoidal-relative", values, *keys), atol=1e-5)


@register_code("sinusoidal-wavelengths")
def wavelengths_code(values: Mapping[str, Any]) -> Snippet:
    d_model, layout = values["d_model"], values["layout"]
    channels, sampled = shown_channels(d_model, layout, sampling.MAX_CURVE_POINTS // 2)
    pair = PAIR[layout]
    padding = ""
    if layout == "t2t" and d_model % 2:
        padding = "pair[-1] = len(omega)\nomega = np.append(omega, 0.0)  # the zero channel: λ = ∞"
    source = code_block(
        assignments(values, "d_model", "base"),
        f"{OMEGA[layout]}\n{pair}",
        padding,
        f"channels = {index_code(channels)}  # the channels drawn" if sampled else "channels = np.arange(d_model)",
        """
        with np.errstate(divide="ignore"):
            result = 2 * np.pi / omega[pair[channels]]  # λ = 2π / ω_i, in tokens
        """,
    )
    return Snippet(source, expected=expect("sinusoidal-wavelengths", values, "wavelength"))


def _channel_expression(j: int, d_model: int, layout: str) -> str:
    """PE[:, j] as sin or cos of positions·ω_i, the pair i and its ω written out."""
    i = int(sinusoidal.channel_pair_index(d_model, layout, device="cpu")[j])
    n_sin = {"interleaved": None, "half": (d_model + 1) // 2, "t2t": d_model // 2}[layout]
    is_sin = j % 2 == 0 if n_sin is None else j < n_sin
    if layout == "t2t" and i == d_model // 2:
        return "np.zeros(len(positions))  # the zero channel of an odd d_model"
    omega = f"base ** (-2 * {i} / d_model)" if layout != "t2t" else f"base ** (-{i} / (d_model // 2 - 1))"
    return f"np.{'sin' if is_sin else 'cos'}(positions * {omega})  # pair {i}"


@register_code("sinusoidal-waves")
def waves_code(values: Mapping[str, Any]) -> Snippet:
    d_model, layout = values["d_model"], values["layout"]
    window = values["view"] == "window"
    positions, _ = shown(values, sampling.MAX_CELLS_PER_AXIS if window else CURVE_POSITIONS)
    stride = sampling.sampling_stride(positions)
    wavelength = sinusoidal.wavelengths(d_model, base=values["base"], layout=layout, dtype=torch.float64, device="cpu")
    lines = [f"positions = {index_code(positions)}  # the points drawn", 'result = {"positions": positions}']
    for j in (j for j in values["dims"] if j < d_model):
        wave = _channel_expression(j, d_model, layout)
        if not (sampling.is_sampled(positions) and sampling.aliases(stride, float(wavelength[j]))):
            lines.append(f'result["channel_{j}"] = {wave}')
            continue
        total = values["seq_len"]  # too fast for the samples: min and max of every position in each column
        per_column = math.ceil(total / min(ENVELOPE_COLUMNS, total))
        lines += [
            f"# channel {j} turns faster than the samples: min and max over columns of {per_column} positions",
            f"every = np.arange({total})",
            f"wave = {wave.replace('positions', 'every')}",
            f"columns = np.pad(wave, (0, -len(wave) % {per_column}), constant_values=np.nan).reshape(-1, {per_column})",
            f'result["channel_{j}_low"], result["channel_{j}_high"] = np.nanmin(columns, 1), np.nanmax(columns, 1)',
        ]
    source = code_block(assignments(values, "d_model", "base"), "\n".join(lines))
    return Snippet(source, expected=lambda: figure_data("sinusoidal-waves", values))


@register_code("sinusoidal-add-vs-concat")
def add_versus_concatenate_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown(values, sampling.MAX_CELLS_PER_AXIS)
    source = code_block(
        assignments(values, "d_model", "base", "token_scale"),
        f"positions = {index_code(positions)}  # the points drawn",
        table_code(values["layout"]),
        f"""
        # a random token embedding e (torch's generator, seed {TOKEN_SEED}), scaled to ‖e‖ = token_scale · √(d/2)
        e = torch.randn(1, d_model, generator=torch.Generator().manual_seed({TOKEN_SEED}))[0].double().numpy()
        e = e / np.linalg.norm(e) * token_scale * np.sqrt(d_model / 2)
        added = e + pe  # e + PE(p)
        norm_concat = np.sqrt(e @ e + (pe**2).sum(axis=1))  # ‖[e; PE(p)]‖
        result = {{
            "positions": positions,
            "cos_added": added @ e / (np.linalg.norm(added, axis=1) * np.linalg.norm(e)),
            "cos_concatenated": np.linalg.norm(e) / norm_concat,  # cos([e; 0], [e; PE(p)])
            "norm_added": np.linalg.norm(added, axis=1),
            "norm_concatenated": norm_concat,
            "norm_token": np.full(len(positions), np.linalg.norm(e)),
        }}
        """,
        imports=("numpy as np", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("sinusoidal-add-vs-concat", values), atol=1e-5)


_PAIRS = {  # the sin and the cos channel of each full pair
    "interleaved": "sin_ch, cos_ch = np.arange(0, 2 * full, 2), np.arange(1, 2 * full, 2)",
    "half": "sin_ch, cos_ch = np.arange(full), (d_model + 1) // 2 + np.arange(full)",
    "t2t": "sin_ch, cos_ch = np.arange(full), full + np.arange(full)",
}


_UNPAIRED = {  # an odd d_model's last channel: a sin with no cos partner (t2t: the zero channel)
    "interleaved": "m[-1, -1] = np.cos(angle[-1])  # the unpaired sin channel can only be scaled",
    "half": "m[full, full] = np.cos(angle[-1])  # the unpaired sin channel can only be scaled",
    "t2t": "m[-1, -1] = 1.0  # the zero channel",
}


def _rotation_code(values: Mapping[str, Any]) -> str:
    """``m``: M_k (d, d), a 2x2 rotation by k·ω_i on the (sin, cos) channels of each pair."""
    return f"""
        {OMEGA[values["layout"]]}
        angle, full = offset * omega, d_model // 2  # k·ω_i; the full (sin, cos) pairs
        {_PAIRS[values["layout"]]}
        m = np.zeros((d_model, d_model))
        {_UNPAIRED[values["layout"]] if min(values["d_model"], LINEAR_MAP_MAX_D) % 2 else ""}
        m[sin_ch, sin_ch] = m[cos_ch, cos_ch] = np.cos(angle[:full])
        m[sin_ch, cos_ch] = np.sin(angle[:full])  # sin(p+k) = sin p cos k + cos p sin k
        m[cos_ch, sin_ch] = -np.sin(angle[:full])  # cos(p+k) = cos p cos k - sin p sin k
        """


def _d_check(values: Mapping[str, Any]) -> str:
    d_check = min(values["d_model"], LINEAR_MAP_MAX_D)
    return f"d_model = {d_check}" + ("" if d_check == values["d_model"] else "  # M_k is drawn for this d")


@register_code("sinusoidal-linear-map")
def linear_map_code(values: Mapping[str, Any]) -> Snippet:
    odd_t2t = values["layout"] == "t2t" and min(values["d_model"], LINEAR_MAP_MAX_D) % 2
    source = code_block(
        f"{_d_check(values)}\n{assignments(values, 'base', 'offset')}",
        _rotation_code(values),
        f"""
        {PAIR[values["layout"]]}
        {"pair[-1] = full  # the zero channel" if odd_t2t else ""}
        corner = np.flatnonzero(pair < {LINEAR_MAP_PAIRS})  # the channels of the first {LINEAR_MAP_PAIRS} pairs
        result = m[np.ix_(corner, corner)]
        """,
    )
    return Snippet(source, expected=expect("sinusoidal-linear-map", values, "m_k_corner"))


@register_code("sinusoidal-linear-map-error")
def linear_map_error_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown(values, sampling.MAX_CELLS_PER_AXIS)
    source = code_block(
        f"{_d_check(values)}\n{assignments(values, 'base', 'offset')}",
        table_function(values["layout"]),
        _rotation_code(values),
        f"""
        positions = {index_code(positions)}  # the points drawn
        moved = encode(positions) @ m.T  # M_k PE(p)
        result = np.abs(moved - encode(positions + offset)).max(axis=1)  # max over channels of |M_k PE(p) - PE(p+k)|
        """,
    )
    return Snippet(source, expected=expect("sinusoidal-linear-map-error", values, "max_error"), atol=1e-9)
