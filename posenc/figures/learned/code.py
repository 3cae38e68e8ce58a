"""The code behind the learned-table figures, in PyTorch, for the seeded random table (an untrained BERT-style
table, N(0, std²)). A trained or uploaded table is data, not a formula: those figures show no snippet.

Ref: Devlin et al. 2019, arXiv 1810.04805 (BERT's initializer_range 0.02); Vaswani et al. 2017 §3.5 (the sinusoidal
table compared).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, assignments, code_block, expect, figure_data, index_code, register_code
from posenc.drawing.shown import shown_positions
from posenc.figures.learned.table import HEATMAP_POSITIONS
from posenc.figures.learned.versus import FAR
from posenc.figures.sinusoidal.similarity import SIMILARITY_POSITIONS, measured_rows
from posenc_core import sampling

RANDOM_TABLE = """
    g = torch.Generator().manual_seed(seed)  # every entry N(0, std²), drawn in float64, kept in float32
    table = (torch.randn(max_len, d_model, generator=g, dtype=torch.float64) * std).float()  # (max_len, d_model)
    """
SINUSOIDAL = """
    def sinusoidal(positions, d):  # Vaswani's table: base 10000, channel 2i = sin(p·ω_i), 2i + 1 = cos(p·ω_i)
        angle = positions[:, None].double() * 10000.0 ** (-2 * torch.arange((d + 1) // 2).double() / d)
        pe = torch.zeros(len(positions), d, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle[:, : d // 2].cos()
        return pe.float()
    """


def _table(values: Mapping[str, Any], *extra: str) -> str:
    return assignments(values, "max_len", "d_model", "std", "seed", *extra)


def _random_only(builder):
    """A trained or uploaded table has no formula: no snippet (None) for those sources."""

    def build(values: Mapping[str, Any]) -> Snippet | None:
        return builder(values) if values["table_source"] == "random" else None

    build.__doc__ = builder.__doc__
    return build


@register_code("learned-heatmap")
@_random_only
def heatmap_code(values: Mapping[str, Any]) -> Snippet:
    length = min(values["seq_len"], values["max_len"])
    positions, _ = shown_positions(values, length, HEATMAP_POSITIONS)
    channels = sampling.strided_positions(values["d_model"], sampling.MAX_CELLS_PER_AXIS)
    source = code_block(
        _table(values),
        RANDOM_TABLE,
        f"""
        positions = {index_code(positions, "torch")}  # the rows drawn
        channels = {index_code(channels, "torch")}  # the columns drawn
        result = table[positions][:, channels]
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=lambda: figure_data("learned-heatmap", values)["table"])


@register_code("learned-similarity")
@_random_only
def similarity_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown_positions(values, min(values["seq_len"], values["max_len"]), SIMILARITY_POSITIONS)
    cosine = values["similarity"] == "cosine"
    unit = "rows = rows / rows.norm(dim=1, keepdim=True)  # cosine: unit rows" if cosine else ""
    source = code_block(
        _table(values),
        RANDOM_TABLE,
        f"""
        positions = {index_code(positions, "torch")}  # the rows and columns drawn
        rows = table[positions]
        {unit}
        result = rows @ rows.T  # {values["similarity"]} similarity of every pair of positions
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=lambda: figure_data("learned-similarity", values)["similarity"], atol=1e-5)


@register_code("learned-relative")
@_random_only
def relative_code(values: Mapping[str, Any]) -> Snippet:
    length = min(values["seq_len"], values["max_len"])
    first = values["start"] if values["view"] == "window" else 0
    rows = measured_rows(values["d_model"], length - first)
    unit = "x = x / x.norm(dim=1, keepdim=True)  # cosine: unit rows" if values["similarity"] == "cosine" else ""
    source = code_block(
        _table(values),
        RANDOM_TABLE,
        SINUSOIDAL,
        f"""
        def profile(x):  # mean and std over p of sim(x[p], x[p + k]), for each offset k
            x = x.double()
            {unit}
            sims = [(x[: len(x) - k] * x[k:]).sum(dim=1) for k in offsets]
            return torch.stack([s.mean() for s in sims]), torch.stack([s.std(correction=0) for s in sims])
        """,
        f"""
        positions = torch.arange({first}, {first + rows})  # consecutive rows the profile is measured on
        offsets = torch.arange({max(1, rows // 2)})
        result = {{"offset": offsets}}
        result["learned_mean"], result["learned_std"] = profile(table[positions])
        result["sinusoidal_mean"], result["sinusoidal_std"] = profile(sinusoidal(positions, d_model))
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=lambda: figure_data("learned-relative", values), atol=1e-5)


@register_code("learned-compare")
@_random_only
def compare_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        _table(values),
        RANDOM_TABLE,
        SINUSOIDAL,
        f"""
        far = min({FAR}, max_len - 1)
        tables = {{"learned": table, "sinusoidal": sinusoidal(torch.arange(max_len), d_model),
                  "none": torch.zeros(max_len, 1)}}  # none: every position the same vector
        steps = [(t[1:] - t[:-1]).double().norm(dim=1) for t in tables.values()]  # ‖T[p+1] - T[p]‖
        result = {{
            "adjacent_mean": [float(s.mean()) for s in steps],
            "adjacent_std": [float(s.std(correction=0)) for s in steps],
            "distance": [float((t[far] - t[0]).norm()) for t in tables.values()],  # ‖T[far] - T[0]‖
            "row_norm": [float(t.norm(dim=1).mean()) for t in tables.values()],
            "far": [far],
        }}
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=lambda: figure_data("learned-compare", values))


@register_code("learned-beyond")
@_random_only
def beyond_code(values: Mapping[str, Any]) -> Snippet:
    positions = sampling.sampled_positions(values["max_len"], sampling.MAX_CURVE_POINTS)
    source = code_block(
        _table(values),
        RANDOM_TABLE,
        f"""
        positions = {index_code(positions, "torch")}  # the rows drawn; positions >= max_len have no row
        result = {{"positions": positions, "row_norm": table[positions].double().norm(dim=1)}}
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=expect("learned-beyond", values, "positions", "row_norm"))
