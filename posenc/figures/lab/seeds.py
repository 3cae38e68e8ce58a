"""The length lab's numbers across its seeds: every checkpoint is trained once per seed, and each figure draws the
mean of the seeds with their spread, the band from the lowest to the highest seed,

    mean(n) = (1/S) Σ_s v_s(n),   low(n) = min_s v_s(n),   high(n) = max_s v_s(n)

over the S seeds that hold the table, NaN at a length where any of them has no value (a learned table past L).
Min to max rather than mean ± one standard deviation: with three seeds a standard deviation is a rough guess,
and the band then shows every seed. Pure functions of the results' seed views (:func:`posenc_lab.results.seed_view`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from posenc.i18n import _


@dataclass(frozen=True)
class Spread:
    """One curve across seeds: ``x`` (the rows' lengths), ``mean``, ``low``, ``high`` (NaN where a seed has no
    value), ``values`` (seeds, points), the ``seeds`` that hold the table and the rows of the first of them."""

    x: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    values: np.ndarray
    seeds: tuple[int, ...]
    rows: list

    def columns(self, name: str) -> dict[str, np.ndarray]:
        """The figure's data columns: ``name`` (the mean), ``name_low`` and ``name_high``."""
        return {name: self.mean, f"{name}_low": self.low, f"{name}_high": self.high}


def table(view: Mapping[str, Any], path: Sequence[str]) -> Any:
    """The entry at ``path`` (keys, e.g. ("lm", "sliding", "rope")) of one seed's view; None where it has none."""
    node: Any = view
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def row_values(rows: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    """``row[key]`` for every row, NaN where the row has none."""
    return np.array([np.nan if row.get(key) is None else float(row[key]) for row in rows], dtype=np.float64)


def stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high) over the first axis (the seeds); NaN wherever one seed has NaN."""
    values = np.asarray(values, dtype=np.float64)
    return values.mean(axis=0), values.min(axis=0), values.max(axis=0)


def spread(views: Sequence[Mapping[str, Any]], path: Sequence[str], key: str) -> Spread | None:
    """``key`` of the rows at ``path`` in each seed's view, as a :class:`Spread`; None when no seed holds rows
    there. ValueError when the seeds' rows are not at the same lengths."""
    held = [(view, rows) for view in views if (rows := table(view, path))]
    if not held:
        return None
    x = np.array([row["length"] for row in held[0][1]], dtype=np.float64)
    for view, rows in held:
        if [row["length"] for row in rows] != x.tolist():
            raise ValueError(f"path {'/'.join(path)}: seed {view.get('seed')} has rows at other lengths")
    values = np.stack([row_values(rows, key) for _, rows in held])
    mean, low, high = stats(values)
    seeds = tuple(int(view.get("seed", index)) for index, (view, _) in enumerate(held))
    return Spread(x, mean, low, high, values, seeds, list(held[0][1]))


def seeds_words(count: int) -> str:
    """ "1 seed" or "3 seeds", in the reader's language."""
    return _("1 seed") if count == 1 else _("{n} seeds").format(n=count)


def spread_note(seeds: Sequence[int]) -> str:
    """The sentence every lab figure across seeds carries: how many seeds, and what the line and band are."""
    if len(seeds) == 1:
        return _("1 seed (seed {seed}): each curve is that one model's, with no spread to show.").format(seed=seeds[0])
    return _("{seeds} ({which}): each line is their mean, the band runs from the lowest seed to the highest.").format(
        seeds=seeds_words(len(seeds)), which=", ".join(map(str, seeds))
    )
