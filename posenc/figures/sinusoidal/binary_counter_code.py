"""The code behind the binary-counter figure, in NumPy: the bits of p, and the sin channel of each pair whose
wavelength is nearest 2π·2^k.

Ref: Vaswani et al. 2017, arXiv 1706.03762 §3.5 (see :mod:`posenc_core.teaching.binary_counter`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, assignments, code_block, figure_data, register_code

OMEGA = {  # ω_i of every pair that has a frequency (t2t's padding channel of an odd d_model has none)
    "interleaved": "omega = base ** (-2 * np.arange((d_model + 1) // 2) / d_model)  # ω_i = base^(-2i/d)",
    "half": "omega = base ** (-2 * np.arange((d_model + 1) // 2) / d_model)  # ω_i = base^(-2i/d)",
    "t2t": "omega = base ** (-np.arange(d_model // 2) / (d_model // 2 - 1))  # ω_i = base^(-i/(d/2 - 1))",
}
SIN_CHANNEL = {
    "interleaved": "sin_channels = 2 * pairs  # sin, cos, sin, cos...: pair i's sin is channel 2i",
    "half": "sin_channels = pairs  # all sin channels first: pair i's sin is channel i",
    "t2t": "sin_channels = pairs  # all sin channels first: pair i's sin is channel i",
}


@register_code("sinusoidal-binary-counter")
def binary_counter_code(values: Mapping[str, Any]) -> Snippet:
    layout = values["layout"]
    source = code_block(
        assignments(values, "d_model", "base", "binary_positions"),
        f"""
        positions = np.arange(binary_positions)
        n_bits = max(1, (binary_positions - 1).bit_length())
        bits = (positions[:, None] >> np.arange(n_bits)) & 1  # bit k = floor(p / 2^k) mod 2
        {OMEGA[layout]}
        wavelength = 2 * np.pi / omega
        targets = 2 * np.pi * 2.0 ** np.arange(n_bits)  # 2π, 4π, 8π...: doubling like the bits' periods
        nearest = np.abs(np.log(wavelength)[None, :] - np.log(targets)[:, None]).argmin(axis=1)
        pairs = nearest[np.r_[True, nearest[1:] != nearest[:-1]]]  # each pair once
        {SIN_CHANNEL[layout]}
        result = {{
            "bits": bits,
            "pairs": pairs,
            "sin_channels": sin_channels,
            "sin_values": np.sin(positions[:, None] * omega[pairs][None, :]),  # sin(p·ω_i)
        }}
        """,
    )

    def expected():
        data = figure_data("sinusoidal-binary-counter", values)
        return {key: data[key] for key in ("bits", "pairs", "sin_channels", "sin_values")}

    return Snippet(source, expected=expected)
