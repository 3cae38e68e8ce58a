"""posenc.figures.learned.sources: each reader's tables in their own store (one per Streamlit session), read by the
figures of that reader only; the same file uploaded by many readers is read once and shared while any holds it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.learned import sources
from tests.hostile_tables import npy_bytes

READERS = 8  # more than the old process-wide store held (4)


def _build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages, messages
    return registry.build(figure_id, params)


def _table(n: int) -> np.ndarray:
    return np.full((16 + n, 4), float(n), dtype=np.float32)


def test_every_reader_keeps_their_own_table_however_many_upload_at_once():
    stores = [sources.TableStore() for _ in range(READERS)]
    kept = [store.add_upload(npy_bytes(_table(n)), f"t{n}.npy") for n, store in enumerate(stores)]
    for n, (store, upload) in enumerate(zip(stores, kept, strict=True)):
        with sources.using(store):
            result = _build("learned-heatmap", table_source="upload", upload_sha256=upload.sha256, seq_len=64)
        assert f"uploaded t{n}.npy, {16 + n} x 4" in result.figure.layout.title.text
        assert np.all(np.asarray(result.figure.data[0].z) == n)


def test_readers_uploading_in_parallel_threads_lose_nothing():
    stores = [sources.TableStore() for _ in range(READERS)]
    barrier, shapes, errors = threading.Barrier(READERS), [None] * READERS, []

    def reader(n: int) -> None:
        try:
            barrier.wait()
            upload = stores[n].add_upload(npy_bytes(_table(n)), f"t{n}.npy")
            with sources.using(stores[n]):
                table, _ = sources.load({"table_source": "upload", "upload_sha256": upload.sha256, "device": "cpu"})
            shapes[n] = tuple(table.shape)
        except Exception as error:  # collected: a thread's exception would otherwise vanish
            errors.append(error)

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(READERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and shapes == [(16 + n, 4) for n in range(READERS)]


def test_a_readers_table_is_not_visible_to_another_reader():
    alice, bob = sources.TableStore(), sources.TableStore()
    upload = alice.add_upload(npy_bytes(_table(1)), "alice.npy")
    assert upload.sha256 in alice and upload.sha256 not in bob
    params = {"table_source": "upload", "upload_sha256": upload.sha256, "device": "cpu"}
    with sources.using(bob), pytest.raises(ValueError, match="upload_sha256=.*not held in this session"):
        sources.load(params)
    with pytest.raises(ValueError, match="upload_sha256"):  # outside any session: nothing is held
        sources.load(params)


def test_a_session_keeps_at_most_its_limit_the_oldest_goes_first():
    store = sources.TableStore()
    hashes = [store.add_upload(npy_bytes(_table(n)), f"t{n}.npy").sha256 for n in range(sources.MAX_SESSION_TABLES + 1)]
    assert len(store) == sources.MAX_SESSION_TABLES
    assert hashes[0] not in store and all(digest in store for digest in hashes[1:])
    assert store.get(hashes[-1]).name == f"t{sources.MAX_SESSION_TABLES}.npy"
    store.add_upload(npy_bytes(_table(1)), "t1.npy")  # used again: the newest, the next to go is t2
    store.add_upload(npy_bytes(_table(7)), "t7.npy")
    assert hashes[1] in store and hashes[2] not in store


def test_the_same_file_uploaded_by_many_readers_is_one_table_in_memory():
    data = npy_bytes(_table(3))
    stores = [sources.TableStore() for _ in range(3)]
    uploads = [store.add_upload(data, f"copy{n}.npy") for n, store in enumerate(stores)]
    tables = [store.get(upload.sha256).table for store, upload in zip(stores, uploads, strict=True)]
    assert all(table is tables[0] for table in tables)
    names = [store.get(upload.sha256).name for store, upload in zip(stores, uploads, strict=True)]
    assert names == ["copy0.npy", "copy1.npy", "copy2.npy"]
    # the key covers the name: a cached figure titled with one reader's file name is never another reader's
    assert len({upload.sha256 for upload in uploads}) == 3


def test_a_fetched_table_is_kept_like_an_upload():
    store = sources.TableStore()
    kept = store.add_table(__import__("torch").ones(5, 3), "org/model:wpe.weight")
    with sources.using(store):
        table, described = sources.load({"table_source": "upload", "upload_sha256": kept.sha256, "device": "cpu"})
    assert table.shape == (5, 3) and "org/model:wpe.weight" in described
