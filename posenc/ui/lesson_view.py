"""The Lessons page's view: the lesson picker, one step at a time (its text, the prediction, the live figure at the
step's parameters, a note on a common mistake once Check is pressed, the check question), Previous/Next with the ←
and → keys, and the link to the step (``?lesson=rotary&step=4&lang=ko``). The lessons themselves are data
(``lessons/*.toml``, read by :mod:`lessons.reader`).

A step is a new screen: every widget and expander that reveals something is keyed by the step, so nothing opened on
one step is open on the next; a small script of our own (:mod:`ui.lesson_script`) scrolls a new step to its top, brings
the figure into view when Check reveals it (and an answer when it is opened), and lets ← and → leave a prediction
option that has the focus (Streamlit's radio keeps the arrow keys for itself). In presenter mode a step is laid out
to fit a 1280 × 720 screen: the figure in a box that leaves room for the title and the buttons
(:func:`ui.show.fit_to_box`), the prediction in the figure's place until Check, the progress in the row of the
buttons, what is read on demand (the figure's notes, the link, a prediction's explanation, the note on a mistake)
behind small buttons or in an expander."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from posenc import i18n
from posenc.drawing import registry
from posenc.drawing.params import PARAMS
from posenc.drawing.plain_text import shorten
from posenc.i18n import _
from posenc.lessons.reader import LESSONS_DIR, Lesson, Step, load_lessons
from posenc.ui import echo, lesson_script, presenter, show

LESSON, STEP = "lesson", "step"  # the link's parameters (step counts from 1)
CURRENT = "lesson-current"  # session state: (lesson id, step number)
REVEALED = "lesson-revealed"  # session state: {(lesson id, step number): the choice checked (None: none)}
NOTICE = "lesson-link-notice"
FIGURE_HEIGHT = 500  # px: a step's figure in presenter mode, beside its words under the heading on a 720 px screen


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
    if not presenter.active():
        _picker(known, lesson, language)
    drawn = step_view(lesson, lesson.steps[number - 1], language)
    _navigation(lesson, number, language, drawn)


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


def step_view(lesson: Lesson, step: Step, language: str) -> registry.FigureResult | None:
    """One step: title, text, the prediction, the figure, the check question with its answer; the figure drawn
    (None while hidden). In presenter mode the words sit left of the figure, so a step fits one projected
    screen; elsewhere one under the other. In presenter mode a prediction about a hidden figure takes the figure's
    place until Check, and the check question waits for Check (one question at a time for the class)."""
    presenting = presenter.active()
    key = _step_key(lesson.id, step.number)
    revealed = (lesson.id, step.number) in st.session_state.setdefault(REVEALED, {})
    waiting = step.predict is not None and not revealed  # a prediction not checked yet
    hidden = waiting and not step.predict.then  # ... whose figure appears with Check
    changed = step.predict is not None and bool(step.predict.then) and revealed  # the figure shows the change
    lesson_script.at_step(key, revealed)
    if not presenting:  # in presenter mode the progress is in the row of the buttons (:func:`_navigation`)
        count = len(lesson.steps)
        st.progress(step.number / count, text=_("Step {k} of {n}").format(k=step.number, n=count))
    st.header(step.title[language], anchor=False)
    words, picture = st.columns([2, 3], gap="medium") if presenting else (st.container(), st.container())
    with words:
        st.markdown(step.text[language])
        if step.predict is not None and not (presenting and hidden):
            _predict(lesson, step, language, revealed)
    drawn = None
    with picture, st.container(key="lesson-picture"):
        if presenting and hidden:
            _predict(lesson, step, language, revealed)
        elif hidden:
            st.info(_("Make your prediction first: the figure appears when you press Check."), icon="🤔")
        else:
            if changed and not presenting:
                st.caption(_change_text(step))
            drawn = _figure(step, changed, presenting)
            if revealed:
                lesson_script.at_reveal(key)
    if not (presenting and waiting):
        with words:
            if step.mistake and not (waiting or presenting):  # after Check: it may give the prediction away
                st.warning(step.mistake[language], icon="⚠️")
            _check_question(step, language, key, presenting)
    return drawn


def _step_key(lesson_id: str, number: int) -> str:
    """What the widgets and expanders of one step are keyed by ("rotary-6"): a new step has new ones."""
    return f"{lesson_id}-{number}"


def _figure(step: Step, changed: bool, presenting: bool) -> registry.FigureResult | None:
    """The step's figure, with the prediction's change once Check revealed it; in presenter mode at
    :data:`FIGURE_HEIGHT`, its notes left to the row of the buttons."""
    params = step.params_in(i18n.current(), after=changed)
    if presenting:
        return show.figure(step.figure, params, height=FIGURE_HEIGHT, with_notes=False, sweep=step.sweep)
    return show.figure(step.figure, params, sweep=step.sweep)


def _check_question(step: Step, language: str, key: str, presenting: bool) -> None:
    """The check question and its answer, closed; in presenter mode the question is the expander's label (one
    element, the answer a click away)."""
    question = _("**Check your understanding:** {question}").format(question=step.question[language])
    if presenting:
        answer = st.expander(question, expanded=False, key=f"answer-{key}")
    else:
        st.markdown(question)
        answer = st.expander(_("Show the answer"), expanded=False, key=f"answer-{key}")
    with answer:
        st.markdown(step.answer_text(language))


def _change_text(step: Step) -> str:
    """What Check changed in the figure: "Now with `base` 10000 → 1000"."""
    assert step.predict is not None
    change = ", ".join(
        f"`{name}` {PARAMS[name].to_url(step.params[name])} → {PARAMS[name].to_url(value)}"
        for name, value in step.predict.then.items()
    )
    return _("Now with {change}").format(change=change)


def _reveal(key: tuple[str, int], choice_key: str) -> None:
    """Check: the step is revealed, with the choice made (None for none), which its radio shows from now on."""
    st.session_state.setdefault(REVEALED, {})[key] = st.session_state.get(choice_key)


def _predict(lesson: Lesson, step: Step, language: str, revealed: bool) -> None:
    """The prediction: its question and choices with Check; after Check the answer to it (and the choice made,
    except in presenter mode, where the answer says it and the room is the figure's)."""
    predict = step.predict
    assert predict is not None
    choice_key = f"predict-{_step_key(lesson.id, step.number)}"
    options = list(range(len(predict.choices)))
    presenting = presenter.active()
    with st.container(border=not presenting):  # in presenter mode "Predict:" begins it: the room is the step's
        if not (presenting and revealed):
            st.markdown(_("**Predict:** {question}").format(question=predict.question[language]))

        def choices(*, disabled: bool) -> None:
            st.radio(
                _("Your prediction"),
                options,
                index=None,
                format_func=lambda i: predict.choices[i][language],
                key=choice_key,
                label_visibility="collapsed",
                disabled=disabled,
            )

        if not revealed:
            choices(disabled=False)
            st.button(
                _("Check"),
                key=f"check-{_step_key(lesson.id, step.number)}",
                on_click=_reveal,
                args=((lesson.id, step.number), choice_key),
                type="primary",
            )
            return
        choice = st.session_state[REVEALED][(lesson.id, step.number)]
        if not presenting:
            st.session_state[choice_key] = choice  # the choice checked: a disabled radio keeps no new value of its own
            choices(disabled=True)
        right = predict.choices[predict.correct][language]
        # in presenter mode the change the figure now shows is told here (the figure's column is the figure's)
        change = f"  \n{_change_text(step)}" if presenting and predict.then else ""
        if choice == predict.correct:
            st.success(_("Right: {answer}").format(answer=right) + change, icon="✅")
        elif choice is None:
            st.info(_("The answer: {answer}").format(answer=right) + change, icon="💡")
        else:
            st.warning(_("Not quite. The answer: {answer}").format(answer=right) + change, icon="💡")
        if predict.explain is not None:
            if presenting:
                with st.expander(_("Why?"), expanded=False, key=f"why-{_step_key(lesson.id, step.number)}"):
                    st.markdown(predict.explain[language])
            else:
                st.markdown(predict.explain[language])


def _navigation(lesson: Lesson, number: int, language: str, drawn: registry.FigureResult | None) -> None:
    """Previous and Next (with ← and →) and, between them, the link to the step. In presenter mode the lesson, the
    step and the progress between them, and behind two small buttons the link and the notes of the figure
    ``drawn``: the step above keeps the screen."""
    presenting = presenter.active()
    previous, middle, following = st.columns([1, 3, 1] if presenting else [1, 2, 1], vertical_alignment="center")
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
    link = _("🔗 Link to this step: {link}").format(link=f"`{step_link(lesson.id, number)}`")
    if not presenting:
        middle.caption(link)
        return
    count = len(lesson.steps)
    where, share, about, warn = middle.columns([4, 1, 1, 1], vertical_alignment="center", gap="small")
    step_of = _("step {k} of {n}").format(k=number, n=count)
    where.progress(number / count, text=f"{lesson.title[language]} · {step_of}")
    key = _step_key(lesson.id, number)
    with share.popover("🔗", help=_("The link to this step"), width="stretch", key=f"link-{key}"):
        st.caption(link)
    if drawn is not None and drawn.notes:
        with about.popover("ℹ️", help=_("About this figure"), width="stretch", key=f"notes-{key}"):
            show.notes(drawn)
    step = lesson.steps[number - 1]  # its note on a mistake once nothing is left to predict, as step_view shows it
    if step.mistake and (step.predict is None or (lesson.id, number) in st.session_state[REVEALED]):
        with warn.popover("⚠️", width="stretch", key=f"mistake-{key}"):
            st.warning(step.mistake[language], icon="⚠️")


def step_link(lesson_id: str, number: int) -> str:
    """The link that opens this step in the reader's language (the page's address when the browser gave it)."""
    query = f"?{LESSON}={lesson_id}&{STEP}={number}&lang={i18n.current()}"
    if presenter.active():
        query += f"&{presenter.KEY}=1"
    url = st.context.url or ""
    return url.split("?")[0] + query
