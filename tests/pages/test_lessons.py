"""The Lessons page: every step of every lesson in English, Korean and Chinese (no error, the figure drawn, the prose
in the reader's language), Previous/Next and the link, bad links, and presenter mode."""

from __future__ import annotations

import json

import pytest

from posenc import i18n
from posenc.drawing.theme import SIZES, STYLES
from posenc.lessons.reader import load_lessons
from posenc.ui import lesson_view, presenter, show
from tests.pages.conftest import assert_healthy, open_page, warning_text
from tests.prose import cjk_share, english_runs

LESSONS = load_lessons()


def _open(query: dict[str, str]):
    return open_page("lessons", query, section=None)


def _step_prose(at) -> list[str]:
    """What a step says in the main area: its title, text, prediction and choices, a common mistake, question and
    answer."""
    texts = [header.value for header in at.main.get("header")]
    texts += [markdown.value for markdown in at.main.get("markdown")]
    texts += [warning.value for warning in at.main.warning]
    for radio in at.main.get("radio"):
        texts += [str(option) for option in radio.options]
    return [text for text in texts if text]


def _reveal(at, lesson_id: str, number: int):
    """Pick the right prediction and press Check (the figure of a plain prediction appears only then)."""
    step = LESSONS[lesson_id].steps[number - 1]
    at.radio(key=f"predict-{lesson_id}-{number}").set_value(step.predict.correct)
    at.button(key=f"check-{lesson_id}-{number}").click().run()  # one run: as a click right after the choice
    assert at.success, "the right prediction is confirmed"
    return at


@pytest.mark.parametrize("code", ["en", "ko", "zh-CN"])
@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_every_step_opens_with_its_figure_in_every_language(lesson_id, code):
    lesson = LESSONS[lesson_id]
    with i18n.language(code):  # AppTest formats the sidebar's options (translated) in this thread when it clicks
        _walk(lesson, code)


def _walk(lesson, code: str) -> None:
    lesson_id = lesson.id
    at = _open({"lesson": lesson_id, "lang": code})
    for step in lesson.steps:
        assert at.query_params["step"] == [str(step.number)] or at.query_params["step"] == str(step.number)
        assert_healthy(at)
        assert at.main.get("header")[0].value == step.title[code]
        if step.predict is not None:
            hidden = not step.predict.then
            assert bool(at.get("plotly_chart")) != hidden, f"step {step.number}: the figure before the prediction"
            _reveal(at, lesson_id, step.number)
            assert_healthy(at)
        assert len(at.get("plotly_chart")) == 1, f"step {step.number}: its figure"
        if code != "en":
            prose = _step_prose(at)
            assert cjk_share(prose) > 0.5, (step.number, prose)
            assert not [run for text in prose for run in english_runs(text)], (step.number, prose)
        if step.number < len(lesson.steps):
            at.button(key="lesson-next").click().run()


def test_next_and_previous_move_the_step_and_the_link():
    at = _open({"lesson": "rotary"})
    assert at.query_params["lesson"] == ["rotary"] or at.query_params["lesson"] == "rotary"
    assert at.button(key="lesson-previous").disabled
    at.button(key="lesson-next").click().run()
    assert at.main.get("header")[0].value == LESSONS["rotary"].steps[1].title["en"]
    assert str(at.query_params["step"]).strip("[]'") == "2"
    assert "?lesson=rotary&step=2&lang=en" in "\n".join(caption.value for caption in at.caption)
    at.button(key="lesson-previous").click().run()
    assert str(at.query_params["step"]).strip("[]'") == "1"
    at = _open({"lesson": "rotary", "step": str(len(LESSONS["rotary"].steps))})
    assert at.button(key="lesson-next").disabled and not at.button(key="lesson-previous").disabled


def test_the_buttons_have_the_arrow_keys():
    at = _open({"lesson": "absolute", "step": "2"})
    assert at.button(key="lesson-previous").proto.shortcut.lower() == "left"
    assert at.button(key="lesson-next").proto.shortcut.lower() == "right"


def test_a_wrong_prediction_is_answered_and_the_figure_then_shows():
    at = _open({"lesson": "absolute", "step": "2"})
    assert not at.get("plotly_chart") and at.info
    at.radio(key="predict-absolute-2").set_value(1)
    at.button(key="check-absolute-2").click().run()
    assert_healthy(at)
    assert "Not quite" in warning_text(at) and len(at.get("plotly_chart")) == 1


def test_check_without_a_choice_shows_the_answer():
    at = _open({"lesson": "rotary", "step": "6"})
    at.button(key="check-rotary-6").click().run()
    assert_healthy(at)
    assert "Pair 0" in at.info[0].value and len(at.get("plotly_chart")) == 1


def test_a_then_step_redraws_its_figure_with_the_change():
    at = _open({"lesson": "rotary", "step": "8"})
    before = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    _reveal(at, "rotary", 8)
    after = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert "base=10000" in before and "base=500000" in after
    assert any("500000" in caption.value for caption in at.caption)


def _keyed_blocks(node) -> dict[str, object]:
    """The expanders and popovers under ``node`` that have a key, by key (a keyed block's id ends with its key)."""
    found = {}
    for child in getattr(node, "children", {}).values():
        block_id = getattr(child, "_block_id", None) or ""
        if block_id.startswith("$$ID-"):
            found[block_id.split("-", 2)[2]] = child
        found.update(_keyed_blocks(child))
    return found


def _step_scripts(at) -> list[dict]:
    """What the step's scripts were given (ui.lesson_script.SCRIPT): where they act and for which step."""
    bodies = [element.proto.body for element in at.get("html") if "data-posenc-lesson" in element.proto.body]
    return [json.loads(body.split("const at = ", 1)[1].split(";", 1)[0]) for body in bodies]


def test_what_a_step_reveals_is_keyed_by_its_step():
    """Streamlit keeps an expander open by its place on the page: the next step, laid out alike, would open with
    the answer shown. Keyed by the step, the next step's answer is a new expander, closed."""
    at = _open({"lesson": "absolute", "step": "2"})
    _reveal(at, "absolute", 2)
    answer = _keyed_blocks(at.main)["answer-absolute-2"]
    assert answer.label == "Show the answer" and not answer.proto.expanded
    at.button(key="lesson-next").click().run()
    blocks = _keyed_blocks(at.main)
    assert "answer-absolute-3" in blocks and "answer-absolute-2" not in blocks
    assert not blocks["answer-absolute-3"].proto.expanded


def test_a_checked_prediction_keeps_its_choice_and_an_unchecked_one_is_forgotten():
    at = _open({"lesson": "absolute", "step": "2"})
    at.radio(key="predict-absolute-2").set_value(1)
    at.button(key="check-absolute-2").click().run()
    assert at.radio(key="predict-absolute-2").value == 1 and at.radio(key="predict-absolute-2").disabled
    at.button(key="lesson-next").click().run()
    at.radio(key="predict-absolute-3").set_value(0).run()  # chosen, not checked
    at.button(key="lesson-previous").click().run()
    assert at.radio(key="predict-absolute-2").value == 1 and "Not quite" in warning_text(at)
    at.button(key="lesson-next").click().run()
    assert at.radio(key="predict-absolute-3").value is None and at.button(key="check-absolute-3")


def test_each_step_runs_its_script_once_and_one_more_under_a_figure_check_revealed():
    at = _open({"lesson": "rotary", "step": "6"})
    assert _step_scripts(at) == [{"where": "step", "step": "rotary-6", "revealed": False}]
    _reveal(at, "rotary", 6)
    assert _step_scripts(at) == [
        {"where": "step", "step": "rotary-6", "revealed": True},
        {"where": "figure", "step": "rotary-6"},
    ]


def test_presenter_mode_asks_one_question_at_a_time():
    """Before Check the prediction takes the figure's place and the check question waits; after Check the answer
    says which choice was right (no radio), and the check question is the label of the answer's expander."""
    at = _open({"lesson": "rotary", "step": "6", "present": "1"})
    assert_healthy(at)
    assert at.radio(key="predict-rotary-6") and not at.get("plotly_chart") and not at.expander
    _reveal(at, "rotary", 6)
    assert not at.radio and len(at.get("plotly_chart")) == 1
    (answer,) = at.expander
    question = LESSONS["rotary"].steps[5].question["en"]
    assert answer.label == f"**Check your understanding:** {question}" and not answer.proto.expanded
    assert _keyed_blocks(at.main).keys() >= {"answer-rotary-6", "link-rotary-6"}


def test_presenter_mode_fits_the_figure_beside_the_words_and_its_notes_behind_a_button():
    at = _open({"lesson": "rotary", "step": "5", "present": "1"})  # a figure 820 px tall on a screen
    assert_healthy(at)
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert layout["height"] <= lesson_view.FIGURE_HEIGHT
    notes = _keyed_blocks(at.main)["notes-rotary-5"]
    assert notes.proto.popover.label == "ℹ️" and notes.get("caption")
    assert at.get("progress")[0].proto.text == "Relative and rotary positions · step 5 of 9"


@pytest.mark.parametrize("present", ["0", "1"])
def test_a_common_mistake_is_told_once_the_prediction_is_checked(present):
    """A note on a common mistake could give the prediction away: it appears with Check, in the reader's language;
    in presenter mode behind ⚠️ in the row of the buttons (the step keeps fitting the screen)."""
    step = LESSONS["long_context"].steps[0]  # past L: the slow pairs, not the fast ones
    query = {"lesson": "long_context", "step": "1", "lang": "ko", "present": present}
    with i18n.language("ko"):
        at = _open(query)
        assert_healthy(at)
        assert step.mistake["ko"] not in [warning.value for warning in at.warning]
        assert "mistake-long_context-1" not in _keyed_blocks(at.main)
        _reveal(at, "long_context", 1)
    assert_healthy(at)
    assert step.mistake["ko"] in [warning.value for warning in at.warning]
    popover = _keyed_blocks(at.main).get("mistake-long_context-1")
    assert (popover is not None and popover.proto.popover.label == "⚠️") == (present == "1")


def test_picking_another_lesson_starts_at_its_first_step():
    at = _open({"lesson": "absolute", "step": "3"})
    at.selectbox(key="lesson-picker").set_value("rotary").run()
    assert str(at.query_params["lesson"]).strip("[]'") == "rotary"
    assert str(at.query_params["step"]).strip("[]'") == "1"


@pytest.mark.parametrize(
    ("query", "lesson_id", "said"),
    [
        ({"lesson": "nope", "step": "3"}, "absolute", "lesson='nope' is not a lesson"),
        ({"lesson": "rotary", "step": "99"}, "rotary", "step='99' is not a step of this lesson (1 to 9)"),
        ({"lesson": "rotary", "step": "two"}, "rotary", "step='two' is not a step"),
        ({"lesson": "rotary", "step": "0"}, "rotary", "step='0' is not a step"),
    ],
)
def test_a_bad_link_warns_and_opens_step_1(query, lesson_id, said):
    at = _open(query)
    assert_healthy(at)
    assert said in warning_text(at)
    assert at.main.get("header")[0].value == LESSONS[lesson_id].steps[0].title["en"]
    assert str(at.query_params["step"]).strip("[]'") == "1"


def test_a_bad_link_warns_in_the_reader_s_language():
    with i18n.language("ko"):
        at = _open({"lesson": "nope", "lang": "ko"})
    assert "링크" in warning_text(at)


def _css(at) -> str:
    """The style sheets on the page (presenter mode's), not the step's script."""
    bodies = [element.proto.body for element in at.get("html")]
    return "\n".join(body for body in bodies if body.startswith("<style>"))


def _font_and_paper(at) -> tuple[int, str]:
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    return layout["font"]["size"], layout["paper_bgcolor"]


def _in_slide_style(at, style: str) -> bool:
    """The lesson's figure is drawn in the slide style ``style``: its paper, its text at the style's size or, in a
    figure made to fit beside the step's words, not much smaller (ui.show.fit_to_box)."""
    font, paper = _font_and_paper(at)
    largest = SIZES["screen"].font_for(style)
    return paper == STYLES[style]["paper"] and round(show.SMALLEST_TEXT * largest) <= font <= largest


def test_presenter_mode_hides_the_sidebar_and_draws_slides():
    at = _open({"lesson": "rotary", "step": "5", "present": "1"})
    assert_healthy(at)
    assert '[data-testid="stSidebar"]' in _css(at) and "display: none" in _css(at)
    assert "font-size: 135%" in _css(at)
    assert at.session_state["theme"] == "slides-light"
    assert _in_slide_style(at, "slides-light")
    assert not at.main.get("title") and not at.main.get("selectbox"), "one step per screen"
    assert "present=1" in "\n".join(caption.value for caption in at.caption)
    at.button(key="presenter-leave").click().run()
    assert not _css(at) and at.session_state["theme"] == "screen"
    assert "present" not in at.query_params


def test_presenter_mode_takes_the_dark_slides_from_the_link():
    at = _open({"lesson": "rotary", "step": "5", "present": "1", "theme": "slides-dark"})
    assert _in_slide_style(at, "slides-dark")


def test_the_toggle_turns_presenter_mode_on():
    at = _open({"lesson": "rotary", "step": "5"})
    assert not _css(at) and _font_and_paper(at)[0] == 13
    at.toggle(key="presenter-toggle").set_value(True).run()
    assert '[data-testid="stSidebar"]' in _css(at) and at.session_state[presenter.STATE]
    assert _in_slide_style(at, "slides-light")


def test_presenter_mode_works_on_an_ordinary_page():
    at = open_page("alibi", {"present": "1"})
    assert_healthy(at)
    assert '[data-testid="stSidebar"]' in _css(at) and at.session_state["theme"] == "slides-light"
    assert at.button(key="presenter-leave")


def test_a_lesson_link_without_a_page_opens_the_lesson():
    """``?lesson=absolute&step=3&lang=ko`` on the app's address (its home page) opens that step of the lesson."""
    at = open_page("why_position", {"lesson": "absolute", "step": "3", "lang": "ko"}, section=None)
    assert_healthy(at)
    step = load_lessons()["absolute"].steps[2]
    assert [header.value for header in at.header] == [step.title["ko"]]
    assert at.query_params["lesson"] in ("absolute", ["absolute"]) and at.query_params["step"] in ("3", ["3"])
