"""How the context-extension figures look: one colour per variant, the page's own variant solid, the others dimmed."""

from __future__ import annotations

from figures.context.variants import VARIANTS
from figures.theme import COLORWAY

VARIANT_COLOURS = dict(zip(VARIANTS, COLORWAY[1:], strict=False)) | {"default": "#555555"}


DIMMED = 0.45  # opacity of the variants that are not the page's rope_type
