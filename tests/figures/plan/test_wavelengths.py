"""The plan's figure: the shading covers exactly the regimes the core computed, the L and T lines stand at the plan's
values, the curves are the core's wavelengths, and the model rebuilt from a preset's parameters plans as the preset."""

from __future__ import annotations

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.plan.model import figure_values, plan_for
from posenc.figures.plan.wavelengths import REGIME_HUES
from posenc.i18n import language
from posenc_core.models.presets import PRESETS
from posenc_core.plan import REGIMES, plan_extension

LLAMA = PRESETS["llama-3.1-8b"]


def _built(model=LLAMA, target=262144, method="yarn", original=0):
    values, messages = registry.resolve_params("plan-wavelengths", figure_values(model, target, method, original))
    assert messages == []
    return registry.build("plan-wavelengths", values), plan_for(values)


def _bands(fig) -> list[tuple[str, float, float]]:
    """(regime, x0, x1) of each background band, its regime read off its colour."""
    by_hue = {hue: regime for regime, hue in REGIME_HUES.items()}
    return [
        (by_hue[shape.fillcolor.removeprefix("rgba(").rsplit(",", 1)[0]], shape.x0, shape.x1)
        for shape in fig.layout.shapes
        if shape.type == "rect"
    ]


@pytest.mark.parametrize("method", ["yarn", "llama3", "linear", "dynamic", "base"])
def test_the_shading_covers_the_regimes_the_core_computed(method):
    result, plan = _built(method=method)
    bands = _bands(result.figure)
    covered = {}
    for regime, x0, x1 in bands:
        for pair in range(int(np.ceil(x0)), int(np.floor(x1)) + 1):
            assert pair not in covered, f"pair {pair} shaded twice"
            covered[pair] = regime
    assert covered == {pair.index: pair.regimes[method] for pair in plan.pairs}
    assert [band[0] for band in bands] == [regime for regime, _first, _last in plan.regime_runs()]
    np.testing.assert_array_equal(result.data["regime"], [REGIMES.index(p.regimes[method]) for p in plan.pairs])


def test_yarn_on_llama_keeps_ramps_and_interpolates_fast_to_slow():
    result, _plan = _built()
    assert [regime for regime, _x0, _x1 in _bands(result.figure)] == ["kept", "ramped", "interpolated"]


def test_the_l_and_t_lines_stand_at_the_plan_s_values():
    result, plan = _built(original=4096)
    lines = sorted(shape.y0 for shape in result.figure.layout.shapes if shape.type == "line")
    assert lines == [plan.original, plan.target] == [4096, 262144]
    labels = [annotation.text for annotation in result.figure.layout.annotations]
    assert "L = 4,096" in labels and "T = 262,144" in labels


def test_the_curves_are_the_core_s_wavelengths_and_the_chosen_method_is_marked():
    result, _plan = _built()
    core = plan_extension(LLAMA, 262144, "yarn")
    np.testing.assert_allclose(result.data["original"], [pair.wavelength for pair in core.pairs])
    for method in core.methods:
        np.testing.assert_allclose(result.data[method], [pair.wavelengths[method] for pair in core.pairs])
    names = [trace.name for trace in result.figure.data]
    assert "★ YaRN" in names and "original" in names
    assert result.figure.layout.title.text == "YaRN: wavelength per pair, L = 8,192 → T = 262,144 (s = 32)"
    assert result.figure.layout.yaxis.type == "log"


@pytest.mark.parametrize("key", [key for key, preset in PRESETS.items() if preset.scheme in ("rope", "mrope")])
def test_a_preset_rebuilt_from_its_parameters_plans_every_method_as_the_preset(key):
    core = plan_extension(PRESETS[key], 65536)  # every method is planned, whichever is chosen
    rebuilt = plan_for(figure_values(PRESETS[key], 65536, "yarn", core.original))
    assert set(rebuilt.methods) == set(core.methods)
    for method, planned in core.methods.items():
        np.testing.assert_allclose(rebuilt.methods[method].inv_freq, planned.inv_freq, rtol=1e-12, err_msg=method)
    assert [pair.regimes for pair in rebuilt.pairs] == [pair.regimes for pair in core.pairs]


def test_an_impossible_plan_is_a_value_error_naming_the_target():
    values, _messages = registry.resolve_params("plan-wavelengths", {"target": 1024})
    with pytest.raises(ValueError, match="target must be longer than the original context L = 4,096"):
        registry.build("plan-wavelengths", values)


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
def test_title_axes_and_legend_are_translated(code):
    with language(code):
        result, _plan = _built()
    fig = result.figure
    texts = [fig.layout.title.text, fig.layout.xaxis.title.text, fig.layout.yaxis.title.text]
    texts += [trace.name for trace in fig.data if trace.name not in ("★ YaRN", "Llama 3.1")]
    assert not any("wavelength" in text or "pairs" in text or text == "original" for text in texts), texts


@pytest.mark.parametrize(
    ("preset", "target", "method"),
    [("llama-3-8b", 16384, "dynamic"), ("llama-3-8b", 16384, "yarn"), ("llama-3.1-8b", 262144, "linear")],
)
def test_the_note_says_the_slow_pairs_stay_in_range_only_where_the_check_finds_none(preset, target, method):
    result, plan = _built(PRESETS[preset], target, method)
    beyond = [finding for finding in plan.findings if finding.code == "slow_pairs_beyond"]
    note = " ".join(result.notes)
    assert ("stay inside what the model saw" in note) == (not beyond)
    if beyond:  # Llama-3-8B 8k -> 16k with dynamic NTK: pair 35 reaches 6.80 rad against 6.26
        assert f"pair {beyond[0].values['pair']}:" in note and "see the warnings" in note


def test_a_parameter_the_model_does_not_use_plans_once():
    """A Sweep of low_freq_factor (Llama 3.1's key) over a YaRN model planned the same plan again in every frame."""
    values, _messages = registry.resolve_params("plan-wavelengths", {"rope_type": "yarn", "target": 20000})
    first = plan_for(values)
    assert plan_for({**values, "low_freq_factor": 2.5, "high_freq_factor": 7.0}) is first
    moved = plan_for({**values, "beta_fast": 16.0})  # a key YaRN uses: another model, another plan
    assert moved is not first and moved.model.rope_scaling["beta_fast"] == 16.0
