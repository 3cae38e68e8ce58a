import math

from posenc.drawing.params import PARAMS
from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS
from tests.pages.conftest import assert_healthy, chart_specs, open_page, payload_bytes, titles

PAGE = "context_extension"
QUICK = {"target_context": "4096"}  # the base search takes seconds at long targets; most tests do not need one
FIGURE_TITLES = (
    "Scaled / original inverse frequency",
    "Wavelength 2π/inv_freq",
    "YaRN ramp",
    "Angle m·θ_i mod 2π",
    "Dynamic NTK base'",
    "Attention factor vs scaling factor",
    "Smallest RoPE base",
    "Gemma-3-27B: RoPE per layer",
)


def test_page_runs_and_shows_every_figure():
    at = open_page(PAGE)
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == len(FIGURE_TITLES)
    for title, expected in zip(shown, FIGURE_TITLES, strict=True):
        assert title.startswith(expected), title
    assert any("LongRoPE is left out" in caption.value for caption in at.caption)
    assert any("What to notice" in markdown.value for markdown in at.markdown)


def test_every_main_control_changes_the_figures():
    at = open_page(PAGE, QUICK)
    changes = [
        ("number_input", "head_dim", 64),
        ("number_input", "base", 500000.0),
        ("number_input", "partial_rotary_factor", 0.5),
        ("selectbox", "rope_type", "llama3"),
        ("number_input", "factor", 8.0),
        ("number_input", "original_max_position_embeddings", 8192),
        ("number_input", "seq_len", 100000),
        ("number_input", "beta_fast", 16.0),
        ("number_input", "beta_slow", 2.0),
        ("toggle", "truncate", False),
        ("number_input", "mscale", 0.707),  # with mscale_all_dim set below (HF ignores either one alone)
        ("number_input", "mscale_all_dim", 1.0),
        ("number_input", "low_freq_factor", 2.0),
        ("number_input", "high_freq_factor", 8.0),
        ("number_input", "target_context", 2048),
    ]
    for kind, key, value in changes:
        before = chart_specs(at)
        getattr(at, kind)(key=key).set_value(value).run()
        assert_healthy(at)
        assert chart_specs(at) != before or key == "mscale", key
        assert at.query_params[key] == PARAMS[key].to_url(value)


def test_url_restores_every_parameter():
    query = {
        "head_dim": "96",
        "base": "500000",
        "partial_rotary_factor": "0.5",
        "rope_type": "linear",
        "factor": "16",
        "original_max_position_embeddings": "2048",
        "seq_len": "65536",
        "beta_fast": "24",
        "beta_slow": "0.5",
        "truncate": "0",
        "mscale": "0.707",
        "mscale_all_dim": "0.707",
        "low_freq_factor": "2",
        "high_freq_factor": "6",
        "target_context": "2048",
    }
    at = open_page(PAGE, query)
    assert_healthy(at)
    assert at.number_input(key="head_dim").value == 96
    assert at.number_input(key="base").value == 500000.0
    assert at.selectbox(key="rope_type").value == "linear"
    assert at.number_input(key="factor").value == 16.0
    assert at.number_input(key="original_max_position_embeddings").value == 2048
    assert at.number_input(key="seq_len").value == 65536
    assert at.number_input(key="beta_fast").value == 24.0 and at.number_input(key="beta_slow").value == 0.5
    assert at.toggle(key="truncate").value is False
    assert at.number_input(key="mscale").value == 0.707 and at.number_input(key="mscale_all_dim").value == 0.707
    assert at.number_input(key="low_freq_factor").value == 2.0 and at.number_input(key="high_freq_factor").value == 6.0
    assert at.number_input(key="target_context").value == 2048
    assert "head_dim=96, base=500000, partial=0.5, s=16, L=2,048" in titles(at)[0]


def test_presets_set_the_scaling_block():
    at = open_page(PAGE, QUICK | {"preset": "llama-3.1-8b"})
    assert_healthy(at)
    assert at.selectbox(key="rope_type").value == "llama3"
    assert at.number_input(key="factor").value == 8.0 and at.number_input(key="base").value == 500000.0
    assert at.number_input(key="original_max_position_embeddings").value == 8192
    at.selectbox(key="preset").set_value("qwen2.5-7b-128k-yarn").run()
    assert_healthy(at)
    assert at.selectbox(key="rope_type").value == "yarn" and at.number_input(key="factor").value == 4.0
    assert at.number_input(key="original_max_position_embeddings").value == 32768
    assert "correction range [23, 40]" in titles(at)[2]


def test_deepseek_and_phi3_presets():
    at = open_page(PAGE, QUICK | {"preset": "deepseek-v3"})
    assert_healthy(at)
    assert at.number_input(key="head_dim").value == 64 and at.number_input(key="mscale").value == 1.0
    assert at.number_input(key="factor").value == 40.0
    at.selectbox(key="preset").set_value("phi-3-mini-128k").run()
    assert_healthy(at)
    assert at.selectbox(key="rope_type").value == "longrope" and at.number_input(key="head_dim").value == 96
    names = [trace["name"] for trace in chart_specs(at)[0]["data"]]
    assert any(name.startswith("★ LongRoPE") for name in names)


def test_largest_parameters_stay_under_the_page_budget():
    query = {
        "head_dim": "512",
        "base": "1e12",
        "factor": "64",
        "seq_len": "1048576",
        "original_max_position_embeddings": "1048576",
        "target_context": "1048576",
    }
    at = open_page(PAGE, query)
    assert_healthy(at)
    assert len(chart_specs(at)) == len(FIGURE_TITLES)
    assert payload_bytes(at) < 3_000_000


def test_the_methods_table_lists_every_rope_type_with_its_attention_factor_at_the_pages_factor():
    at = open_page(PAGE, QUICK | {"factor": "16", "original_max_position_embeddings": "8192"}, section="Methods table")
    assert_healthy(at)
    (table,) = at.table
    frame = table.value
    assert frame.index.tolist() == list(ROPE_SCALING_FUNCTIONS)
    yarn, longrope = 0.1 * math.log(16) + 1, math.sqrt(1 + math.log(16) / math.log(8192))
    assert frame.loc["yarn", "attention factor"] == f"0.1·ln(s) + 1 = {yarn:.4g}"
    assert frame.loc["longrope", "attention factor"] == f"√(1 + ln(s) / ln(L)) = {longrope:.4g}"
    assert frame.loc["linear", "attention factor"] == "1"
    notice = next(block.value for block in at.markdown if "What to notice" in block.value)
    assert f"YaRN ({yarn:.4g}) and LongRoPE ({longrope:.4g})" in notice and "NTK-aware (static), Dynamic NTK" in notice
    at.number_input(key="factor").set_value(1.0).run()
    notice = next(block.value for block in at.markdown if "What to notice" in block.value)
    assert "At s = 1 every type returns an attention factor of 1" in notice
