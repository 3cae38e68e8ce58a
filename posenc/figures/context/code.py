"""The code behind the context-extension figures, in PyTorch (float32 frequencies, as HF) and NumPy.

Ref: HF ``modeling_rope_utils`` (every variant); Peng et al. 2023, arXiv 2309.00071 (YaRN's ramp and attention factor);
Men et al. 2024, arXiv 2405.14591 (the base bound B(m)); DeepSeek-V2 ``yarn_get_mscale``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.drawing.code import (
    Snippet,
    assignments,
    code_block,
    expect,
    figure_data,
    index_code,
    literal,
    register_code,
)
from posenc.drawing.common_params import MAX_FACTOR
from posenc.figures.context.angles import ENVELOPE_COLUMNS, SAMPLES_PER_TURN, angle_positions, chosen_pairs
from posenc.figures.context.code_variants import drawn_variants, frequencies_code, parameter_lines, yarn_ramp_code
from posenc.figures.context.variants import VARIANT_LABELS, VARIANTS, original_frequencies, variant_frequencies
from posenc.figures.context.yarn import DEEPSEEK_V3_MSCALE, FACTOR_POINTS, LENGTH_POINTS
from posenc.figures.rope.frequencies import rotary_dim
from posenc_core import rope, sampling
from posenc_core.rope import bounds as rope_bounds


@register_code("context-inv-freq")
def inverse_frequency_code(values: Mapping[str, Any]) -> Snippet:
    variants = drawn_variants(values, VARIANTS)
    source = code_block(
        parameter_lines(values, variants),
        frequencies_code(values, variants),
        """
        result = {"pair": torch.arange(rotary_dim // 2), "original": original}
        for name, scaled in inv.items():
            result[name] = scaled.double() / original.double()  # scaled / original: 1 = unchanged, 1/s = divided
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("context-inv-freq", values))


@register_code("context-wavelengths")
def wavelengths_code(values: Mapping[str, Any]) -> Snippet:
    variants = drawn_variants(values, ("default", *VARIANTS))
    source = code_block(
        parameter_lines(values, variants),
        frequencies_code(values, variants),
        """
        result = {"pair": torch.arange(rotary_dim // 2)}
        for name, scaled in inv.items():
            result[name] = 2 * math.pi / scaled  # λ_i = 2π/θ_i (tokens per turn)
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("context-wavelengths", values))


@register_code("context-angles")
def angles_code(values: Mapping[str, Any]) -> Snippet:
    cpu = {**values, "device": "cpu"}
    variant, length = values["rope_type"], values["original_max_position_embeddings"]
    original = original_frequencies(cpu)
    scaled, _ = variant_frequencies(variant, cpu, original.numel())
    pairs = chosen_pairs(rope.wavelengths(original), length)
    end, positions = angle_positions(values)
    stride = sampling.sampling_stride(positions)
    label = VARIANT_LABELS[variant] if variant != "default" else "scaled (= original: rope_type default)"
    lines, envelope = [], False
    for i in pairs:
        for name, inv in (("original", "original"), (label, f'inv["{variant}"]')):
            frequencies = original if name == "original" else scaled
            fast = float(rope.wavelengths(frequencies[i : i + 1])) < SAMPLES_PER_TURN * stride
            key = f"pair{i}_{name.split(' ')[0]}_{'envelope' if fast else 'samples'}"
            turn = f"every * {inv}[{i}]" if fast else f"positions.float() * {inv}[{i}]"
            call = "envelope(({turn}).double() % (2 * math.pi))" if fast else "({turn}).double() % (2 * math.pi)"
            lines.append(f'result["{key}"] = {call.format(turn=turn)}')
            envelope = envelope or fast
    per_column = math.ceil(end / min(ENVELOPE_COLUMNS, end))
    helper = f"""
        every = torch.arange({end}).float()  # every position: a fast pair is drawn as min..max per column
        def envelope(angle):  # min and max over columns of {per_column} positions
            columns = torch.nn.functional.pad(angle, (0, -len(angle) % {per_column}), value=math.nan)
            columns = columns.view(-1, {per_column})
            return torch.stack([columns.nan_to_num(math.inf).amin(1), columns.nan_to_num(-math.inf).amax(1)])
        """
    source = code_block(
        parameter_lines(values, [variant]),
        frequencies_code(values, [variant]),
        f"positions = {index_code(positions, 'torch')}  # 0 .. max(seq_len, s·L, 2L), sampled",
        helper if envelope else "",
        'result = {"positions": positions}  # the angle m·θ_i mod 2π of each pair drawn, original and scaled',
        "\n".join(lines),
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("context-angles", values))


@register_code("context-yarn-ramp")
def yarn_ramp_figure_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        f"{parameter_lines(values, ['yarn', 'llama3'])}\ntruncate = {literal(values['truncate'])}",
        f"""
        {yarn_ramp_code(values)}
        original = 1.0 / base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim)  # θ_i
        turns = L / (2 * math.pi / original)  # L/λ_i: the turns pair i makes in L
        llama3 = 1 - torch.clamp((turns - low_freq_factor) / (high_freq_factor - low_freq_factor), 0, 1)
        result = {{"pair": torch.arange(rotary_dim // 2), "yarn_ramp": ramp, "llama3_ramp": llama3}}
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("context-yarn-ramp", values))


@register_code("context-dynamic-base")
def dynamic_base_code(values: Mapping[str, Any]) -> Snippet:
    length = values["original_max_position_embeddings"]
    end = max(values["seq_len"], max(1, round(values["factor"] * length)), 2 * length)
    lengths = sampling.sampled_positions(end, LENGTH_POINTS) + 1
    source = code_block(
        f"{assignments(values, 'base', 'factor')}\nrotary_dim = {rotary_dim(values)}\nL = {length}",
        f"""
        lengths = {index_code(lengths - 1)} + 1  # sequence lengths 1 .. {end:,}
        s = np.maximum(lengths, L)  # below L the base is unchanged
        scaled_base = base * (factor * s / L - (factor - 1)) ** (rotary_dim / (rotary_dim - 2))  # base'
        result = {{"seq_len": lengths, "base": scaled_base}}
        """,
    )
    return Snippet(source, expected=expect("context-dynamic-base", values))


@register_code("context-temperature")
def temperature_code(values: Mapping[str, Any]) -> Snippet:
    both = values["mscale"] and values["mscale_all_dim"]
    mscale, all_dim = (values["mscale"], values["mscale_all_dim"]) if both else (DEEPSEEK_V3_MSCALE,) * 2
    source = code_block(
        f"L = {values['original_max_position_embeddings']}  # original_max_position_embeddings\n"
        f"mscale, mscale_all_dim = {literal(float(mscale))}, {literal(float(all_dim))}"
        + ("" if both else "  # DeepSeek-V3's, as an example"),
        f"""
        s = np.logspace(0, np.log10({MAX_FACTOR}), {FACTOR_POINTS})  # the scaling factor
        def get_mscale(s, m=1.0):  # YaRN's attention factor √(1/t): 0.1·m·ln s + 1 (1 for s <= 1)
            return np.where(s <= 1, 1.0, 0.1 * m * np.log(s) + 1)
        ratio = get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)  # DeepSeek's cos/sin factor
        result = {{
            "factor": s,
            "yarn": get_mscale(s),  # cos and sin are multiplied by it ...
            "yarn_logits": get_mscale(s) ** 2,  # ... so the logits by its square
            "longrope": np.where(s <= 1, 1.0, np.sqrt(1 + np.log(s) / np.log(L))),
            "deepseek": ratio,
            "deepseek_logits": ratio**2 * get_mscale(s, mscale_all_dim) ** 2,  # softmax scale × cos/sin²
        }}
        """,
    )
    names = ("factor", "yarn", "yarn_logits", "longrope", "deepseek", "deepseek_logits")

    def expected() -> dict[str, np.ndarray]:  # the figure's curves in order, by short names
        return dict(zip(names, figure_data("context-temperature", values).values(), strict=True))

    return Snippet(source, expected=expected)


@register_code("context-base-bound")
def base_bound_code(values: Mapping[str, Any]) -> Snippet:
    """B(m) for the page's base; the smallest base (the other curve) comes from a scan over bases, not a formula."""
    target, dim = values["target_context"], rotary_dim(values)
    columns = rope_bounds.MAX_CURVE_POINTS // 2
    keep = "m = np.arange(target_context)  # every m"
    if target > 2 * columns:  # the lowest and the highest B of each column keep the curve's true extent
        keep = f"""
        per_column = math.ceil(target_context / {columns})  # each column of m keeps its lowest and highest B
        padded = np.pad(B, (0, -len(B) % per_column), constant_values=np.nan).reshape(-1, per_column)
        first = np.arange(len(padded)) * per_column
        m = np.unique(np.concatenate([first + np.nanargmin(padded, 1), first + np.nanargmax(padded, 1)]))"""
    source = code_block(
        f"rotary_dim = {dim}\n{assignments(values, 'base', 'target_context')}",
        f"""
        theta = base ** (-np.arange(0, rotary_dim, 2) / rotary_dim)  # θ_i
        B = np.zeros(target_context)
        for theta_i in theta:  # B(m) = Σ_i cos(m·θ_i), one pair at a time (small memory for long contexts)
            B += np.cos(np.arange(target_context) * theta_i)
        {keep.strip()}
        result = {{"m": m, "B_your_base": B[m]}}  # B(m) >= 0 for every m < target_context: the base is large enough
        """,
        imports=("math", "numpy as np"),
    )
    return Snippet(source, expected=expect("context-base-bound", values, "m", "B_your_base"), atol=1e-5)
