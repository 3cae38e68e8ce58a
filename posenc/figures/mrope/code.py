"""The code behind the M-RoPE figures: the (T, H, W) position ids of text, image and video tokens as HF's
``get_rope_index`` builds them (NumPy), and the angles each rotary pair takes from its axis (PyTorch, float32).

Ref: Wang et al. 2024, arXiv 2409.12191 (Qwen2-VL, M-RoPE); HF ``Qwen2VLModel.get_rope_index`` and
``apply_multimodal_rotary_pos_emb``; Qwen3-VL's interleaved layout (``apply_interleaved_mrope``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, expect, literal, register_code
from posenc.figures.mrope.segments import parse_segments
from posenc_core import sampling


def position_ids_code(values: Mapping[str, Any]) -> str:
    """``segments``, ``blocks`` (each segment's (3, n) ids) and ``ids`` (3, N): rows T, H, W."""
    segments = [
        ("text", s.count) if s.kind == "text" else (s.kind, s.t, s.h, s.w)
        for s in parse_segments(values["segments"], values["spatial_merge_size"])
    ]
    return f"""
        merge = {literal(values["spatial_merge_size"])}  # spatial_merge_size: merge x merge patches become one token
        segments = {segments}  # text: tokens; image, video: t x h x w patches
        blocks, start = [], 0
        for kind, *size in segments:
            if kind == "text":  # T = H = W = start + k: a text token steps by one on every axis
                block = np.arange(size[0])[None, :].repeat(3, axis=0)
            else:  # one token per merged patch, temporal patch by temporal patch, row by row: T, H, W = its indices
                t, h, w = size[0], size[1] // merge, size[2] // merge
                grid = np.meshgrid(np.arange(t), np.arange(h), np.arange(w), indexing="ij")
                block = np.stack([axis.ravel() for axis in grid])
            blocks.append(block + start)
            start = blocks[-1].max() + 1  # the next segment starts after the largest id so far
        ids = np.concatenate(blocks, axis=1)  # (3, tokens): rows T, H, W
        """


@register_code("mrope-position-ids")
def position_ids_figure_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        position_ids_code(values),
        """
        segment = np.concatenate([np.full(block.shape[1], k) for k, block in enumerate(blocks)])
        result = {"token": np.arange(ids.shape[1]), "t": ids[0], "h": ids[1], "w": ids[2], "segment": segment}
        """,
    )
    return Snippet(source, expected=expect("mrope-position-ids", values))


@register_code("mrope-grid")
def grid_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        position_ids_code(values),
        f"""
        vision = [block for (kind, *_), block in zip(segments, blocks) if kind != "text"]
        result = {{}}
        if vision:  # the image or video chosen (vision_index, counted from 1; the last one when there are fewer)
            block = vision[min({literal(values["vision_index"])}, len(vision)) - 1]
            result = {{"t": block[0], "h": block[1], "w": block[2]}}
        """,
    )
    return Snippet(source, expected=expect("mrope-grid", values))


@register_code("mrope-channels")
def channels_code(values: Mapping[str, Any]) -> Snippet:
    n_tokens = sum(s.count for s in parse_segments(values["segments"], values["spatial_merge_size"]))
    tokens = sampling.strided_positions(n_tokens, sampling.MAX_CELLS_PER_AXIS)
    if values["mrope_layout"] == "qwen2_vl":  # blocks: the fastest pairs follow time
        axis = "axis = torch.repeat_interleave(torch.arange(3), torch.tensor(mrope_section))  # T..., H..., W..."
    else:  # Qwen3-VL: T, H, W, T, H, W, ... while H and W last
        axis = """
            pair = torch.arange(head_dim // 2)
        axis = torch.zeros_like(pair)  # T, H, W, T, H, W, ... while H and W last, then T
        axis[(pair % 3 == 1) & (pair < 3 * mrope_section[1])] = 1
        axis[(pair % 3 == 2) & (pair < 3 * mrope_section[2])] = 2"""
    source = code_block(
        position_ids_code(values),
        f"""
        head_dim, base, mrope_section = {values["head_dim"]}, {literal(values["base"])}, {list(values["mrope_section"])}
        inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim)  # θ_i, as 1-D RoPE
        {axis.strip()}
        tokens = torch.arange(0, {n_tokens}, {int(tokens[1] - tokens[0]) if tokens.numel() > 1 else 1})  # tokens drawn
        angles = torch.from_numpy(ids)[axis][:, tokens].T.float() * inv_freq  # θ[n, i] = id[axis(i), n] · θ_i
        result = {{"pair": torch.arange(head_dim // 2), "axis": axis, "wavelength": 2 * math.pi / inv_freq,
                  "tokens": tokens, "angles": angles}}
        """,
        imports=("math", "numpy as np", "torch"),
    )
    return Snippet(source, expected=expect("mrope-channels", values))
