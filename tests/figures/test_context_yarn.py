import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope import yarn as rope_yarn

LARGEST = {"head_dim": 512, "base": 1e12, "factor": 64.0, "seq_len": 1_048_576}
LARGEST |= {"original_max_position_embeddings": 1_048_576}


def build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert messages == []
    return registry.build(figure_id, params), params


def vlines(fig):
    return sorted(shape.x0 for shape in fig.layout.shapes if shape.type == "line")


def test_yarn_ramp_and_correction_range_equal_the_core():
    result, _ = build("context-yarn-ramp")
    fig = result.figure
    yarn, llama3 = fig.data
    np.testing.assert_array_equal(yarn.y, rope_yarn.yarn_ramp(128, 1e4, 4096).numpy())
    np.testing.assert_array_equal(llama3.y, rope_scaling.llama3_ramp(128, 1e4, 4096, 1.0, 4.0).numpy())
    assert vlines(fig) == list(rope_yarn.yarn_correction_range(128, 1e4, 4096)) == [20.0, 46.0]
    title = fig.layout.title.text
    assert "correction range [20, 46]" in title and "cos/sin × 1.13863" in title and "logits × 1.29648" in title
    assert "20.9445" in result.notes[0] and "45.0269" in result.notes[0]
    assert len(yarn.x) == 64 and yarn.customdata.shape == (64, 2)


def test_untruncated_range_and_deepseek_mscale():
    result, _ = build(
        "context-yarn-ramp",
        truncate=False,
        head_dim=64,
        factor=40.0,
        mscale=1.0,
        mscale_all_dim=1.0,
    )
    low, high = rope_yarn.yarn_correction_range(64, 1e4, 4096, truncate=False)
    assert vlines(result.figure) == pytest.approx([low, high])
    assert "cos/sin × 1," in result.figure.layout.title.text  # mscale / mscale_all_dim = 1


def test_dynamic_base_equals_base_below_the_original_length_and_the_core_above():
    result, _ = build("context-dynamic-base", seq_len=20000)
    curve, marker = result.figure.data
    lengths, bases = np.asarray(curve.x), np.asarray(curve.y)
    assert lengths[0] == 1 and lengths[-1] == 20000 and len(lengths) <= 2048
    np.testing.assert_allclose(bases[lengths <= 4096], 10000.0, rtol=1e-6)
    for n in lengths[::97]:
        expected = rope_scaling.dynamic_ntk_base(1e4, 128, 4.0, int(n), 4096)
        assert bases[list(lengths).index(n)] == pytest.approx(expected, rel=1e-6)
    assert marker.x[0] == 20000 and marker.y[0] == pytest.approx(
        rope_scaling.dynamic_ntk_base(1e4, 128, 4.0, 20000, 4096)
    )
    assert any("sampled" in note for note in result.notes)


def test_temperature_curves_match_the_spec_numbers():
    result, _ = build("context-temperature", original_max_position_embeddings=4096)
    curves = {trace.name: trace for trace in result.figure.data}
    factors = np.asarray(result.figure.data[0].x, dtype=np.float64)
    assert factors[0] == pytest.approx(1.0) and factors[-1] == pytest.approx(64.0)

    def at(name, s):
        trace = next(t for n, t in curves.items() if n.startswith(name))
        return np.interp(np.log(s), np.log(factors), np.asarray(trace.y, dtype=np.float64))

    assert at("YaRN cos/sin", 4.0) == pytest.approx(1.1386294, rel=1e-4)
    assert at("YaRN logits", 4.0) == pytest.approx(1.2964770, rel=1e-4)
    assert at("LongRoPE cos/sin", 32.0) == pytest.approx(1.1902381, rel=1e-4)
    assert at("DeepSeek cos/sin", 40.0) == pytest.approx(1.0)
    assert at("DeepSeek logits", 40.0) == pytest.approx(1.3688879**2, rel=1e-4)
    assert vlines(result.figure) == [4.0]


def test_temperature_uses_the_page_mscale_when_set():
    result, _ = build("context-temperature", mscale=0.707, mscale_all_dim=1.0)
    ratio = next(trace for trace in result.figure.data if trace.name.startswith("DeepSeek cos/sin"))
    assert "0.707/1, page" in ratio.name
    expected = rope_yarn.yarn_attention_factor(float(ratio.x[-1]), 0.707, 1.0)
    assert ratio.y[-1] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("figure_id", ["context-yarn-ramp", "context-dynamic-base", "context-temperature"])
def test_largest_parameters_stay_small(figure_id):
    params = {k: v for k, v in LARGEST.items() if k in registry.get_spec(figure_id).params}
    result, _ = build(figure_id, **params)
    assert all(len(trace.x) <= 2048 for trace in result.figure.data)
    assert len(result.figure.to_json()) < 200_000


def test_beta_fast_not_above_beta_slow_names_the_argument():
    with pytest.raises(ValueError, match="beta_fast"):
        build("context-yarn-ramp", beta_fast=0.5, beta_slow=1.0)
