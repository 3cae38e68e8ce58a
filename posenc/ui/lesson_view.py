"""The Lessons page's view: the lesson picker, one step at a time (its text, the prediction, the live figure at the
step's parameters, the check question), Previous/Next with the ← and → keys, and the link to the step
(``?lesson=rotary&step=4&lang=ko``). The lessons themselves are data (``lessons/*.toml``, read by
:mod:`figures.lessons`)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from posenc import i18n
from posenc.figures.lessons import LESSONS_DIR, Lesson, Step, load_lessons
from posenc.figures.params import PARAMS
from posenc.figures.plain_text import shorten
from posenc.i18n import _
from posenc.ui import echo, presenter, show

LESSON, STEP = "lesson", "step"  # the link's parameters (step counts from 1)
CURRENT = "lesson-current"  # session state: (lesson id, step number)
REVEALED = "lesson-revealed"  # session state: {(lesson id, step number)} whose prediction was checked
NOTICE = "lesson-link-notice"


@st.cache_resource(max_entries=4, show_spinner=False)
def _load(signature: tuple[tuple[str, float], ...]) -> dict[str, Lesson]:
    return load_lessons(LESSONS_DIR)


def lessons() -> dict[str, Lesson]:
    """Every lesson, read again when a file in lessons/ changes (a teacher editing one sees it on the next run)."""
    signature = tuple((path.name, path.stat().st_mtime) for path in sorted(Path(LESSONS_DIR).glob("*.toml")))
    return _load(signature)


def _from_link(known: dict[str, Lesson]) -> tuple[str, int]:
    """The lesson and step the link names; step 1 of the first lesson (with a notice) for one that does not exist."""
    first = next(iter(known))
    raw_lesson, raw_step = st.query_params.get(LESSON), st.query_params.get(STEP)
    if raw_lesson is None:
        return first, 1
    if raw_lesson not in known:
        message = _("From the link: lesson={value!r} is not a lesson ({choices}); showing step 1 of {first!r}.")
        st.session_state[NOTICE] = message.format(value=shorten(raw_lesson), choices=", ".join(known), first=first)
        return first, 1
    if raw_step is None:
        return raw_lesson, 1
    count = len(known[raw_lesson].steps)
    if not (raw_step.isascii() and raw_step.isdigit() and len(raw_step) <= 4) or not 1 <= int(raw_step) <= count:
        message = _("From the link: step={value!r} is not a step of this lesson (1 to {count}); showing step 1.")
        st.session_state[NOTICE] = message.format(value=shorten(raw_step), count=count)
        return raw_lesson, 1
    return raw_lesson, int(raw_step)


def _go(lesson_id: str, number: int) -> None:
    st.session_state[CURRENT] = (lesson_id, number)


def _pick_lesson() -> None:
    _go(st.session_state["lesson-picker"], 1)


def render() -> None:
    """The whole page below its title."""
    known = lessons()
    if CURRENT not in st.session_state:
        st.session_state[CURRENT] = _from_link(known)
    lesson_id, number = st.session_state[CURRENT]
    lesson = known.get(lesson_id) or next(iter(known.values()))
    number = min(max(number, 1), len(lesson.steps))
    st.query_params[LESSON], st.query_params[STEP] = lesson.id, str(number)
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        echo.warning(notice)
    language = i18n.current()
    if presenter.active():
        st.caption(f"{lesson.title[language]} · " + _("step {k} of {n}").format(k=number, n=len(lesson.steps)))
    else:
        _picker(known, lesson, language)
    step_view(lesson, lesson.steps[number - 1], language)
    _navigation(lesson, number)


def _picker(known: dict[str, Lesson], lesson: Lesson, language: str) -> None:
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    with left:
        st.session_state["lesson-picker"] = lesson.id
        st.selectbox(
            _("Lesson"),
            list(known),
            key="lesson-picker",
            format_func=lambda key: known[key].title[language],
            on_change=_pick_lesson,
        )
    with right:
        presenter.toggle()
    st.caption(lesson.summary[language])


def step_view(lesson: Lesson, step: Step, language: str) -> None:
    """One step: title, text, the prediction, the figure, the check question with its answer. In presenter mode
    the words sit left of the figure, so a step fits one projected screen; elsewhere one under the other."""
    count = len(lesson.steps)
    st.progress(step.number / count, text=_("Step {k} of {n}").format(k=step.number, n=count))
    st.header(step.title[language], anchor=False)
    words, picture = st.columns([2, 3], gap="large") if presenter.active() else (st.container(), st.container())
    with words:
        st.markdown(step.text[language])
        revealed = (lesson.id, step.number) in st.session_state.setdefault(REVEALED, set())
        if step.predict is not None:
            _predict(lesson, step, language, revealed)
    with picture:
        _figure(step, revealed)
    with words:
        st.markdown(_("**Check your understanding:** {question}").format(question=step.question[language]))
        with st.expander(_("Show the answer"), expanded=False):
            st.markdown(step.answer_text(language))


def _figure(step: Step, revealed: bool) -> None:
    """The step's figure: hidden until Check for a prediction about it, redrawn with the change after Check for a
    prediction about a changed parameter."""
    if step.predict is not None and not step.predict.then and not revealed:
        st.info(_("Make your prediction first: the figure appears when you press Check."), icon="🤔")
        return
    changed = step.predict is not None and bool(step.predict.then) and revealed
    if changed:
        st.caption(_("Now with {change}").format(change=_change_text(step)))
    show.figure(step.figure, step.params_in(i18n.current(), after=changed))


def _change_text(step: Step) -> str:
    assert step.predict is not None
    return ", ".join(
        f"`{name}` {PARAMS[name].to_url(step.params[name])} → {PARAMS[name].to_url(value)}"
        for name, value in step.predict.then.items()
    )


def _reveal(key: tuple[str, int]) -> None:
    st.session_state.setdefault(REVEALED, set()).add(key)


def _predict(lesson: Lesson, step: Step, language: str, revealed: bool) -> None:
    predict = step.predict
    assert predict is not None
    with st.container(border=True):
        st.markdown(_("**Predict:** {question}").format(question=predict.question[language]))
        choice = st.radio(
            _("Your prediction"),
            list(range(len(predict.choices))),
            index=None,
            format_func=lambda i: predict.choices[i][language],
            key=f"predict-{lesson.id}-{step.number}",
            label_visibility="collapsed",
        )
        if not revealed:
            st.button(
                _("Check"),
                key=f"check-{lesson.id}-{step.number}",
                on_click=_reveal,
                args=((lesson.id, step.number),),
                type="primary",
            )
            return
        right = predict.choices[predict.correct][language]
        if choice == predict.correct:
            st.success(_("Right: {answer}").format(answer=right), icon="✅")
        elif choice is None:
            st.info(_("The answer: {answer}").format(answer=right), icon="💡")
        else:
            st.warning(_("Not quite. The answer: {answer}").format(answer=right), icon="💡")
        if predict.explain is not None:
            st.markdown(predict.explain[language])


def _navigation(lesson: Lesson, number: int) -> None:
    previous, middle, following = st.columns([1, 2, 1], vertical_alignment="center")
    with previous:
        st.button(
            _("Previous"),
            key="lesson-previous",
            disabled=number <= 1,
            on_click=_go,
            args=(lesson.id, number - 1),
            shortcut="Left",
            width="stretch",
        )
    with following:
        st.button(
            _("Next"),
            key="lesson-next",
            disabled=number >= len(lesson.steps),
            on_click=_go,
            args=(lesson.id, number + 1),
            shortcut="Right",
            width="stretch",
            type="primary",
        )
    with middle:
        st.caption(_("🔗 Link to this step: {link}").format(link=f"`{step_link(lesson.id, number)}`"))


def step_link(lesson_id: str, number: int) -> str:
    """The link that opens this step in the reader's language (the page's address when the browser gave it)."""
    query = f"?{LESSON}={lesson_id}&{STEP}={number}&lang={i18n.current()}"
    if presenter.active():
        query += f"&{presenter.KEY}=1"
    url = st.context.url or ""
    return url.split("?")[0] + query
