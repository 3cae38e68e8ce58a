"""posenc_core.rope.vision: the angles of the installed transformers' Qwen2-VL vision encoder (a small model built
from its config, run on one image, its rotary output captured), a loop oracle, properties, and bad arguments."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core import rope
from posenc_core.rope import vision as vision_rope

F64 = torch.float64


def qwen2_vl_vision_rotary(grid_h, grid_w, head_dim, merge, base):
    """The (position ids, cos, sin) the Qwen2-VL vision encoder hands its blocks for one t=1 image."""
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VisionTransformerPretrainedModel

    torch.manual_seed(0)
    config = Qwen2VLVisionConfig(
        depth=1,
        embed_dim=2 * head_dim,
        hidden_size=16,
        num_heads=2,
        in_channels=1,
        patch_size=2,
        temporal_patch_size=1,
        spatial_merge_size=merge,
        rope_parameters={"rope_type": "axial", "rope_theta": base},
    )
    model = Qwen2VisionTransformerPretrainedModel(config).eval()
    seen = {}
    model.rotary_pos_emb.register_forward_hook(
        lambda module, args, out: seen.update(ids=args[1], cos=out[0], sin=out[1])
    )
    with torch.no_grad():
        model(torch.randn(grid_h * grid_w, 4), grid_thw=torch.tensor([[1, grid_h, grid_w]]))
    return seen["ids"], seen["cos"], seen["sin"], model.rotary_pos_emb.inv_freq


def loop_oracle(grid_h, grid_w, head_dim, merge, base):
    """Blocks of merge x merge patches row by row, patches row by row inside a block; pair j < d/4 turns by
    r·base^(-4j/d), pair d/4 + j by c·base^(-4j/d)."""
    quarter = head_dim // 4
    omega = [base ** (-4 * j / head_dim) for j in range(quarter)]
    positions, angles = [], []
    for block_row in range(grid_h // merge):
        for block_col in range(grid_w // merge):
            for inner_row in range(merge):
                for inner_col in range(merge):
                    r, c = block_row * merge + inner_row, block_col * merge + inner_col
                    positions.append((r, c))
                    angles.append([r * w for w in omega] + [c * w for w in omega])
    return torch.tensor(positions), torch.tensor(angles, dtype=F64)


@pytest.mark.parametrize(
    ("grid_h", "grid_w", "head_dim", "merge", "base"),
    [(4, 6, 16, 2, 10000.0), (8, 4, 80, 2, 10000.0), (6, 6, 32, 3, 500.0), (3, 5, 8, 1, 10000.0)],
)
def test_angles_equal_qwen2_vl_vision_rotary(grid_h, grid_w, head_dim, merge, base):
    ids, cos, sin, inv_freq = qwen2_vl_vision_rotary(grid_h, grid_w, head_dim, merge, base)
    assert torch.equal(vision_rope.patch_positions(grid_h, grid_w, spatial_merge_size=merge, device="cpu"), ids)
    torch.testing.assert_close(vision_rope.axial_inv_freq(head_dim, base=base, device="cpu"), inv_freq)
    angles = vision_rope.axial_angles(grid_h, grid_w, head_dim, base=base, spatial_merge_size=merge, device="cpu")
    assert angles.shape == (grid_h * grid_w, head_dim // 2)
    both_halves = torch.cat([angles, angles], dim=-1)  # HF repeats the d/2 angles for the two halves of the head
    torch.testing.assert_close(both_halves.cos(), cos, atol=2e-6, rtol=0)
    torch.testing.assert_close(both_halves.sin(), sin, atol=2e-6, rtol=0)


@pytest.mark.parametrize(
    ("grid_h", "grid_w", "head_dim", "merge", "base"),
    [(4, 6, 16, 2, 10000.0), (6, 9, 12, 3, 100.0), (5, 3, 40, 1, 1e6)],
)
def test_angles_equal_a_loop_oracle(device, grid_h, grid_w, head_dim, merge, base):
    positions, expected = loop_oracle(grid_h, grid_w, head_dim, merge, base)
    got_positions = vision_rope.patch_positions(grid_h, grid_w, spatial_merge_size=merge, device=device)
    assert torch.equal(got_positions.cpu(), positions)
    got = vision_rope.axial_angles(
        grid_h, grid_w, head_dim, base=base, spatial_merge_size=merge, device=device, dtype=F64
    ).cpu()
    torch.testing.assert_close(got, expected, atol=1e-12, rtol=1e-14)


def test_the_frequencies_are_1d_rope_of_half_the_head():
    torch.testing.assert_close(
        vision_rope.axial_inv_freq(80, base=10000.0, device="cpu", dtype=F64),
        rope.inv_freq(40, base=10000.0, device="cpu", dtype=F64)[0],
    )


@settings(max_examples=30, deadline=None)
@given(merge=st.integers(1, 4), blocks=st.tuples(st.integers(1, 5), st.integers(1, 5)))
def test_merge_order_visits_every_patch_once_and_keeps_each_block_together(merge, blocks):
    grid_h, grid_w = blocks[0] * merge, blocks[1] * merge
    positions = vision_rope.patch_positions(grid_h, grid_w, spatial_merge_size=merge, device="cpu")
    flat = positions[:, 0] * grid_w + positions[:, 1]
    assert torch.equal(flat.sort().values, torch.arange(grid_h * grid_w))
    block_of = (positions[:, 0] // merge) * blocks[1] + positions[:, 1] // merge
    assert torch.equal(block_of, torch.arange(blocks[0] * blocks[1]).repeat_interleave(merge * merge))


def test_q_dot_k_depends_only_on_the_row_and_column_offsets():
    head_dim, grid = 16, 6
    angles = vision_rope.axial_angles(grid, grid, head_dim, device="cpu", dtype=F64).reshape(grid, grid, -1)
    generator = torch.Generator().manual_seed(0)
    q, k = torch.randn(head_dim, generator=generator, dtype=F64), torch.randn(head_dim, generator=generator, dtype=F64)

    def rotate(vector, theta):  # half layout: pair i = channels i and i + d/2
        cos, sin = torch.cat([theta.cos(), theta.cos()]), torch.cat([theta.sin(), theta.sin()])
        half = vector.shape[0] // 2
        return vector * cos + torch.cat([-vector[half:], vector[:half]]) * sin

    def score(a, b):
        return rotate(q, angles[a]) @ rotate(k, angles[b])

    assert score((1, 2), (3, 0)).item() == pytest.approx(score((2, 4), (4, 2)).item(), abs=1e-12)
    assert score((1, 2), (3, 0)).item() != pytest.approx(score((1, 2), (0, 3)).item(), abs=1e-6)


def test_pair_axis_splits_the_pairs_in_halves():
    assert vision_rope.pair_axis(8) == ("row", "row", "column", "column")


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: vision_rope.axial_inv_freq(6), "head_dim must be a multiple of 4"),
        (lambda: vision_rope.axial_inv_freq(16, base=1.0), "base"),
        (lambda: vision_rope.patch_positions(5, 4, spatial_merge_size=2), "multiples of spatial_merge_size 2"),
        (lambda: vision_rope.patch_positions(0, 4), "grid_h"),
        (lambda: vision_rope.patch_positions(4, 4, spatial_merge_size=0), "spatial_merge_size"),
        (lambda: vision_rope.axial_angles(4, 4, 16, dtype=torch.int64), "dtype"),
    ],
)
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises(ValueError, match=name):
        call()
