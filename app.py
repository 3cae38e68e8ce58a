"""posenc: the positional-encoding explorer. A thin router: language, page config, shared sidebar, navigation."""

import streamlit as st

from posenc import figures
from posenc.i18n import _
from posenc.ui import config_banner, language, presenter, run_marker, sidebar, state, warmup
from posenc.ui.lesson_view import LESSON
from posenc.ui.navigation import PAGES, SECTIONS

figures.register_all()  # every figure family and its parameters, before a page or the sidebar asks for one
run_marker.start_run()  # the end-of-run mark counts the charts this run draws
warmup.start_in_this_server()  # once per process: the server opens its pages itself, so learners find them built
language.choose()  # before any text: page titles, the sidebar and the page are made in the reader's language
st.set_page_config(
    page_title=_("posenc: positional encodings"),
    page_icon="🧭",
    layout="wide",
    initial_sidebar_state=presenter.sidebar_state(),
)
language.typeset()
presenter.apply()  # ?present=1: no sidebar, large text, figures in the slide style

pages = {
    page.name: st.Page(page.script, title=_(page.title), icon=page.icon, default=page is PAGES[0]) for page in PAGES
}
navigation = st.navigation(
    {_(section): [pages[page.name] for page in PAGES if page.section == section] for section in SECTIONS},
    expanded=True,  # every page listed: Streamlit's own "View more" link is English in every language
)
# A lesson's link may name no page (?lesson=absolute&lang=ko): it opens the Lessons page.
if LESSON in st.query_params and navigation.url_path != pages["lessons"].url_path:
    st.switch_page(pages["lessons"], query_params=st.query_params.to_dict())
sidebar.render()
if next(page for page in PAGES if page.url_path == navigation.url_path).explorer:
    config_banner.render(navigation.url_path)  # the model a config.json brought, named on every explorer page
state.enter_page(navigation.url_path)  # a control is a new widget on each page: ui.controls carries its value over
navigation.run()
presenter.leave_button()
run_marker.mark_run_done(navigation.url_path or "home")  # last: the run has finished (tests wait on it)
