"""Compare two to four schemes on one footing: similarity against relative distance k, RoPE's decay bound and a
table of metrics.

What each curve is (every curve is 1 at k = 0, so schemes of any width compare):
- sinusoidal, learned (absolute tables): the mean over p of PE(p)·PE(p+k), divided by its value at k = 0;
- RoPE: the score (R(m)q)·(R(n)k) with q = k = all-ones over head_dim and m - n = k, divided by its value at 0:
  Σ_i cos(kθ_i)/(d/2) when every channel rotates (a scaling's attention_factor scales all scores alike);
- ALiBi: exp(-m·k), the attention to a key k tokens back over the attention to the current token, equal content
  logits, one head of slope m;
- T5: its bias is one learned scalar per bucket, so without trained weights there is no curve; its panel counts
  the distinct position signals (buckets) among the distances 0..k instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from plotly.subplots import make_subplots

from figures.common import as_array, sampled_note
from figures.compare_schemes import (
    EXAMPLE,
    Scheme,
    parse_schemes,
    scheme_slopes,
)
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.theme import COLORWAY
from posenc_core import alibi, learned, metrics, presets, relative, rope, sampling, sinusoidal
from posenc_core.device import resolve_device

register_param(
    ParamSpec(
        "schemes",
        "text",
        EXAMPLE,
        "Schemes (2 to 4, comma-separated)",
        help="Items: sinusoidal[:d_model], learned[:rows or a built-in table], rope[:preset], "
        "alibi[:preset or heads][@head], t5[:preset]. Example: " + EXAMPLE,
    )
)
register_param(
    ParamSpec("distance_axis", "choice", "log", "Distance axis", choices=("log", "linear"), help="Scale of the k axis.")
)

PARAMS = ("schemes", "seq_len", "d_model", "head_dim", "base", "distance_axis")
CURVE_POINTS = 1024  # distances per curve (4 curves: 4096 points)
TABLE_ROWS = 256  # positions the distance metrics of sinusoidal and RoPE are measured on (a learned table: all rows)
EXACT_SEARCH = 1024  # "first k with similarity < 0.5" is searched over every k below this, then on the samples
FAR = 50  # the distance metric ‖u(50) − u(0)‖


def _work(p: Mapping[str, Any]) -> tuple[torch.device, torch.dtype]:
    device = resolve_device(p["device"])
    return device, torch.float32 if device.type == "mps" else torch.float64


def _rope_freq(s: Scheme, p: Mapping[str, Any]) -> tuple[torch.Tensor, float, int]:
    """(inv_freq, attention_factor, head_dim) of a RoPE item: the page's head_dim and base, or the preset's."""
    device, work = _work(p)
    if s.preset is None:
        inv, factor = rope.inv_freq(p["head_dim"], p["base"], device=device, dtype=work)
        return inv, factor, p["head_dim"]
    inv, factor = rope.inv_freq(**presets.rope_inputs(s.preset, seq_len=p["seq_len"]), device=device, dtype=work)
    return inv, factor, s.preset.rope_head_dim


@lru_cache(maxsize=4)
def _learned_table(rows: int, d_model: int, builtin: str | None) -> torch.Tensor:
    """A learned table on the CPU (shared read-only): a built-in trained one, or a random N(0, 0.02²) one."""
    if builtin is not None:
        return learned.load_builtin(builtin, device="cpu")
    return learned.random_table(rows, d_model, device="cpu")


def _table_of(s: Scheme, p: Mapping[str, Any]) -> torch.Tensor:
    return _learned_table(s.size, p["d_model"], s.table)


@lru_cache(maxsize=4)
def _offset_profile(rows: int, d_model: int, builtin: str | None) -> torch.Tensor:
    """mean over p of T[p]·T[p+k] for every k < rows: the mean of the k-th diagonal of the Gram matrix T·Tᵀ
    (at most 2048 x 2048 here; equal to ``metrics.offset_similarity``, which is slower for all k at once)."""
    gram = metrics.similarity_matrix(_learned_table(rows, d_model, builtin))
    return torch.stack([gram.diagonal(k).mean() for k in range(gram.shape[0])]).to(torch.float64)


def similarity(s: Scheme, ks: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """(distances kept, similarity there) for a non-T5 item; a learned table keeps only k < its rows."""
    device, work = _work(p)
    with_zero = torch.cat([torch.zeros(1, dtype=torch.int64), ks.cpu()]).to(device)
    if s.kind == "sinusoidal":
        values = sinusoidal.relative_similarity(with_zero, s.size, device=device, dtype=work)
    elif s.kind == "learned":
        profile = _offset_profile(s.size, p["d_model"], s.table)  # (rows,)
        with_zero = with_zero[with_zero < profile.numel()]
        values = profile[with_zero.cpu()]
    elif s.kind == "rope":
        inv, factor, head_dim = _rope_freq(s, p)
        ones = torch.ones(head_dim, device=device, dtype=work)
        values = rope.relative_scores(ones, ones, with_zero, inv, key_positions=[0], attention_factor=factor)[:, 0]
    else:
        slope = scheme_slopes(s)[s.head : s.head + 1]
        values = alibi.attention_to_past(slope, int(with_zero.max()), distances=with_zero, device=device, dtype=work)[0]
    return with_zero[1:].cpu(), (values[1:] / values[0]).cpu()


def distinct_buckets(s: Scheme, ks: torch.Tensor) -> torch.Tensor:
    """T5: how many different buckets the distances 0..k (keys k tokens back) fall into, for each k."""
    last = min(int(ks.max()), s.max_distance)  # from max_distance on every distance shares the last bucket
    rel = -torch.arange(last + 1)  # keys k tokens back
    exact = relative.t5_bucket(rel, num_buckets=s.size, max_distance=s.max_distance, device="cpu")
    count = torch.cat([torch.ones(1, dtype=torch.int64), (exact.diff() != 0).long()]).cumsum(0)
    return count[ks.clamp(max=last)]


def decay_bound(ks: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """RoFormer §3.4.3: B(k) = (1/(d/2)) Σ_{j=1}^{d/2} |S_j(k)|, S_j(k) = Σ_{i<j} e^{i·k·θ_i}. Shape (K,).

    |q·R(k)k| <= max_i |h_{i+1} − h_i| · (d/2)·B(k). Ref: Su et al. 2021, arXiv 2104.09864 §3.4.3.
    """
    phase = torch.outer(ks.to(torch.float64), inv_freq.cpu().to(torch.float64))  # (K, d/2)
    return torch.polar(torch.ones_like(phase), phase).cumsum(-1).abs().mean(-1)


def distances(p: Mapping[str, Any]) -> tuple[torch.Tensor, str]:
    """Exact distances at display resolution (log-spaced from 1, or evenly spaced from 0) and their note."""
    length = p["seq_len"]
    if length < 2:
        raise ValueError(f"seq_len must be at least 2 to compare distances (got {length})")
    if p["distance_axis"] == "linear":
        ks = sampling.sampled_positions(length, CURVE_POINTS)
        return ks, sampled_note(ks.numel(), length, "distances")
    grid = torch.logspace(0, math.log10(length - 1), CURVE_POINTS, dtype=torch.float64).round().long()
    ks = torch.unique(grid)
    if ks.numel() >= length - 1:
        return ks, f"all distances 1 to {length - 1:,} (k = 0 is 1 by definition; a log axis cannot show it)"
    return ks, f"sampled: {ks.numel():,} of {length - 1:,} distances, log-spaced (exact values at those distances)"


@register(
    "compare-similarity",
    title="Similarity against relative distance k, several schemes",
    page="compare",
    params=PARAMS,
)
def similarity_curves(p: Mapping[str, Any]) -> FigureResult:
    schemes, (ks, note) = parse_schemes(p["schemes"], p), distances(p)
    t5 = [s for s in schemes if s.kind == "t5"]
    log_x = p["distance_axis"] == "log"
    fig = make_subplots(
        rows=1,
        cols=2 if t5 else 1,
        column_widths=[0.62, 0.38] if t5 else None,
        horizontal_spacing=0.1,
        subplot_titles=("similarity (1 at k = 0)", "T5: distinct signals among distances 0..k") if t5 else None,
    )
    data: dict[str, np.ndarray] = {}
    table: dict[str, list[float]] = {key: [] for key in METRICS}
    for i, s in reversed(list(enumerate(schemes))):  # drawn last to first: the first item lies on top
        x, y, measured = measure(s, ks, p)
        col, what = (2, "distinct buckets") if s.kind == "t5" else (1, "similarity")
        fig.add_scatter(
            x=as_array(x),
            y=as_array(y),
            mode="lines",
            name=s.label,
            legendrank=i,
            line={
                "color": COLORWAY[i % len(COLORWAY)],
                "shape": "hv" if s.kind == "t5" else "linear",
                "dash": "dash" if s.kind in ("sinusoidal", "learned") else "solid",  # visible where curves coincide
            },
            hovertemplate=f"{s.label}<br>distance k %{{x:,}}<br>{what} %{{y:.6g}}<extra></extra>",
            row=1,
            col=col,
        )
        data[f"distance_{i}"], data[f"{what.replace(' ', '_')}_{i}"] = as_array(x), as_array(y)
        for key in METRICS:
            table[key].insert(0, measured.get(key, math.nan))
    if t5:
        fig.add_scatter(
            x=as_array(ks),
            y=as_array(ks + 1),
            mode="lines",
            name="every distance its own signal (sinusoidal, RoPE, ALiBi)",
            line={"color": "#888888", "dash": "dot"},
            hovertemplate="distance k %{x:,}<br>distinct signals %{y:,}<extra></extra>",
            row=1,
            col=2,
        )
        fig.update_yaxes(type="log" if log_x else "linear", title_text="distinct signals", row=1, col=2)
    axis_type = "log" if log_x else "linear"
    fig.update_xaxes(type=axis_type, title_text="relative distance k (tokens" + (", log)" if log_x else ")"))
    fig.update_yaxes(title_text="similarity (1 at k = 0)", row=1, col=1)
    fig.update_layout(
        title=f"Similarity against relative distance k, L={p['seq_len']:,}",
        height=480,
        legend={"orientation": "h", "y": -0.2},
    )
    data.update({f"metric_{key}": np.asarray(column, dtype=np.float64) for key, column in table.items()})
    notes = [note, *_notes(schemes)]
    return FigureResult(fig, data, tuple(notes))


def _notes(schemes: list[Scheme]) -> list[str]:
    notes = []
    if any(s.kind == "rope" for s in schemes):
        notes.append(
            "RoPE: q = k = all-ones over head_dim, so the curve is Σ_i cos(kθ_i)/(d/2) (plus a constant "
            "from channels that do not rotate); angles in float64"
        )
    if any(s.kind == "learned" and s.table is None for s in schemes):
        notes.append(
            "learned, random: an untrained table; its rows are unrelated, so the similarity drops to "
            "noise at k = 1; a table has no row past its length, so its curve stops there"
        )
    if any(s.kind == "alibi" for s in schemes):
        notes.append(
            "ALiBi: exp(−m·k) = attention to the key k tokens back ÷ attention to the current token, "
            "equal content logits"
        )
    if any(s.kind == "t5" for s in schemes):
        notes.append(
            "T5: keys k tokens back, bidirectional buckets; every distance from max_distance on shares "
            "one bucket, so T5 cannot tell those distances apart"
        )
    return notes


METRICS = {
    "similarity_at_1": "similarity at k = 1",
    "half_distance": "first k with similarity < 0.5",
    "similarity_at_last": "similarity at k = L − 1",
    "adjacent_mean": "mean ‖u(p+1) − u(p)‖",
    "adjacent_std": "std ‖u(p+1) − u(p)‖",
    "far_distance": f"‖u({FAR}) − u(0)‖",
    "longest_wavelength": "longest wavelength (tokens)",
    "wavelength_over_length": "longest wavelength ÷ L",
    "distinct_signals": "distinct signals over 0..L−1",
}


def measure(s: Scheme, ks: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    """(distances drawn, curve there, metrics by METRICS key) of one item; one core evaluation per item."""
    length = p["seq_len"]
    if s.kind == "t5":
        return (
            ks,
            distinct_buckets(s, ks),
            {"distinct_signals": float(distinct_buckets(s, ks.new_tensor([length - 1]))[0])},
        )
    exact = torch.arange(1, min(length, EXACT_SEARCH))  # every distance: the first drop below 0.5 is exact here
    kept, values = similarity(s, torch.unique(torch.cat([exact, ks, ks.new_tensor([length - 1])])), p)
    below = kept[values < 0.5]
    result = {
        "similarity_at_1": _at(kept, values, 1),
        "similarity_at_last": _at(kept, values, length - 1),
        "half_distance": math.nan if below.numel() == 0 else float(below[0]) * (1 if below[0] < EXACT_SEARCH else -1),
        "distinct_signals": float(min(length, _table_of(s, p).shape[0]) if s.kind == "learned" else length),
    }
    if s.kind != "alibi":
        result.update(_table_metrics(s, p))
    shown = torch.isin(kept, ks)
    return kept[shown], values[shown], result


def _at(kept: torch.Tensor, values: torch.Tensor, k: int) -> float:
    hit = torch.nonzero(kept == k).flatten()
    return float(values[hit[0]]) if hit.numel() else math.nan


def _table_metrics(s: Scheme, p: Mapping[str, Any]) -> dict[str, float]:
    """Distances between unit rows u(p) = T[p]/‖T[p]‖ of the first positions: the PE table, or R(p)·1 for RoPE."""
    device, work = _work(p)
    count = min(p["seq_len"], TABLE_ROWS)
    if s.kind == "sinusoidal":
        table = sinusoidal.encoding(count, s.size, device=device, dtype=work)
        longest = float(sinusoidal.wavelengths(s.size, device=device, dtype=work).max())
    elif s.kind == "learned":
        table, longest = _table_of(s, p)[: p["seq_len"]].to(device), math.nan  # every row up to L, float32
    else:
        inv, factor, head_dim = _rope_freq(s, p)
        ones = torch.ones(count, head_dim, device=device, dtype=work)
        table = rope.apply(ones, torch.arange(count, device=device), inv, attention_factor=factor)
        longest = float(rope.wavelengths(inv).max())
    unit = table / torch.linalg.vector_norm(table, dim=1, keepdim=True).clamp(min=1e-30)
    mean, std = metrics.adjacent_distance_stats(unit)  # seq_len >= 2 and tables have >= 2 rows
    return {
        "adjacent_mean": mean,
        "adjacent_std": std,
        "far_distance": metrics.distance(unit, 0, min(FAR, unit.shape[0] - 1)),
        "longest_wavelength": longest,
        "wavelength_over_length": longest / p["seq_len"],
    }


def comparison_rows(result: FigureResult, p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The metrics of ``compare-similarity`` as table rows (one per scheme) for ``st.dataframe``."""
    schemes = parse_schemes(p["schemes"], p)
    rows = []
    for i, s in enumerate(schemes):
        row: dict[str, Any] = {"scheme": s.label}
        for key, title in METRICS.items():
            value = float(result.data[f"metric_{key}"][i])
            if math.isnan(value):
                row[title] = "—"
            elif key == "half_distance":
                row[title] = f"≤ {-value:,.0f} (sampled)" if value < 0 else f"{value:,.0f}"
            elif key == "distinct_signals":
                row[title] = f"{value:,.0f}"
            else:
                row[title] = "≈ 0" if abs(value) < 1e-9 else f"{value:.4g}"
        rows.append(row)
    return rows


@register(
    "compare-decay",
    title="RoFormer long-term decay bound of the RoPE schemes",
    page="compare",
    params=PARAMS,
)
def decay_curves(p: Mapping[str, Any]) -> FigureResult:
    schemes, (ks, note) = parse_schemes(p["schemes"], p), distances(p)
    fig = make_subplots(rows=1, cols=1)
    data = {"distance": as_array(ks)}
    for i, s in enumerate(schemes):
        if s.kind != "rope":
            continue
        inv = _rope_freq(s, p)[0]
        bound = decay_bound(ks, inv) / decay_bound(torch.zeros(1, dtype=torch.int64), inv)[0]
        fig.add_scatter(
            x=as_array(ks),
            y=as_array(bound),
            mode="lines",
            name=s.label,
            line={"color": COLORWAY[i % len(COLORWAY)]},
            hovertemplate=f"{s.label}<br>distance k %{{x:,}}<br>bound ÷ bound(0) %{{y:.6g}}<extra></extra>",
        )
        data[f"bound_{i}"] = as_array(bound)
    if len(data) == 1:
        fig.add_annotation(
            text="No RoPE item in the list: add rope or rope:&lt;preset&gt; to see its bound",
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0.5,
            y=0.5,
        )
    log_x = p["distance_axis"] == "log"
    fig.update_xaxes(type="log" if log_x else "linear", title_text="relative distance k (tokens)")
    fig.update_yaxes(title_text="bound ÷ bound at k = 0")
    fig.update_layout(
        title=f"RoFormer decay bound (1/(d/2)) Σ_j |S_j(k)|, relative to k = 0, L={p['seq_len']:,}",
        height=420,
        legend={"orientation": "h", "y": -0.2},
    )
    notes = (
        note,
        "S_j(k) = Σ_{i<j} e^{i·k·θ_i} over the rotated pairs; |q·R(k)k| ≤ max_i |h_{i+1} − h_i|·Σ_j |S_j(k)| "
        "(RoFormer §3.4.3): the bound shrinks as k grows, slower where the frequencies are lower",
    )
    return FigureResult(fig, data, notes)
