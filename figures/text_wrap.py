"""Text laid out for Plotly, which never wraps a line itself: titles and labels broken at spaces to a width in
pixels (estimated from the font size), and the title a builder wrote, kept when the app wraps it for a phone."""

from __future__ import annotations

import re

import plotly.graph_objects as go

CHAR_WIDTH = 0.55  # a character's mean width in em (DejaVu Sans: about 0.5; a little over, so estimates err roomy)
UNWRAPPED_TITLE = "unwrapped_title"  # the layout.meta key holding a title as its builder wrote it


def wrap(text: str, width: float, font_size: float) -> str:
    """``text`` (Plotly's, lines split by <br>) broken at spaces so that no line is wider than ``width`` pixels,
    into lines of about equal length (no word left alone on the last line)."""
    most = max(int(width / (CHAR_WIDTH * font_size)), 8)
    wrapped = []
    for line in re.split(r"<br\s*/?>", text):
        lines = _greedy(line, most)
        for even in range(len(line) // len(lines), most):  # the shortest line length giving as few lines
            if len(_greedy(line, even)) == len(lines):
                lines = _greedy(line, even)
                break
        wrapped += lines
    return "<br>".join(wrapped)


def _greedy(line: str, most: int) -> list[str]:
    lines, current = [], ""
    for word in line.split(" "):
        if current and len(current) + 1 + len(word) > most:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return [*lines, current]


def unwrapped_title(fig: go.Figure) -> str | None:
    """The title as its builder wrote it (before the app wrapped it for a phone), or None for a figure without."""
    meta = fig.layout.meta
    if isinstance(meta, dict) and UNWRAPPED_TITLE in meta:
        return meta[UNWRAPPED_TITLE]
    return fig.layout.title.text
