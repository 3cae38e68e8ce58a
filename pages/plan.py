"""Plan an extension: from the sidebar's RoPE model and a target context to the settings to paste, with the traps
flagged and the numbers behind them (``posenc_core.plan``)."""

import json

import pandas as pd
import streamlit as st

from posenc.figures.plan import tables
from posenc.figures.plan.model import custom_model, figure_values, hub_id
from posenc.figures.plan.params import ALL_RUNTIMES, RUNTIME_LABELS
from posenc.figures.plan.texts import METHOD_NOTES, finding_text, sentence
from posenc.figures.plan.wavelengths import method_label
from posenc.i18n import N_, _
from posenc.ui import controls, echo, show, state
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice
from posenc_core.plan import PLAN_METHODS, REGIMES, plan_extension
from posenc_core.plan.methods import has_longrope_lists
from posenc_core.plan.paste import CONFIG_BLOCKS

ensure_app_router()

PASTE_LABELS = {
    "config.json": N_("config.json, transformers 4 (rope_scaling)"),
    "config.json (transformers 5)": N_("config.json, transformers 5 (rope_parameters)"),
}


@st.cache_data(max_entries=32, show_spinner=False)
def planned(
    model_key: str, _model, target: int, method: str, original: int, runtime: str, model_id: str | None, config: str
):
    """The plan, once per (model, target, method, original, runtime, config.json) in this process; ``model_key``
    names the model (its repr), which the cache hashes in place of the model itself; ``config`` is the uploaded
    config.json's JSON text ("" for a preset), whose shape the blocks are written for."""
    runtime = None if runtime == ALL_RUNTIMES else runtime
    return plan_extension(
        _model,
        target,
        method,
        model_id=model_id,
        original=original or None,
        runtime=runtime,
        config=json.loads(config) if config else None,
    )


st.title(_("🧭 Plan a context extension"))
with about():
    st.markdown(
        _(
            "Pick a RoPE model in the sidebar (a preset, or your own config.json) and the context T you want. The "
            "plan computes, for every method, the frequencies each pair gets and the regime it puts the pair in "
            "(kept, ramped or interpolated); the base rules of the literature; the traps of your settings, each "
            "with a fix; and the keys and flags to paste into config.json, vLLM, SGLang or llama.cpp. Every number "
            "comes from `posenc_core.plan` (also `posenc plan` on the command line)."
        )
    )
    st.latex(r"s = \frac{T}{L},\qquad \lambda_i = \frac{2\pi}{\theta_i},\qquad \lambda'_i = \frac{2\pi}{\theta'_i}")

model = state.current_preset()
if model is None:  # custom: a plain RoPE model of the head_dim and base set here
    with st.expander(_("The model: head_dim and base (or choose a model in the sidebar)")):
        shape = controls.controls(["head_dim", "base"], columns=2, least={"head_dim": (4, _("a plan needs two pairs"))})
    model = custom_model({**shape, **state.preset_only(["partial_rotary_factor"])})
lists = has_longrope_lists(model)  # LongRoPE reuses a model's own searched lists
columns = st.columns(4)
with columns[0]:
    target = controls.control("target")
with columns[1]:
    method = controls.control("method", choices=[name for name in PLAN_METHODS if name != "longrope" or lists])
with columns[2]:
    runtime = controls.control("runtime")
with columns[3]:
    original = controls.control("original")

plan = None
if model.scheme not in ("rope", "mrope"):
    st.info(
        _(
            "{name} uses {scheme}, not RoPE: there are no RoPE settings to plan. Choose a RoPE model in the sidebar "
            "(Llama, Qwen, Mistral, Phi-3, DeepSeek...)."
        ).format(name=model.name, scheme=model.scheme)
    )
else:
    try:
        with st.spinner(_("Planning…")):
            config = json.dumps(state.current_config()) if state.current_config() else ""
            plan = planned(repr(model), model, target, method, original, runtime, hub_id(model), config)
    except ValueError as error:
        st.error(_("No plan for these settings: {error}").format(error=echo.plain(str(error), most=None)), icon="🚫")


def plan_and_checks() -> None:
    show.figure("plan-wavelengths", figure_values(model, plan.target, plan.method, plan.original))
    if not plan.warnings:
        st.success(_("No problems found: these settings do what is asked."), icon="✅")
    for finding in plan.findings:
        reason, fix = finding_text(finding)
        text = _("{reason}. Fix: {fix}.").format(reason=sentence(reason), fix=fix)
        box = st.warning if finding.severity == "warning" else st.info
        box(echo.plain(text, most=None), icon="⚠️" if finding.severity == "warning" else "ℹ️")
    counts = {regime: sum(pair.regimes[plan.method] == regime for pair in plan.pairs) for regime in REGIMES}
    what_to_notice(
        _(
            "{method} keeps {kept} pairs, ramps {ramped} and interpolates {interpolated} of {pairs}: the shaded "
            "bands behind the curves."
        ).format(method=method_label(plan.method), pairs=len(plan.pairs), **counts),
        _(
            "Pairs whose original wavelength is above L (the dashed line) never turned once in training; the plan "
            "stretches them so that their angles up to T = {target:,} stay within what the model saw."
        ).format(target=plan.target)
        if not plan.warnings
        else _(
            "Pairs whose original wavelength is above L (the dashed line) never turned once in training: see the "
            "warnings above for what these settings do to them by T = {target:,}."
        ).format(target=plan.target),
    )


def settings_to_paste() -> None:
    labels = PASTE_LABELS | RUNTIME_LABELS
    versions = plan.paste_versions
    for name, text in plan.shown_paste.items():  # the config.json blocks, and every runtime's or the chosen one's
        st.markdown("**" + _(labels[name]) + "**")
        config = name in CONFIG_BLOCKS
        st.code(text, language="json" if config else "bash", wrap_lines=not config)
        st.caption(_("Form checked against {version}.").format(version=versions[name]))
    if plan.refused:
        st.caption(_("A runtime that cannot serve these settings for this model shows no block: see the warnings."))
    st.caption(
        _("The model id in the commands is {model_id}: put the repository or path you serve instead.").format(
            model_id=plan.model_id
        )
    )


def numbers() -> None:
    st.markdown("**" + _("The base rules for T = {target:,}").format(target=plan.target) + "**")
    st.table(pd.DataFrame(tables.rule_rows(plan)).set_index(tables.column("rule")))
    st.markdown(
        _(
            "Liu et al.'s critical dimension: **{critical}** of the {rotary} rotary channels turn at least once in "
            "L = {original:,}; the context each method's critical pair reaches:"
        ).format(critical=plan.critical_dim, rotary=plan.rotary_dim, original=plan.original)
    )
    st.table(pd.DataFrame(tables.method_rows(plan)).set_index(tables.column("method")))
    st.markdown("\n".join(f"- **{method_label(name)}**: {_(METHOD_NOTES[name])}" for name in plan.methods))


def pairs() -> None:
    st.dataframe(pd.DataFrame(tables.pair_rows(plan)), hide_index=True)
    st.caption(
        _(
            "Wavelengths in tokens. A pair is kept when its frequency moved by 1% at most, interpolated when it was "
            "divided by at least 0.99·s, ramped between."
        )
    )


if plan is not None:
    show_sections(
        {
            N_("Plan and checks"): plan_and_checks,
            N_("Settings to paste"): settings_to_paste,
            N_("The numbers"): numbers,
            N_("Per pair"): pairs,
        }
    )
