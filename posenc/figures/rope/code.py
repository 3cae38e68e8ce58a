"""The code behind the RoPE figures, in PyTorch as HF computes it (inv_freq and angles in float32) or in float64
where the figure works in float64 (the scores).

Ref: Su et al. 2021, arXiv 2104.09864 eq. (15), (16) and §3.4.3; HF ``LlamaRotaryEmbedding`` and
``apply_rotary_pos_emb`` (``rotate_half``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, expect, index_code, literal, register_code
from posenc.drawing.shown import shown_positions
from posenc.figures.rope.angles import ANGLE_POSITIONS
from posenc.figures.rope.decay import DECAY_POINTS, DENSE_DISTANCES
from posenc.figures.rope.frequencies import rotary_dim, rotary_inv_freq
from posenc.figures.rope.relative import profile_geometry, score_positions
from posenc.figures.rope.rotation import TURNS, turn_positions
from posenc_core import rope

INV_FREQ = "inv_freq = 1.0 / base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim)  # θ_i = base^(-2i/d)"


def rotary_lines(values: Mapping[str, Any], *names: str) -> str:
    """``base`` and ``rotary_dim`` (= int(head_dim · partial_rotary_factor)) as literals, then ``names``."""
    factor, dim = values["partial_rotary_factor"], f"rotary_dim = {rotary_dim(values)}"
    if factor != 1.0:
        dim += f"  # int(head_dim {values['head_dim']} × partial_rotary_factor {factor:g})"
    lines = [f"base = {literal(values['base'])}", dim]
    return "\n".join(lines + [f"{name} = {literal(values[name])}" for name in names])


@register_code("rope-angles")
def angles_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown_positions(values, values["seq_len"], ANGLE_POSITIONS)
    source = code_block(
        rotary_lines(values),
        f"""
        {INV_FREQ}
        positions = {index_code(positions, "torch")}  # the columns drawn
        angle = positions[:, None].float() * inv_freq[None, :]  # (P, d/2): m·θ_i, float32 like HF
        result = torch.remainder(angle, 2 * math.pi).T  # (pairs, positions), the heatmap
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("rope-angles", values, "angle_mod_2pi"))


@register_code("rope-wavelengths")
def wavelengths_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        rotary_lines(values),
        f"""
        {INV_FREQ}
        result = 2 * math.pi / inv_freq  # λ_i = 2π/θ_i: the tokens pair i needs for one full turn
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("rope-wavelengths", values, "wavelength"))


@register_code("rope-channels")
def channels_code(values: Mapping[str, Any]) -> Snippet:
    if values["rope_layout"] == "half":  # HF rotate_half: channel c and c + d/2 form pair c mod d/2
        pairing = "pair = channel % (rotary_dim // 2)\npartner = (channel + rotary_dim // 2) % rotary_dim"
    else:  # GPT-J / Meta interleaved: channels 2i and 2i + 1
        pairing = "pair = channel // 2\npartner = channel ^ 1  # 2i <-> 2i + 1"
    source = code_block(
        rotary_lines(values, "head_dim"),
        f"""
        {INV_FREQ}
        channel = torch.arange(rotary_dim)  # the rotating channels; the rest pass through (NaN below)
        {pairing}
        rest = torch.full((head_dim - rotary_dim,), float("nan"))
        result = {{
            "channel": torch.arange(head_dim),
            "pair": torch.cat([pair, rest]),
            "partner": torch.cat([partner, rest]),
            "wavelength": torch.cat([2 * math.pi / inv_freq[pair], rest]),  # λ of the channel's pair
        }}
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("rope-channels", values, "channel", "pair", "partner", "wavelength"))


@register_code("rope-pair-rotation")
def pair_rotation_code(values: Mapping[str, Any]) -> Snippet:
    wavelength = float(rope.wavelengths(rotary_inv_freq({**values, "device": "cpu"}))[values["pair"]])
    positions, _ = turn_positions(values, wavelength, TURNS)
    source = code_block(
        rotary_lines(values, "pair"),
        f"""
        {INV_FREQ}
        positions = {index_code(positions, "torch")}  # the first {TURNS} turns of the pair
        angle = positions.float() * inv_freq[pair]  # m·θ_i, float32 like HF
        result = {{"positions": positions, "cos": torch.cos(angle), "sin": torch.sin(angle)}}
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=expect("rope-pair-rotation", values, "positions", "cos", "sin"))


@register_code("rope-decay")
def decay_code(values: Mapping[str, Any]) -> Snippet:
    length = values["seq_len"]
    if length <= DECAY_POINTS:
        distances = f"distances = np.arange({length})  # every distance m - n"
    else:  # every distance where the bound falls, then evenly spaced ones
        distances = (
            f"far = np.linspace(0, {length - 1}, {DECAY_POINTS - DENSE_DISTANCES})\n"
            f"distances = np.concatenate([np.arange({DENSE_DISTANCES}), far[far > {DENSE_DISTANCES - 1}]])"
        )
    source = code_block(
        rotary_lines(values),
        f"""
        theta = base ** (-np.arange(0, rotary_dim, 2) / rotary_dim)  # θ_i
        {distances}
        S = np.cumsum(np.exp(1j * distances[:, None] * theta[None, :]), axis=1)  # S_j = Σ_(i<j) e^(i·r·θ_i)
        result = {{"distance": distances, "bound": np.abs(S).mean(axis=1)}}  # (1/(d/2)) Σ_j |S_j|
        """,
    )
    return Snippet(source, expected=expect("rope-decay", values, "distance", "bound"))


def _rotate_code(values: Mapping[str, Any]) -> tuple[str, str]:
    """(inv_freq and the random q, k; a function rotate(x, positions): x rotated at each position, as HF
    apply_rotary_pos_emb does it), in float64."""
    if values["rope_layout"] == "half":
        expand, turned = "angle.repeat(1, 2)", "torch.cat([-x_rot[half:], x_rot[:half]])  # rotate_half"
    else:
        expand, turned = "angle.repeat_interleave(2, dim=1)", "torch.stack([-x_rot[1::2], x_rot[0::2]], 1).flatten()"
    return (
        """
        inv_freq = 1.0 / base ** (torch.arange(0, rotary_dim, 2).double() / rotary_dim)  # θ_i
        q, k = torch.randn(2, head_dim, generator=torch.Generator().manual_seed(qk_seed), dtype=torch.float64)
        """,
        f"""
        def rotate(x, positions):  # R(m)·x for every position m: (P, head_dim)
            angle = {expand.replace("angle", "(positions[:, None].double() * inv_freq)")}  # m·θ per channel
            x_rot, x_pass, half = x[:rotary_dim], x[rotary_dim:], rotary_dim // 2
            turned = {turned}
            rotated = x_rot * angle.cos() + turned * angle.sin()
            return torch.cat([rotated, x_pass.expand(len(positions), -1)], dim=1)
        """,
    )


@register_code("rope-scores")
def scores_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = score_positions(values)
    source = code_block(
        rotary_lines(values, "head_dim", "qk_seed"),
        *_rotate_code(values),
        f"""
        positions = {index_code(positions, "torch")}  # the rows and columns drawn
        result = rotate(q, positions) @ rotate(k, positions).T  # (R(m)q)·(R(n)k)
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=expect("rope-scores", values, "scores"), atol=1e-5)


@register_code("rope-relative-profile")
def relative_profile_code(values: Mapping[str, Any]) -> Snippet:
    anchors, distances = profile_geometry(values)
    source = code_block(
        rotary_lines(values, "head_dim", "qk_seed"),
        *_rotate_code(values),
        f"""
        distances = {index_code(distances, "torch")}  # m - n
        result = {{"distance": distances}}
        for n in {anchors.tolist()}:  # one curve per key position n: the score of the query n + Δ
            result[f"score_n{{n}}"] = (rotate(q, n + distances) @ rotate(k, torch.tensor([n])).T)[:, 0]
        """,
        imports=("torch",),
    )
    keys = ("distance", *(f"score_n{int(n)}" for n in anchors))
    return Snippet(source, expected=expect("rope-relative-profile", values, *keys), atol=1e-5)
