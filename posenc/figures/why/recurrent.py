"""An RNN reads one word after another (the position is the step); attention reads all at once (order lost)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.params import ParamSpec, register_param
from posenc.drawing.plain_text import for_plotly
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY, DIVERGING_SCALE
from posenc.figures.why.attention import _same_tokens, _tokens
from posenc.i18n import N_, _
from posenc_core.teaching import attention, recurrent

ZERO_BAR_LINE = 3  # px: the outline that draws a bar of height 0 as a line along the axis
# The bars' legend in the plot's top left corner, in room the y axis leaves over the tallest bar: it is read with the
# bars, on the screen where the chart starts (under the x axis it is often below the first screen).
LEGEND_INSIDE = {"orientation": "v", "yanchor": "top", "y": 0.99, "x": 0.01, "xanchor": "left"}
HEADROOM = 1.5  # the y axis reaches this many times the tallest bar: its top third holds the legend

register_param(
    ParamSpec(
        "hidden_dim",
        "int",
        8,
        N_("RNN state width"),
        1,
        64,
        widget="number",
        help=N_("Channels of the RNN's state h_t (its weights are fixed random, seeded)."),
    )
)


def _sentences(p: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    tokens_a, tokens_b = _tokens("sentence_a", p["sentence_a"]), _tokens("sentence_b", p["sentence_b"])
    _same_tokens(tokens_a, tokens_b)
    return tokens_a, tokens_b


def shared_prefix(rnn_gap) -> int:
    """How many words at the start of A have the same RNN state in B (the words before the first one moved)."""
    shared = 0
    for gap in rnn_gap:
        if gap > 0:
            break
        shared += 1
    return shared


def rnn_and_attention(p: Mapping[str, Any]) -> dict[str, Any]:
    """Both sentences through the RNN and through attention without PE: states, outputs and per-word gaps."""
    tokens_a, tokens_b = _sentences(p)
    d_model, device = p["embedding_dim"], p["device"]
    weights = recurrent.rnn_weights(d_model, p["hidden_dim"], device=device)
    x_a, x_b = (attention.token_embeddings(t, d_model, device=device) for t in (tokens_a, tokens_b))
    states_a, states_b = recurrent.rnn_states(x_a, weights), recurrent.rnn_states(x_b, weights)
    out_a, out_b = attention.self_attention(x_a).outputs, attention.self_attention(x_b).outputs
    return {
        "tokens": (tokens_a, tokens_b),
        "states": (states_a, states_b),
        "rnn_gap": recurrent.matched_gaps(tokens_a, states_a, tokens_b, states_b),
        "attention_gap": recurrent.matched_gaps(tokens_a, out_a, tokens_b, out_b),
        "final_gap": float((states_a[-1] - states_b[-1]).abs().max()),
        "pooled_gap": float((out_a.mean(0) - out_b.mean(0)).abs().max()),
    }


@register(
    "why-rnn-states",
    title=N_("An RNN's state after each word"),
    page="why_position",
    params=("sentence_a", "sentence_b", "embedding_dim", "hidden_dim"),
)
def rnn_states(p: Mapping[str, Any]) -> FigureResult:
    run = rnn_and_attention(p)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("A", "B"), horizontal_spacing=0.12)
    data = {}
    for col, (name, tokens, states) in enumerate(zip("AB", run["tokens"], run["states"], strict=True), start=1):
        steps = [f"{t}:{for_plotly(word)}" for t, word in enumerate(tokens)]
        fig.add_heatmap(
            z=as_array(states),
            x=list(range(states.shape[1])),
            y=steps,
            coloraxis="coloraxis",
            row=1,
            col=col,
            hovertemplate=_("step %{y}<br>channel %{x}<br>h %{z:.4f}") + "<extra></extra>",
        )
        fig.update_yaxes(autorange="reversed", row=1, col=col)
        fig.update_xaxes(title_text=_("state channel"), row=1, col=col)
        data[f"states_{name}"] = as_array(states)
    fig.update_yaxes(title_text=_("step t : word read"), row=1, col=1)
    fig.update_layout(
        title=_("RNN state h_t after each word, H={hidden_dim}").format(hidden_dim=p["hidden_dim"]),
        coloraxis={
            "colorscale": DIVERGING_SCALE,
            "cmin": -1,
            "cmax": 1,
            "colorbar": {"title": {"text": "h", "side": "top"}, "thickness": 12},
        },
        height=max(320, 140 + 28 * len(run["tokens"][0])),
    )
    notes = (
        _(
            "Each row is the state after reading that word: tanh(W·previous state + U·word). The last row is what "
            "the RNN knows about the whole sentence."
        ),
        _(
            "The last rows of A and B differ by up to {gap:.3f} (of at most 2): the order of the words is in the state."
        ).format(gap=run["final_gap"]),
    )
    return FigureResult(fig, data, notes)


@register(
    "why-rnn-vs-attention",
    title=N_("Same word, other order: RNN against attention"),
    page="why_position",
    params=("sentence_a", "sentence_b", "embedding_dim", "hidden_dim"),
)
def rnn_against_attention(p: Mapping[str, Any]) -> FigureResult:
    run = rnn_and_attention(p)
    tokens_a = run["tokens"][0]
    words = [f"{t}:{for_plotly(word)}" for t, word in enumerate(tokens_a)]
    fig = go.Figure()
    for name, key, colour in (
        (_("RNN state"), "rnn_gap", COLORWAY[1]),
        (_("attention output, no PE"), "attention_gap", COLORWAY[0]),
    ):
        fig.add_bar(
            x=words,
            y=as_array(run[key]),
            name=name,
            marker={"color": colour, "line": {"color": colour, "width": ZERO_BAR_LINE}},  # a 0 bar: a line at 0
            text=["0" if value < 1e-6 else "" for value in run[key].tolist()],  # and a 0 over it
            textposition="outside",
            textfont={"color": colour, "weight": "bold"},
            hovertemplate=name + "<br>" + _("word %{x} of A<br>largest difference %{y:.3g}") + "<extra></extra>",
        )
    fig.update_layout(
        title=_("Same word in A and B: the RNN's state differs, attention's output without PE is identical"),
        xaxis_title=_("word of A (position : word)"),
        yaxis_title=_("largest difference"),
        barmode="group",
        legend=LEGEND_INSIDE,
    )
    tallest = max(float(run["rnn_gap"].max()), float(run["attention_gap"].max()))
    fig.update_yaxes(range=[0, HEADROOM * tallest if tallest > 1e-6 else 1.0])  # all 0: the 0 lines at the foot
    data = {"rnn_gap": as_array(run["rnn_gap"]), "attention_gap": as_array(run["attention_gap"])}
    notes = (
        _(
            "Attention without PE: every word's output in B equals its output in A (largest difference "
            "{largest:.1e}), and the mean of the outputs differs by {pooled:.1e}: the sentence's words, order lost."
        ).format(largest=float(run["attention_gap"].max()), pooled=run["pooled_gap"]),
        _(
            "RNN: the state after a word differs between A and B by up to {largest:.3f}, because it depends on the "
            "words read before it; the final states differ by {final:.3f}."
        ).format(largest=float(run["rnn_gap"].max()), final=run["final_gap"]),
    )
    return FigureResult(fig, data, notes)
