"""Hostile position-table files, made at test time (small on disk, whatever they claim), for the core, page and
browser tests of the Learned page's upload.

Each case is (file name, bytes, what its refusal must say: a regex). The pickles would create ``marker`` if they
ever ran (``builtins.open(marker, "w")``); the zip bombs inflate to what they declare (CRC left at 0: nothing
may read that far).
"""

from __future__ import annotations

import io
import pickle
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import torch

GIB = 1 << 30
ZEROS = bytes(1 << 20)


class Payload:
    """Unpickling this opens ``path`` for writing: the file appearing means pickled code ran."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def npy_bytes(array: np.ndarray, *, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    """The header of a .npy file claiming ``shape`` (the data that should follow is left out)."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def deflated_zeros(prefix: bytes, size: int) -> bytes:
    """A raw deflate stream inflating to ``prefix`` then zeros, ``size`` bytes in all, about size / 1000 bytes long:
    each 1 MiB of zeros is one block after a full flush, so the same bytes repeat."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(prefix) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(ZEROS) + compressor.flush(zlib.Z_FULL_FLUSH)
    rest = size - len(prefix)
    tail = compressor.compress(bytes(rest % len(ZEROS))) + compressor.flush()
    return head + block * (rest // len(ZEROS)) + tail


def zip_of(members: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip64 archive of (name, raw data, method, declared uncompressed size), written by hand so that a member
    may claim gigabytes it only holds deflated."""
    out, directory = io.BytesIO(), []
    for name, data, method, size in members:
        offset, encoded = out.tell(), name.encode()
        extra = struct.pack("<HHQQ", 1, 16, size, len(data))
        out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 45, 0, method, 0, 0x21, 0, 0xFFFFFFFF, 0xFFFFFFFF,
                              len(encoded), len(extra)) + encoded + extra + data)  # fmt: skip
        extra = struct.pack("<HHQQQ", 1, 24, size, len(data), offset)
        directory.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45, 0, method, 0, 0x21, 0,
                                     0xFFFFFFFF, 0xFFFFFFFF, len(encoded), len(extra), 0, 0, 0, 0, 0xFFFFFFFF)
                         + encoded + extra)  # fmt: skip
    start = out.tell()
    out.write(b"".join(directory))
    end, count = out.tell(), len(directory)
    out.write(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, end - start, start))
    out.write(struct.pack("<4sIQI", b"PK\x06\x07", 0, end, 1))
    out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
    return out.getvalue()


def npz_bomb(size: int = 3 * GIB) -> bytes:
    """A .npz whose one member, a float64 table of ``size`` bytes, is deflated to about size / 1000 bytes."""
    rows = size // (4096 * 8)
    header = npy_header((rows, 4096))
    total = len(header) + rows * 4096 * 8
    return zip_of([("wpe.npy", deflated_zeros(header, total), zipfile.ZIP_DEFLATED, total)])


def pt_bomb(size: int = GIB) -> bytes:
    """A torch zip checkpoint ({"wpe": (2, 2) zeros}) whose storage record is deflated and inflates to ``size``."""
    buffer = io.BytesIO()
    torch.save({"wpe": torch.zeros(2, 2)}, buffer)
    members = []
    with zipfile.ZipFile(buffer) as archive:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename.endswith("/data/0"):
                members.append((info.filename, deflated_zeros(b"", size), zipfile.ZIP_DEFLATED, size))
            else:
                members.append((info.filename, data, zipfile.ZIP_STORED, len(data)))
    return zip_of(members)


def corrupt_npz() -> bytes:
    """A .npz whose member has a good header and 40 KB of good data, then bytes that are no deflate stream."""
    header = npy_header((64, 64), "<f4")
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    good = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    good += compressor.compress(bytes(40_000)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return zip_of([("wpe.npy", good + b"\xff\xfe not deflate" * 4, zipfile.ZIP_DEFLATED, len(header) + 64 * 64 * 4)])


def legacy_storage_claim(elements: int = 1 << 30) -> bytes:
    """A legacy (pre-zip) torch pickle whose one storage claims ``elements`` float32 values (4 GiB) and holds 15."""
    data = torch_bytes({"wpe": torch.zeros(3, 5)}, legacy=True)
    claim = struct.pack("<i", elements)
    data = data.replace(b"K\x0fNtq\x07", b"J" + claim + b"Ntq\x07")  # the storage's size in its persistent id
    return data.replace(b"a.\x0f" + bytes(7), b"a." + struct.pack("<q", elements))  # and before its raw bytes


def torch_bytes(obj, *, legacy: bool = False) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer, _use_new_zipfile_serialization=not legacy)
    return buffer.getvalue()


def lying_directory(listed: int, *, declared: int = 1, torch_file: bool = False) -> bytes:
    """A zip whose end record declares ``declared`` entries while its central directory lists ``listed`` (copies
    of one real entry's record): zipfile parses every listed entry, whatever the end record says."""
    if torch_file:
        real = torch_bytes({"wpe": torch.zeros(2, 2)})
    else:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("wpe.npy", npy_bytes(np.zeros((2, 2), np.float32)))
        real = buffer.getvalue()
    end = real.rfind(b"PK\x05\x06")
    size, offset = struct.unpack_from("<II", real, end + 12)
    record = real[offset : offset + size]
    first = record[: 46 + sum(struct.unpack_from("<HHH", record, 28))]  # the directory's first entry
    directory = first * listed
    return (
        real[:offset]
        + directory
        + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, declared, declared, len(directory), offset, 0)
    )


def safetensors_header(length: int, header: bytes) -> bytes:
    return struct.pack("<Q", length) + header


def hostile_tables(marker: Path) -> list[tuple[str, bytes, str]]:
    """Every kind of hostile or broken table file, with the words its refusal must contain."""
    table = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    nan_table, inf_table = table.copy(), table.copy()
    nan_table[2, 1], inf_table[3, 0] = np.nan, np.inf
    pickled = "holds Python objects"
    return [
        ("payload.pt", torch_bytes({"wpe": Payload(marker)}), pickled),
        ("payload.bin", torch_bytes({"wpe": Payload(marker)}, legacy=True), pickled),
        ("payload.pth", pickle.dumps(Payload(marker)), pickled),
        ("objects.npy", npy_bytes(np.array([Payload(marker), None], dtype=object), allow_pickle=True), pickled),
        ("complex.npy", npy_bytes(table.astype(np.complex64)), "complex"),
        ("huge.npy", npy_header((1 << 20, 1 << 20)) + bytes(64), r"1048576 x 1048576 .* more than"),
        ("bomb.npz", npz_bomb(), "uncompressed"),
        ("bomb.pt", pt_bomb(), "uncompressed"),
        ("corrupt.npz", corrupt_npz(), "could not be read"),
        ("claims.bin", legacy_storage_claim(), "could not be read"),
        ("malformed.safetensors", safetensors_header(40, b'{"wpe": {"dtype": "F32", "shape": [8, ') + bytes(40),
         "could not be read"),
        ("oversized.safetensors", safetensors_header(1 << 40, b"{}"), "header"),
        ("nan.npy", npy_bytes(nan_table), "NaN or inf"),
        ("inf.npy", npy_bytes(inf_table), "NaN or inf"),
        ("extreme.npy", npy_bytes(np.full((8, 4), 3e38, np.float32)), "magnitude"),
        ("scalar.npy", npy_bytes(np.float32(1.0)), "2-D"),
        ("vector.npy", npy_bytes(np.zeros(8, np.float32)), "2-D"),
        ("cube.npy", npy_bytes(np.zeros((2, 3, 4), np.float32)), "2-D"),
        ("lying.npz", lying_directory(5000), "zip of over 4,096 entries"),
        ("lying.pt", lying_directory(5000, torch_file=True), "zip of over 4,096 entries"),
        ("sparse.pt", torch_bytes({"wpe": torch.ones(8, 4).to_sparse()}), "sparse_coo tensor; only dense"),
        ("meta.pt", torch_bytes({"wpe": torch.empty(8, 4, device="meta")}), "meta device"),
        ("empty.pt", b"", "empty"),
        ("text.npy", b"positions,channels\n1,2\n", "not a .npy file"),
    ]  # fmt: skip


def status_kib(field: str, pid: int | str = "self") -> int:
    """A memory field of /proc/PID/status (VmRSS, VmHWM: the peak resident size), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_peak(pid: int | str = "self") -> None:
    """Start VmHWM again from the current resident size (Linux: "5" into /proc/PID/clear_refs)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
