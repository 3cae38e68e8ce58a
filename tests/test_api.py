"""The notebook API (posenc/api/): a figure and its data equal what the registry builds for the same parameters,
a preset's values with overrides on top, a config.json read as the app reads it, and a ValueError for each bad
argument that names it."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import api, i18n
from posenc.commands import export as cli
from posenc.drawing import export, registry
from posenc.drawing.preset_params import params_from_preset
from posenc.drawing.theme import SIZES
from posenc_core.models.presets import PRESETS

EXAMPLE_CONFIG = Path(__file__).resolve().parents[1] / "examples" / "llama-3.1-8b-config.json"


def registry_result(figure_id, given, style="screen"):
    params, _ = registry.resolve_params(figure_id, given)
    return registry.build(figure_id, params, style=style)


def plotly_json(fig):
    """The figure as plain JSON data (a copy of a figure may order its layout's keys differently)."""
    return json.loads(fig.to_json())


def assert_same_data(ours, theirs):
    assert list(ours) == list(theirs)
    for name in ours:
        np.testing.assert_array_equal(ours[name], np.asarray(theirs[name]), err_msg=name)


def test_import_posenc_loads_nothing_heavy_until_a_function_is_used():
    code = (
        "import sys, posenc\n"
        "heavy = [m for m in ('torch', 'plotly', 'posenc.api', 'posenc.figures') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert callable(posenc.figure) and 'posenc.api' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_functions_are_attributes_of_posenc_and_the_subpackages_stay_reachable():
    assert set(posenc.__all__) <= set(dir(posenc))
    assert posenc.figure is api.figure and posenc.figure_data is api.figure_data
    from posenc import figures

    assert figures.__name__ == "posenc.figures" and posenc.figures is figures
    with pytest.raises(AttributeError, match="no_such_thing"):
        posenc.no_such_thing  # noqa: B018


@pytest.mark.parametrize("figure_id", list(registry.FIGURES))
def test_every_figure_and_its_data_equal_the_registry_build_at_the_defaults(figure_id):
    built = registry_result(figure_id, {})
    assert plotly_json(posenc.figure(figure_id)) == plotly_json(built.figure)
    assert_same_data(posenc.figure_data(figure_id), built.data)


def test_a_preset_with_overrides_equals_the_registry_build_of_the_same_values():
    given = {**params_from_preset(PRESETS["llama-3.1-8b"]), "seq_len": 131072, "view": "window", "start": 8000}
    built = registry_result("rope-angles", given)
    fig = posenc.figure("rope-angles", preset="llama-3.1-8b", seq_len=131072, view="window", start=8000)
    assert plotly_json(fig) == plotly_json(built.figure)
    assert plotly_json(fig) != plotly_json(posenc.figure("rope-angles", seq_len=131072, view="window", start=8000))
    values = {name: p.value for name, p in posenc.parameters("rope-angles", preset="llama-3.1-8b").items()}
    assert values["base"] == 500000.0 and values["head_dim"] == 128 and values["seq_len"] == 131072


def test_an_override_replaces_the_presets_value_and_keeps_the_rest():
    params = posenc.parameters("context-angles", preset="llama-3.1-8b", rope_type="yarn", factor=16.0)
    assert params["rope_type"].value == "yarn" and params["factor"].value == 16.0
    assert params["original_max_position_embeddings"].value == 8192 and params["base"].value == 500000.0
    assert params["factor"].default == registry.PARAMS["factor"].default


def test_the_data_equals_what_posenc_export_writes(tmp_path, capsys):
    argv = ["rope-scores", "--preset", "qwen2.5-7b", "--set", "seq_len=4096", "--format", "npy", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    (written,) = tmp_path.glob("*.npz")
    exported = np.load(written)
    assert_same_data(posenc.figure_data("rope-scores", preset="qwen2.5-7b", seq_len=4096), dict(exported))


def test_the_data_has_the_shapes_of_the_figure():
    data = posenc.figure_data("rope-angles", preset="llama-3.1-8b", seq_len=131072)
    assert data["angle_mod_2pi"].shape == (data["pairs"].size, data["positions"].size)
    assert data["pairs"].size == 64  # head_dim 128
    assert 8192 < data["positions"].max() < 131072 and data["positions"].min() == 0
    assert data["angle_mod_2pi"].min() >= 0 and data["angle_mod_2pi"].max() < 2 * np.pi


def test_a_config_as_path_text_dict_or_bytes_gives_the_model_it_describes(tmp_path):
    config = json.loads(EXAMPLE_CONFIG.read_text())
    config["rope_theta"] = 250000.0
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    forms = [path, str(path), config, json.dumps(config), json.dumps(config).encode()]
    datas = [posenc.figure_data("context-wavelengths", config=form) for form in forms]
    for data in datas[1:]:
        assert_same_data(data, datas[0])
    assert posenc.parameters("context-wavelengths", config=config)["base"].value == 250000.0
    assert posenc.read_config(path).preset.rope_theta == 250000.0


def test_the_example_config_is_llama_3_1_8b_and_a_preset_may_be_given_as_a_model_preset():
    by_key = posenc.figure_data("context-wavelengths", preset="llama-3.1-8b")
    assert_same_data(posenc.figure_data("context-wavelengths", config=EXAMPLE_CONFIG), by_key)
    assert_same_data(posenc.figure_data("context-wavelengths", preset=PRESETS["llama-3.1-8b"]), by_key)
    reading = posenc.read_config(EXAMPLE_CONFIG)
    assert_same_data(posenc.figure_data("context-wavelengths", preset=reading.preset), by_key)
    assert not np.array_equal(posenc.figure_data("context-wavelengths")["llama3"], by_key["llama3"])


def test_a_presets_value_outside_the_apps_range_is_clamped_with_a_warning():
    with pytest.warns(UserWarning, match="d_model=14336"):
        values = posenc.parameters("sinusoidal-wavelengths", preset="bloom-176b")
    assert values["d_model"].value == registry.PARAMS["d_model"].maximum


def test_language_style_and_size():
    english = posenc.figure("rope-angles").layout.title.text
    assert posenc.figure("rope-angles", lang="ko").layout.title.text != english
    assert i18n.current() == "en"
    assert posenc.list_figures(lang="zh-CN")["rope-angles"] != posenc.list_figures()["rope-angles"]
    screen, dark = posenc.figure("rope-angles"), posenc.figure("rope-angles", style="slides-dark")
    assert screen.layout.paper_bgcolor != dark.layout.paper_bgcolor
    column = posenc.figure("rope-angles", size="column")
    assert column.layout.width == SIZES["column"].width and column.layout.height > 0
    assert screen.layout.width is None


def test_listings():
    assert set(posenc.list_figures()) == set(registry.FIGURES)
    assert set(posenc.list_figures("rope")) == {s.id for s in registry.FIGURES.values() if s.page == "rope"}
    assert posenc.presets()["llama-3.1-8b"] == PRESETS["llama-3.1-8b"].name
    params = posenc.parameters("rope-pair-rotation", head_dim=64)
    assert list(params) == [*registry.FIGURES["rope-pair-rotation"].params, "device"]
    assert params["pair"].maximum == 31 and "32 pairs" in params["pair"].allowed


def test_save_figure_writes_what_the_export_menu_gives(tmp_path):
    result = registry_result("rope-wavelengths", params_from_preset(PRESETS["mistral-7b"]))
    csv = posenc.save_figure("rope-wavelengths", tmp_path / "w.csv", preset="mistral-7b")
    assert csv.read_bytes() == export.data_to_csv(result.data)
    npz = posenc.save_figure("rope-wavelengths", tmp_path / "w.npy", preset="mistral-7b")
    assert npz.suffix == ".npz" and sorted(np.load(npz).files) == sorted(result.data)
    html = posenc.save_figure("rope-wavelengths", tmp_path / "w.html", preset="mistral-7b")
    assert b"<html" in html.read_bytes()[:2000]
    if export.find_browser() is not None:  # without one: the next test
        png = posenc.save_figure("rope-wavelengths", tmp_path / "w.png", size="column")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_image_without_a_browser_is_a_value_error_saying_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-browser"))
    with pytest.raises(ValueError, match=r"BROWSER_PATH is set to .*not an executable file.*get_chrome_sync"):
        posenc.save_figure("rope-wavelengths", tmp_path / "w.png")
    assert not (tmp_path / "w.png").exists()
    assert posenc.save_figure("rope-wavelengths", tmp_path / "w.html").exists()


BAD_CALLS = {
    "unknown figure": (lambda: posenc.figure("rope-angle"), r"figure_id 'rope-angle'.*did you mean 'rope-angles'"),
    "figure id not text": (lambda: posenc.figure_data(3), "figure_id 3"),
    "unknown preset": (lambda: posenc.figure("rope-angles", preset="llama-3.1-7b"), r"preset.*'llama-3.1-8b'"),
    "not its parameter": (lambda: posenc.figure("rope-angles", factor=2.0), r"no parameter 'factor'.*seq_len"),
    "misspelt parameter": (lambda: posenc.figure("rope-angles", seqlen=8), r"did you mean 'seq_len'"),
    "out of range": (lambda: posenc.figure("rope-angles", seq_len=0), r"seq_len=0 .*1 to 1048576"),
    "wrong type": (lambda: posenc.figure("rope-angles", base="big"), r"base='big' .*number"),
    "range set by another": (lambda: posenc.figure("rope-angles", view="window", start=5000), r"start=5000.*0 to 1023"),
    "language": (lambda: posenc.figure("rope-angles", lang="kr"), "lang must be one of en, ko, zh-CN"),
    "style": (lambda: posenc.figure("rope-angles", style="dark"), "style must be one of screen"),
    "size": (lambda: posenc.figure("rope-angles", size="colum"), r"size must be one of .*did you mean 'column'"),
    "no such config": (lambda: posenc.figure("rope-angles", config="nope.json"), "config .*no file 'nope.json'"),
    "config not JSON": (lambda: posenc.figure("rope-angles", config="{bad"), "config is not valid JSON"),
    "config of a number": (lambda: posenc.figure("rope-angles", config=3), r"config must be .*\(got int\)"),
    "config without heads": (lambda: posenc.figure("rope-angles", config={"hidden_size": 64}), "config has no"),
    "preset and config": (lambda: posenc.figure("rope-angles", preset="phi-2", config={}), "preset or config"),
    "page": (lambda: posenc.list_figures("rop"), r"page must be one of .*did you mean 'rope'"),
    "file suffix": (lambda: posenc.save_figure("rope-angles", "a.jpg"), r"path must end in one of \.png"),
}


@pytest.mark.parametrize("call, match", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_a_bad_argument_is_a_value_error_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()
