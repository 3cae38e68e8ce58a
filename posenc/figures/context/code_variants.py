"""The lines of the context-extension snippets that compute each RoPE scaling variant's inv_freq, in PyTorch float32
as HF computes them (``modeling_rope_utils``), for the page's values.

Ref: Chen et al. 2023, arXiv 2306.15595 (linear); bloc97 and emozilla 2023 (NTK, dynamic NTK); Peng et al. 2023,
arXiv 2309.00071 (YaRN); Meta ``llama-models`` ``apply_scaling`` (Llama 3.1); Ding et al. 2024, arXiv 2402.13753
(LongRoPE).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from posenc.drawing.code import literal
from posenc.figures.context.variants import longrope_lists, original_frequencies
from posenc.figures.rope.frequencies import rotary_dim

_FORMULA = {
    "default": 'inv["default"] = original  # no scaling',
    "linear": 'inv["linear"] = original / factor  # position interpolation: every position divided by s',
    "ntk": 'inv["ntk"] = 1.0 / (base * factor ** (rotary_dim / (rotary_dim - 2))) ** exponent  # a larger base',
    "dynamic": """
        dynamic_base = base * (factor * max(seq_len, L) / L - (factor - 1)) ** (rotary_dim / (rotary_dim - 2))
        inv["dynamic"] = 1.0 / dynamic_base ** exponent  # base grows once seq_len > L
        """,
    "llama3": """
        turns = L / (2 * math.pi / original)  # L/λ_i: the turns pair i makes in L
        ramp = 1 - torch.clamp((turns - low_freq_factor) / (high_freq_factor - low_freq_factor), 0, 1)
        inv["llama3"] = original / factor * ramp + original * (1 - ramp)  # ramp 0 = keep, 1 = divide by s
        """,
    "longrope": """
        ext = torch.tensor(long_factor if seq_len > L else short_factor)  # searched per model, one per pair
        inv["longrope"] = 1.0 / (ext * base ** exponent)
        """,
}
_NAMES = {  # the page's values each variant reads (besides base, rotary_dim and exponent)
    "default": (),
    "linear": ("factor",),
    "ntk": ("factor",),
    "dynamic": ("factor", "seq_len", "L"),
    "yarn": ("factor", "L", "beta_fast", "beta_slow"),
    "llama3": ("factor", "L", "low_freq_factor", "high_freq_factor"),
    "longrope": ("seq_len", "L", "short_factor", "long_factor"),
}


def yarn_range(values: Mapping[str, Any]) -> tuple[float, float]:
    """YaRN's (low, high) pairs, as the snippet computes them (to know whether HF's 0.001 nudge applies)."""
    dim, length = rotary_dim(values), values["original_max_position_embeddings"]

    def pair_at(turns: float) -> float:
        return dim * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(values["base"]))

    low, high = pair_at(values["beta_fast"]), pair_at(values["beta_slow"])
    if values["truncate"]:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp_code(values: Mapping[str, Any], dtype: str = "float") -> str:
    """``ramp``: YaRN's ramp over the pairs (0 = keep, 1 = divide by s), in ``dtype`` ("float" or "double")."""
    rounded = ("math.floor(", ")", "math.ceil(", ")") if values["truncate"] else ("", "", "", "")
    low, high = yarn_range(values)
    nudge = "\nhigh += 0.001  # low == high: HF's nudge against a division by zero" if low == high else ""
    return (
        "def pair_at(turns):  # the (continuous) pair that turns `turns` times in L\n"
        "    return rotary_dim * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))\n"
        f"low = max({rounded[0]}pair_at(beta_fast){rounded[1]}, 0)  # pairs up to low turn fast: kept\n"
        f"high = min({rounded[2]}pair_at(beta_slow){rounded[3]}, rotary_dim - 1)  # pairs from high: divided by s"
        f"{nudge}\n"
        f"ramp = torch.clamp((torch.arange(rotary_dim // 2).{dtype}() - low) / (high - low), 0, 1)"
    )


def drawn_variants(values: Mapping[str, Any], candidates: Sequence[str]) -> list[str]:
    """``candidates`` without LongRoPE when no factor lists for this rotary dim are at hand (as the figures)."""
    n_pairs = original_frequencies({**values, "device": "cpu"}).numel()
    return [v for v in candidates if v != "longrope" or longrope_lists(values, n_pairs) is not None]


def parameter_lines(values: Mapping[str, Any], variants: Sequence[str]) -> str:
    """The literals the variants read: base, rotary_dim, then factor, L, ... as needed."""
    factor = values["partial_rotary_factor"]
    lines = [f"base = {literal(values['base'])}", f"rotary_dim = {rotary_dim(values)}"]
    if factor != 1.0:
        lines[-1] += f"  # int(head_dim {values['head_dim']} × partial_rotary_factor {factor:g})"
    needed = dict.fromkeys(name for variant in variants for name in _NAMES[variant])
    n_pairs = rotary_dim(values) // 2
    for name in needed:
        if name == "L":
            lines.append(f"L = {values['original_max_position_embeddings']}  # original_max_position_embeddings")
        elif name in ("short_factor", "long_factor"):
            lines.append(f"{name} = {list(longrope_lists(values, n_pairs)[name])}")
        else:
            lines.append(f"{name} = {literal(values[name])}")
    return "\n".join(lines)


def frequencies_code(values: Mapping[str, Any], variants: Sequence[str], dtype: str = "float") -> str:
    """``exponent``, ``original`` (θ_i) and ``inv[variant]`` for each of ``variants``, in ``dtype`` ("float", as
    HF, or "double")."""
    lines = [
        f"exponent = torch.arange(0, rotary_dim, 2).{dtype}() / rotary_dim  # 2i/d",
        "original = 1.0 / base ** exponent  # θ_i, unscaled",
        "inv = {}",
    ]
    for variant in variants:
        if variant == "yarn":
            lines += [
                yarn_ramp_code(values, dtype),
                'inv["yarn"] = original / factor * ramp + original * (1 - ramp)  # YaRN: by frequency',
            ]
        else:
            formula = _FORMULA[variant].replace(
                "torch.tensor(long_factor if seq_len > L else short_factor)",
                (
                    "torch.tensor(long_factor if seq_len > L else short_factor, dtype=torch.float64)"
                    if dtype == "double"
                    else "torch.tensor(long_factor if seq_len > L else short_factor)"
                ),
            )
            lines += [line.strip() for line in formula.strip().splitlines()]
    return "\n".join(lines)
