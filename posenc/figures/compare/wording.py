"""Words the Compare page shows that are written in another family's ``compare_item`` module: marked here, so they
sit in the Compare page's catalogue with the rest of its text; the module that uses one shows it with ``_(...)``."""

from __future__ import annotations

from posenc.i18n import N_

SINUSOIDAL_LABEL = N_("sinusoidal d_model={d_model}")  # figures/sinusoidal/compare_item.py: a curve's legend name
