import pytest

from tests.pages.conftest import (
    assert_healthy,
    chart_array,
    chart_specs,
    control,
    open_page,
    payload_bytes,
    titles,
    warning_text,
)

PAGE = "vision"
FULL = {
    "grid_h": "6",
    "grid_w": "8",
    "cls_token": "0",
    "embed_dim": "128",
    "patch_row": "2",
    "patch_col": "5",
    "old_grid": "10",
    "new_grid": "20",
    "resize_mode": "bilinear",
    "antialias": "0",
    "channel": "3",
    "seed": "7",
    "vision_head_dim": "32",
    "vision_base": "100",
    "frequency": "3",
    "spatial_merge_size": "2",
}
LARGEST = {
    "grid_h": "64",
    "grid_w": "64",
    "embed_dim": "1280",
    "patch_row": "63",
    "patch_col": "63",
    "old_grid": "64",
    "new_grid": "64",
    "vision_head_dim": "128",
    "frequency": "31",
    "spatial_merge_size": "8",
}


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


def test_defaults_draw_every_figure_without_a_warning():
    at = open_page(PAGE)
    assert_healthy(at)
    assert warning_text(at) == ""
    assert titles(at) == [
        "14×14 patches, read row by row after [CLS]",
        "2-D sin-cos, 14×14 patches + [CLS], dim=256",
        "Cosine to patch (4, 9), 14×14, dim=256",
        "Smooth random table, channel 0: 14² → 24² (bicubic, antialias)",
        "2-D RoPE, head_dim=80, base=10000: ω_2 = 0.398 rad/patch",
    ]


def test_the_page_opens_on_the_patch_grid_alone():
    at = open_page(PAGE, section=None)
    assert_healthy(at)
    assert titles(at) == ["14×14 patches, read row by row after [CLS]"]
    assert "patch (r, c) is token 1 + r·14 + c" in _notice(at)
    assert any(r"\sin c\omega" in block.value for block in at.latex)


def test_url_restores_every_parameter():
    at = open_page(PAGE, FULL)
    assert_healthy(at)
    assert warning_text(at) == ""
    assert control(at, "grid_h").value == 6 and control(at, "grid_w").value == 8
    assert control(at, "cls_token").value is False
    assert control(at, "embed_dim").value == "128"
    assert control(at, "patch_row").value == 2 and control(at, "patch_col").value == 5
    assert control(at, "old_grid").value == 10 and control(at, "new_grid").value == 20
    assert control(at, "resize_mode").value == "bilinear" and control(at, "antialias").value is False
    assert control(at, "channel").value == 3 and control(at, "seed").value == 7
    assert control(at, "vision_head_dim").value == "32" and control(at, "vision_base").value == 100
    assert control(at, "frequency").value == 3 and control(at, "spatial_merge_size").value == 2
    assert titles(at) == [
        "6×8 patches, read row by row",
        "2-D sin-cos, 6×8 patches, dim=128",
        "Cosine to patch (2, 5), 6×8, dim=128",
        "Smooth random table, channel 3: 10² → 20² (bilinear, no antialias)",
        "2-D RoPE, head_dim=32, base=100: ω_3 = 0.178 rad/patch",
    ]
    grid = chart_specs(at)[0]["data"][0]
    assert chart_array(grid["z"]).reshape(-1)[0] == 0  # no [CLS]: the first patch is token 0


@pytest.mark.parametrize(
    ("key", "value", "figure", "changed"),
    [
        ("grid_w", 10, 0, "6×10 patches"),
        ("cls_token", True, 1, "6×8 patches + [CLS]"),
        ("embed_dim", "768", 1, "dim=768"),
        ("patch_col", 1, 2, "Cosine to patch (2, 1)"),
        ("new_grid", 5, 3, "10² → 5²"),
        ("antialias", True, 3, "(bilinear, antialias)"),
        ("channel", 9, 3, "channel 9"),
        ("frequency", 0, 4, "ω_0 = 1 rad/patch"),
        ("vision_base", 10000.0, 4, "base=10000"),
        ("spatial_merge_size", 1, 4, None),
    ],
)
def test_each_control_changes_its_figure(key, value, figure, changed):
    at = open_page(PAGE, FULL)
    before = chart_specs(at)[figure]
    control(at, key).set_value(value).run()
    assert_healthy(at)
    after = chart_specs(at)[figure]
    assert after != before
    assert changed is None or changed in after["layout"]["title"]["text"]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"grid_h": "abc"}, "grid_h='abc' is not a valid whole number; using 14"),
        (
            {"grid_h": "4", "patch_row": "99"},
            "patch_row='99' is outside the allowed range (0 to 3: the grid has 4 rows)",
        ),
        ({"embed_dim": "7"}, "embed_dim='7' is outside the allowed range"),
        ({"vision_head_dim": "16", "frequency": "50"}, "(0 to 3: head_dim 16 has 4 frequencies per axis); using 3"),
        ({"new_grid": "1000"}, "new_grid='1000' is outside the allowed range (2 to 64); using 64"),
    ],
)
def test_hostile_link_values_give_a_message_next_to_the_control(query, words):
    at = open_page(PAGE, query)
    assert_healthy(at)
    assert words in warning_text(at)


def test_a_grid_that_is_not_whole_merge_blocks_is_said_not_refused():
    at = open_page(PAGE, {"grid_h": "7", "spatial_merge_size": "2"}, section="2-D RoPE")
    assert_healthy(at)
    assert "not whole 2×2 blocks" in "\n".join(caption.value for caption in at.caption)
    assert "order panel is row by row" in _notice(at)


def test_the_largest_parameters_stay_under_the_page_budget():
    at = open_page(PAGE, LARGEST)
    assert_healthy(at)
    assert warning_text(at) == ""
    assert len(chart_specs(at)) == 5
    assert payload_bytes(at) < 3_000_000
