import plotly.graph_objects as go
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.params import PARAMS


def test_every_figure_builds_at_its_defaults_and_states_its_title():
    for figure_id in registry.FIGURES:
        params, messages = registry.resolve_params(figure_id, {})
        assert messages == []
        result = registry.build(figure_id, params)
        assert isinstance(result.figure, go.Figure), figure_id
        assert result.figure.layout.title.text, f"{figure_id} has no title"
        assert len(result.figure.to_json()) < 3_000_000, figure_id


def test_every_registered_figure_uses_registered_parameters():
    for spec in registry.FIGURES.values():
        assert all(name in PARAMS for name in spec.params)


def test_resolve_params_coerces_and_reports():
    params, messages = registry.resolve_params("why-attention", {"embedding_dim": "abc"})
    assert params["embedding_dim"] == 16 and "embedding_dim" in messages[0]


def test_unknown_figure_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown figure 'nope'.*why-attention"):
        registry.get_spec("nope")


def test_file_stem_states_figure_preset_and_parameters():
    stem = registry.file_stem("why-attention", {"embedding_dim": 256, "sentence_a": "a b"}, "llama-3.1-8b")
    assert stem == "why-attention_llama-3.1-8b_d256"


def test_file_stem_states_the_style_and_the_size_when_given():
    params = {"seq_len": 131072, "head_dim": 128}
    stem = registry.file_stem("rope-angles", params, "llama-3.1-8b", style="slides-light", size="column")
    assert stem == "rope-angles_llama-3.1-8b_L131072_hd128_slides-light_column"
    assert registry.with_look("why-attention_custom_d16", "slides-dark") == "why-attention_custom_d16_slides-dark"


def test_styles_change_fonts_and_background():
    params, _ = registry.resolve_params("why-attention", {})
    dark = registry.build("why-attention", params, style="slides-dark").figure
    screen = registry.build("why-attention", params, style="screen").figure
    assert dark.layout.paper_bgcolor != screen.layout.paper_bgcolor
    assert dark.layout.font.size > screen.layout.font.size
    with pytest.raises(ValueError, match="style"):
        registry.build("why-attention", params, style="neon")


def test_a_figure_takes_the_parameters_it_declares_from_a_whole_pages_values():
    spec = registry.get_spec("rope-wavelengths")
    page_values = {name: PARAMS[name].default for name in PARAMS}  # more than the figure needs
    params = registry.params_for(spec, page_values | {"device": "cpu"})
    assert set(params) == {*spec.params, "device"}


def test_a_missing_parameter_is_named():
    spec = registry.get_spec("rope-wavelengths")
    values = {name: PARAMS[name].default for name in spec.params if name not in ("base", "seq_len")}
    with pytest.raises(ValueError, match="'rope-wavelengths' needs the parameters seq_len, base, which"):
        registry.params_for(spec, values)
