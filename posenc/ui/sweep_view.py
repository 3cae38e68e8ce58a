"""Sweeps in the app: under each figure, a closed *Sweep* box (:mod:`ui.sweep_box`) to animate one of its numeric
parameters; the sweep held in the session and in the link (``&sweep=base:10000..1000000:12``); the swept figure drawn
as one Plotly animation (``drawing.animate``) that starts playing at frame 1, its frames switched in the browser.

A sweep plays on the figure whose box started it (``&sweep_figure=``), or, from a link naming no figure, on the first
figure of the page that takes its parameter. A bad sweep (from the box or a link) is
said next to the box or at the top of the page, and the still figure is kept; so is a sweep over its work budget or
one the figure refuses at too many of its values (``drawing.animate``). A sweep being built stops between two frames
once the reader's session has ended (:func:`until_session_ends`). In presenter mode the space bar plays and pauses
the first swept figure on the screen.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from posenc import i18n
from posenc.drawing import registry
from posenc.drawing.animate import SweepCancelled, SweepResult, animate, assemble
from posenc.drawing.sweep import Sweep, check_sweep, parse_sweep
from posenc.i18n import _
from posenc.ui import echo, link, presenter, run_marker

KEY = "sweep"  # session state and link: the active sweep as text
FIGURE_KEY = "sweep_figure"  # session state and link: the figure the sweep was started on (None: the first that can)
ERROR = "_sweep_error"  # session state: why the last sweep asked for was refused
TAKEN = "_sweep_taken"  # session state: (run, figure) that played a sweep naming no figure

# Plays a swept chart once it is drawn (a click on its ▶ button: Plotly's own animation, in the browser), once per
# chart and sweep; and, once per page, the space bar in presenter mode plays or pauses the first swept chart.
SCRIPT = """<script data-posenc-sweep>
(() => {
  const sweeps = window.posencSweeps || (window.posencSweeps = { played: {}, playing: null, keys: false });
  const at = %s;
  sweeps.presenter = at.presenter;
  const buttons = (chart) => chart ? chart.querySelectorAll(".updatemenu-button") : [];
  const press = (button) => button && button.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  // Pressed only once the chart is settled: its frames all added and no redraw pending, the same plot two painted
  // frames apart. Pressed while Plotly still replaces the "Computing…" frame, the animation runs on a state the new
  // plot drops, and ⏸ can no longer stop it.
  const settled = (chart) => {
    const gd = chart && chart.querySelector(".js-plotly-plot");
    const frames = gd && gd._transitionData && gd._transitionData._frames;
    return gd && buttons(chart).length >= 2 && frames && frames.length >= at.frames
      && (!gd._promises || gd._promises.length === 0) ? gd : null;
  };
  const play = (frames, gdBefore, steady) => {  // steady: painted frames the same settled plot has lasted
    const gd = settled(document.querySelector(".st-key-" + at.chart));
    const count = gd && gd === gdBefore ? steady + 1 : 0;
    if (count < 3) return void (frames > 0 && requestAnimationFrame(() => play(frames - 1, gd, count)));
    press(buttons(gd.closest(".st-key-" + at.chart))[0]);
    sweeps.playing = at.chart;
  };
  if (sweeps.played[at.chart] !== at.sweep) {
    sweeps.played[at.chart] = at.sweep;
    play(1200, null, 0);
  }
  if (!sweeps.keys) {
    sweeps.keys = true;
    // Plotly rejects an animation's promise, with no reason, when ⏸ or the slider interrupts it: expected, not an
    // error (the reader would otherwise find "Uncaught (in promise) undefined" in the console at every pause).
    window.addEventListener("unhandledrejection", (event) => {
      if (event.reason === undefined) event.preventDefault();
    });
    document.addEventListener("keydown", (event) => {
      const target = event.target;
      if (event.key !== " " || event.altKey || event.ctrlKey || event.metaKey || !sweeps.presenter
          || (target instanceof HTMLElement && target.closest("input, textarea, select, [contenteditable]"))) return;
      const swept = document.querySelector('[class*="st-key-chart-"] .updatemenu-button');
      const chart = swept && swept.closest('[class*="st-key-chart-"]');
      if (!chart) return;
      event.preventDefault();
      const [playButton, pauseButton] = buttons(chart);
      const key = [...chart.classList].find((name) => name.startsWith("st-key-chart-"));
      if (sweeps.playing === key?.slice(7)) { press(pauseButton); sweeps.playing = null; }
      else { press(playButton); sweeps.playing = key?.slice(7); }
    }, true);
  }
})();
</script>
<style>[data-testid="stElementContainer"]:has(script[data-posenc-sweep]) { display: none; }</style>"""


def active() -> Sweep | None:
    """The sweep this session plays (first read from the link), or None. A malformed one from a link is dropped,
    and said."""
    if KEY not in st.session_state:
        st.session_state[KEY] = st.query_params.get(KEY) or None
    text = st.session_state.get(KEY)
    if not text:
        return None
    try:
        return parse_sweep(text)
    except ValueError as error:
        st.session_state[ERROR] = str(error)
        stop()
        return None


def stop() -> None:
    """Back to the still figures."""
    st.session_state[KEY] = st.session_state[FIGURE_KEY] = None
    link.drop(KEY)
    link.drop(FIGURE_KEY)


def start(text: str, figure_id: str) -> None:
    """Play ``text`` on figure ``figure_id`` (both in the link)."""
    st.session_state[KEY], st.session_state[FIGURE_KEY] = text, figure_id
    st.session_state.pop(ERROR, None)
    link.put(KEY, text)
    link.put(FIGURE_KEY, figure_id)


def for_figure(spec: registry.FigureSpec) -> Sweep | None:
    """The active sweep if it plays on figure ``spec``: the figure it was started on, or, for a link naming none,
    the first figure of the run that takes its parameter (one animation per page, not one per figure)."""
    sweep = active()
    if sweep is None or sweep.param not in spec.params:
        return None
    if FIGURE_KEY not in st.session_state:
        st.session_state[FIGURE_KEY] = st.query_params.get(FIGURE_KEY) or None
    target = st.session_state.get(FIGURE_KEY)
    if target:
        return sweep if target == spec.id else None
    run = st.session_state.get(run_marker.COUNT, 0)
    taken = st.session_state.get(TAKEN)
    if taken is not None and taken[0] == run and taken[1] != spec.id:
        return None
    st.session_state[TAKEN] = (run, spec.id)
    return sweep


def swept_figure(
    spec: registry.FigureSpec, params: Mapping[str, Any], style: str, build_cached, *, given: str | None = None
) -> SweepResult | None:
    """The animation of ``spec`` for the sweep ``given`` (a lesson step's), else the page's active one (cached by
    ``build_cached(key, build)``), or None without one. A sweep the figure refuses is said above it, and None
    returned (the still figure is drawn)."""
    sweep = parse_sweep(given) if given else for_figure(spec)
    if sweep is None:
        return None
    try:
        check_sweep(sweep, spec.id)
    except ValueError as error:
        echo.warning(_("Sweep not played: {error}").format(error=error), icon="⚠️")
        return None
    language = i18n.current()
    key = ("sweep", spec.id, json.dumps(dict(params), sort_keys=True, default=list), style, language, sweep.to_url())

    def build() -> SweepResult:
        with i18n.language(language):
            return animate(spec.id, params, sweep, style=style, cancelled=until_session_ends())

    try:
        with st.spinner(_("Computing {frames} frames of {title}…").format(frames=sweep.frames, title=_(spec.title))):
            result = build_cached(key, build)
    except SweepCancelled:  # the reader has gone: nobody to draw for
        return None
    except ValueError as error:  # over the work budget, or refused at too many of its values: the still figure
        echo.warning(_("Sweep not played: {error}").format(error=error), icon="⚠️")
        return None
    for note in result.notes:
        st.caption(echo.plain(note, most=None))
    at = {
        "chart": f"chart-{spec.id}",
        "sweep": sweep.to_url(),
        "frames": len(result.values),
        "presenter": presenter.active(),
    }
    st.html(SCRIPT % json.dumps(at), unsafe_allow_javascript=True)
    return result


def until_session_ends():
    """A callable that is true once this run's session is no longer active (its tab closed or reloaded: Streamlit's
    runtime has let it go); always false outside a served session (a test's AppTest, the exporter)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not runtime.exists():
        return lambda: False
    instance, session_id = runtime.get_instance(), ctx.session_id
    return lambda: not instance.is_active_session(session_id)


def on_screen(result: SweepResult, fit) -> go.Figure:
    """The animation of frames each laid out by ``fit`` (the still figures' layout for this screen: titles wrapped
    for a phone, a lesson's box), so that every frame's title fits as the still one does."""
    return assemble([fit(go.Figure(frame.figure)) for frame in result.frames], result.values, result.sweep)
