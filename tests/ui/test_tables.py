"""posenc.ui.tables: an upload the server-wide budget has no room for is refused in place, in the reader's language,
and the page keeps working; a file's bytes are let go once it is read or refused; the help says what the budget
holds. posenc.ui.session_end: what a session registered is closed when the runtime lets the session go."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

from posenc import i18n
from posenc.figures.learned import budget
from posenc.figures.learned.budget import TableBudget
from posenc.ui import session_end, tables
from tests.hostile_tables import npy_bytes
from tests.pages.conftest import assert_healthy, error_texts, open_page, titles

ROW_BYTES = 32 * 4  # a row of the tables below, in float32


@pytest.fixture
def small_budget(monkeypatch):
    """A budget of 100 rows' worth, for the test's sessions only."""
    held = TableBudget(100 * ROW_BYTES)
    monkeypatch.setattr(budget, "_budget", held)
    return held


def _upload(name: str, rows: int, seed: int, lang: str = "en"):
    at = open_page("learned", {"table_source": "upload", "lang": lang})
    data = npy_bytes(np.random.default_rng(seed).standard_normal((rows, 32)).astype(np.float32))
    return at.file_uploader(key="table_file").set_value((name, data, "application/octet-stream")).run()


def test_an_upload_past_the_budget_is_refused_in_place_and_the_page_keeps_working(small_budget):
    first = _upload("first.npy", 80, 1)
    assert_healthy(first)
    assert small_budget.nbytes == 80 * ROW_BYTES
    second = _upload("second.npy", 40, 2)
    assert not second.exception
    (refusal,) = error_texts(second)
    assert refusal.startswith("second.npy: this server is holding as many uploaded tables as it can")
    assert "(1 MiB of 1 MiB)" in refusal and "upload it again in a few minutes" in refusal
    assert small_budget.nbytes == 80 * ROW_BYTES  # nothing of the refused table is kept
    second.run()  # a rerun with the same file says it again, without reading anything
    assert error_texts(second) == [refusal]
    second.selectbox(key="table_source").set_value("random").run()  # the rest of the page still works
    assert_healthy(second)


def test_a_table_fits_again_once_the_holder_lets_it_go(small_budget):
    from posenc.ui.tables import STORE_KEY

    first = _upload("first.npy", 80, 3)
    first.session_state[STORE_KEY].close()  # as when Streamlit lets the session go
    assert small_budget.nbytes == 0
    assert_healthy(_upload("second.npy", 90, 4))
    assert small_budget.nbytes == 90 * ROW_BYTES


@pytest.mark.parametrize(("lang", "says"), [("ko", "업로드"), ("zh-CN", "上传")])
def test_the_refusal_is_said_in_the_readers_language(lang, says):
    full = budget.BudgetFull(needed=3 << 20, held=510 << 20, budget=512 << 20)
    with i18n.language(lang):
        said = tables.budget_message(full)
    assert says in said and "this server" not in said and "510" in said and "512" in said and "3" in said


def test_the_help_says_what_the_budget_holds(small_budget):
    at = _upload("t.npy", 50, 6).run()  # the help is drawn before the file is read: the next run says it
    help_text = at.file_uploader(key="table_file").help
    assert "Uploaded tables held by this server now: 1 (1 MiB of its 1 MiB for uploads)." in help_text


def test_a_read_files_bytes_are_let_go_and_a_rerun_keeps_its_table(small_budget):
    at = _upload("t.npy", 50, 7)
    uploaded = at.file_uploader(key="table_file").value
    assert uploaded.getvalue() == b"" and uploaded.getbuffer().nbytes == 0  # its name is kept, not its bytes
    at.run()
    assert_healthy(at)
    assert all("uploaded t.npy, 50 x 32" in title for title in titles(at)[:4])


class _Runtime:
    """What posenc.ui.session_end wraps: a runtime's disconnect and close, and whether a session is active."""

    def __init__(self):
        self.active = {"s1", "s2"}

    def is_active_session(self, session_id):
        return session_id in self.active

    def disconnect_session(self, session_id, client=None):
        self.active.discard(session_id)

    def close_session(self, session_id):
        self.active.discard(session_id)


class _Thing:
    closed = 0

    def close(self):
        self.closed += 1


def test_what_a_session_registered_is_closed_when_the_runtime_lets_it_go():
    runtime, one, two = _Runtime(), _Thing(), _Thing()
    assert session_end._install(runtime) and session_end._install(runtime)  # once: a second install wraps nothing
    with session_end._lock:
        session_end._registered["s1"] = {"tables": weakref.ref(one)}
        session_end._registered["s2"] = {"tables": weakref.ref(two)}
    runtime.disconnect_session("s1", client=object())
    assert (one.closed, two.closed, session_end.registered("s1")) == (1, 0, 0)
    runtime.active.add("s2")
    runtime.disconnect_session("s3")  # another session: nothing of s2 closes
    runtime.close_session("s2")
    assert two.closed == 1
    assert not session_end._install(object())  # no runtime methods to wrap: nothing registered
