"""The Learned page's "What to notice" points, worded for the table shown and the numbers of its figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.figures.learned.params import SIMILARITY_LABELS
from posenc.i18n import N_, _
from posenc_core.encodings import learned

TRAINED_HINT = N_("switch the position table to a trained one (all-MiniLM-L6-v2) to see what training puts there")


def _kind(p: Mapping[str, Any]) -> str:
    """random, trained (a built-in) or upload."""
    return "trained" if p["table_source"] in learned.BUILTIN_SOURCES else p["table_source"]


def table_points(p: Mapping[str, Any], rows: int) -> list[str]:
    kind = _kind(p)
    if kind == "random":
        first = _("An untrained table is noise: no row resembles its neighbour ({hint}).").format(hint=_(TRAINED_HINT))
    elif kind == "trained":
        first = _(
            "A trained table changes smoothly down the rows in many channels: neighbouring positions got similar rows. "
            "A few rows stand out (position 0 in BERT-family tables such as this one): the colours saturate there, "
            "and hover shows the true values."
        )
    else:
        first = _(
            "Your table: smooth bands down the rows mean neighbouring positions got similar rows; noise means none."
        )
    points = [first]
    if p["seq_len"] > rows:
        points.append(
            _(
                "Only the table's {rows:,} rows are drawn: positions {rows:,}..{last:,} have none (see "
                "'Past the table's end')."
            ).format(rows=rows, last=p["seq_len"] - 1)
        )
    return points


def alike_points(p: Mapping[str, Any], profile: Mapping[str, np.ndarray]) -> list[str]:
    kind, similarity = _kind(p), p["similarity"]
    numbers = []
    if len(profile["offset"]) > 1:  # a table or window of one row has no offset 1
        learned_1, sinus_1 = float(profile["learned_mean"][1]), float(profile["sinusoidal_mean"][1])
        spread, sinus_spread = float(profile["learned_std"].mean()), float(profile["sinusoidal_std"].mean())
        numbers.append(
            _(
                "At offset k = 1 the learned rows' mean {similarity} is {learned:.3g} (sinusoidal {sinusoidal:.3g}); "
                "the spread over p is {spread:.3g} on average (sinusoidal {sinusoidal_spread:.3g})."
            ).format(
                similarity=_(SIMILARITY_LABELS.get(similarity, similarity)),
                learned=learned_1,
                sinusoidal=sinus_1,
                spread=spread,
                sinusoidal_spread=sinus_spread,
            )
        )
    if kind == "random":
        shape = _(
            "An untrained table: each row is similar only to itself, so the similarity drops to about 0 at k = 1 with "
            "a wide spread over p; the sinusoidal code has the same similarity at every p (its band is thin) "
            "({hint})."
        ).format(hint=_(TRAINED_HINT))
    elif kind == "trained":
        shape = _(
            "The trained table has learned smoothness: nearby rows are similar and the similarity falls off with "
            "the offset k overall (with bumps), a relative structure that nobody wrote down. Its band, unlike the "
            "sinusoidal one, is wide: the similarity also depends on where the pair sits."
        )
    else:
        shape = _("A similarity that falls off with k and a thin band mean the table learned a relative structure.")
    return [shape, *numbers]


def compare_points(data: Mapping[str, np.ndarray]) -> list[str]:
    adjacent, norm = data["adjacent_mean"], data["row_norm"]
    return [
        _("Without position encoding every distance is 0: every position looks the same to attention."),
        _(
            "Neighbours differ by {learned:.3g} in the learned table against row norms of {learned_norm:.3g}, by "
            "{sinusoidal:.3g} against {sinusoidal_norm:.3g} in the sinusoidal code: compare each bar with its row "
            "norm."
        ).format(learned=adjacent[0], learned_norm=norm[0], sinusoidal=adjacent[1], sinusoidal_norm=norm[1]),
    ]


def beyond_points(p: Mapping[str, Any], rows: int) -> list[str]:
    seq_len = p["seq_len"]
    if seq_len > rows:
        where = _("seq_len = {seq_len:,} is past it: positions {rows:,}..{last:,} have no encoding at all.").format(
            seq_len=seq_len, rows=rows, last=seq_len - 1
        )
    else:
        where = _("Set seq_len above {rows:,} and the rest of the context has no encoding at all.").format(rows=rows)
    return [
        _("A table has exactly max_len rows, here {rows:,}. {where}").format(rows=rows, where=where),
        _(
            "Nothing computes the missing rows, unlike sinusoidal or RoPE: a longer context needs a longer table, "
            "interpolated from the trained rows (ViT does this for larger images, usually with some fine-tuning) or "
            "trained."
        ),
    ]
