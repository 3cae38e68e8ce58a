"""Which positions and channels a figure shows: every position of a window, or an even-stride overview of
the whole range; both channels of evenly spaced frequency pairs. Shared by every family."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common import sampled_note
from posenc.i18n import _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal


def shown_positions(p: Mapping[str, Any], length: int, max_points: int) -> tuple[torch.Tensor, str]:
    """The positions a figure shows and a note saying which: every position of the window from ``start``, or
    every s-th position over the whole range 0 .. length-1 (one stride, so heatmaps draw as one image; the
    overview ignores ``start``)."""
    if p["view"] == "window":
        if p["start"] >= length:
            message = _("start must be < the length {length:,} in the window view (got {start:,})")
            raise ValueError(message.format(length=length, start=p["start"]))
        positions = sampling.window_positions(p["start"], max_points, length)
        note = _("window: every position from {first:,} to {last:,}")
        return positions, note.format(first=int(positions[0]), last=int(positions[-1]))
    positions = sampling.strided_positions(length, max_points)
    stride = int(sampling.sampling_stride(positions))
    return positions, _("overview, {note}").format(note=sampled_note(positions.numel(), length, stride=stride))


def shown_channels(d_model: int, layout: str, max_pairs: int) -> tuple[torch.Tensor, str | None]:
    """Both channels of evenly spaced frequency pairs (all channels when they fit), in channel order."""
    pair = sinusoidal.channel_pair_index(d_model, layout, device="cpu")
    n_pairs = int(pair.max()) + 1
    if n_pairs <= max_pairs:
        return torch.arange(d_model), None
    chosen = sampling.strided_positions(n_pairs, max_pairs)
    channels = torch.nonzero(torch.isin(pair, chosen)).flatten()
    note = _(
        "channels: {shown} of {total:,} shown (the sin and cos channel of {chosen} evenly spaced frequency pairs "
        "of {pairs:,})"
    ).format(shown=channels.numel(), total=d_model, chosen=chosen.numel(), pairs=n_pairs)
    return channels, note
