"""Reading the tensors of an untrusted weight file without trusting it: what a file declares (a ``.npy`` header, a
zip directory, a safetensors header) is checked before any of its data is read, and nothing is ever unpickled.

- ``.npy``: the header (numpy's own reader, at most 10,000 bytes) gives dtype and shape; the data are read later,
  exactly ``prod(shape) * itemsize`` bytes, and only for the tensor chosen.
- ``.npz``: a zip of ``.npy`` members. The zip directory is read first (at most :data:`MAX_ZIP_DIRECTORY` bytes and
  :data:`MAX_ZIP_MEMBERS` entries, counted as listed, not as the end record declares);
  a member whose declared uncompressed size is over the budget is refused before it is inflated (a 3 MB file can
  declare 3 GiB of zeros); then each member's header, as for ``.npy``.
- ``.pt/.pth/.bin``: a zip-format torch file has its directory checked first (entry count; the bytes its compressed
  entries inflate to, against the budget); then ``torch.load(weights_only=True)``, as for a legacy pickle.
- ``.safetensors``: the header's declared length is bounded (and must fit in the file); ``safe_open`` reads the
  header, and one tensor's bytes only when that tensor is chosen.

The budget, in bytes, is what the largest accepted table takes in float64 plus room for a header.

Ref: NEP 1 (the .npy format); PKWARE APPNOTE 6.3 (zip and zip64 end records); the safetensors format
(huggingface/safetensors README); PyTorch serialization (torch.load, weights_only).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import pickle
import re
import struct
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import torch
from safetensors import safe_open

MAX_ZIP_MEMBERS = 4096  # a checkpoint holds a few hundred tensors; a zip of millions is a directory bomb
MAX_ZIP_DIRECTORY = MAX_ZIP_MEMBERS * 512  # bytes: 4096 entries with names of a few hundred characters
HEADER_ROOM = 1 << 16  # bytes allowed beside a table's values (a .npy header, a torch file's pickle)
MAX_SAFETENSORS_HEADER = 16 << 20  # a model's header lists its tensors in a few hundred KB
NEVER_LOADED = "holds Python objects, which are never loaded (only numbers are read, never pickled objects)"
_ZIP_MAGIC = b"PK\x03\x04"
_TORCH_INTS = (
    *(torch.uint8, torch.uint16, torch.uint32, torch.uint64),
    *(torch.int8, torch.int16, torch.int32, torch.int64),
)


@dataclass(frozen=True)
class Entry:
    """One tensor of a file, known by its header: its shape, its kind ("float", "int", "complex", "object" or a
    dtype's name) and how to read its values (called only for the tensor chosen)."""

    shape: tuple[int, ...]
    kind: str
    load: Callable[[], Any]


def open_source(source: Any) -> tuple[str, Path | bytes]:
    """(display name, path or bytes) of any accepted source."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"source {str(source)!r} is not a file")
        return str(source), path
    if isinstance(source, tuple) and len(source) == 2 and isinstance(source[1], str):
        data, name = source
        if isinstance(data, bytes | bytearray | memoryview):
            return name, bytes(data)
    name = getattr(source, "name", None)
    reader = getattr(source, "getvalue", None) or getattr(source, "read", None)
    if isinstance(name, str) and callable(reader):
        return os.path.basename(name), bytes(reader())
    raise ValueError(
        "source must be a path, a (data: bytes, filename: str) pair or an uploaded file with .name and "
        f".getvalue()/.read() (got {type(source).__name__}; raw bytes carry no file name to tell the format)"
    )


@contextlib.contextmanager
def read_entries(name: str, data: Path | bytes, suffix: str, max_elements: int) -> Iterator[dict[str, Entry]]:
    """Every tensor in the file as name -> :class:`Entry` ("" for a file holding a single array), open for reading
    while the context lasts. ``max_elements`` sets the byte budget of what may be inflated or read."""
    size = data.stat().st_size if isinstance(data, Path) else len(data)
    if size == 0:
        raise ValueError(f"source {name!r} is empty (0 bytes)")
    max_bytes = max_elements * 8 + HEADER_ROOM
    with contextlib.ExitStack() as stack:
        try:
            entries = _parse(stack, name, data, suffix, max_bytes)
        except ValueError as error:
            if str(error).startswith(f"source {name!r}"):
                raise
            raise ValueError(f"source {name!r} could not be read as {suffix}: {first_line(error)}") from error
        except pickle.UnpicklingError as error:
            found = re.search(r"Unsupported (global: GLOBAL [\w.]+|operand \d+)", str(error))
            detail = f" ({found.group(0)})" if found else ""
            if "global" in detail:  # a class or function the pickle names: code that would run
                raise ValueError(f"source {name!r} {NEVER_LOADED}{detail}") from error
            raise ValueError(
                f"source {name!r} could not be read with torch.load(weights_only=True): it is not a torch file, or it "
                f"{NEVER_LOADED}{detail}"
            ) from error
        except Exception as error:  # any parse failure of an untrusted file becomes a readable ValueError
            raise ValueError(f"source {name!r} could not be read as {suffix}: {first_line(error)}") from error
        if not entries:
            raise ValueError(f"source {name!r} holds no tensors")
        yield entries


def _parse(stack: contextlib.ExitStack, name: str, data: Path | bytes, suffix: str, max_bytes: int) -> dict:
    if suffix == ".safetensors":
        return _safetensors_entries(stack, name, data)
    opener = (lambda: data.open("rb")) if isinstance(data, Path) else (lambda: io.BytesIO(data))
    if suffix == ".npy":
        return {"": _npy_entry(opener, f"source {name!r}")}
    stream = stack.enter_context(opener())
    if suffix == ".npz":
        return _npz_entries(stack, name, stream, max_bytes)
    head = stream.read(16)
    if head.startswith(_ZIP_MAGIC):
        stream.seek(0)
        check_torch_zip(name, stream, max_bytes)
    elif not head.startswith(b"\x80"):  # a legacy torch file is a pickle, which opens with its protocol
        raise ValueError(f"source {name!r} is not a torch file ({suffix}): {_what_it_is(head)}")
    stream.seek(0)
    return _torch_entries(torch.load(stream, map_location="cpu", weights_only=True))


def _npy_header(stream: IO[bytes], where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran_order, dtype) from a .npy header, nothing more read."""
    try:
        version = np.lib.format.read_magic(stream)
    except ValueError:
        raise ValueError(f"{where} is not a .npy file: it does not start with numpy's magic string") from None
    readers = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    if version not in readers:
        raise ValueError(f"{where}: .npy format version {version} is not read (1.0 and 2.0 are)")
    return readers[version](stream)


def _kind(dtype: np.dtype) -> str:
    if dtype.hasobject:
        return "object"
    return {"f": "float", "i": "int", "u": "int", "c": "complex"}.get(dtype.kind, str(dtype))


def _npy_entry(opener: Callable[[], IO[bytes]], where: str) -> Entry:
    """The entry of one .npy stream: its header now, its data (exactly the bytes the header promises) on load."""
    with opener() as stream:
        shape, _, dtype = _npy_header(stream, where)

    def load() -> torch.Tensor:
        with opener() as stream:
            _, fortran_order, _ = _npy_header(stream, where)
            raw = bytearray(math.prod(shape) * dtype.itemsize)  # bounded: the size was checked before loading
            got = stream.readinto(raw)
        if got < len(raw):
            raise ValueError(f"{where} is truncated: its header promises {len(raw):,} bytes of data, it has {got:,}")
        array = np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran_order else "C")
        return torch.from_numpy(np.asarray(array, dtype=np.float64))  # float64 as read: no copy

    return Entry(tuple(shape), _kind(dtype), load)


def _zip_directory_extent(stream: IO[bytes]) -> tuple[int, int, int] | None:
    """(entries declared, start, size) of the zip's central directory, from its end record (zip64 too), or None
    when there is none (not a zip: the reader says so)."""
    stream.seek(0, io.SEEK_END)
    size = stream.tell()
    stream.seek(max(0, size - (1 << 16) - 22))
    base = stream.tell()
    tail = stream.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + 22 > len(tail):
        return None
    count, directory_size = struct.unpack_from("<HI", tail, at + 10)
    directory_end = base + at
    if at >= 20 and tail[at - 20 : at - 16] == b"PK\x06\x07":  # zip64: its end record holds the real numbers
        stream.seek(struct.unpack_from("<Q", tail, at - 12)[0])
        record = stream.read(56)
        if record[:4] == b"PK\x06\x06" and len(record) == 56:
            count, directory_size = struct.unpack_from("<QQ", record, 32)
            directory_end = base + at - 20 - 56
    return count, directory_end - directory_size, directory_size


def _zip_listed_count(stream: IO[bytes], start: int, size: int, most: int) -> int:
    """How many entries the central directory lists (what zipfile would read, whatever the end record declares),
    counted by walking its records' fixed headers, at most ``most + 1``."""
    stream.seek(max(0, start))
    directory = stream.read(size)
    count = at = 0
    while at + 46 <= len(directory) and directory[at : at + 4] == b"PK\x01\x02" and count <= most:
        name, extra, comment = struct.unpack_from("<HHH", directory, at + 28)
        at += 46 + name + extra + comment
        count += 1
    return count


def _zip_directory(name: str, stream: IO[bytes]) -> zipfile.ZipFile:
    """The archive, once its central directory is known to be small: zipfile parses every entry it lists into
    memory (a few hundred bytes each) before anything can be refused, so the bytes it would read and the entries it
    would find are counted first."""
    extent = _zip_directory_extent(stream)
    if extent is not None:
        declared, start, size = extent
        if size > MAX_ZIP_DIRECTORY:
            raise ValueError(
                f"source {name!r} has a zip directory of {size:,} bytes (at most {MAX_ZIP_DIRECTORY:,} are read)"
            )
        listed = declared if declared > MAX_ZIP_MEMBERS else _zip_listed_count(stream, start, size, MAX_ZIP_MEMBERS)
        if listed > MAX_ZIP_MEMBERS:
            shown = (
                f"{declared:,}" if declared > MAX_ZIP_MEMBERS else f"over {MAX_ZIP_MEMBERS:,}"
            )  # listed: counted so far
            raise ValueError(f"source {name!r} is a zip of {shown} entries (at most {MAX_ZIP_MEMBERS:,} are read)")
    stream.seek(0)
    return zipfile.ZipFile(stream)


def _npz_entries(stack: contextlib.ExitStack, name: str, stream: IO[bytes], max_bytes: int) -> dict[str, Entry]:
    archive = stack.enter_context(_zip_directory(name, stream))
    members = [info for info in archive.infolist() if info.filename.endswith(".npy")]
    for info in members:
        if info.file_size > max_bytes:
            raise ValueError(
                f"source {name!r}: member {info.filename[:-4]!r} declares {info.file_size:,} bytes uncompressed, "
                f"more than the largest table takes ({max_bytes:,} bytes); it is not inflated"
            )
    where = f"source {name!r} member"
    return {
        info.filename[:-4]: _npy_entry(lambda info=info: archive.open(info), f"{where} {info.filename!r}")
        for info in members
    }


def check_torch_zip(name: str, stream: IO[bytes], max_bytes: int) -> None:
    """Refuse a zip-format torch file whose compressed entries would inflate past the budget (torch.save stores its
    entries uncompressed; a deflated one inflates in memory when read), or whose stored entries claim more bytes
    than they hold. The length lab reads its checkpoints through it too (``posenc_lab.checkpoints``)."""
    with _zip_directory(name, stream) as archive:
        infos = archive.infolist()
    inflated = sum(info.file_size for info in infos if info.compress_type != zipfile.ZIP_STORED)
    if inflated > max_bytes:
        raise ValueError(
            f"source {name!r}: its compressed entries declare {inflated:,} bytes uncompressed, more than the largest "
            f"table takes ({max_bytes:,} bytes); they are not inflated"
        )
    for info in infos:
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            raise ValueError(
                f"source {name!r}: entry {info.filename!r} declares {info.file_size:,} bytes uncompressed but stores "
                f"{info.compress_size:,}"
            )


def _safetensors_entries(stack: contextlib.ExitStack, name: str, data: Path | bytes) -> dict[str, Entry]:
    """Headers only: a tensor's bytes are read when its entry is loaded (one table out of a 90 MB model)."""
    if isinstance(data, bytes):  # safe_open reads files only
        head, size = data[:8], len(data)
        path = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "upload.safetensors"
        path.write_bytes(data)
        data = path
    else:
        with data.open("rb") as stream:
            head, size = stream.read(8), data.stat().st_size
    if len(head) < 8:
        raise ValueError(f"source {name!r} is not a safetensors file: it is shorter than the header's 8-byte length")
    declared = struct.unpack("<Q", head)[0]
    if declared > min(MAX_SAFETENSORS_HEADER, size - 8):
        raise ValueError(
            f"source {name!r}: its safetensors header claims {declared:,} bytes, but the file holds "
            f"{size - 8:,} after the length (and at most {MAX_SAFETENSORS_HEADER:,} are read)"
        )
    handle = stack.enter_context(safe_open(str(data), framework="pt"))
    entries = {}
    for key in handle.keys():  # noqa: SIM118 - safe_open handles are not iterable
        header = handle.get_slice(key)
        kind = header.get_dtype()  # "F32", "BF16", "I64", "BOOL", "C64", ...
        kind = "float" if kind.startswith(("F", "BF")) else "int" if kind[0] in "IU" else kind
        kind = "complex" if kind.startswith("C") else kind
        entries[key] = Entry(tuple(header.get_shape()), kind, lambda key=key: handle.get_tensor(key))
    return entries


def _torch_entries(loaded: Any, prefix: str = "") -> dict[str, Entry]:
    """A tensor, or the tensors of a (nested) state dict under dotted names."""
    if isinstance(loaded, torch.Tensor):
        kind = "float" if loaded.is_floating_point() else "complex" if loaded.is_complex() else str(loaded.dtype)
        kind = "int" if loaded.dtype in _TORCH_INTS else kind
        return {prefix: Entry(tuple(loaded.shape), kind, lambda: loaded)}
    entries: dict[str, Entry] = {}
    if isinstance(loaded, Mapping):
        for key, value in loaded.items():
            entries.update(_torch_entries(value, f"{prefix}.{key}" if prefix else str(key)))
    return entries


def _what_it_is(head: bytes) -> str:
    """What a file that is no torch checkpoint looks like, from its first bytes (a torch file is a zip archive or
    a pickle)."""
    if head.startswith(b"\x93NUMPY"):
        return "it is a NumPy .npy file: name it .npy"
    if len(head) >= 9 and head[8:9] == b"{" and int.from_bytes(head[:8], "little") < MAX_SAFETENSORS_HEADER:
        return "it looks like a safetensors file: name it .safetensors"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text and all(character.isprintable() or character in "\t\r\n" for character in text):
        return f"it is text ({text!r}…), not a zip archive or a pickle"
    return f"a torch file is a zip archive or a pickle, and this one starts with the bytes {head[:8].hex(' ')}"


def first_line(error: Exception) -> str:
    """An error's first line, short (library messages may go on with advice meant for a programmer)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:200]
