"""The Vision figures' code snippets compute what the figures draw in the corners the shared code tests do not
reach: sampled tokens and channels, a grid of partial merge blocks, shrinking with antialias, an unchanged grid."""

from __future__ import annotations

import pytest

from posenc import figures  # noqa: F401  (registers every family)
from posenc.drawing import code, registry

SETTINGS = [
    ("vision-sincos-table", {"grid_h": 40, "grid_w": 33, "embed_dim": "1280", "cls_token": True}),
    ("vision-sincos-similarity", {"grid_h": 3, "grid_w": 9, "embed_dim": "384", "patch_row": 0, "patch_col": 8}),
    ("vision-resize", {"old_grid": 20, "new_grid": 9, "resize_mode": "bicubic", "antialias": True, "seed": 11}),
    ("vision-resize", {"old_grid": 12, "new_grid": 12, "resize_mode": "bicubic", "antialias": False}),
    ("vision-rope-angles", {"grid_h": 7, "grid_w": 6, "spatial_merge_size": 2, "frequency": 0}),
    ("vision-rope-angles", {"grid_h": 9, "grid_w": 12, "spatial_merge_size": 3, "vision_head_dim": "128"}),
    ("vision-patch-grid", {"grid_h": 1, "grid_w": 64, "cls_token": False}),
]


@pytest.mark.parametrize(("figure_id", "given"), SETTINGS)
def test_the_snippet_computes_what_the_figure_draws(figure_id, given):
    values, messages = registry.resolve_params(figure_id, given)
    assert not messages
    snippet = code.snippet_for(figure_id, values)
    assert code.imported_modules(snippet.source) <= code.ALLOWED_IMPORTS
    code.assert_matches(code.run_snippet(snippet), snippet.expected(), rtol=snippet.rtol, atol=snippet.atol)


def test_the_snippet_names_the_parameters_it_was_written_for():
    values, _ = registry.resolve_params("vision-rope-angles", {"vision_head_dim": "64", "frequency": 7})
    source = code.snippet_for("vision-rope-angles", values).source
    assert "head_dim = 64" in source and "frequency = 7" in source
