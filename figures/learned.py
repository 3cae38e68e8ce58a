"""Learned absolute position tables: where the table comes from, its heatmap, similarity and offset profile.

A table is named by parameters, never passed as an array, so figures stay cacheable and exportable:
``table_source`` is ``random`` (``max_len``, ``d_model``, ``std``, ``seed``), an installed built-in real table
(e.g. ``all-MiniLM-L6-v2``), or ``upload``. An uploaded file is read once by :func:`add_upload`, which keeps the
table in a small in-process store keyed by the SHA-256 of the file's bytes and returns that hash; the page passes
it as ``upload_sha256``. The same bytes always give the same hash, so a cached figure can never show another
file's table. The store holds the last :data:`MAX_UPLOADS` tables; a link carries no file, so a hash that is not
in the store asks for the file again. The comparison with other schemes and the table's end are in
:mod:`figures.learned_compare`.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
import torch

from figures.common import as_array, heatmap, lines, sampled_note
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.sinusoidal import shown_positions
from figures.sinusoidal_similarity import SIMILARITY_POSITIONS, measured_rows, spread_band
from figures.theme import COLORWAY, DIVERGING_SCALE
from posenc_core import learned, metrics, sampling, sinusoidal
from posenc_core.device import resolve_device

BUILTINS = learned.builtin_tables()
register_param(
    ParamSpec(
        "table_source",
        "choice",
        "random",
        "Position table",
        choices=("random", *BUILTINS, "upload"),
        choice_labels={
            "random": "Seeded random table (untrained)",
            **{name: f"{table.description} (built in)" for name, table in BUILTINS.items()},
            "upload": "Upload a table (.npy, .npz, .safetensors, .pt)",
        },
    )
)
register_param(
    ParamSpec("upload_sha256", "text", "", "Uploaded table (SHA-256)", help="Set by the page from the uploaded file.")
)
register_param(ParamSpec("max_len", "int", 512, "Table length max_len (rows)", 2, 8192, help="GPT-2: 1024, BERT: 512."))
register_param(
    ParamSpec("std", "float", 0.02, "Initial std", 1e-4, 10.0, log=True, help="GPT-2 and BERT draw N(0, 0.02²).")
)
register_param(ParamSpec("seed", "int", 0, "Seed", 0, 2**32 - 1, help="The same seed gives the same table."))
register_param(
    ParamSpec(
        "similarity",
        "choice",
        "cosine",
        "Similarity",
        choices=metrics.KINDS,
        help="dot: table[p]·table[q]; cosine: the same between unit-length rows.",
    )
)

TABLE_PARAMS = ("table_source", "upload_sha256", "max_len", "d_model", "std", "seed")
HEATMAP_POSITIONS = 384
CLIP_QUANTILE = 0.995  # a few outlier rows (BERT's position 0) would wash out the rest
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
        return table.to(resolve_device(p["device"])), f"random N(0, {p['std']:g}²) table, seed={p['seed']}"
    if source == "upload":
        with _uploads_lock:
            entry = _uploads.get(p["upload_sha256"])
        if entry is None:
            raise ValueError(
                f"upload_sha256={p['upload_sha256'][:12] or '(none)'!r} names no uploaded table in this app: upload "
                "the file (a link cannot carry an uploaded file)"
            )
        name, table = entry
        return table.to(resolve_device(p["device"])), f"uploaded {name}"
    if source not in BUILTINS:
        raise ValueError(f"table_source must be one of random, upload, {', '.join(BUILTINS)} (got {source!r})")
    return _builtin(source).to(resolve_device(p["device"])), f"{source} (trained)"


def shape_text(table: torch.Tensor) -> str:
    return f"{table.shape[0]:,} x {table.shape[1]:,}"


def length_note(table: torch.Tensor, seq_len: int) -> str | None:
    """What seq_len means for this table: positions past its end have no row."""
    rows = table.shape[0]
    if seq_len > rows:
        return (
            f"seq_len={seq_len:,} but the table has only {rows:,} rows: positions {rows:,}..{seq_len - 1:,} have no "
            "row and are not shown (see the table's end below)"
        )
    return None


@register(
    "learned-heatmap",
    title="Learned position table (position x channel)",
    page="learned",
    params=(*TABLE_PARAMS, "seq_len", "view", "start"),
)
def table_heatmap(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    length, width = min(p["seq_len"], table.shape[0]), table.shape[1]
    positions, position_note = shown_positions(p, length, HEATMAP_POSITIONS)
    channels = sampling.strided_positions(width, sampling.MAX_CELLS_PER_AXIS)
    values = table[positions.to(table.device)][:, channels.to(table.device)]
    magnitude = values.abs().flatten().float()
    limit = float(torch.quantile(magnitude[:: max(1, magnitude.numel() // 2**20)], CLIP_QUANTILE)) or 1.0
    fig = heatmap(
        values,
        as_array(channels).astype(np.int32),
        as_array(positions).astype(np.int64),
        title=f"Learned table[p, j]: {described}, {shape_text(table)}, L={p['seq_len']:,}",
        x_title="channel j",
        y_title="position p (tokens)",
        value_name="value",
        colorscale=DIVERGING_SCALE,
        zmin=-limit,
        zmax=limit,
        reversed_y=True,
    )
    fig.update_layout(height=520)
    notes = [position_note]
    if float(magnitude.max()) > limit:
        notes.append(
            f"colours saturate at ±{limit:.3g} (the {CLIP_QUANTILE:.1%} quantile of |value|; the largest is "
            f"{float(magnitude.max()):.3g}): hover shows the true values"
        )
    if channels.numel() < width:
        notes.append("channels: " + sampled_note(channels.numel(), width, "channels"))
    notes += [note for note in (length_note(table, p["seq_len"]),) if note]
    data = {"table": as_array(values), "positions": as_array(positions), "channels": as_array(channels)}
    return FigureResult(fig, data, tuple(notes))


@register(
    "learned-similarity",
    title="Learned table: similarity of rows p and q",
    page="learned",
    params=(*TABLE_PARAMS, "similarity", "seq_len", "view", "start"),
)
def table_similarity(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    positions, note = shown_positions(p, min(p["seq_len"], table.shape[0]), SIMILARITY_POSITIONS)
    sim = metrics.similarity_matrix(table, kind=p["similarity"], rows=positions, cols=positions)
    ticks = as_array(positions).astype(np.int64)
    cosine = p["similarity"] == "cosine"
    fig = heatmap(
        sim,
        ticks,
        ticks,
        title=f"{p['similarity']}(table[p], table[q]): {described}, {shape_text(table)}",
        x_title="position q (tokens)",
        y_title="position p (tokens)",
        value_name=p["similarity"],
        colorscale=DIVERGING_SCALE,
        zmid=0,
        zmin=-1 if cosine else None,
        zmax=1 if cosine else None,
        reversed_y=True,
    )
    fig.update_layout(height=560)
    notes = (note, *[n for n in (length_note(table, p["seq_len"]),) if n])
    return FigureResult(fig, {"similarity": as_array(sim), "positions": as_array(positions)}, notes)


@register(
    "learned-relative",
    title="Learned vs sinusoidal: similarity against the offset k",
    page="learned",
    params=(*TABLE_PARAMS, "similarity", "seq_len", "view", "start"),
)
def offset_profile(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    length, width = min(p["seq_len"], table.shape[0]), table.shape[1]
    first = p["start"] if p["view"] == "window" else 0
    if first >= length:
        raise ValueError(f"start must be < {length:,} (the rows shown) in the window view (got {first:,})")
    rows = measured_rows(width, length - first)
    offsets = torch.arange(max(1, rows // 2))
    kind = p["similarity"]
    sinus = sinusoidal.encoding(None, width, positions=torch.arange(first, first + rows), device=table.device)
    profiles = {
        "learned": metrics.offset_similarity(table[first : first + rows], offsets, kind=kind),
        "sinusoidal": metrics.offset_similarity(sinus, offsets, kind=kind),
    }
    fig = lines(
        offsets,
        {f"{name}: mean over p": mean for name, (_, mean, _) in profiles.items()},
        title=f"{kind}(table[p], table[p+k]) against k: {described}, {shape_text(table)}",
        x_title="offset k (tokens)",
        y_title=f"{kind} similarity",
    )
    for trace, (name, (_, mean, std)), colour in zip(fig.data, profiles.items(), COLORWAY, strict=False):
        trace.line.color = colour
        fill = "rgba({},{},{},0.2)".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))
        spread_band(fig, offsets, mean, std, name=f"{name}: ± std over p", color=fill)
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
    spread = {name: float(std.mean()) for name, (_, _, std) in profiles.items()}
    notes = (
        f"measured on rows {first:,}..{first + rows - 1:,}: for each k, every p with p+k in that range; "
        f"sinusoidal: the same positions, d_model={width:,}, base 10000, interleaved",
        "mean std over p: "
        + "; ".join(f"{name} {value:.3g}" for name, value in spread.items())
        + ": a small std means the similarity depends on the offset k only, not on where the pair sits",
    )
    data = {"offset": as_array(offsets)}
    for name, (_, mean, std) in profiles.items():
        data[f"{name}_mean"], data[f"{name}_std"] = as_array(mean), as_array(std)
    return FigureResult(fig, data, notes)
