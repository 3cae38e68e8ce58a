"""The Learned page's uploads: each session keeps its own table, a link naming a table this server does not hold says
so, every hostile file is refused in place with its reason (nothing runs, memory stays flat), and the uploader says
its limits."""

from __future__ import annotations

import gc
import hashlib
import time

import numpy as np
import pytest

from posenc.figures.learned import sources
from posenc_core.encodings.learned import MAX_TABLE_ELEMENTS
from tests.hostile_tables import hostile_tables, npy_bytes, reset_peak, status_kib
from tests.pages.conftest import assert_healthy, chart_specs, open_page, titles, warning_text

SESSIONS = 8  # twice what the old process-wide store held
MEMORY_BUDGET_KIB = 300 * 1024


def _upload(at, name: str, data: bytes):
    at.file_uploader(key="table_file").set_value((name, data, "application/octet-stream")).run()
    return at


def _table(n: int) -> np.ndarray:
    return np.full((20 + n, 6), n + 1.0, dtype=np.float32)


def test_many_sessions_each_keep_their_own_table():
    sessions = [_upload(open_page("learned", {"table_source": "upload"}), f"t{n}.npy", npy_bytes(_table(n))) for n in
                range(SESSIONS)]  # fmt: skip
    for n, at in enumerate(sessions):  # every session draws again after all the others uploaded
        at.number_input(key="seq_len").set_value(20 + n).run()
        assert_healthy(at)
        assert all(f"uploaded t{n}.npy, {20 + n} x 6" in title for title in titles(at)[:4])
        assert len(at.query_params["upload_sha256"]) == 64


def test_a_sessions_table_is_not_visible_to_another_session():
    alice = _upload(open_page("learned", {"table_source": "upload"}), "alice.npy", npy_bytes(_table(3)))
    assert_healthy(alice)
    shared = dict(alice.query_params)
    bob = open_page("learned", shared)  # Bob opens the link Alice shared: the file did not travel with it
    assert not bob.exception and not chart_specs(bob)
    said = warning_text(bob)
    assert "not on this server" in said and "upload it again" in said and "cannot carry a file" in said
    assert "alice" not in said  # nothing of Alice's table is shown, not even its name


def test_a_link_naming_a_lost_upload_says_so_and_a_new_upload_replaces_it():
    at = open_page("learned", {"table_source": "upload", "upload_sha256": "ab" * 32})  # as after a restart
    assert not at.exception and not chart_specs(at)
    assert "abababababab" in warning_text(at) and "upload it again" in warning_text(at)
    _upload(at, "again.npy", npy_bytes(_table(0)))
    assert_healthy(at)
    assert not at.warning and at.query_params["upload_sha256"] != "ab" * 32


def test_removing_the_file_takes_the_table_out_of_the_link():
    at = _upload(open_page("learned", {"table_source": "upload"}), "t.npy", npy_bytes(_table(0)))
    assert "upload_sha256" in at.query_params
    at.file_uploader(key="table_file").set_value(None).run()
    assert not at.exception and "upload_sha256" not in at.query_params
    assert any("Upload a table" in info.value for info in at.info) and not at.warning
    at.selectbox(key="table_source").set_value("random").run()
    assert "upload_sha256" not in at.query_params


def test_every_hostile_file_is_refused_in_place_and_the_page_keeps_working(tmp_path):
    marker = tmp_path / "pickle-ran"
    at = open_page("learned", {"table_source": "upload"})
    reset_peak()
    start = status_kib("VmRSS")
    for name, data, says in hostile_tables(marker):
        _upload(at, name, data)
        assert not at.exception, (name, [e.message for e in at.exception])
        (error,) = at.error
        assert error.value.startswith(f"{name}:")
        assert __import__("re").search(says, error.value), (name, error.value)
        assert "Traceback" not in error.value and "Exception" not in error.value and "allow_pickle" not in error.value
        assert not chart_specs(at) and "upload_sha256" not in at.query_params
    growth = status_kib("VmHWM") - start
    assert not marker.exists(), "a pickle's code ran"
    assert growth < MEMORY_BUDGET_KIB, f"the hostile files raised the peak memory by {growth / 1024:.0f} MiB"
    _upload(at, "fine.npy", npy_bytes(_table(4)))
    assert_healthy(at)
    assert "uploaded fine.npy, 24 x 6" in titles(at)[0]


def test_the_uploader_states_its_limits():
    at = open_page("learned", {"table_source": "upload"})
    said = at.file_uploader(key="table_file").help
    assert f"{MAX_TABLE_ELEMENTS:,}" in said and "32 MiB" in said  # the largest table, in values and in float32
    assert "65 MB" in said  # the server's maxUploadSize (.streamlit/config.toml)


def test_a_sessions_table_is_freed_when_the_session_ends():
    data = npy_bytes(_table(9))
    at = _upload(open_page("learned", {"table_source": "upload"}), "gone.npy", data)
    assert_healthy(at)
    content = hashlib.sha256(data).hexdigest()
    assert content in sources._shared  # held while the session lives (and shared with any session uploading it)
    del at
    deadline = time.monotonic() + 30  # the session's script thread may still be finishing: wait on the table itself
    while content in sources._shared and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert content not in sources._shared


@pytest.mark.parametrize(
    ("lang", "lost", "limit"), [("ko", "다시 업로드하라", "업로드 한도"), ("zh-CN", "请重新上传", "上传上限")]
)
def test_the_lost_table_and_the_limits_are_said_in_the_readers_language(lang, lost, limit):
    at = open_page("learned", {"table_source": "upload", "upload_sha256": "cd" * 32, "lang": lang})
    assert not at.exception
    assert "cdcdcdcdcdcd" in warning_text(at) and lost in warning_text(at)
    assert limit in at.file_uploader(key="table_file").help and "65 MB" in at.file_uploader(key="table_file").help


def test_markup_in_a_file_or_tensor_name_is_shown_as_text():
    link = "[Session expired: log in](http://127.0.0.1:9/login)"
    tensors = {f"{link}.a": np.zeros((4, 4), np.float32), f"{link}.b": np.zeros((4, 4), np.float32)}
    buffer = __import__("io").BytesIO()
    np.savez(buffer, **tensors)
    at = _upload(open_page("learned", {"table_source": "upload"}), "two.npz", buffer.getvalue())
    (error,) = at.error
    assert "key= one of" in error.value and link not in error.value  # escaped: no markdown link
    assert "\\[Session expired: log in\\]" in error.value
    named = '<a href="http://127.0.0.1:9/">x</a>.npy'
    at = _upload(open_page("learned", {"table_source": "upload"}), named, npy_bytes(_table(2)))
    assert_healthy(at)
    assert "<a href" not in titles(at)[0] and "&lt;a href" in titles(at)[0]  # drawn as characters by Plotly
    assert "Read **\\<a href" in "".join(caption.value for caption in at.caption)  # escaped: shown as written


def test_a_link_naming_a_table_by_markup_echoes_it_as_text():
    at = open_page("learned", {"table_source": "upload", "upload_sha256": "[a](//e.co)![i](//e.co/i.png)"})
    assert not at.exception and not chart_specs(at)
    said = "\n".join(warning.value for warning in at.warning)  # as sent: escaped
    assert "upload it again" in said and "[a](//e.co)" not in said and "\\[a\\]" in said
