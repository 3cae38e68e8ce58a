"""The script a lesson step carries (our own, no CDN): a new step opens at its top, Check brings the revealed
figure into view (and an opened answer stays in view while it unfolds), and ← and → on a focused prediction option
press Previous and Next (Streamlit's radio keeps the arrow keys for itself). :mod:`ui.lesson_view` places it."""

from __future__ import annotations

import json

import streamlit as st

# The script of a step (see the module's docstring). It keeps what it did in window.posencLesson, so that it acts
# once per step, and once per reveal, whatever Streamlit re-mounts; its element takes no room on the page.
SCRIPT = """<script data-posenc-lesson>
(() => {
  const lesson = window.posencLesson || (window.posencLesson = { step: null, revealedOnArrival: false });
  const scroller = () => document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
  if (!lesson.keys) {  // ← and → on a prediction option go to the step before or after, as elsewhere on the page
    lesson.keys = true;
    document.addEventListener("keydown", (event) => {
      const target = event.target;
      if ((event.key !== "ArrowRight" && event.key !== "ArrowLeft") || event.altKey || event.ctrlKey
          || event.metaKey || event.shiftKey || !(target instanceof HTMLInputElement) || target.type !== "radio"
          || !target.closest('[class*="st-key-predict-"]')) return;
      const button = document.querySelector(
        event.key === "ArrowRight" ? ".st-key-lesson-next button" : ".st-key-lesson-previous button");
      event.preventDefault();
      event.stopPropagation();
      target.blur();
      if (button && !button.disabled) button.click();
    }, true);
    document.addEventListener("toggle", (event) => {  // an answer opened is kept in view while it unfolds
      const box = event.target;
      if (!(box instanceof HTMLDetailsElement) || !box.open
          || !box.closest('[class*="st-key-answer-"], [class*="st-key-why-"]')) return;
      const keep = new ResizeObserver(() => box.scrollIntoView({ block: "nearest" }));
      keep.observe(box);
      setTimeout(() => keep.disconnect(), 1000);
    }, true);
  }
  const at = %s;
  if (at.where === "step" && lesson.step !== at.step) {  // a new step opens at its top
    lesson.step = at.step;
    lesson.revealedOnArrival = at.revealed;
    scroller().scrollTo({ top: 0 });
    window.scrollTo(0, 0);
  } else if (at.where === "figure" && lesson.step === at.step && !lesson.revealedOnArrival) {
    // Check revealed it: bring the figure (and the line over it) into view, once Plotly has drawn it (it draws
    // after this script runs: measured before, the chart is not its own height yet), unless the reader moved on.
    lesson.revealedOnArrival = true;
    const step = at.step;
    const bring = (frames, seen) => {  // frames: how long to wait for the chart (~10 s at 60 frames a second)
      if (lesson.step !== step) return;
      const picture = document.querySelector(".st-key-lesson-picture");
      if (!picture) return;
      const chart = picture.querySelector('[data-testid="stPlotlyChart"]');
      const drawn = !chart || chart.querySelector(".main-svg g.trace, .main-svg g.hm");
      if (!drawn && frames > 0) return void requestAnimationFrame(() => bring(frames - 1, false));
      if (drawn && !seen) return void requestAnimationFrame(() => bring(frames, true));  // a frame to lay it out
      const box = scroller();
      const view = box.getBoundingClientRect();
      const header = document.querySelector('[data-testid="stHeader"]');
      const top = Math.max(view.top, header ? header.getBoundingClientRect().bottom : 0);
      const bottom = Math.min(view.bottom, window.innerHeight);
      const first = picture.getBoundingClientRect().top, last = (chart || picture).getBoundingClientRect().bottom;
      if (first >= top && last <= bottom) return;
      let by = Math.ceil(last - bottom);  // whole pixels: a fraction short leaves the chart's last row cut
      if (first - by < top) by = Math.floor(first - top);
      box.scrollBy({ top: by });
    };
    bring(600, false);
  }
})();
</script>
<style>[data-testid="stElementContainer"]:has(script[data-posenc-lesson]) { display: none; }</style>"""


def at_step(key: str, revealed: bool) -> None:
    """At the top of a step: scroll a new step to its top; the arrow keys on a prediction option."""
    st.html(SCRIPT % json.dumps({"where": "step", "step": key, "revealed": revealed}), unsafe_allow_javascript=True)


def at_reveal(key: str) -> None:
    """Under a revealed figure: when Check revealed it (not on a return to a step checked before), bring it into
    view."""
    st.html(SCRIPT % json.dumps({"where": "figure", "step": key}), unsafe_allow_javascript=True)
