"""posenc_core.plan.paste: every block a plan writes, fed back through our config reader and (where installed)
through HF transformers' own rotary code, gives the planned frequencies; the serving flags say the same."""

from __future__ import annotations

import json
import shlex

import pytest
import torch

from posenc_core.models.hf_config import from_hf_config
from posenc_core.models.presets import rope_inputs
from posenc_core.plan import plan_extension
from posenc_core.rope.scaling import inv_freq
from tests.core.hf_config_helpers import load, read
from tests.core.plan.plan_helpers import pasted

CASES = [
    ("llama-3.1-8b.json", 65536, "linear"),
    ("llama-3.1-8b.json", 65536, "dynamic"),
    ("llama-3.1-8b.json", 65536, "yarn"),
    ("llama-3.1-8b.json", 65536, "llama3"),
    ("llama-3.1-8b.json", 65536, "base"),
    ("llama-2-7b.json", 16384, "yarn"),
    ("phi-3-mini-128k-instruct.json", 65536, "longrope"),
    ("gpt-neox-20b.json", 8192, "yarn"),
    ("deepseek-v3.json", 180000, "yarn"),
    ("qwen2-vl-7b-instruct-text-config.json", 65536, "yarn"),
]
FORMS = ("config.json", "config.json (transformers 5)")
_PLANS: dict = {}


def plan_of(name: str, target: int, method: str):
    key = (name, target, method)
    if key not in _PLANS:
        _PLANS[key] = plan_extension(read(name).preset, target, method)
    return _PLANS[key]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("name", "target", "method"), CASES)
def test_the_config_block_reads_back_to_the_planned_frequencies(name, target, method, form):
    plan = plan_of(name, target, method)
    preset = from_hf_config(pasted(load(name), plan, form)).preset
    assert preset.rope_theta == plan.chosen.settings.rope_theta
    assert preset.max_position_embeddings == plan.chosen.settings.max_position_embeddings
    frequencies, attention = inv_freq(**rope_inputs(preset, seq_len=target), device="cpu", dtype=torch.float64)
    assert tuple(frequencies.tolist()) == pytest.approx(plan.chosen.inv_freq, rel=1e-12)
    assert attention == pytest.approx(plan.chosen.attention_factor, rel=1e-12)
    assert preset.mrope_section == plan.model.mrope_section  # M-RoPE's sections survive the paste


def flag(command: str, name: str) -> str:
    words = shlex.split(command.splitlines()[-1])
    return words[words.index(name) + 1]


def vllm_accepted_length(config: dict) -> float:
    """vLLM's derived max model length (``_get_and_verify_max_len``, vLLM 0.33 after PR 56446): the max position
    embeddings, times the factor for scaling types other than llama3, longrope and yarn."""
    block = config.get("rope_parameters") or {}
    rope_type, derived = block.get("rope_type", "default"), config["max_position_embeddings"]
    if rope_type not in ("default", "llama3", "longrope", "yarn"):
        derived *= block["factor"]
    return derived


def _language(keys: dict) -> dict:
    return keys.get("text_config", keys)


@pytest.mark.parametrize(("name", "target", "method"), CASES)
def test_vllm_and_sglang_carry_the_v5_parameters_and_accept_the_target(name, target, method):
    plan = plan_of(name, target, method)
    v5 = _language(json.loads(plan.paste["config.json (transformers 5)"]))
    if "vllm" in plan.paste:
        overrides = _language(json.loads(flag(plan.paste["vllm"], "--hf-overrides")))
        assert overrides["rope_parameters"] == v5["rope_parameters"]
        assert int(flag(plan.paste["vllm"], "--max-model-len")) == target
        served = {"max_position_embeddings": plan.model.max_position_embeddings} | overrides
        assert vllm_accepted_length(served) >= target
    if "sglang" in plan.paste:
        sglang = json.loads(flag(plan.paste["sglang"], "--json-model-override-args"))
        assert sglang["rope_parameters"] == v5["rope_parameters"]
        assert sglang["max_position_embeddings"] == plan.chosen.settings.max_position_embeddings
        assert int(flag(plan.paste["sglang"], "--context-length")) == target
    assert {"vllm", "sglang"} & set(plan.paste) or plan.refused


@pytest.mark.parametrize(("name", "target", "method"), [case for case in CASES if case[2] != "dynamic"])
def test_llama_cpp_flags_carry_the_plan(name, target, method):
    plan = plan_of(name, target, method)
    command, scaling = plan.paste["llama.cpp"], plan.chosen.settings.scaling or {}
    assert int(flag(command, "-c")) == target
    assert float(flag(command, "--rope-freq-base")) == plan.chosen.settings.rope_theta
    if method in ("linear", "yarn"):
        assert flag(command, "--rope-scaling") == method
        assert float(flag(command, "--rope-scale")) == pytest.approx(scaling["factor"], rel=1e-6)
    if method == "yarn":
        assert int(flag(command, "--yarn-orig-ctx")) == plan.original
    if method in ("llama3", "longrope"):
        assert command.startswith("# convert_hf_to_gguf.py")


def test_dynamic_has_no_llama_cpp_block():
    assert "llama.cpp" not in plan_of("llama-3.1-8b.json", 65536, "dynamic").paste
