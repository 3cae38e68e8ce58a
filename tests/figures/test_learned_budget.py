"""posenc.figures.learned.budget: the server-wide byte budget of uploaded tables (counted once per table however many
hold it, refused when full, given back by the last holder), and TableStore's use of it (charged from the file's
header before its values are read, released when a table is dropped, evicted, or its store closed or collected)."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

from posenc.figures.learned import budget, sources
from posenc.figures.learned.budget import BudgetFull, TableBudget
from tests.hostile_tables import npy_bytes

MIB = 2**20


def _table(rows: int, seed: int = 0, cols: int = 64) -> bytes:
    return npy_bytes(np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32))


def test_a_table_is_counted_once_however_many_hold_it_and_given_back_by_the_last():
    held = TableBudget(10 * MIB)
    held.hold("a", 4 * MIB)
    held.hold("a", 4 * MIB)
    assert (held.nbytes, len(held), held.holders("a")) == (4 * MIB, 1, 2)
    assert held.release("a") == 0 and held.nbytes == 4 * MIB
    assert held.release("a") == 4 * MIB and held.nbytes == 0 and len(held) == 0
    assert held.release("a") == 0  # releasing what is not held changes nothing


def test_a_table_that_does_not_fit_is_refused_with_the_numbers():
    held = TableBudget(10 * MIB)
    held.hold("a", 8 * MIB)
    with pytest.raises(BudgetFull, match="POSENC_UPLOAD_BUDGET_MB") as refused:
        held.hold("b", 3 * MIB)
    assert (refused.value.needed, refused.value.held, refused.value.budget) == (3 * MIB, 8 * MIB, 10 * MIB)
    assert isinstance(refused.value, ValueError)
    held.hold("a", 8 * MIB)  # one more holder of a table held costs nothing
    held.hold("c", 2 * MIB)  # exactly full
    held.hold("d", 5 * MIB, refuse=False)  # a table in memory already is counted, never refused
    assert held.nbytes == 15 * MIB


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("POSENC_UPLOAD_BUDGET_MB", raising=False)
    assert budget.budget_from_environment() == budget.DEFAULT_BUDGET_MB * MIB
    monkeypatch.setenv("POSENC_UPLOAD_BUDGET_MB", " 64 ")
    assert budget.budget_from_environment() == 64 * MIB
    for bad in ("0", "-3", "1.5", "lots"):
        monkeypatch.setenv("POSENC_UPLOAD_BUDGET_MB", bad)
        with pytest.raises(ValueError, match="POSENC_UPLOAD_BUDGET_MB"):
            budget.budget_from_environment()


@pytest.mark.parametrize(("argument", "value"), [("budget", 0), ("budget", True), ("reading_slots", 0)])
def test_bad_arguments_are_refused_by_name(argument, value):
    with pytest.raises(ValueError, match=argument):
        TableBudget(**{"budget": MIB, argument: value})
    with pytest.raises(ValueError, match="nbytes"):
        TableBudget(MIB).hold("a", -1)


def test_at_most_the_reading_slots_read_at_once():
    held, inside, most, lock = TableBudget(MIB, reading_slots=2), [0], [0], threading.Lock()
    gate = threading.Barrier(2, timeout=10)

    def read() -> None:
        with held.reading():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            if most[0] == 2:
                gate.wait()  # both slots taken: let the pair go together
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=read) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert most[0] <= 2


def test_a_large_release_asks_the_allocator_to_give_memory_back(monkeypatch):
    calls = []
    monkeypatch.setattr(budget, "_malloc_trim", calls.append)
    assert not budget.trim(budget.TRIM_BYTES - 1)
    assert budget.trim(budget.TRIM_BYTES) and calls == [0]
    monkeypatch.setattr(budget, "_malloc_trim", None)  # not glibc
    assert not budget.trim(budget.TRIM_BYTES)


def test_a_store_charges_its_tables_and_gives_them_back_when_dropped_evicted_or_closed():
    held = TableBudget(64 * MIB)
    store = sources.TableStore(limit=2, budget=held)
    first = store.add_upload(_table(100, 1), "a.npy")
    assert held.nbytes == 100 * 64 * 4
    store.add_upload(_table(100, 1), "same-bytes-other-name.npy")  # the same table: counted once
    assert (held.nbytes, len(held)) == (100 * 64 * 4, 1)
    store.add_upload(_table(50, 2), "b.npy")  # evicts the oldest of three (limit 2)
    assert held.nbytes == (100 + 50) * 64 * 4
    store.discard(first.sha256)  # gone already (evicted): nothing more given back
    assert held.nbytes == (100 + 50) * 64 * 4
    assert store.close() == (100 + 50) * 64 * 4
    assert (held.nbytes, len(held), len(store)) == (0, 0, 0)
    store.add_upload(_table(10, 3), "again.npy")  # a closed store keeps tables again (a reconnected session)
    assert held.nbytes == 10 * 64 * 4


def test_readers_sharing_a_table_hold_it_until_the_last_lets_go():
    held = TableBudget(64 * MIB)
    alice, bob = sources.TableStore(budget=held), sources.TableStore(budget=held)
    data = _table(80, 4)
    alice.add_upload(data, "wpe.npy")
    bob.add_upload(data, "wpe.npy")
    assert (held.nbytes, held.holders(next(iter(held._held)))) == (80 * 64 * 4, 2)
    alice.close()
    assert held.nbytes == 80 * 64 * 4
    bob.close()
    assert held.nbytes == 0


def test_a_full_budget_refuses_a_table_before_its_values_are_read_and_keeps_nothing():
    held = TableBudget(100 * 64 * 4)
    store = sources.TableStore(budget=held)
    store.add_upload(_table(90, 5), "big.npy")
    with pytest.raises(BudgetFull) as refused:  # its data are cut short: reading them would say "truncated"
        store.add_upload(_table(20, 6)[:-100], "more.npy")
    assert refused.value.needed == 20 * 64 * 4 and refused.value.held == 90 * 64 * 4
    assert (held.nbytes, len(held), len(store)) == (90 * 64 * 4, 1, 1)
    store.add_upload(_table(10, 7), "small.npy")  # what fits is still read
    assert held.nbytes == 100 * 64 * 4


def test_a_file_that_fails_after_its_header_gives_its_charge_back():
    held = TableBudget(64 * MIB)
    store = sources.TableStore(budget=held)
    truncated = _table(40, 8)[:-100]
    with pytest.raises(ValueError, match="truncated"):
        store.add_upload(truncated, "short.npy")
    assert (held.nbytes, len(held), len(store)) == (0, 0, 0)


def test_a_store_collected_without_being_closed_gives_its_share_back():
    held = TableBudget(64 * MIB)
    store = sources.TableStore(budget=held)
    store.add_upload(_table(30, 9), "t.npy")
    assert held.nbytes > 0
    del store
    gc.collect()
    assert held.nbytes == 0


def test_a_models_table_is_counted_but_never_refused():
    import torch

    held = TableBudget(1024)
    store = sources.TableStore(budget=held)
    store.add_table(torch.ones(16, 64), "org/model:wpe")
    assert held.nbytes == 16 * 64 * 4
    with pytest.raises(BudgetFull):
        store.add_upload(_table(4, 10), "t.npy")
    store.close()
    assert held.nbytes == 0
