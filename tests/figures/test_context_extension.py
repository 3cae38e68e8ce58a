import math

import plotly.graph_objects as go
import pytest

from posenc import figures  # noqa: F401  (registers every figure and parameter)
from posenc.drawing import registry
from posenc.drawing.common import mark
from posenc.drawing.params import PARAMS
from posenc.drawing.preset_params import params_from_preset
from posenc.figures.context.variants import (
    describe,
    extended_context,
    longrope_lists,
    longrope_note,
    scaling,
    variant_frequencies,
)
from posenc_core.models import presets
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope.scaling_keys import SCALING_KEYS, keys_of

PAGE_FIGURES = {
    "context-inv-freq",
    "context-wavelengths",
    "context-yarn-ramp",
    "context-angles",
    "context-dynamic-base",
    "context-temperature",
    "context-base-bound",
}


def page_params(**overrides):
    params, messages = registry.resolve_params("context-inv-freq", overrides)
    assert messages == []
    return params


def test_the_page_registers_its_figures_and_the_hf_rope_scaling_keys():
    assert {spec.id for spec in registry.FIGURES.values() if spec.page == "context_extension"} == PAGE_FIGURES
    for name in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate", "low_freq_factor"):
        assert name in PARAMS
    assert PARAMS["high_freq_factor"].default == 4.0 and PARAMS["truncate"].default is True
    assert PARAMS["mscale"].default == 0.0 and PARAMS["target_context"].maximum == 1_048_576


@pytest.mark.parametrize("key", ["llama-3.1-8b", "qwen2.5-7b-128k-yarn", "deepseek-v3", "deepseek-v2-lite"])
def test_every_preset_value_of_a_registered_key_is_valid(key):
    for name, value in params_from_preset(presets.PRESETS[key]).items():
        if name in PARAMS and name in registry.get_spec("context-inv-freq").params:
            assert PARAMS[name].coerce(value)[1] is None, (key, name, value)


def test_scaling_dicts_carry_the_hf_keys_of_each_variant():
    p = page_params(mscale=0.707, mscale_all_dim=0.707)
    assert scaling("default", p, 64) is None
    assert scaling("linear", p, 64) == {"rope_type": "linear", "factor": 4.0}
    yarn = scaling("yarn", p, 64)
    assert yarn == {
        "rope_type": "yarn",
        "factor": 4.0,
        "original_max_position_embeddings": 4096,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "truncate": True,
        "mscale": 0.707,
        "mscale_all_dim": 0.707,
    }
    assert "mscale" not in scaling("yarn", page_params(), 64)  # 0 = unset
    assert scaling("llama3", p, 64)["high_freq_factor"] == 4.0
    with pytest.raises(ValueError, match="LongRoPE is left out"):
        scaling("longrope", p, 64)


def test_variant_frequencies_are_the_core_inverse_frequencies():
    p = page_params(seq_len=8192)
    inv, attention_factor = variant_frequencies("dynamic", p, 64)
    expected, _ = rope_scaling.inv_freq(
        128, 1e4, {"rope_type": "dynamic", "factor": 4.0}, seq_len=8192, max_position_embeddings=4096
    )
    assert inv.tolist() == expected.tolist() and attention_factor == 1.0


def test_longrope_lists_are_phi3_minis_and_only_for_48_pairs():
    lists = longrope_lists({}, 48)
    assert lists["long_factor"] == list(presets.PRESETS["phi-3-mini-128k"].rope_scaling["long_factor"])
    assert longrope_lists({}, 64) is None
    assert "no lists for 64 pairs" in longrope_note({}, 64) and "short/long factor lists" in longrope_note({}, 48)


def test_a_models_own_longrope_lists_are_the_ones_drawn():
    own = {"short_factor": (1.5,) * 32, "long_factor": (4.0,) * 32}
    assert longrope_lists(own, 32) == {key: list(values) for key, values in own.items()}
    assert "model's own" in longrope_note(own, 32)
    assert longrope_lists(own, 48) == longrope_lists({}, 48)  # lists of another length: Phi-3's, and it says so
    assert "cover 32 and 32 pairs" in longrope_note(own, 48)


def test_titles_and_the_extended_context():
    p = page_params(partial_rotary_factor=0.5, factor=8.0)
    assert describe(p) == "head_dim=128, base=10000, partial=0.5, s=8, L=4,096"
    assert extended_context(p) == 32768


def test_labels_on_log_axes_sit_at_log10_of_the_value():
    fig = go.Figure()
    mark(fig, 4096, "L", axis="y", log=True)
    mark(fig, 4.0, "s", log=True)
    assert fig.layout.shapes[0].y0 == 4096 and fig.layout.annotations[0].y == pytest.approx(math.log10(4096))
    assert fig.layout.shapes[1].x0 == 4.0 and fig.layout.annotations[1].x == pytest.approx(math.log10(4))


def test_longrope_without_real_lists_is_an_error_when_it_is_the_chosen_variant():
    params, _ = registry.resolve_params("context-angles", {"rope_type": "longrope"})
    with pytest.raises(ValueError, match="LongRoPE is left out"):
        registry.build("context-angles", params)


@pytest.mark.parametrize("rope_type", ["yarn", "llama3"])
def test_every_scalar_key_of_a_type_is_a_control_with_the_cores_default(rope_type):
    """The page's controls come from the core's list of keys (posenc_core.rope.scaling_keys), not a copy."""
    for name in keys_of(rope_type):
        key = SCALING_KEYS[name]
        if key.kind == "floats" or name in ("attention_factor", "rope_theta"):
            continue
        assert name in PARAMS, f"{rope_type} reads {name}, which has no control"
        if key.default is not None:
            assert PARAMS[name].default == key.default


def test_the_scaling_dict_holds_exactly_the_keys_the_core_reads():
    p = {name: PARAMS[name].default for name in PARAMS} | {"mscale": 1.0, "mscale_all_dim": 0.5}
    for rope_type in ("linear", "ntk", "dynamic", "yarn", "llama3"):
        block = scaling(rope_type, p, 64)
        assert set(block) - {"rope_type"} <= set(keys_of(rope_type))
        assert rope_scaling.inv_freq(128, 10000.0, block, max_position_embeddings=4096)[0].numel() == 64
    assert {"mscale", "mscale_all_dim", "beta_fast", "truncate"} <= set(scaling("yarn", p, 64))
    assert "mscale" not in scaling("yarn", p | {"mscale": 0.0}, 64)  # 0 leaves it unset


def test_every_variant_has_its_own_colour():
    from posenc.figures.context.style import VARIANT_COLOURS
    from posenc.figures.context.variants import VARIANTS

    assert set(VARIANT_COLOURS) == {"default", *VARIANTS}
    assert len(set(VARIANT_COLOURS.values())) == len(VARIANT_COLOURS)


def test_a_flat_dynamic_ntk_says_why():
    within, _ = registry.resolve_params("context-inv-freq", {"seq_len": 1024, "original_max_position_embeddings": 4096})
    past, _ = registry.resolve_params("context-inv-freq", {"seq_len": 16384, "original_max_position_embeddings": 4096})
    assert any("only acts once the sequence outgrows L" in n for n in registry.build("context-inv-freq", within).notes)
    assert not any("outgrows L" in n for n in registry.build("context-inv-freq", past).notes)
