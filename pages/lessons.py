"""Lessons: a guided path through the figures, one step at a time, in the reader's language. The lessons are the
TOML files of lessons/ (see lessons/README.md); ?present=1 opens them in presenter mode."""

import streamlit as st

from posenc.i18n import _
from posenc.ui import lesson_view, presenter
from posenc.ui.router import ensure_app_router

ensure_app_router()

if not presenter.active():
    st.title(_("🎓 Lessons"))
    st.markdown(
        _(
            "Each lesson walks through the figures of the course in order. Predict what a figure will show before "
            "you see it, then check your understanding; the arrow keys ← and → move between steps."
        )
    )
lesson_view.render()
