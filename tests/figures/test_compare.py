import math

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc.figures.compare import items
from posenc.figures.compare.metrics import comparison_rows
from posenc_core import rope, schemes
from posenc_core.encodings import alibi, learned, metrics, relative
from posenc_core.models import presets

LARGEST = {"seq_len": 1_048_576, "d_model": 8192, "head_dim": 512}


def _params(**overrides):
    params, messages = registry.resolve_params("compare-similarity", overrides)
    assert not messages
    return params


def _build(figure_id="compare-similarity", **overrides):
    return registry.build(figure_id, _params(**overrides))


def _curves(result):
    """The traces of the listed schemes, in the order of ``schemes`` (they are drawn last to first)."""
    return sorted((t for t in result.figure.data if t.legendrank is not None), key=lambda t: t.legendrank)


def _trace(result, start):
    return next(trace for trace in result.figure.data if trace.name.startswith(start))


def test_default_overlays_three_similarity_curves_and_t5_buckets_in_a_second_panel():
    result = _build()
    names = [trace.name for trace in _curves(result)]
    assert names[:4] == [
        "sinusoidal d_model=128",
        "RoPE Llama-3.1-8B (llama3 ×8)",
        "ALiBi BLOOM-176B, head 63 (m=0.003906)",
        "T5 T5-base (32 buckets, max_distance 128)",
    ]
    assert _curves(result)[3].xaxis == "x2" and _curves(result)[0].xaxis == "x"
    title = result.figure.layout.title.text
    assert "L=1,024" in title and "relative distance k" in title
    assert result.figure.layout.xaxis.type == "log"
    assert "sampled" in result.notes[0] and "log-spaced" in result.notes[0]


def test_sinusoidal_and_plain_rope_equal_the_cosine_sum_and_each_other():
    result = _build(schemes="sinusoidal,rope", distance_axis="linear", seq_len=300)
    sinus, rotary = _curves(result)
    assert sinus.line.dash == "dash" and rotary.line.dash == "solid"
    k = np.asarray(sinus.x, dtype=np.float64)
    assert k[0] == 0 and k[-1] == 299 and len(k) == 300
    theta = 10000.0 ** (-np.arange(64) * 2 / 128)
    expected = np.cos(np.outer(k, theta)).sum(1) / 64
    np.testing.assert_allclose(np.asarray(sinus.y), expected, atol=1e-6)
    np.testing.assert_allclose(np.asarray(rotary.y), expected, atol=1e-5)


def test_rope_preset_curve_equals_the_core_score_of_all_ones_vectors():
    result = _build(schemes="rope:phi-2,rope:llama-3.1-8b", seq_len=4096)
    for trace, key in zip(_curves(result), ("phi-2", "llama-3.1-8b"), strict=True):
        preset = presets.PRESETS[key]
        inv, factor = rope.inv_freq(**presets.rope_inputs(preset, seq_len=4096), dtype=torch.float64)
        k = torch.as_tensor(np.asarray(trace.x, dtype=np.int64))
        ones = torch.ones(preset.rope_head_dim, dtype=torch.float64)
        scores = rope.relative_scores(
            ones,
            ones,
            torch.cat([torch.zeros(1, dtype=torch.int64), k]),
            inv,
            key_positions=[0],
            attention_factor=factor,
        )[:, 0]
        np.testing.assert_allclose(np.asarray(trace.y), (scores[1:] / scores[0]).numpy(), rtol=1e-5, atol=1e-6)
    phi = np.asarray(_curves(result)[0].y)
    assert phi.min() >= (48 - 32) / 80 - 1e-6  # Phi-2 rotates 32 of 80 channels: 48 fixed ones keep it >= 0.2


def test_alibi_curve_is_exp_minus_m_k_for_the_chosen_head():
    result = _build(schemes="alibi:bloom-176b@111,alibi@0,alibi:mpt-7b", seq_len=2048)
    bloom, eight, mpt = _curves(result)
    assert bloom.name == "ALiBi BLOOM-176B, head 111 (m=0.01632)"
    assert eight.name == "ALiBi 8 heads, head 0 (m=0.5)" and mpt.name.startswith("ALiBi MPT-7B, head 31")
    for trace, slope in ((bloom, alibi.slopes(112, dtype=torch.float64)[111]), (eight, 0.5)):
        k = np.asarray(trace.x, dtype=np.float64)
        np.testing.assert_allclose(np.asarray(trace.y), np.exp(-float(slope) * k), rtol=1e-5, atol=1e-30)


def test_t5_panel_counts_distinct_buckets_of_keys_k_tokens_back():
    result = _build(schemes="t5,sinusoidal", distance_axis="linear", seq_len=400)
    trace = _trace(result, "T5 (32 buckets")
    k = np.asarray(trace.x, dtype=np.int64)
    buckets = relative.t5_bucket(-torch.arange(400)).numpy()
    expected = [len(np.unique(buckets[: j + 1])) for j in k]
    np.testing.assert_array_equal(np.asarray(trace.y), expected)
    assert trace.y[-1] == 16  # the 16 buckets of the past side; every k >= 128 shares the last one
    assert _trace(result, "every distance").y[-1] == 400


def test_random_learned_table_has_no_distance_structure_and_stops_at_its_length():
    result = _build(schemes="learned:64,sinusoidal", distance_axis="linear", seq_len=1000)
    trace = _curves(result)[0]
    assert trace.name == "learned random N(0, 0.02²) 64×128"
    assert max(trace.x) == 63
    table = learned.random_table(64, 128, dtype=torch.float64)
    _, mean, _ = metrics.offset_similarity(table, torch.arange(64))
    np.testing.assert_allclose(np.asarray(trace.y), (mean / mean[0]).numpy(), rtol=1e-4, atol=1e-6)
    assert trace.x[0] == 0 and trace.y[0] == 1 and abs(trace.y[1]) < 0.3


@pytest.mark.skipif(not learned.builtin_tables(), reason="the built-in trained table is not installed")
def test_a_trained_table_decays_with_distance():
    result = _build(schemes="learned:all-minilm-l6-v2,sinusoidal", seq_len=512)
    y = np.asarray(_curves(result)[0].y)
    assert y[0] > 0.7 and y[:8].min() < 0.5


def test_metrics_table_rows():
    params = _params(seq_len=4096)
    rows = comparison_rows(registry.build("compare-similarity", params), params)
    assert [row["scheme"][:5] for row in rows] == ["sinus", "RoPE ", "ALiBi", "T5 T5"]
    sinus, llama, bloom, t5 = rows
    theta = 10000.0 ** (-np.arange(64) / 64)
    similarity = np.cos(np.outer(np.arange(2000), theta)).sum(1) / 64
    assert sinus["first k with similarity < 0.5"] == f"{int(np.argmax(similarity < 0.5)):,}"
    assert bloom["first k with similarity < 0.5"] == f"{math.floor(math.log(2) * 256) + 1}"  # exp(-k/256) < 0.5
    assert sinus["std ‖u(p+1) − u(p)‖"] == "≈ 0"  # one rotation per step: every step is equally long
    assert float(llama["longest wavelength ÷ L"]) > 1000
    assert bloom["mean ‖u(p+1) − u(p)‖"] == "—" and t5["distinct signals over 0..L−1"] == "16"
    assert sinus["distinct signals over 0..L−1"] == "4,096"


def test_decay_figure_draws_each_rope_item_relative_to_k_zero():
    result = _build("compare-decay", schemes="rope,rope:llama-3.1-8b,alibi", distance_axis="linear", seq_len=2000)
    plain, llama = result.figure.data
    assert plain.name.startswith("RoPE head_dim=128") and llama.name.startswith("RoPE Llama")
    assert plain.x[0] == 0 and plain.y[0] == pytest.approx(1.0)
    assert plain.y[-1] < 0.5 and llama.y[-1] > plain.y[-1]  # the larger base decays more slowly
    empty = _build("compare-decay", schemes="sinusoidal,alibi")
    assert not empty.figure.data and "No RoPE item" in empty.figure.layout.annotations[0].text


@pytest.mark.parametrize("axis", ["log", "linear"])
def test_largest_parameters_stay_at_display_resolution(axis):
    schemes = "sinusoidal,rope,learned,alibi:bloom-176b"
    for figure_id in ("compare-similarity", "compare-decay"):
        result = _build(figure_id, schemes=schemes, distance_axis=axis, **LARGEST)
        assert all(len(trace.x) <= 1024 for trace in result.figure.data)
        assert len(result.figure.to_json()) < 1_000_000
        assert "sampled" in result.notes[0]
        assert max(max(trace.x) for trace in result.figure.data) <= 1_048_575
    rope_trace = _curves(_build(schemes=schemes, distance_axis=axis, **LARGEST))[1]
    assert max(rope_trace.x) == 1_048_575


@pytest.mark.parametrize(
    ("schemes", "words"),
    [
        ("sinusoidal", "2 to 4 items"),
        ("sinusoidal,rope,alibi,t5,learned", "2 to 4 items"),
        ("sinusoidal,wavelet", "item 2 ('wavelet')"),
        ("rope:llama-9,alibi", "not a rope preset"),
        ("rope:bloom-176b,alibi", "not a rope preset"),
        ("alibi:bloom-176b@112,rope", "@head must be a whole number from 0 to 111"),
        ("rope@2,alibi", "only alibi takes @head"),
        ("rope:3,alibi", "rope takes a preset name"),
        ("learned:zzz,rope", "built-in table"),
        ("learned:4096,rope", "rows must be a whole number from 2 to 2,048"),
        ("sinusoidal:1,rope", "d_model must be a whole number"),
        ("rope,rope", "same scheme twice"),
    ],
)
def test_bad_schemes_name_the_item(schemes, words):
    with pytest.raises(ValueError, match="schemes") as error:
        _build(schemes=schemes)
    assert words in str(error.value)


def test_a_one_token_context_has_no_distances():
    with pytest.raises(ValueError, match="seq_len"):
        _build(seq_len=1)


@pytest.fixture
def forget_the_toy_scheme():
    yield
    schemes.SCHEMES.pop("toy", None)
    items.COMPARE_CURVES.pop("toy", None)


def test_a_newly_registered_scheme_is_compared_without_touching_the_compare_package(forget_the_toy_scheme):
    """The recipe in docs/ADDING_A_SCHEME.md: one scheme entry in the core, one Compare curve in its family."""
    schemes.register_scheme(schemes.Scheme("toy", "Toy", "no", "no", "yes", "logits", "nobody"))

    def parse(where, argument, head, p):
        return items.CompareItem("toy", f"toy decay {argument or 1}", size=int(argument or 1))

    def curve(item, distances, p):
        return distances, torch.exp(-distances.double() * item.size / 100)

    items.register_compare_curve(items.CompareCurve("toy", "`toy[:rate]`", parse, curve))
    assert "`toy[:rate]`" in items.syntax_help()
    result = _build(schemes="sinusoidal,toy:3", distance_axis="linear", seq_len=300)
    toy = _trace(result, "toy decay 3")
    np.testing.assert_allclose(np.asarray(toy.y), np.exp(-np.asarray(toy.x, dtype=np.float64) * 3 / 100), rtol=1e-6)
    with pytest.raises(ValueError, match=r"one of sinusoidal, learned, .*\btoy\b"):
        _build(schemes="sinusoidal,wavelet")


def test_a_compare_curve_needs_a_registered_scheme():
    with pytest.raises(ValueError, match="not a registered scheme"):
        items.register_compare_curve(items.CompareCurve("wavelet", "", lambda *a: None, lambda *a: None))


def test_the_schemes_help_shows_the_example_the_control_starts_with():
    """The help is one translatable message, so it spells the example out: it must stay ``items.EXAMPLE``."""
    from posenc.drawing.params import PARAMS

    assert PARAMS["schemes"].help.endswith("Example: " + items.EXAMPLE)
    assert PARAMS["schemes"].default == items.EXAMPLE


def test_the_figures_and_the_table_are_in_the_readers_language():
    from posenc import i18n

    with i18n.language("ko"):
        result = _build(schemes="sinusoidal,alibi,t5", d_model=64)
        rows = comparison_rows(result, _params(schemes="sinusoidal,alibi,t5", d_model=64))
    names = [trace.name for trace in result.figure.data]
    assert "사인파 d_model=64" in names
    assert "상대 거리 k에 따른 유사도" in result.figure.layout.title.text
    assert set(rows[0]) >= {"방식", "k = 1에서의 유사도", "‖u(50) − u(0)‖"}
