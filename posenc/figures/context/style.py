"""How the context-extension figures look: one colour per variant, the page's own variant solid, the others dimmed."""

from __future__ import annotations

# Hues far apart on the colour wheel, so every pair of variants is told apart at a glance (PI and Llama 3.1 too).
VARIANT_COLOURS = {
    "default": "#7f7f7f",  # mid grey: readable on a white and on a dark background
    "linear": "#d62728",  # red
    "ntk": "#2ca02c",  # green
    "dynamic": "#ff7f0e",  # orange
    "yarn": "#9467bd",  # purple
    "llama3": "#17becf",  # cyan
    "longrope": "#8c564b",  # brown
}

DIMMED = 0.7  # opacity of the variants that are not the page's rope_type (still readable)
