"""The length lab: tiny models that differ only in their positional encoding, trained short and tested long."""

import streamlit as st

from posenc.figures.lab import published, source
from posenc.i18n import N_, _
from posenc.ui import controls, lab_controls, lab_training, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("📏 The length lab: train short, test long"))
with about():
    st.markdown(
        _(
            "Six tiny decoder-only transformers (2 layers, d_model 64, 4 heads, about 116,000 parameters) that "
            "differ only in how position enters: **NoPE** (the causal mask alone), **sinusoidal** and **learned** "
            "vectors added to the tokens, the **T5** and **ALiBi** biases on the attention logits, and **RoPE**'s "
            "rotation of queries and keys. Each was trained on windows of L = 64 bytes of a generated text (and "
            "on a copy task), then evaluated at ½L to 8L. What fails past L, and how, is the question of length "
            "generalisation. Everything is computed by `posenc_lab` from the same core functions the other pages "
            "draw."
        )
    )
    st.latex(r"\text{loss}(n) = -\frac{1}{N}\sum_t \log p(x_t \mid x_{<t}),\ \ \text{perplexity} = e^{\text{loss}}")
if not source.available():
    st.info(_("The lab has no results yet: {why}").format(why=source.missing_message()), icon="⏳")
with st.expander(_("Train your own model"), icon="🏋️"):
    own = lab_training.train_your_own()
cut = controls.controls(["lab_mode"], columns=3)  # the lm figures' evaluation: one choice for the page


def lengths() -> None:
    values = cut | controls.controls(["lab_metric"], columns=3)
    lab_training.figure("lab-lengths", values, own, values["lab_mode"])
    if source.available():
        papers, ours = st.columns(2)
        papers.markdown(_("**What the papers found**") + "\n\n" + "\n\n".join(published.published()))
        ours.markdown(
            _("**What our models show**")
            + "\n\n"
            + "\n\n".join(published.ours(source.seed_views(), values["lab_mode"]))
        )


def copy() -> None:
    values = controls.controls(["lab_copy_metric"], columns=3)
    lab_training.figure("lab-copy", values, own, "copy")


def retrieval() -> None:
    values = controls.controls(["lab_passkey_metric"], columns=3)
    show.figure("lab-passkey", values)
    what_to_notice(
        _("Right of the dashed line the passkey lies farther back than any the model was trained to find."),
        _("A loss that stays flat past L may still fail here: a model can keep its loss by ignoring what is far back."),
    )
    show.figure("lab-passkey-scaling", values)


def positions() -> None:
    values = controls.controls(["lab_smooth"], columns=3)
    show.figure("lab-positions", values)
    what_to_notice(
        _("Left of the dashed line every model reads positions it was trained on; right of it, it does not."),
        _("A curve that rises right after L marks a scheme that breaks at once; a flat one keeps its loss."),
    )


def scaling() -> None:
    values = cut | controls.controls(["factor"], columns=3)
    if lab_controls.scaling_problem(values["factor"]) is None:
        show.figure("lab-scaling", values)
    show.figure("lab-finetune", {"lab_metric": "loss"})  # the loss: the metric control is the first section's


def training() -> None:
    values = controls.controls(["lab_task"], columns=3)
    show.figure("lab-training", values)


def inside() -> None:
    values = lab_controls.probe_controls()
    show.figure("lab-attention", values)
    show.figure("lab-pair-norms", values)


show_sections(
    {
        N_("Loss against length"): lengths,
        N_("Copy task"): copy,
        N_("Passkey retrieval"): retrieval,
        N_("Where each breaks"): positions,
        N_("RoPE scaling"): scaling,
        N_("Inside the models"): inside,
        N_("Training"): training,
    }
)
