"""Every config.json block a plan writes, merged into the real config.json it is written for (keys replaced, as a
person edits the file) and loaded by transformers' own config class and rotary code at T, gives the plan's own
per-pair wavelengths and attention factor (relative 1e-4): for every RoPE fixture (tests/fixtures/configs), every
method the planner allows for it and both forms (transformers 4's rope_scaling, transformers 5's
rope_parameters). Rotary modules are built, never models. Skips without transformers."""

from __future__ import annotations

import importlib
import json

import pytest
import torch

transformers = pytest.importorskip("transformers")
from transformers import AutoConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

from posenc_core.plan import merge_config, plan_config  # noqa: E402
from posenc_core.plan.paste import CONFIG_BLOCKS  # noqa: E402
from tests.core.hf_config_helpers import CONFIGS  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_transformers")  # tests/core/conftest.py

ROTARY = {  # the language model's config type -> (module, its rotary class)
    "llama": ("llama", "LlamaRotaryEmbedding"),
    "mistral": ("mistral", "MistralRotaryEmbedding"),
    "qwen2": ("qwen2", "Qwen2RotaryEmbedding"),
    "gemma2": ("gemma2", "Gemma2RotaryEmbedding"),
    "phi3": ("phi3", "Phi3RotaryEmbedding"),
    "phi": ("phi", "PhiRotaryEmbedding"),
    "deepseek_v3": ("deepseek_v3", "DeepseekV3RotaryEmbedding"),
    "deepseek_v2": ("deepseek_v2", "DeepseekV2RotaryEmbedding"),
    "gpt_neox": ("gpt_neox", "GPTNeoXRotaryEmbedding"),
    "qwen2_vl_text": ("qwen2_vl", "Qwen2VLRotaryEmbedding"),
    "llama4_text": ("llama4", "Llama4TextRotaryEmbedding"),
    "gemma3_text": ("gemma3", "Gemma3RotaryEmbedding"),
}
FIXTURES = sorted(
    path.name
    for path in CONFIGS.glob("*.json")
    if path.name not in ("bloom.json", "mpt-7b-instruct.json", "t5-base.json", "gpt-j-6b.json")
)
_PLANS: dict = {}


def plan_of(fixture: str):
    """One plan per fixture, at T = 2·L (every method's frequencies are in it; the blocks come per method)."""
    if fixture not in _PLANS:
        raw = json.loads((CONFIGS / fixture).read_text())
        probe = plan_config(raw, 2 * _original(raw), "base")
        _PLANS[fixture] = (raw, probe)
    return _PLANS[fixture]


def _original(raw) -> int:
    from posenc_core.models.hf_config import from_hf_config
    from posenc_core.plan.plan import _original as original_of

    return original_of(from_hf_config(raw).preset, None)[0]


def transformers_rotary(merged: dict, method: str, target: int) -> tuple[torch.Tensor, float]:
    """(inv_freq, attention factor) of the merged config as transformers builds them, at sequence length T."""
    merged = dict(merged)
    text_config = merged.get("text_config") or {}
    if isinstance(text_config.get("attn_temperature_tuning"), int):  # Llama 4 as transformers 4.51 saved it (4):
        merged["text_config"] = text_config | {"attn_temperature_tuning": True}  # 5.23's strict class wants a bool
    config = AutoConfig.for_model(merged.pop("model_type"), **merged)
    text = config.get_text_config()
    module_name, class_name = ROTARY[text.model_type]
    rotary_class = getattr(
        importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}"), class_name
    )
    per_layer = text.model_type == "gemma3_text"
    layer = {"layer_type": "full_attention"} if per_layer else {}
    parameters = text.rope_parameters["full_attention"] if per_layer else text.rope_parameters
    if parameters["rope_type"] in ("dynamic", "longrope"):  # their frequencies depend on the sequence length
        inv_freq, attention = ROPE_INIT_FUNCTIONS[parameters["rope_type"]](text, "cpu", seq_len=target, **layer)
        return inv_freq, float(attention)
    module = rotary_class(text)
    if per_layer:
        return module.full_attention_inv_freq, float(module.full_attention_attention_scaling)
    return module.inv_freq, float(module.attention_scaling)


def cases():
    for fixture in FIXTURES:
        _, plan = plan_of(fixture)
        for method in plan.methods:
            for form in CONFIG_BLOCKS:
                yield pytest.param(fixture, method, form, id=f"{fixture}-{method}-{form.split(' ')[-1]}")


@pytest.mark.parametrize(("fixture", "method", "form"), list(cases()))
def test_the_merged_config_gives_the_plan_s_wavelengths_and_attention_factor(fixture, method, form):
    raw, plan = plan_of(fixture)
    blocks = plan.paste_for(method)
    if form not in blocks.text:  # transformers cannot serve it: a warning stands in for the block
        assert form in blocks.refused
        assert plan.model.rope_scaling and plan.shape.model_type == "phi3" and method not in ("longrope", "base")
        return
    merged = merge_config(raw, json.loads(blocks.text[form]))
    inv_freq, attention = transformers_rotary(merged, method, plan.target)
    planned = plan.methods[method]
    ours = torch.tensor([2 * torch.pi / theta for theta in planned.inv_freq], dtype=torch.float64)
    theirs = 2 * torch.pi / inv_freq.to(torch.float64)
    torch.testing.assert_close(theirs, ours, rtol=1e-4, atol=0)
    assert attention == pytest.approx(planned.attention_factor, rel=1e-4)
