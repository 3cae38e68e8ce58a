"""The code behind the NoPE and sinks figures: uniform causal attention over random values (PyTorch), Llama 4's
layer list and NoPE temperature, and StreamingLLM's cache (NumPy), each from its formula.

Ref: Kazemnejad et al. 2023, arXiv 2305.19466; HF transformers ``modeling_llama4.py`` / ``configuration_llama4.py``;
Xiao et al. 2023, arXiv 2309.17453 (StreamingLLM).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, assignments, code_block, figure_data, register_code
from posenc.figures.nope.causal import SHOWN_POSITIONS
from posenc.figures.nope.llama4 import CURVE_POINTS, EXACT_STEPS
from posenc_core.encodings.nope import KEY_CHUNK

CAUSAL = f"""
    positions = torch.from_numpy(np.unique(np.round(np.geomspace(1, nope_length, {SHOWN_POSITIONS})).astype(int)) - 1)
    generator = torch.Generator().manual_seed(values_seed)
    values = torch.cat(  # v_j ~ N(0, I/dim), so E‖v‖² = 1; drawn {KEY_CHUNK} keys at a time (the figure's numbers)
        [torch.randn(n_sequences, min({KEY_CHUNK}, nope_length - start), value_dim, generator=generator)
         for start in range(0, nope_length, {KEY_CHUNK})], dim=1) / value_dim**0.5
    keys = torch.arange(nope_length)
    scores = torch.zeros(len(positions), nope_length)  # equal scores: nothing tells the tokens apart
    scores[keys[None, :] > positions[:, None]] = -math.inf  # the causal mask: token i sees 0..i only
    weights = torch.softmax(scores, dim=-1)  # 1/(i+1) on each visible key
    outputs = torch.einsum("pk,skd->spd", weights, values)  # o_i = Σ_j w_ij v_j, per sequence
    norm = outputs.square().sum(-1).mean(0).sqrt()  # RMS over the sequences of ‖o_i‖
    """
CAUSAL_NAMES = ("nope_length", "value_dim", "n_sequences", "values_seed")


@register_code("nope-causal-norm")
def causal_norm_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, *CAUSAL_NAMES),
        CAUSAL,
        "result = {'measured_norm': norm, 'law_norm': 1 / torch.sqrt(positions + 1.0)}",
        imports=("math", "numpy as np", "torch"),
    )

    def expected():
        data = figure_data("nope-causal-norm", values)
        return {key: data[key] for key in ("measured_norm", "law_norm")}

    return Snippet(source, expected=expected, rtol=1e-4, atol=1e-7)


@register_code("nope-position-readout")
def readout_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, *CAUSAL_NAMES),
        CAUSAL,
        "result = 1 / norm**2 - 1  # the law 1/(i+1) solved for i",
        imports=("math", "numpy as np", "torch"),
    )
    return Snippet(
        source, expected=lambda: figure_data("nope-position-readout", values)["read_position"], rtol=2e-4, atol=1e-4
    )


@register_code("nope-llama4-layers")
def layers_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "num_hidden_layers", "no_rope_layer_interval"),
        """
        # HF Llama4TextConfig's default no_rope_layers: 1 = RoPE, 0 = NoPE on every interval-th layer
        no_rope_layers = [int((layer + 1) % no_rope_layer_interval != 0) for layer in range(num_hidden_layers)]
        result = np.array(no_rope_layers, dtype=float)
        """,
    )
    return Snippet(source, expected=lambda: figure_data("nope-llama4-layers", values)["uses_rope"])


@register_code("nope-llama4-temperature")
def temperature_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "floor_scale", "attn_scale", "temperature_context"),
        f"""
        logs = np.round(np.geomspace(1, temperature_context, {CURVE_POINTS})).astype(np.int64) - 1
        steps = np.arange(1, {EXACT_STEPS + 1}) * floor_scale - 1  # the first scaled token of each step
        steps = np.concatenate([steps, steps - 1])  # ... and the last one before it
        inside = steps[(steps >= 0) & (steps < temperature_context)]
        positions = np.unique(np.concatenate([logs, inside, [temperature_context - 1]]))  # token indices p
        scale = np.log((positions + 1) // floor_scale + 1) * attn_scale + 1  # log(floor((p+1)/fs) + 1)·attn_scale + 1
        result = {{"position": positions, "scale": scale}}
        """,
    )
    return Snippet(source, expected=lambda: figure_data("nope-llama4-temperature", values), rtol=1e-6)


@register_code("sink-cache-grid")
def cache_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "stream_len", "n_sink", "sink_window"),
        """
        rows = []  # (tokens streamed, token kept, position it is given)
        for t in range(1, stream_len + 1):
            if t <= n_sink + sink_window:  # everything still fits
                kept = np.arange(t)
            else:  # the n_sink first tokens + the sink_window most recent
                kept = np.concatenate([np.arange(n_sink), np.arange(t - sink_window, t)])
            rows += [(t, token, position) for position, token in enumerate(kept)]  # positions 0, 1, 2, ... in the cache
        tokens_streamed, token, position_seen = np.array(rows).T
        result = {"tokens_streamed": tokens_streamed, "token": token, "position_seen": position_seen}
        """,
    )
    return Snippet(source, expected=lambda: figure_data("sink-cache-grid", values))
