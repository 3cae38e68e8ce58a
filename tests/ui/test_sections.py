"""Pages with sections (ui.sections): a page opens on its first section only, each section is reachable by link,
and together the sections show exactly the figures of "All sections"."""

from collections import Counter

import pytest
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

from posenc.ui.sections import ALL
from tests.pages.conftest import assert_healthy, chart_specs, open_page

PAGES_WITH_SECTIONS = ("sinusoidal", "learned", "relative", "alibi", "rope", "context_extension", "mrope", "compare")


def _titles(at) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in chart_specs(at)]


@pytest.mark.parametrize("page", PAGES_WITH_SECTIONS)
def test_a_page_opens_on_its_first_section_and_the_sections_together_show_every_figure(page):
    everything = open_page(page)  # "All sections"
    assert_healthy(everything)
    labels = [tab.label for tab in everything.tabs]
    assert labels[-1] == ALL and len(labels) >= 3

    first = open_page(page, section=None)
    assert_healthy(first)
    assert "section" not in first.query_params
    per_section = {label: _titles(open_page(page, section=label)) for label in labels[:-1]}
    assert _titles(first) == per_section[labels[0]]
    assert 0 < len(_titles(first)) < len(_titles(everything))
    assert Counter(title for titles in per_section.values() for title in titles) == Counter(_titles(everything))


def test_the_open_section_is_in_the_link_and_an_unknown_one_falls_back_to_the_first():
    at = open_page("rope", section="Long-term decay")
    assert at.query_params["section"] == "Long-term decay"
    assert [title.split(",")[0] for title in _titles(at)] == ["RoFormer long-term decay bound"]

    unknown = open_page("rope", section="No such section")
    assert_healthy(unknown)
    assert "section" not in unknown.query_params
    assert _titles(unknown) == _titles(open_page("rope", section=None))


def test_a_closed_sections_control_keeps_its_value_in_the_link():
    at = open_page("sinusoidal", {"dims": "2,3"}, section="The table")
    assert_healthy(at)
    assert not at.text_input  # the waves' control is not drawn while its section is closed
    assert at.query_params["dims"] == "2,3"
    waves = open_page("sinusoidal", dict(at.query_params), section="One wave per channel")
    assert waves.text_input(key="dims").value == "2,3"
    assert any("channels j = 2, 3;" in title for title in _titles(waves))


def _sections_named_all():
    from posenc.ui.sections import ALL, show_sections

    show_sections({ALL: lambda: None})


def test_a_section_may_not_take_the_name_of_the_all_sections_tab():
    # A developer's error: the test reads its details, which the serving settings hide from readers.
    hidden = streamlit_config.get_option("client.showErrorDetails")
    streamlit_config.set_option("client.showErrorDetails", "full")
    try:
        at = AppTest.from_function(_sections_named_all).run()
    finally:
        streamlit_config.set_option("client.showErrorDetails", hidden)
    assert at.exception and "must not include 'All sections'" in at.exception[0].value
