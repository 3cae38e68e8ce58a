"""Where a learned table comes from: a seeded random table, a built-in trained one, or an uploaded file."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, NamedTuple

import torch

from posenc.i18n import _
from posenc_core import learned
from posenc_core.device import resolve_device

MAX_UPLOADS = 4


_uploads: OrderedDict[str, tuple[str, torch.Tensor]] = OrderedDict()  # sha256 -> (file name, CPU table)


_uploads_lock = threading.Lock()


class Upload(NamedTuple):
    sha256: str  # the ``upload_sha256`` parameter
    shape: tuple[int, int]


def add_upload(data: bytes, filename: str) -> Upload:
    """Read an uploaded table (``posenc_core.learned.load_table``; a ValueError says what is wrong) once and
    keep it under the SHA-256 of ``data``."""
    digest = hashlib.sha256(data).hexdigest()
    with _uploads_lock:
        if digest in _uploads:
            _uploads.move_to_end(digest)
            return Upload(digest, tuple(_uploads[digest][1].shape))
    table = learned.load_table((data, filename), device="cpu")
    with _uploads_lock:
        _uploads[digest] = (filename, table)
        while len(_uploads) > MAX_UPLOADS:
            _uploads.popitem(last=False)
    return Upload(digest, tuple(table.shape))


def add_table(table: torch.Tensor, name: str) -> Upload:
    """Keep a table read elsewhere (a model's table fetched by id) as an upload is kept, under the SHA-256 of its
    name and values."""
    table = table.detach().to("cpu", torch.float32).contiguous()
    digest = hashlib.sha256(name.encode() + b"\0" + table.numpy().tobytes()).hexdigest()
    with _uploads_lock:
        _uploads[digest] = (name, table)
        _uploads.move_to_end(digest)
        while len(_uploads) > MAX_UPLOADS:
            _uploads.popitem(last=False)
    return Upload(digest, tuple(table.shape))


# The few most recent tables, on the CPU, shared read-only by the figures of one page (up to 32 MB each).
@lru_cache(maxsize=2)
def _random(max_len: int, d_model: int, std: float, seed: int) -> torch.Tensor:
    return learned.random_table(max_len, d_model, std=std, seed=seed, device="cpu")


@lru_cache(maxsize=2)
def _builtin(name: str) -> torch.Tensor:
    return learned.load_builtin(name, device="cpu")


def load(p: Mapping[str, Any]) -> tuple[torch.Tensor, str]:
    """The (L, d) table the parameters name, on ``p["device"]``, and a short description of it."""
    source = p["table_source"]
    if source == "random":
        table = _random(p["max_len"], p["d_model"], p["std"], p["seed"])
        described = _("random N(0, {std:g}²) table, seed={seed}").format(std=p["std"], seed=p["seed"])
        return table.to(resolve_device(p["device"])), described
    if source == "upload":
        with _uploads_lock:
            entry = _uploads.get(p["upload_sha256"])
        if entry is None:
            raise ValueError(
                _(
                    "upload_sha256={digest!r} names no uploaded table in this app: upload the file (a link cannot "
                    "carry an uploaded file)"
                ).format(digest=p["upload_sha256"][:12] or "(none)")
            )
        name, table = entry
        return table.to(resolve_device(p["device"])), _("uploaded {name}").format(name=name)
    if source not in learned.BUILTIN_SOURCES:
        known = ", ".join(learned.BUILTIN_SOURCES)
        raise ValueError(
            _("table_source must be one of random, upload, {known} (got {source!r})").format(known=known, source=source)
        )
    if source not in learned.builtin_tables():
        raise ValueError(
            _(
                "table_source {source!r} is not installed: {command} (make install does it); it can be chosen as soon "
                "as it is installed, without restarting the app"
            ).format(source=source, command=learned.BUILTIN_SOURCES[source].install_command)
        )
    return _builtin(source).to(resolve_device(p["device"])), _("{source} (trained)").format(source=source)


def shape_text(table: torch.Tensor) -> str:
    return f"{table.shape[0]:,} x {table.shape[1]:,}"


def length_note(table: torch.Tensor, seq_len: int) -> str | None:
    """What seq_len means for this table: positions past its end have no row."""
    rows = table.shape[0]
    if seq_len > rows:
        return _(
            "seq_len={seq_len:,} but the table has only {rows:,} rows: positions {rows:,}..{last:,} have no row and "
            "are not shown (see the table's end below)"
        ).format(seq_len=seq_len, rows=rows, last=seq_len - 1)
    return None
