"""posenc_core.encodings.learned.load_table on hostile files: sizes checked from headers and zip directories before
any data is
read (zip bombs cost no memory), pickles never run, and every refusal says why in plain words."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import numpy as np
import pytest
import torch

from posenc_core.encodings.learned import MAX_TABLE_ELEMENTS, load_table
from posenc_core.models.table_files import MAX_ZIP_MEMBERS
from tests.hostile_tables import (
    GIB,
    corrupt_npz,
    deflated_zeros,
    hostile_tables,
    legacy_storage_claim,
    lying_directory,
    npy_bytes,
    npy_header,
    npz_bomb,
    pt_bomb,
    reset_peak,
    status_kib,
    torch_bytes,
    zip_of,
)

MEMORY_BUDGET_KIB = 200 * 1024  # far below what any bomb here inflates to (512 MiB and more)


def _refusal_and_peak(source) -> tuple[str, int]:
    """The ValueError's message and the growth of this process's peak resident memory while refusing (KiB)."""
    reset_peak()
    start = status_kib("VmRSS")
    with pytest.raises(ValueError) as refused:
        load_table(source)
    return str(refused.value), status_kib("VmHWM") - start


@pytest.mark.parametrize(
    ("name", "data"),
    [("bomb.npz", npz_bomb()), ("bomb.pt", pt_bomb()), ("small_bomb.npz", npz_bomb(GIB // 2))],
    ids=["npz-3GiB", "pt-1GiB", "npz-512MiB"],
)
def test_a_zip_bomb_is_refused_from_its_declared_sizes_without_inflating(name, data):
    assert len(data) < 4_000_000  # a few MB holding gigabytes
    message, growth = _refusal_and_peak((data, name))
    assert name in message and "uncompressed" in message
    assert growth < MEMORY_BUDGET_KIB, f"refusing {name} raised the peak memory by {growth / 1024:.0f} MiB"


def test_an_npz_member_is_refused_by_its_directory_size_even_when_its_header_is_small():
    header = npy_header((8, 4), "<f4")
    size = GIB // 2
    data = zip_of([("wpe.npy", deflated_zeros(header, size), zipfile.ZIP_DEFLATED, size)])
    message, growth = _refusal_and_peak((data, "liar.npz"))
    assert "wpe" in message and "uncompressed" in message
    assert growth < MEMORY_BUDGET_KIB


def test_an_npy_header_claiming_a_huge_shape_is_refused_before_allocating():
    message, growth = _refusal_and_peak((npy_header((1 << 20, 1 << 20)) + bytes(64), "huge.npy"))
    assert f"max_elements = {MAX_TABLE_ELEMENTS}" in message
    assert growth < MEMORY_BUDGET_KIB


def test_a_truncated_npy_says_so():
    data = npy_bytes(np.ones((8, 4), np.float32))
    with pytest.raises(ValueError, match=r"cut\.npy.*(truncated|shorter)"):
        load_table((data[:-16], "cut.npy"))


def test_every_hostile_file_is_refused_clearly_and_no_pickle_runs(tmp_path):
    marker = tmp_path / "pickle-ran"
    for name, data, says in hostile_tables(marker):
        with pytest.raises(ValueError) as refused:
            load_table((data, name))
        message = str(refused.value)
        assert name in message, message
        assert __import__("re").search(says, message), f"{name}: {message!r} does not say {says!r}"
        assert "allow_pickle" not in message and "Traceback" not in message
    assert not marker.exists(), "a pickle's code ran"


def test_numpys_unsafe_advice_never_reaches_the_message():
    data = npy_bytes(np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="holds Python objects, which are never loaded") as refused:
        load_table((data, "objects.npy"))
    assert "allow_pickle" not in str(refused.value)
    with pytest.raises(ValueError, match="holds Python objects") as refused:
        load_table((data, "objects.npz"[:-1] + "y"))


def test_an_empty_file_says_it_is_empty(tmp_path):
    for suffix in (".pt", ".npy", ".npz", ".safetensors", ".bin"):
        with pytest.raises(ValueError, match=rf"empty{suffix}.*is empty \(0 bytes\)"):
            load_table((b"", f"empty{suffix}"))
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="is empty"):
        load_table(path)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_finite_values_too_large_for_the_figures_are_refused(dtype):
    table = np.full((8, 4), 3e38, dtype)
    with pytest.raises(ValueError, match=r"extreme\.npy.*magnitude.*3e\+38"):
        load_table((npy_bytes(table), "extreme.npy"))
    table = np.ones((8, 4), dtype) * 1e6  # large but harmless
    assert load_table((npy_bytes(table), "big.npy")).abs().max() == 1e6


def test_complex_and_object_dtypes_are_refused_by_name():
    with pytest.raises(ValueError, match=r"complex\.npy.*complex"):
        load_table((npy_bytes(np.zeros((4, 4), np.complex128)), "complex.npy"))
    with pytest.raises(ValueError, match=r"complex\.pt.*complex"):
        load_table((torch_bytes(torch.zeros(4, 4, dtype=torch.complex64)), "complex.pt"))


def test_a_legacy_pickle_claiming_a_huge_storage_is_refused_without_memory():
    data = legacy_storage_claim(1 << 30)  # 4 GiB of float32 claimed in 1 KB
    assert len(data) < 2048
    message, growth = _refusal_and_peak((data, "claims.bin"))
    assert "claims.bin" in message and "could not be read" in message
    assert growth < MEMORY_BUDGET_KIB
    message, growth = _refusal_and_peak((torch_bytes({"wpe": torch.zeros(4, 4)}, legacy=True)[:-8], "cut.bin"))
    assert "cut.bin" in message and growth < MEMORY_BUDGET_KIB


def test_damaged_data_after_a_good_header_is_a_message_not_a_crash():
    with pytest.raises(ValueError, match=r"corrupt\.npz.*could not be read"):
        load_table((corrupt_npz(), "corrupt.npz"))


def test_valid_tables_still_load_after_the_checks():
    table = np.random.default_rng(1).normal(size=(64, 16)).astype(np.float32)
    for name, data in [
        ("t.npy", npy_bytes(table)),
        ("t.npy", npy_bytes(np.asfortranarray(table))),
        ("t.npy", npy_bytes(table.astype(">f4"))),
        ("t.pt", torch_bytes({"wpe.weight": torch.from_numpy(table)})),
        ("t.bin", torch_bytes(torch.from_numpy(table), legacy=True)),
    ]:
        np.testing.assert_array_equal(load_table((data, name)).numpy(), table)


def test_the_largest_table_in_float64_a_file_at_the_upload_limit_is_read_within_twice_its_size():
    table = np.random.default_rng(2).normal(size=(1024, MAX_TABLE_ELEMENTS // 1024))  # 64 MiB of float64
    data = npy_bytes(table)
    reset_peak()
    start = status_kib("VmRSS")
    loaded = load_table((data, "largest.npy"))
    growth = status_kib("VmHWM") - start
    assert loaded.shape == table.shape and loaded.dtype == torch.float32
    assert float(loaded[1023, -1]) == pytest.approx(table[1023, -1], rel=1e-6)
    assert growth < 2 * len(data) / 1024, f"reading a {len(data) >> 20} MiB file took {growth >> 10} MiB at its peak"


def test_zip_directories_and_npy_headers_that_lie_are_refused_by_what_they_declare():
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as archive:  # a directory bomb: entries cost memory before any is read
        for n in range(MAX_ZIP_MEMBERS + 1):
            archive.writestr(f"{n}.npy", b"")
    with pytest.raises(ValueError, match=rf"many\.npz.*zip of {MAX_ZIP_MEMBERS + 1:,} entries"):
        load_table((many.getvalue(), "many.npz"))
    real = zipfile.ZipFile(io.BytesIO(torch_bytes({"wpe": torch.zeros(2, 2)})))
    members = [(info.filename, real.read(info), zipfile.ZIP_STORED, info.file_size) for info in real.infolist()]
    members[-1] = (members[-1][0], members[-1][1], zipfile.ZIP_STORED, GIB)  # stored, yet claiming 1 GiB
    with pytest.raises(ValueError, match=r"liar\.pt.*declares 1,073,741,824 bytes uncompressed but stores"):
        load_table((zip_of(members), "liar.pt"))
    with pytest.raises(ValueError, match=r"v3\.npy.*format version \(3, 0\) is not read"):
        load_table((b"\x93NUMPY\x03\x00" + bytes(64), "v3.npy"))
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'extra': __import__('os')}"
    with pytest.raises(ValueError, match=r"code\.npy' could not be read as \.npy: malformed"):  # never evaluated
        load_table((b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header, "code.npy"))


@pytest.mark.parametrize("torch_file", [False, True], ids=["npz", "pt"])
def test_a_zip_listing_a_million_entries_while_declaring_one_is_refused_before_zipfile_reads_them(torch_file):
    data = lying_directory(1_100_000, torch_file=torch_file)  # 56-70 MB of directory records
    name = "listed.pt" if torch_file else "listed.npz"
    message, growth = _refusal_and_peak((data, name))
    assert "zip directory of" in message and "at most 2,097,152 are read" in message
    assert growth < MEMORY_BUDGET_KIB, f"refusing took {growth >> 10} MiB"


DTYPES = {
    f"{str(dtype).removeprefix('torch.')}.pt": dtype
    for dtype in (torch.uint16, torch.uint32, torch.uint64, torch.float8_e4m3fn, torch.float8_e5m2)
}


def _counting(dtype: torch.dtype) -> torch.Tensor:
    """0, 1, ..., 31 as an (8, 4) table in ``dtype`` (rounded where float8 cannot hold them)."""
    return torch.arange(32.0).reshape(8, 4).to(dtype)


def _safetensors(dtype: str, shape: list[int], nbytes: int) -> bytes:
    header = json.dumps({"wpe": {"dtype": dtype, "shape": shape, "data_offsets": [0, nbytes]}}).encode()
    return struct.pack("<Q", len(header)) + header + bytes(nbytes)


@pytest.mark.parametrize(
    "name, data",
    [
        ("f8.safetensors", _safetensors("F8_E4M3", [8, 4], 32)),  # the 111-byte file
        ("u16.safetensors", _safetensors("U16", [8, 4], 64)),
        ("u64.safetensors", _safetensors("U64", [8, 4], 256)),
        *[
            (
                f"{str(dtype).removeprefix('torch.')}.pt",
                torch_bytes({"wpe": torch.arange(32.0).reshape(8, 4).to(dtype)}),
            )
            for dtype in (torch.uint16, torch.uint32, torch.uint64, torch.float8_e4m3fn, torch.float8_e5m2)
        ],
    ],
)
def test_float8_and_unsigned_tables_are_read_as_their_numbers(name, data):
    table = load_table((data, name))
    assert table.shape == (8, 4) and table.dtype == torch.float32 and torch.isfinite(table).all()
    if name.endswith(".pt"):
        assert torch.equal(table, _counting(DTYPES[name]).to(torch.float32))
