"""The code behind the Compare figures: each item's curve against the distance k from its formula, with the item's
numbers (width, preset frequencies, slope, buckets) written in, in NumPy and PyTorch (float64, as the figures).

A trained learned table is data, not a formula: a list holding one shows no snippet.
Ref: the references of each scheme's own snippets (sinusoidal, rope, context, alibi, relative, learned).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from posenc.drawing.code import Snippet, code_block, figure_data, index_code, literal, register_code
from posenc.figures.alibi.code import SLOPES
from posenc.figures.alibi.compare_item import item_slopes
from posenc.figures.compare.curves import CURVE_POINTS, distances
from posenc.figures.compare.items import CompareItem, parse_schemes
from posenc.figures.context.code_variants import frequencies_code, parameter_lines
from posenc.figures.relative.code import T5_BUCKET
from posenc_core import rope
from posenc_core.models import presets

_SCALING_DEFAULTS = {  # HF's defaults for the keys a preset's rope_scaling leaves out
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "truncate": True,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
}


def distances_code(p: Mapping[str, Any]) -> str:
    """``ks``: the distances drawn, as an expression when it gives them exactly."""
    ks, _ = distances(p)
    if p["distance_axis"] == "log":
        written = f"np.unique(np.logspace(0, np.log10({p['seq_len'] - 1}), {CURVE_POINTS}).round().astype(int))"
        if np.array_equal(eval(written, {"np": np}), ks.numpy()):  # our own expression, checked before it is shown
            return f"ks = {written}  # log-spaced distances"
    return f"ks = {index_code(ks)}  # the distances drawn"


def rope_inputs(item: CompareItem, p: Mapping[str, Any]) -> tuple[dict[str, Any], str, float, int]:
    """(values for the context snippets' frequency code, the scaling variant, attention factor, head_dim)."""
    if item.preset is None:
        inputs = {"head_dim": p["head_dim"], "base": p["base"], "scaling": None, "partial_rotary_factor": 1.0}
    else:
        inputs = presets.rope_inputs(item.preset, seq_len=p["seq_len"])
    scaling = dict(inputs["scaling"] or {})
    values = {
        **_SCALING_DEFAULTS,
        **scaling,
        "head_dim": inputs["head_dim"],
        "base": inputs["base"],
        "partial_rotary_factor": inputs["partial_rotary_factor"],
        "seq_len": p["seq_len"],
        "factor": scaling.get("factor", 1.0),
        "original_max_position_embeddings": scaling.get("original_max_position_embeddings")
        or inputs.get("max_position_embeddings"),
    }
    _, factor = rope.inv_freq(**inputs, device="cpu", dtype=torch.float64)
    head_dim = item.preset.rope_head_dim if item.preset is not None else p["head_dim"]
    return values, scaling.get("rope_type", "default"), factor, head_dim


def _rope_lines(i: int, item: CompareItem, p: Mapping[str, Any], *, decay: bool) -> str:
    values, variant, factor, head_dim = rope_inputs(item, p)
    lines = [f"# {i}: {item.label}", parameter_lines(values, [variant]), frequencies_code(values, [variant], "double")]
    lines.append(f'theta = inv["{variant}"].numpy()  # θ_i of this model')
    if decay:  # RoFormer §3.4.3: (1/(d/2)) Σ_j |S_j(k)|, S_j = Σ_(i<j) e^(i·k·θ_i), divided by its value at k = 0
        lines += [
            "S = np.cumsum(np.exp(1j * np.r_[0, ks][:, None] * theta[None, :]), axis=1)",
            f'bound = np.abs(S).mean(axis=1)\nresult["bound_{i}"] = bound[1:] / bound[0]',
        ]
        return "\n".join(lines)
    lines += [  # q = k = all ones: each pair gives 2·a²·cos(kθ_i), each channel that does not rotate 1
        f"a, passing = {literal(float(factor))}, {head_dim} - rotary_dim  # cos/sin factor; channels that do not turn",
        "score = 2 * a**2 * np.cos(np.r_[0, ks][:, None] * theta[None, :]).sum(axis=1) + passing",
        f'result["distance_{i}"], result["similarity_{i}"] = ks, score[1:] / score[0]',
    ]
    return "\n".join(lines)


def _item_lines(i: int, item: CompareItem, p: Mapping[str, Any]) -> str:
    if item.kind == "sinusoidal":
        return (
            f"# {i}: {item.label}: PE(p)·PE(p+k) = Σ_i cos(k·ω_i), ω_i = 10000^(-2i/d)\n"
            f"omega = 10000.0 ** (-2 * np.arange({item.size} // 2) / {item.size})\n"
            "s = np.cos(np.r_[0, ks][:, None] * omega[None, :]).sum(axis=1)\n"
            f'result["distance_{i}"], result["similarity_{i}"] = ks, s[1:] / s[0]'
        )
    if item.kind == "rope":
        return _rope_lines(i, item, p, decay=False)
    if item.kind == "alibi":
        bias_max = 8.0 if item.preset is None or item.preset.alibi_bias_max is None else item.preset.alibi_bias_max
        slope = float(item_slopes(item)[item.head])
        return "\n".join(
            [
                f"# {i}: {item.label}: attention to the key k back ÷ to the current token = e^(-m·k)",
                f"n_heads, alibi_bias_max = {item.size}, {literal(float(bias_max))}",
                *(line.strip() if not line.startswith("        ") else line[4:] for line in SLOPES.splitlines()[1:]),
                f"m = slopes[{item.head}]  # head {item.head}: m = {slope:.6g}",
                f'result["distance_{i}"], result["similarity_{i}"] = ks, np.exp(-m * ks)',
            ]
        )
    if item.kind == "t5":
        last = f"min(ks.max(), {item.max_distance})"
        return (
            f"# {i}: {item.label}: how many different buckets the keys 0..k back fall into\n"
            f"num_buckets, max_distance = {item.size}, {item.max_distance}\n"
            f"{T5_BUCKET.strip()}\n".replace("\n    ", "\n")
            + f"buckets = bucket(-torch.arange({last} + 1), True).numpy()  # keys 0, 1, 2, ... back\n"
            "count = np.cumsum(np.r_[1, np.diff(buckets) != 0])  # a new bucket adds a signal\n"
            f'result["distance_{i}"], result["distinct_buckets_{i}"] = ks, count[np.minimum(ks, {last})]'
        )
    if item.kind == "learned":  # a random N(0, 0.02²) table, seed 0: the mean of T[p]·T[p+k] over p
        return (
            f"# {i}: {item.label}: mean over p of T[p]·T[p+k]\n"
            "g = torch.Generator().manual_seed(0)\n"
            f"T = torch.randn({item.size}, {p['d_model']}, generator=g, dtype=torch.float64) * 0.02\n"
            "T = T.float().double()  # the table is kept in float32\n"
            f"kept = ks[ks < {item.size}]  # a table has no row past its end\n"
            "profile = np.array([float((T[: len(T) - k] * T[k:]).sum(dim=1).mean()) for k in np.r_[0, kept]])\n"
            f'result["distance_{i}"], result["similarity_{i}"] = kept, profile[1:] / profile[0]'
        )
    raise ValueError(f"no snippet for compare items of kind {item.kind!r}")


def _snippet(figure_id: str, values: Mapping[str, Any], decay: bool) -> Snippet | None:
    items = parse_schemes(values["schemes"], values)
    if any(item.kind == "learned" and item.table is not None for item in items):
        return None  # a trained table is data, not a formula
    if any(item.kind not in ("sinusoidal", "rope", "alibi", "t5", "learned") for item in items):
        return None  # a scheme added later without a compare snippet here
    head = [f"{distances_code(values)}", 'result = {"distance": ks}' if decay else "result = {}"]
    if decay:
        parts = [_rope_lines(i, item, values, decay=True) for i, item in enumerate(items) if item.kind == "rope"]
    else:
        parts = [_item_lines(i, item, values) for i, item in enumerate(items)]
    source = code_block("\n".join(head), *parts, imports=("math", "numpy as np", "torch"))

    def expected() -> dict[str, np.ndarray]:  # the curves (the metrics table has its own code on the page)
        return {k: v for k, v in figure_data(figure_id, values).items() if not k.startswith("metric_")}

    return Snippet(source, expected=expected, atol=1e-9 if decay else 1e-8)


@register_code("compare-similarity")
def similarity_code(values: Mapping[str, Any]) -> Snippet | None:
    return _snippet("compare-similarity", values, decay=False)


@register_code("compare-decay")
def decay_code(values: Mapping[str, Any]) -> Snippet | None:
    return _snippet("compare-decay", values, decay=True)
