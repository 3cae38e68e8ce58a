"""The NoPE and sinks page's "What to notice" points, worded from the numbers each figure drew."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def causal_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    position, norm, law = data["position"], data["measured_norm"], data["law_norm"]
    deviation = np.abs(norm / law - 1)
    worst = int(np.argmax(deviation))
    spread = 1 / math.sqrt(2 * p["value_dim"] * p["n_sequences"])
    return [
        f"No position encoding went in, yet the output's length depends on the position: {norm[0]:.3f} at i = 0, "
        f"{norm[-1]:.4f} at i = {int(position[-1]):,}, {norm[0] / norm[-1]:.0f}× shorter. The causal mask alone "
        "did that: token i averages i + 1 values, and a mean of more random values is shorter.",
        f"The measured points sit on 1/√(i+1): the largest gap is {deviation[worst]:.1%} (at i = "
        f"{int(position[worst]):,}) over {len(position)} points, where one point's sampling noise is about "
        f"1/√(2·dim·sequences) = {spread:.1%}. Fewer sequences or a smaller value dimension scatter them more.",
        "On a log–log plot the law is a straight line of slope −1/2: every 100× more tokens, the length falls 10×.",
    ]


def readout_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    position, read = data["position"], data["read_position"]
    relative = np.abs((read + 1) / (position + 1) - 1)
    middle = len(position) // 2
    return [
        f"Inverting the law, 1/‖o_i‖² − 1 gives i back: i = {int(position[middle]):,} reads as "
        f"{read[middle]:,.1f}, and every point drawn is within {relative.max():.0%} of its true i + 1.",
        "So a later layer can tell early tokens from late ones without any position encoding. Trained NoPE models "
        "learn such signals (Haviv et al. 2022; Kazemnejad et al. 2023); what they cannot do as easily is go past "
        "the lengths they were trained on, which is why Llama 4 keeps RoPE on most layers.",
    ]


def layer_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    rope = data["uses_rope"].astype(bool)
    nope_layers = np.flatnonzero(~rope)
    shown = ", ".join(str(int(layer)) for layer in nope_layers[:4]) + (", …" if len(nope_layers) > 4 else "")
    if not len(nope_layers):
        which = "none of the layers has NoPE (the interval is longer than the model)"
    else:
        which = f"{len(nope_layers)} of {len(rope)} layers have no RoPE: layers {shown} (counting from 0)"
    interval = p["no_rope_layer_interval"]
    grouping = (
        f" Each is the last of its group of {interval}, so the model starts with RoPE layers."
        if 1 < interval <= len(rope)
        else ""
    )
    return [
        f"With NoPE every {interval} layers, {which}.{grouping}",
        "In Llama-4-Scout the RoPE layers attend only inside 8,192-token chunks (local, with order from RoPE), "
        "while the NoPE layers attend to the whole context without any position signal beyond the causal mask.",
    ]


def temperature_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    position, scale = data["position"], data["scale"]
    floor_scale, context = p["floor_scale"], p["temperature_context"]
    points = []
    if floor_scale == 1:
        points.append(
            f"With floor_scale 1 there is no flat start: the scale is {float(scale[0]):.4f} at the first token and "
            "grows with every token, log(p + 2)·attn_scale + 1."
        )
    elif floor_scale <= context:
        first = float(scale[np.searchsorted(position, floor_scale - 1)])
        points.append(
            f"The scale is exactly 1 for the first {floor_scale - 1:,} tokens, then steps to {first:.4f} at token "
            f"index {floor_scale - 1:,} (p + 1 = {floor_scale:,}), and up again every {floor_scale:,} tokens."
        )
    else:
        points.append(f"floor_scale {floor_scale:,} is past the context drawn: the scale stays 1 throughout.")
    points.append(
        f"At {context:,} tokens the NoPE layers' queries, hence their attention logits, are {float(scale[-1]):.3f}× "
        "larger. Attention over n keys flattens as n grows (each key's share ~ 1/n); the log(n)-shaped scale "
        "sharpens it back (Nakanishi 2025, scalable softmax)."
    )
    points.append(
        "The steps are evenly spaced in tokens, so on the log axis they crowd together and the curve looks smooth "
        "past about 100k tokens."
    )
    return points


def cache_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    n, sinks, window = p["stream_len"], p["n_sink"], p["sink_window"]
    last = data["tokens_streamed"] == n  # the cache after the whole stream
    kept, seen = data["token"][last].astype(int), data["position_seen"][last]
    if len(kept) == n:
        held = f"every token, 0–{n - 1}, at its own position"
    else:
        sink_part = f"the sinks 0–{sinks - 1} and " if sinks else ""
        held = f"{sink_part}tokens {int(kept[-window])}–{int(kept[-1])}, given positions 0–{int(seen.max())}"
    points = [
        f"After {n} tokens the cache holds {len(kept)}: {held}. The model never sees a position past "
        f"{min(n, sinks + window) - 1}, however long the stream."
    ]
    if n > sinks + window:
        first_full = sinks + window + 1
        points.append(
            f"Once {first_full} tokens have streamed, each new token evicts one (the blank band) and every kept "
            "token after the sinks slides down one position: positions are given within the cache, so the cached "
            "keys are rotated again at their new positions, not at their original ones."
        )
    else:
        points.append(f"The stream still fits ({n} ≤ {sinks} + {window}): nothing is evicted yet.")
    points.append(
        "StreamingLLM keeps the first tokens because trained models park attention there (attention sinks): "
        "a plain window (0 sinks) drops them and the model's perplexity blows up (Xiao et al. 2023)."
        if sinks
        else "With 0 sinks this is a plain sliding window: the first tokens leave, and StreamingLLM shows the "
        "model's perplexity blowing up once they do (trained models park attention on them)."
    )
    return points
