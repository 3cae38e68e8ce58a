"""The NoPE and sinks page's "What to notice" points, worded from the numbers each figure drew."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.i18n import _


def causal_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    position, norm, law = data["position"], data["measured_norm"], data["law_norm"]
    deviation = np.abs(norm / law - 1)
    worst = int(np.argmax(deviation))
    spread = 1 / math.sqrt(2 * p["value_dim"] * p["n_sequences"])
    return [
        _(
            "No position encoding went in, yet the output's length depends on the position: {first:.3f} at i = 0, "
            "{last:.4f} at i = {last_position:,}, {ratio:.0f}× shorter. The causal mask alone did that: token i "
            "averages i + 1 values, and a mean of more random values is shorter."
        ).format(first=norm[0], last=norm[-1], last_position=int(position[-1]), ratio=norm[0] / norm[-1]),
        _(
            "The measured points sit on 1/√(i+1): the largest gap is {gap:.1%} (at i = {at:,}) over {count} points, "
            "where one point's sampling noise is about 1/√(2·dim·sequences) = {spread:.1%}. Fewer sequences or a "
            "smaller value dimension scatter them more."
        ).format(gap=deviation[worst], at=int(position[worst]), count=len(position), spread=spread),
        _("On a log–log plot the law is a straight line of slope −1/2: every 100× more tokens, the length falls 10×."),
    ]


def readout_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    position, read = data["position"], data["read_position"]
    relative = np.abs((read + 1) / (position + 1) - 1)
    middle = len(position) // 2
    return [
        _(
            "Inverting the law, 1/‖o_i‖² − 1 gives i back: i = {position:,} reads as {read:,.1f}, and every point "
            "drawn is within {error:.0%} of its true i + 1."
        ).format(position=int(position[middle]), read=read[middle], error=relative.max()),
        _(
            "So a later layer can tell early tokens from late ones without any position encoding. Trained NoPE "
            "models learn such signals (Haviv et al. 2022), and small NoPE decoders went past their trained length "
            "better than RoPE or ALiBi ones (Kazemnejad et al. 2023). Llama 4 uses both: its RoPE layers attend "
            "within 8,192-token chunks, its NoPE layers over the whole context with their queries scaled up (the "
            "tab *Llama 4: NoPE layers*)."
        ),
    ]


def layer_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    rope = data["uses_rope"].astype(bool)
    nope_layers = np.flatnonzero(~rope)
    shown = ", ".join(str(int(layer)) for layer in nope_layers[:4]) + (", …" if len(nope_layers) > 4 else "")
    interval = p["no_rope_layer_interval"]
    if not len(nope_layers):
        first = _(
            "With NoPE every {interval} layers, none of the layers has NoPE (the interval is longer than the model)."
        ).format(interval=interval)
    elif 1 < interval <= len(rope):
        first = _(
            "With NoPE every {interval} layers, {count} of {total} layers have no RoPE: layers {shown} (counting "
            "from 0). Each is the last of its group of {interval}, so the model starts with RoPE layers."
        ).format(interval=interval, count=len(nope_layers), total=len(rope), shown=shown)
    else:
        first = _(
            "With NoPE every {interval} layers, {count} of {total} layers have no RoPE: layers {shown} (counting "
            "from 0)."
        ).format(interval=interval, count=len(nope_layers), total=len(rope), shown=shown)
    return [
        first,
        _(
            "In Llama-4-Scout the RoPE layers attend only inside 8,192-token chunks (local, with order from RoPE), "
            "while the NoPE layers attend to the whole context without any position signal beyond the causal mask."
        ),
    ]


def temperature_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    position, scale = data["position"], data["scale"]
    floor_scale, context = p["floor_scale"], p["temperature_context"]
    points = []
    if floor_scale == 1:
        points.append(
            _(
                "With floor_scale 1 there is no flat start: the scale is {scale:.4f} at the first token and grows "
                "with every token, log(p + 2)·attn_scale + 1."
            ).format(scale=float(scale[0]))
        )
    elif floor_scale <= context:
        first = float(scale[np.searchsorted(position, floor_scale - 1)])
        points.append(
            _(
                "The scale is exactly 1 for the first {flat:,} tokens, then steps to {first:.4f} at token index "
                "{flat:,} (p + 1 = {floor_scale:,}), and up again every {floor_scale:,} tokens."
            ).format(flat=floor_scale - 1, first=first, floor_scale=floor_scale)
        )
    else:
        points.append(
            _("floor_scale {floor_scale:,} is past the context drawn: the scale stays 1 throughout.").format(
                floor_scale=floor_scale
            )
        )
    points.append(
        _(
            "At {context:,} tokens the NoPE layers' queries, hence their attention logits, are {scale:.3f}× larger. "
            "Attention over n keys flattens as n grows (each key's share ~ 1/n); the log(n)-shaped scale sharpens "
            "it back (Nakanishi 2025, scalable softmax)."
        ).format(context=context, scale=float(scale[-1]))
    )
    points.append(
        _(
            "The steps are evenly spaced in tokens, so on the log axis they crowd together and the curve looks "
            "smooth past about 100k tokens."
        )
    )
    return points


def cache_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    n, sinks, window = p["stream_len"], p["n_sink"], p["sink_window"]
    last = data["tokens_streamed"] == n  # the cache after the whole stream
    kept, seen = data["token"][last].astype(int), data["position_seen"][last]
    if len(kept) == n:
        held = _("every token, 0–{last}, at its own position").format(last=n - 1)
    elif sinks:
        held = _("the sinks 0–{last_sink} and tokens {start}–{end}, given positions 0–{top}").format(
            last_sink=sinks - 1, start=int(kept[-window]), end=int(kept[-1]), top=int(seen.max())
        )
    else:
        held = _("tokens {start}–{end}, given positions 0–{top}").format(
            start=int(kept[-window]), end=int(kept[-1]), top=int(seen.max())
        )
    points = [
        _(
            "After {n} tokens the cache holds {count}: {held}. The model never sees a position past {top}, however "
            "long the stream."
        ).format(n=n, count=len(kept), held=held, top=min(n, sinks + window) - 1)
    ]
    if n > sinks + window:
        points.append(
            _(
                "Once {first_full} tokens have streamed, each new token evicts one (the blank band) and every kept "
                "token after the sinks slides down one position: positions are given within the cache, so the "
                "cached keys are rotated again at their new positions, not at their original ones."
            ).format(first_full=sinks + window + 1)
        )
    else:
        points.append(
            _("The stream still fits ({n} ≤ {sinks} + {window}): nothing is evicted yet.").format(
                n=n, sinks=sinks, window=window
            )
        )
    points.append(
        _(
            "StreamingLLM keeps the first tokens because trained models park attention there (attention sinks): "
            "a plain window (0 sinks) drops them and the model's perplexity blows up (Xiao et al. 2023)."
        )
        if sinks
        else _(
            "With 0 sinks this is a plain sliding window: the first tokens leave, and StreamingLLM shows the "
            "model's perplexity blowing up once they do (trained models park attention on them)."
        )
    )
    return points
