"""The Vision (2-D) figures draw the core's numbers: token order, MAE's table, cosines, the resized table and the
2-D RoPE angles; ranges follow the grid and the head; the largest parameters stay at display resolution."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.vision import notes
from posenc.figures.vision.params import RESIZE_CHANNELS
from posenc_core import sampling
from posenc_core.encodings import vision
from posenc_core.rope import vision as vision_rope

F64 = torch.float64
LARGEST = {
    "grid_h": 64,
    "grid_w": 64,
    "embed_dim": "1280",
    "patch_row": 63,
    "patch_col": 63,
    "old_grid": 64,
    "new_grid": 64,
    "vision_head_dim": "128",
    "frequency": 31,
    "spatial_merge_size": 8,
}


def _build(figure_id, **given):
    params, messages = registry.resolve_params(figure_id, given)
    assert not messages, messages
    return params, registry.build(figure_id, params)


@pytest.mark.parametrize("cls_token", [True, False])
def test_patch_grid_numbers_the_patches_row_by_row_after_cls(cls_token):
    _, result = _build("vision-patch-grid", grid_h=3, grid_w=5, cls_token=cls_token)
    first = 1 if cls_token else 0
    np.testing.assert_array_equal(result.data["token"], np.arange(15).reshape(3, 5) + first)
    assert result.figure.layout.title.text == "3×5 patches, read row by row" + (" after [CLS]" if cls_token else "")
    assert len(result.figure.layout.shapes) == int(cls_token)  # the [CLS] cell beside the grid
    notice = notes.grid_points({"cls_token": cls_token}, result.data)
    assert f"the patch below (0, 0) is token {5 + first}, 5 tokens away" in notice[1]


def test_sincos_table_draws_maes_table_at_the_rows_and_channels_shown():
    params, result = _build("vision-sincos-table", grid_h=3, grid_w=4, embed_dim="64", cls_token=True)
    expected = vision.sincos_2d(3, 4, 64, cls_token=True, device="cpu")
    np.testing.assert_array_equal(result.data["table"], expected.numpy())
    np.testing.assert_array_equal(result.data["tokens"], np.arange(13))
    assert result.figure.layout.title.text == "2-D sin-cos, 3×4 patches + [CLS], dim=64"
    labels = [a.text for a in result.figure.layout.annotations]
    assert labels == ["sin(c·ω)", "cos(c·ω)", "sin(r·ω)", "cos(r·ω)"]
    assert (
        "channels 0–31) encodes the column c: it repeats every 4 tokens" in notes.table_points(params, result.data)[0]
    )


def test_sincos_table_at_the_largest_grid_is_sampled_and_says_so():
    params, _ = registry.resolve_params("vision-sincos-table", LARGEST)
    result = registry.build("vision-sincos-table", params)
    rows, columns = result.data["table"].shape
    assert rows <= sampling.MAX_CELLS_PER_AXIS and columns <= sampling.MAX_CELLS_PER_AXIS
    tokens, channels = result.data["tokens"].astype(int), result.data["channels"].astype(int)
    full = vision.sincos_2d(64, 64, 1280, cls_token=True, device="cpu")
    np.testing.assert_array_equal(result.data["table"], full[tokens][:, channels].numpy())
    assert any("sampled" in note and "4,097 tokens" in note for note in result.notes)
    assert len(result.figure.to_json()) < 2_000_000


def test_similarity_is_the_cosine_of_the_chosen_patch_on_the_grid():
    params, result = _build("vision-sincos-similarity", grid_h=5, grid_w=7, embed_dim="128", patch_row=2, patch_col=3)
    table = vision.sincos_2d(5, 7, 128, device="cpu", dtype=F64)
    chosen = table[2 * 7 + 3]
    expected = (table @ chosen / (table.norm(dim=1) * chosen.norm())).reshape(5, 7)
    np.testing.assert_allclose(result.data["similarity"], expected.numpy(), atol=1e-6)
    assert result.data["similarity"][2, 3] == pytest.approx(1.0)
    shape = result.figure.layout.shapes[0]
    assert (shape.x0, shape.x1, shape.y0, shape.y1) == (2.5, 3.5, 1.5, 2.5)
    points = notes.similarity_points(params, result.data)
    assert "Left and right neighbours score the same" in points[2]


def test_the_chosen_patch_follows_the_grid():
    params, messages = registry.resolve_params("vision-sincos-similarity", {"grid_h": 4, "patch_row": 9})
    assert params["patch_row"] == 3 and "the grid has 4 rows" in messages[0]
    with pytest.raises(ValueError, match="patch_row and patch_col must be inside the 4×14 grid"):
        registry.build("vision-sincos-similarity", params | {"patch_row": 4})


def test_resize_draws_the_core_resize_of_the_seeded_table():
    given = {"old_grid": 14, "new_grid": 24, "resize_mode": "bicubic", "antialias": True, "channel": 5, "seed": 2}
    params, result = _build("vision-resize", **given)
    small = vision.smooth_random_table(14, 14, RESIZE_CHANNELS, std=0.02, seed=2, device="cpu")
    resized = vision.resize_table(small, 24, mode="bicubic", antialias=True)
    sampled = vision.smooth_random_table(24, 24, RESIZE_CHANNELS, std=0.02, seed=2, device="cpu")
    np.testing.assert_array_equal(result.data["before"], small[1:, 5].reshape(14, 14).numpy())
    np.testing.assert_array_equal(result.data["after"], resized[1:, 5].reshape(24, 24).numpy())
    np.testing.assert_allclose(
        result.data["difference"], (resized[1:, 5] - sampled[1:, 5]).reshape(24, 24).numpy(), atol=1e-9
    )
    assert result.data["cls"][0] == result.data["cls"][1] == small[0, 5]
    assert result.figure.layout.title.text == "Smooth random table, channel 5: 14² → 24² (bicubic, antialias)"
    assert "not a trained one" in result.notes[0]
    difference = np.abs(result.data["difference"])
    assert difference[2:-2, 2:-2].max() < difference.max()  # the edges carry the largest error
    assert "a = −0.5" in notes.resize_points(params, result.data)[-1]


def test_rope_angles_are_the_core_angles_of_one_row_pair_and_one_column_pair():
    given = {
        "grid_h": 6,
        "grid_w": 8,
        "vision_head_dim": "16",
        "vision_base": 100.0,
        "frequency": 1,
        "spatial_merge_size": 2,
    }
    params, result = _build("vision-rope-angles", **given)
    angles = vision_rope.axial_angles(6, 8, 16, base=100.0, device="cpu").reshape(6, 8, 8)
    np.testing.assert_allclose(result.data["row_angle"], torch.remainder(angles[..., 1], 2 * math.pi), atol=1e-6)
    np.testing.assert_allclose(result.data["column_angle"], torch.remainder(angles[..., 5], 2 * math.pi), atol=1e-6)
    order = result.data["order"].astype(int)
    positions = vision_rope.patch_positions(6, 8, spatial_merge_size=2, device="cpu")
    np.testing.assert_array_equal(order[positions[:, 0], positions[:, 1]], np.arange(48))
    np.testing.assert_array_equal(order[:2, :2], [[0, 1], [2, 3]])
    assert "ω_1 = 0.316 rad/patch" in result.figure.layout.title.text
    assert "tokens 0–3 are the top-left block" in notes.rope_points(params, result.data)[2]


def test_the_rope_angles_colour_bar_stands_beside_the_panels_it_belongs_to():
    _, result = _build("vision-rope-angles")  # 14 x 14 patches, 196 numbered cells
    order, row_pair, column_pair = result.figure.data
    assert (order.xaxis, row_pair.xaxis, column_pair.xaxis) == ("x", "x2", "x3")  # the order first, at the left
    assert order.showscale is False and order.textfont.size >= 8  # numbers at a size that keeps 195 apart from 196
    assert row_pair.coloraxis == column_pair.coloraxis == "coloraxis"  # the bar at the right: the angles' own
    layout = result.figure.layout
    assert layout.xaxis.domain[1] - layout.xaxis.domain[0] > layout.xaxis2.domain[1] - layout.xaxis2.domain[0]
    assert [annotation.text for annotation in layout.annotations] == ["order", "pair 2: row", "pair 22: column"]


def test_resize_panels_number_their_rows_once_and_share_one_column_title():
    _, result = _build("vision-resize")
    layout = result.figure.layout
    assert [layout[f"xaxis{n}"].title.text for n in ("", "2", "3")] == [None, "patch column", None]
    assert layout.yaxis.showticklabels is not False and layout.yaxis2.showticklabels is layout.yaxis3.showticklabels
    assert layout.yaxis2.showticklabels is False  # square grids: each panel's column numbers give its rows


def test_the_cls_cell_holds_its_token_and_is_named_beside_it():
    _, result = _build("vision-patch-grid", cls_token=True)
    texts = [annotation.text for annotation in result.figure.layout.annotations]
    assert texts == ["0", "[CLS]"]  # "[CLS]" is wider than a cell: under it, not in it


def test_a_grid_of_partial_merge_blocks_is_drawn_row_by_row_with_a_note():
    _, result = _build("vision-rope-angles", grid_h=5, grid_w=6, spatial_merge_size=2)
    np.testing.assert_array_equal(result.data["order"], np.arange(30).reshape(5, 6))
    assert any("not whole 2×2 blocks" in note for note in result.notes)


def test_the_frequency_follows_the_head_dim():
    params, messages = registry.resolve_params("vision-rope-angles", {"vision_head_dim": "16", "frequency": 10})
    assert params["frequency"] == 3 and "head_dim 16 has 4 frequencies per axis" in messages[0]
    with pytest.raises(ValueError, match="frequency must be below head_dim/4 = 4"):
        registry.build("vision-rope-angles", params | {"frequency": 4})


@pytest.mark.parametrize(
    "figure_id",
    ["vision-patch-grid", "vision-sincos-table", "vision-sincos-similarity", "vision-resize", "vision-rope-angles"],
)
def test_the_largest_parameters_stay_at_display_resolution(figure_id):
    params, messages = registry.resolve_params(figure_id, LARGEST)
    assert not messages
    result = registry.build(figure_id, params)
    for trace in result.figure.data:
        z = getattr(trace, "z", None)
        if z is not None:
            assert all(size <= sampling.MAX_CELLS_PER_AXIS for size in np.shape(z))
    assert len(result.figure.to_json()) < 2_000_000
