import math

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.context.variants import VARIANT_LABELS
from posenc_core import rope
from posenc_core.models import presets
from posenc_core.rope import scaling as rope_scaling

LARGEST = {
    "head_dim": 512,
    "base": 1e12,
    "factor": 64.0,
    "seq_len": 1_048_576,
    "original_max_position_embeddings": 1_048_576,
}
PHI3 = {"head_dim": 96, "rope_type": "longrope", "original_max_position_embeddings": 4096, "factor": 32.0}


def build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert messages == []
    return registry.build(figure_id, params), params


def traces_by_variant(fig):
    return {trace.name.removeprefix("★ ").split(" @")[0].split(",")[0]: trace for trace in fig.data}


def core_inv_freq(params, scaling):
    inv, _ = rope_scaling.inv_freq(
        params["head_dim"],
        params["base"],
        scaling,
        seq_len=params["seq_len"],
        partial_rotary_factor=params["partial_rotary_factor"],
        max_position_embeddings=params["original_max_position_embeddings"],
        device="cpu",
    )
    return inv.double().numpy()


def test_ratio_figure_draws_every_variant_per_pair_with_the_parameters_in_the_title():
    result, _ = build("context-inv-freq")
    fig = result.figure
    assert {trace.type for trace in fig.data} == {"scatter"}
    names = traces_by_variant(fig)
    assert set(names) == {VARIANT_LABELS[v] for v in ("linear", "ntk", "dynamic", "yarn", "llama3")}
    assert all(len(trace.x) == 64 for trace in fig.data)
    assert "head_dim=128, base=10000, s=4, L=4,096" in fig.layout.title.text
    starred = [trace for trace in fig.data if trace.name.startswith("★")]
    assert [trace.name for trace in starred] == ["★ YaRN, cos/sin ×1.139"]
    assert starred[0].opacity == 1 and all(trace.opacity < 1 for trace in fig.data if trace not in starred)
    assert any("LongRoPE is left out" in note for note in result.notes)


def test_ratio_curves_equal_the_core_inverse_frequencies():
    result, params = build("context-inv-freq")
    original = core_inv_freq(params, None)
    names = traces_by_variant(result.figure)
    yarn = {
        "rope_type": "yarn",
        "factor": 4.0,
        "original_max_position_embeddings": 4096,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "truncate": True,
    }
    np.testing.assert_allclose(names["YaRN"].y, core_inv_freq(params, yarn) / original, rtol=1e-6)
    np.testing.assert_allclose(names["linear (PI)"].y, 0.25, rtol=1e-6)
    np.testing.assert_allclose(names["dynamic NTK"].y, 1.0, rtol=1e-6)  # seq_len 1024 < L: the default
    llama3 = {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 4096}
    llama3 |= {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    np.testing.assert_allclose(names["Llama 3.1"].y, core_inv_freq(params, llama3) / original, rtol=1e-6)
    assert names["YaRN"].y[0] == pytest.approx(1.0) and names["YaRN"].y[-1] == pytest.approx(0.25)


def test_dynamic_ntk_past_the_original_length_follows_the_core():
    result, params = build("context-inv-freq", seq_len=16384)
    dynamic = traces_by_variant(result.figure)["dynamic NTK"]
    expected = core_inv_freq(params, {"rope_type": "dynamic", "factor": 4.0}) / core_inv_freq(params, None)
    np.testing.assert_allclose(dynamic.y, expected, rtol=1e-6)
    assert dynamic.y[-1] < 0.5 and "seq_len=16,384" in dynamic.name


@pytest.mark.parametrize(("seq_len", "key"), [(131072, "long_factor"), (4096, "short_factor")])
def test_longrope_uses_phi3_lists_long_past_the_original_length(seq_len, key):
    result, _ = build("context-inv-freq", seq_len=seq_len, **PHI3)
    longrope = traces_by_variant(result.figure)["LongRoPE"]
    factors = np.array(presets.PRESETS["phi-3-mini-128k"].rope_scaling[key])
    np.testing.assert_allclose(longrope.y, 1 / factors, rtol=1e-5)
    assert longrope.name.startswith("★") and "cos/sin ×1.19" in longrope.name
    assert any("Phi-3-mini-128k's short/long factor lists" in note for note in result.notes)


def test_wavelength_figure_marks_original_and_extended_context():
    result, _ = build("context-wavelengths", factor=8.0, original_max_position_embeddings=8192, base=5e5)
    fig = result.figure
    assert {shape.y0 for shape in fig.layout.shapes} == {8192, 65536}
    assert "s·L=65,536" in fig.layout.title.text
    names = traces_by_variant(fig)
    original = names[VARIANT_LABELS["default"]]
    np.testing.assert_allclose(original.y, rope.wavelengths(rope_scaling.default_inv_freq(128, 5e5)), rtol=1e-6)
    assert original.y[0] == pytest.approx(2 * math.pi)
    np.testing.assert_allclose(names["linear (PI)"].y, np.asarray(original.y) * 8, rtol=1e-5)


def test_partial_rotary_reduces_the_pairs():
    result, _ = build("context-inv-freq", head_dim=80, partial_rotary_factor=0.4)
    assert all(len(trace.x) == 16 for trace in result.figure.data)
    assert "partial=0.4" in result.figure.layout.title.text


@pytest.mark.parametrize("figure_id", ["context-inv-freq", "context-wavelengths"])
def test_largest_parameters_stay_small(figure_id):
    result, _ = build(figure_id, **LARGEST)
    assert all(len(trace.x) <= 256 for trace in result.figure.data)
    assert len(result.figure.to_json()) < 200_000


@pytest.mark.parametrize(
    ("overrides", "argument"),
    [
        ({"low_freq_factor": 4.0, "high_freq_factor": 2.0}, "low_freq_factor"),
        ({"beta_fast": 1.0, "beta_slow": 2.0}, "beta_fast"),
        ({"head_dim": 6, "partial_rotary_factor": 0.5}, "partial_rotary_factor"),
    ],
)
def test_bad_combinations_name_the_argument(overrides, argument):
    with pytest.raises(ValueError, match=argument):
        build("context-inv-freq", **overrides)


def test_the_wavelength_plot_labels_decades_only_and_keeps_its_line_labels_off_the_curves():
    params, _ = registry.resolve_params("context-wavelengths", {})
    fig = registry.build("context-wavelengths", params).figure
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.dtick == 1  # no 2 and 5 labels between decades
    labels = [a for a in fig.layout.annotations if a.text.startswith(("L =", "s·L ="))]
    assert len(labels) == 2 and all(a.x == 1 and a.xanchor == "right" for a in labels)
