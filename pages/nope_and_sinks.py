"""NoPE and sinks: what a causal mask alone tells a model about position, Llama 4's NoPE layers and their
query scale, and StreamingLLM's cache with the positions it gives."""

import streamlit as st

from posenc.figures.nope import notes
from posenc.figures.real_attention import notes as real_notes
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("🕳️ NoPE and attention sinks"))
with about():
    st.markdown(
        _(
            "Some layers of today's models have **no position encoding at all** (NoPE). A decoder still knows order: "
            "its causal mask lets token i see tokens 0 … i only, so what attention returns depends on how many tokens "
            "came before. Llama 4 leaves RoPE out of every 4th layer: those layers attend over the whole context, and "
            "their queries are scaled up at long range (temperature tuning: a lower temperature, sharper attention). "
            "And when a stream outgrows the cache, StreamingLLM keeps the first few tokens, where trained models park "
            "their attention (the *sinks*), and numbers the cached tokens 0, 1, 2, … anew. Every number drawn is "
            "computed by `posenc_core.encodings.nope` and `posenc_core.encodings.attention_sink`."
        )
    )


def causal_mask() -> None:
    values = controls.controls(["nope_length", "value_dim", "n_sequences", "values_seed"], columns=4)
    result = show.figure("nope-causal-norm", values)
    st.latex(r"o_i = \sum_{j \le i} \tfrac{1}{i+1}\, v_j,\quad \mathbb{E}\,\lVert o_i\rVert^2 = \tfrac{1}{i+1}")
    if result is not None:
        what_to_notice(*notes.causal_points(values, result.data))
    result = show.figure("nope-position-readout", values)
    if result is not None:
        what_to_notice(*notes.readout_points(values, result.data))


def llama4() -> None:
    layers = controls.controls(["num_hidden_layers", "no_rope_layer_interval"], columns=2)
    result = show.figure("nope-llama4-layers", layers)
    if result is not None:
        what_to_notice(*notes.layer_points(layers, result.data))
    st.latex(
        r"\mathrm{scale}(p) = \log\!\left(\left\lfloor \tfrac{p+1}{\mathrm{floor\_scale}} \right\rfloor + 1\right)"
        r"\cdot \mathrm{attn\_scale} + 1,\qquad q_p \leftarrow \mathrm{scale}(p)\, q_p"
    )
    st.caption(_("p is the token's index in the sequence (0 for the first), as in HF's Llama4TextAttention."))
    temperature = controls.controls(["floor_scale", "attn_scale", "temperature_context"], columns=3)
    result = show.figure("nope-llama4-temperature", temperature)
    if result is not None:
        what_to_notice(*notes.temperature_points(temperature, result.data))


def sinks() -> None:
    st.latex(r"\text{cache}(t) = \{0, \dots, s-1\} \cup \{t-w, \dots, t-1\},\quad \text{positions } 0, 1, 2, \dots")
    stream = controls.controls(["stream_len", "n_sink", "sink_window"], columns=3)
    result = show.figure("sink-cache-grid", stream)
    if result is not None:
        what_to_notice(*notes.cache_points(stream, result.data))


def real_attention() -> None:
    st.markdown(
        _(
            "A real encoder (all-MiniLM-L6-v2, built in) reads a sentence: the share of attention each of its heads "
            "puts on the first token ([CLS]) and on the last ([SEP]), averaged over the queries. A token that draws "
            "far more than 1/L of a head's attention, whatever the sentence, is a *sink*. This model is a "
            "bidirectional encoder: every token sees the whole sentence, [SEP] included. StreamingLLM's sinks are "
            "the first tokens of a decoder, the only ones every later query can see; the figure shows the same "
            "habit, attention parked on a token that carries no word, in the other kind of model."
        )
    )
    text = {"attention_text": controls.control("attention_text")}
    result = show.figure("real-attention-first-tokens", text)
    points = real_notes.notice_points(result.data) if result is not None else []
    if points:
        what_to_notice(*points)


SECTIONS = {
    N_("Position from the causal mask"): causal_mask,
    N_("Llama 4: NoPE layers"): llama4,
    N_("Attention sinks (StreamingLLM)"): sinks,
    N_("Real attention on the first tokens"): real_attention,
}

show_sections(SECTIONS)
