"""The plan's transformers 5 block, given to HF transformers' own rotary code, gives the planned frequencies and
attention factor (float32 against our float64). Skips without transformers."""

from __future__ import annotations

import copy
import json

import pytest
import torch

transformers = pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402

from tests.core.plan.test_paste import CASES, plan_of  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_transformers")  # tests/core/conftest.py


@pytest.mark.parametrize(("name", "target", "method"), CASES)
def test_transformers_rotary_module_agrees_with_the_plan(name, target, method):
    plan = plan_of(name, target, method)
    block = json.loads(plan.paste["config.json (transformers 5)"])
    parameters = copy.deepcopy(block["rope_parameters"])
    parameters.pop("mrope_section", None)  # Llama's rotary module: the frequencies M-RoPE shares
    if plan.model.partial_rotary_factor != 1.0:
        parameters["partial_rotary_factor"] = plan.model.partial_rotary_factor
    head_dim = plan.model.rope_head_dim
    config = LlamaConfig(
        hidden_size=2 * head_dim,
        num_attention_heads=2,
        head_dim=head_dim,
        max_position_embeddings=block["max_position_embeddings"],
        rope_parameters=parameters,
    )
    if method in ("dynamic", "longrope"):  # their frequencies depend on the sequence length: computed at T
        expected, attention = ROPE_INIT_FUNCTIONS[parameters["rope_type"]](config, "cpu", seq_len=target)
    else:
        module = LlamaRotaryEmbedding(config)
        expected, attention = module.inv_freq, module.attention_scaling
    ours = torch.tensor(plan.chosen.inv_freq, dtype=torch.float64)
    torch.testing.assert_close(expected.to(torch.float64), ours, rtol=2e-6, atol=0)
    assert float(attention) == pytest.approx(plan.chosen.attention_factor, rel=1e-6)
