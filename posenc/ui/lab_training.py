"""The Length lab's *Train your own* box and the figures that show the reader's run beside the shipped ones.

The run itself is :mod:`posenc.ui.lab_runs` (a background process). The box polls it once a second in a
fragment (``st.fragment(run_every=...)``), so only the progress bar reruns while the rest of the page stays
usable; when the run ends, the whole page reruns and the run's curve joins the figures of its task, dashed.
A run lasts no longer than its session: it is registered with :func:`posenc.ui.session_end.close_at_end`, so a
closed tab or a reload ends its process and frees its place under the server's limit (:meth:`lab_runs.Run.close`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from posenc.drawing import registry
from posenc.drawing.theme import COLORWAY
from posenc.figures.lab.common import SCHEME_COLORS, scheme_name
from posenc.figures.lab.lengths import add_curve
from posenc.i18n import N_, _
from posenc.ui import echo, lab_runs, run_marker, session_end, show, state
from posenc.ui.export_menu import export_menu
from posenc_lab.schemes import SCHEMES

RUN = "lab_run"  # session state: the id of this session's run
POLL_SECONDS = 1.0
STEP_RANGE, STEP_DEFAULT = (50, lab_runs.MAX_STEPS), 200
TASK_NAMES = {"lm": N_("language model"), "copy": N_("copy task")}
OFFERED_TASKS = tuple(TASK_NAMES)  # the tasks whose curves a trained run joins (passkey: not yet drawn live)


def session_run() -> lab_runs.Run | None:
    """This session's run (polled), registered to end with the session; None if it has none (or it was closed)."""
    run = lab_runs.RUNS.get(st.session_state.get(RUN, 0))
    if run is None:
        return None
    session_end.close_at_end(RUN, run)
    return run.poll()


def own_label(run: lab_runs.Run) -> str:
    return _("your {scheme} (seed {seed})").format(scheme=scheme_name(run.scheme), seed=run.seed)


def train_your_own() -> lab_runs.Run | None:
    """The box: pick, train, watch, cancel. Returns this session's finished run (its curve joins the figures)."""
    run = session_run()
    busy = run is not None and run.active
    with st.form("lab-train", border=False):
        left, middle, right, last = st.columns(4)
        scheme = left.selectbox(_("Scheme"), tuple(SCHEMES), key="lab_train_scheme", format_func=scheme_name)
        task = middle.selectbox(_("Task"), OFFERED_TASKS, key="lab_train_task", format_func=lambda t: _(TASK_NAMES[t]))
        steps = right.number_input(_("Steps"), *STEP_RANGE, STEP_DEFAULT, step=50, key="lab_train_steps")
        seed = last.number_input(_("Seed"), 0, 9999, 0, key="lab_train_seed")
        clicked = st.form_submit_button(_("Train"), disabled=busy, icon="🏋️")
    if clicked and not busy:
        if run is not None:  # this session's last run, finished: its curve gives way to the new one's
            run.close()
            run = None
        try:
            run = lab_runs.start(scheme, task, int(steps), int(seed))
        except lab_runs.Busy:
            st.warning(_("Busy: {n} runs in progress, try again shortly.").format(n=lab_runs.active_count()), icon="⏳")
        except ValueError as error:
            st.warning(echo.plain(str(error), most=None), icon="⚠️")
        else:
            st.session_state[RUN] = run.id
            session_end.close_at_end(RUN, run)  # a closed tab or a reload ends it (lab_runs.Run.close)
    if run is not None:
        progress(run.id)
    return run if run is not None and run.state == "done" else None


@st.fragment(run_every=POLL_SECONDS)
def progress(run_id: int) -> None:
    """The run's progress bar and Cancel button, redrawn every second while it runs."""
    run = lab_runs.RUNS.get(run_id)
    if run is None:
        return
    was_active = run.active
    run.poll()
    if run.active:
        seconds = lab_runs.time.monotonic() - run.started
        text = _("Training {label}: step {step} of {steps}, loss {loss}, {seconds:.0f} s").format(
            label=own_label(run),
            step=run.step,
            steps=run.steps,
            loss="—" if run.loss is None else f"{run.loss:.3f}",
            seconds=seconds,
        )
        if run.step == run.steps:
            text = _("Evaluating {label} at the lab's lengths…").format(label=own_label(run))
        st.progress(run.step / run.steps, text=text)
        if st.button(_("Cancel"), key="lab-train-cancel", icon="✖️"):
            run.cancel()
            st.rerun()
    elif was_active:
        st.rerun()  # the whole page: the finished run's curve joins the figures
    elif run.state == "done":
        st.success(_("{label} trained: its dashed curve is on the figures of its task.").format(label=own_label(run)))
    elif run.state == "cancelled":
        st.info(_("Training cancelled."))
    else:
        st.warning(_("Training failed: {error}").format(error=echo.plain(run.error, most=None)))


def figure(figure_id: str, values: Mapping[str, Any], run: lab_runs.Run | None, key: str | None) -> None:
    """Figure ``figure_id`` as :func:`show.figure` draws it, with the run's rows (``run.rows[key]``) added as a
    dashed curve when this session has a finished run of that kind."""
    rows = None if run is None or key is None else run.rows.get(key)
    if not rows:
        show.figure(figure_id, values)
        return
    spec = registry.get_spec(figure_id)
    try:
        params = registry.params_for(spec, values)
        result, shown = show.build(spec, params)
    except ValueError as error:
        st.error(echo.plain(f"{_(spec.title)}: {error}", most=None), icon="🚫")
        return
    metric = params.get("lab_metric", params.get("lab_copy_metric", "loss"))
    color = SCHEME_COLORS.get(run.scheme, COLORWAY[0])
    drawn, exported = go.Figure(shown), go.Figure(result.figure)
    if result.data:
        for fig in (drawn, exported):
            add_curve(fig, rows, metric, own_label(run), color, dash="dash", log_y=metric == "perplexity")
    stem = registry.file_stem(figure_id, params, state.preset_slug()) + f"_own-{run.scheme}-seed{run.seed}"
    st.plotly_chart(drawn, theme=None, width="stretch", config=show.MODEBAR, key=f"chart-{figure_id}")
    run_marker.chart_drawn()
    show.notes(result)
    export_menu(figure_id, registry.FigureResult(exported, result.data, result.notes), stem)
