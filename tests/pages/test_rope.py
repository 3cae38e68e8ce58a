import pytest

from tests.pages.conftest import assert_healthy, chart_specs, control, open_page, payload_bytes, titles, warning_text

FIGURES = ("rotation", "angles", "wavelengths", "scores", "profile", "decay", "channels", "layers")
SECTIONS = (
    "One pair turning",
    "Rotation angles and wavelengths",
    "The relative property",
    "Long-term decay",
    "Which channels rotate together",
    "Layer by layer",
)


def _titles(at) -> dict[str, str]:
    """The figures' titles by figure name."""
    return dict(zip(FIGURES, titles(at), strict=True))


def test_page_runs_and_shows_every_figure_within_the_budget():
    at = open_page("rope")
    assert_healthy(at)
    titles = _titles(at)
    assert "head_dim=128" in titles["angles"] and "base=10000" in titles["angles"] and "L=1,024" in titles["angles"]
    assert payload_bytes(at) < 3_000_000
    captions = " ".join(caption.value for caption in at.caption)
    assert "sampled" in captions and "coincide" in captions
    assert sum("What to notice" in block.value for block in at.markdown) == len(SECTIONS)


def test_each_main_control_changes_what_is_shown():
    at = open_page("rope")
    changes = [
        ("number_input", "head_dim", 64, "channels", "head_dim=64"),
        ("number_input", "base", 500000.0, "angles", "base=500000"),
        ("number_input", "partial_rotary_factor", 0.5, "channels", "rotary d=32"),
        ("selectbox", "rope_layout", "interleaved", "channels", "interleaved"),
        ("number_input", "seq_len", 8192, "wavelengths", "L=8,192"),
        ("slider", "pair", 3, "rotation", "Pair i=3"),
        ("number_input", "qk_seed", 7, "scores", "seed 7"),
    ]
    for kind, key, value, figure, expected in changes:
        before = _titles(at)[figure]
        getattr(at, kind)(key=key).set_value(value).run()
        assert_healthy(at)
        after = _titles(at)[figure]
        assert after != before and expected in after, (key, after)
        assert at.query_params[key] == (f"{value:.10g}" if isinstance(value, float) else str(value))
    overview = chart_specs(at)[FIGURES.index("angles")]["data"][0]["x"]
    at.selectbox(key="view").set_value("window").run()
    control(at, "start").set_value(4000).run()
    assert_healthy(at)
    assert chart_specs(at)[FIGURES.index("angles")]["data"][0]["x"] != overview
    assert any("every position from 4,000" in caption.value for caption in at.caption)


def test_url_restores_every_parameter():
    query = {
        "head_dim": "96",
        "base": "500000",
        "partial_rotary_factor": "0.25",
        "rope_layout": "interleaved",
        "seq_len": "16384",
        "view": "window",
        "start": "1000",
        "pair": "4",
        "qk_seed": "11",
    }
    at = open_page("rope", query)
    assert_healthy(at)
    assert at.number_input(key="head_dim").value == 96
    assert at.number_input(key="base").value == 500000.0
    assert at.number_input(key="partial_rotary_factor").value == 0.25
    assert at.selectbox(key="rope_layout").value == "interleaved"
    assert at.number_input(key="seq_len").value == 16384
    assert at.selectbox(key="view").value == "window"
    assert control(at, "start").value == 1000
    assert at.slider(key="pair").value == 4
    assert at.number_input(key="qk_seed").value == 11
    titles = _titles(at)
    assert "Pair i=4" in titles["rotation"] and "seed 11" in titles["scores"] and "rotary d=24" in titles["angles"]


def test_a_pair_past_the_rotary_pairs_moves_to_the_last_one_and_says_why():
    at = open_page("rope", {"head_dim": "96", "partial_rotary_factor": "0.25", "pair": "20"})
    assert_healthy(at)
    assert at.slider(key="pair").value == 11 and at.slider(key="pair").max == 11
    assert "rotary dim 24 has 12 pairs" in warning_text(at)
    assert len(chart_specs(at)) == len(FIGURES) and "Pair i=11" in _titles(at)["rotation"]


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("llama-3.1-8b", {"base": 500000.0, "head_dim": 128, "seq_len": 131072, "rope_layout": "half"}),
        ("gpt-neox-20b", {"partial_rotary_factor": 0.25, "head_dim": 96, "rope_layout": "half"}),
        ("gpt-j-6b", {"rope_layout": "interleaved", "head_dim": 256, "partial_rotary_factor": 0.25}),
    ],
)
def test_a_preset_sets_the_pages_parameters(preset, expected):
    at = open_page("rope", {"preset": preset})
    assert_healthy(at)
    for key, value in expected.items():
        widget = at.selectbox(key=key) if key == "rope_layout" else at.number_input(key=key)
        assert widget.value == value, (key, widget.value)
    channels = _titles(at)["channels"]
    assert f"head_dim={expected['head_dim']}" in channels and expected["rope_layout"] in channels


def test_the_largest_parameters_stay_under_three_megabytes():
    at = open_page("rope", {"seq_len": "1048576", "head_dim": "512", "base": "1000000000000", "pair": "255"})
    assert_healthy(at)
    assert len(chart_specs(at)) == len(FIGURES)
    assert payload_bytes(at) < 3_000_000


def test_the_page_opens_on_one_pair_turning_and_its_ranges_follow_the_model():
    at = open_page("rope", section=None)
    assert_healthy(at)
    assert at.tabs[0].label == "One pair turning"
    assert [title.split("<br>")[0].split(":")[0] for title in titles(at)] == ["Pair i=8 turning"]
    neox = open_page("rope", {"preset": "gpt-neox-20b"}, section=None)  # rotary dim 24: 12 pairs
    assert neox.slider(key="pair").max == 11
    window = open_page("rope", {"seq_len": "2000", "view": "window"}, section=None)
    assert control(window, "start").max == 1999


def _notice(at) -> str:
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    return notice


def test_each_section_has_its_own_notes_that_follow_the_controls():
    notes = {label: _notice(open_page("rope", section=label)) for label in SECTIONS}
    assert len(set(notes.values())) == len(SECTIONS)
    assert "pair 8 by the same angle θ = 0.3162 rad (18.12°)" in notes["One pair turning"]
    assert "score matrix" not in notes["One pair turning"]
    assert "28 of 64 pairs lie above the context line L = 1,024" in notes["Rotation angles and wavelengths"]
    assert "seed 0" in notes["The relative property"] and "base 10000" in notes["Long-term decay"]
    assert "Layout half: channel j rotates with channel j + 64" in notes["Which channels rotate together"]
    changed = {
        "One pair turning": ({"pair": "0"}, "pair 0 by the same angle θ = 1 rad (57.3°)"),
        "Rotation angles and wavelengths": ({"base": "500000"}, "a larger base than 500000"),
        "The relative property": ({"qk_seed": "7"}, "seed 7"),
        "Long-term decay": ({"head_dim": "64"}, "d = 64 rotary channels"),
        "Which channels rotate together": ({"preset": "gpt-neox-20b"}, "Channels 24–95 pass through"),
    }
    for label, (query, expected) in changed.items():
        assert expected in _notice(open_page("rope", query, section=label)), label


def test_a_link_leaving_no_rotary_pair_is_a_message_not_a_crash():
    """head_dim 4 x partial_rotary_factor 0.0625 rotates no channel: the pair figure says so and the page goes on
    (the sentence under it used to raise out of the page: "This app has encountered an error")."""
    at = open_page("rope", {"head_dim": "4", "partial_rotary_factor": "0.0625"}, section="All sections")
    assert not at.exception, [e.message for e in at.exception]
    assert any("must be even and" in error.value for error in at.error)
