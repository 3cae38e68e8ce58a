"""``posenc plan`` (posenc/commands/plan.py): presets, config.json files and Hub ids (the Hub stub), bad input."""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import pytest

from posenc.commands import router
from posenc.commands.plan import main
from posenc_core.models.hf_config import from_hf_config
from posenc_core.models.presets import get_preset
from tests.hub_fixture import serve_hub

CONFIGS = Path(__file__).resolve().parent / "fixtures" / "configs"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    yield from serve_hub(tmp_path, monkeypatch)


def _json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return json.loads(captured.out)


def test_done_when_yarn_to_262144_for_llama_3_1(capsys):
    printed = _json(capsys, ["llama-3.1-8b", "--target", "262144", "--method", "yarn"])
    preset = get_preset("llama-3.1-8b")
    original = preset.rope_scaling["original_max_position_embeddings"]
    assert printed["original"] == original and printed["original_source"] == "original_max_position_embeddings"
    assert printed["factor"] == 262144 / original
    settings = printed["settings"]
    assert settings["rope_scaling"] == {
        "rope_type": "yarn",
        "factor": 262144 / original,
        "original_max_position_embeddings": original,
    }
    assert settings["max_position_embeddings"] == 262144 and settings["rope_theta"] == preset.rope_theta
    paste = printed["paste"]
    assert paste["config.json"] == settings  # rope_scaling, rope_theta, max_position_embeddings: parsed JSON
    v5 = paste["config.json (transformers 5)"]
    assert v5["rope_parameters"] == {**settings["rope_scaling"], "rope_theta": preset.rope_theta}
    model_id = printed["model"]["model_id"]
    assert preset.source.startswith(model_id + " ") and "/" in model_id  # the Hub id the preset was read from
    assert paste["vllm"].startswith(f"vllm serve {model_id} --hf-overrides ")
    assert paste["vllm"].endswith("--max-model-len 262144")
    assert paste["sglang"].endswith("--context-length 262144") and f"--model-path {model_id} " in paste["sglang"]
    assert f"--rope-scale {262144 // original} --yarn-orig-ctx {original} " in paste["llama.cpp"]
    assert len(printed["pairs"]) == preset.rotary_dim // 2 == printed["rotary_dim"] // 2
    for row in printed["pairs"][::9]:  # λᵢ = 2π·b^(2i/d)
        expected = 2 * math.pi * preset.rope_theta ** (2 * row["index"] / preset.rotary_dim)
        assert math.isclose(row["wavelength"], expected, rel_tol=1e-9)
    assert math.isclose(printed["attention_factor"]["yarn"], 0.1 * math.log(printed["factor"]) + 1)
    codes = {finding["code"]: finding for finding in printed["findings"]}
    assert codes["replaces_scaling"]["severity"] == "warning"  # it was trained with llama3, and yarn replaces it
    assert printed["clean"] is False


def test_text_output_has_the_sections(capsys):
    assert main(["Llama-3.1-8B", "--target", "16384", "--runtime", "vllm"]) == 0  # a preset by its display name
    out = capsys.readouterr().out
    for heading in ("Settings:", "Checks:", "Base rules", "Methods", "Pairs", "Paste: config.json", "Paste: vLLM"):
        assert f"\n{heading}" in out, heading
    assert "Paste: SGLang" not in out and "Paste: llama.cpp" not in out  # --runtime vllm: its block only
    assert out.startswith("Llama-3.1-8B: from L = 8,192 to T = 16,384 tokens, factor s = 2, method yarn (vLLM)")


def test_original_and_factor_are_taken_as_given(capsys):
    printed = _json(capsys, ["llama-2-7b", "--target", "16384", "--original", "2048", "--factor", "4"])
    assert (printed["original"], printed["original_source"], printed["factor"]) == (2048, "given", 4.0)
    assert printed["settings"]["rope_scaling"]["factor"] == 4.0
    too_small = [f for f in printed["findings"] if f["code"] == "factor_too_small"]
    assert too_small and "8" in too_small[0]["fix"]  # 4 × 2048 falls short of 16384: a factor of 8 is needed


@pytest.mark.parametrize(
    ("name", "method", "code", "check"),
    [
        ("llama-3.1-8b.json", "llama3", None, lambda p: p["original"] == 8192 and p["rotary_dim"] == 128),
        ("gpt-neox-20b.json", "yarn", "partial_rotary", lambda p: p["rotary_dim"] == 96 // 4),
        ("gpt-j-6b.json", "linear", "pairing_layout", lambda p: p["rotary_dim"] == 64),
        (
            "qwen2-vl-7b-instruct.json",
            "yarn",
            "mrope_yarn",
            lambda p: p["settings"]["rope_scaling"]["mrope_section"] == [16, 24, 24],
        ),
    ],
)
def test_a_config_json_file_is_planned(capsys, name, method, code, check):
    preset = from_hf_config((CONFIGS / name).read_text()).preset
    target = 4 * preset.original_max_position_embeddings
    printed = _json(capsys, [str(CONFIGS / name), "--target", str(target), "--method", method])
    assert printed["target"] == target and printed["method"] == method
    assert printed["factor"] == target / printed["original"] and check(printed)
    assert printed["model"]["model_id"] == preset.name  # a file not named config.json: the model's name
    assert code is None or code in {finding["code"] for finding in printed["findings"]}


def test_a_model_folder_is_served_by_its_path(capsys, tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    shutil.copy(CONFIGS / "mistral-7b-v0.1.json", folder / "config.json")
    printed = _json(capsys, [str(folder / "config.json"), "--target", "65536", "--method", "linear"])
    assert printed["model"]["model_id"] == str(folder)
    assert printed["paste"]["vllm"].startswith(f"vllm serve {folder} ")


def test_a_model_id_is_fetched_from_the_hub(hub, capsys):
    hub.add("meta-llama/Llama-3.1-8B", "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    printed = _json(capsys, ["meta-llama/Llama-3.1-8B@main", "--target", "65536", "--runtime", "sglang"])
    assert printed["model"]["model_id"] == "meta-llama/Llama-3.1-8B"  # the repo, without the revision
    assert printed["model"]["source"].startswith(f"{hub.url}/meta-llama/Llama-3.1-8B config.json")
    assert printed["paste"]["sglang"].startswith("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B ")
    assert set(printed["paste"]) == {"config.json", "config.json (transformers 5)", "sglang"}


@pytest.fixture
def bad_config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("{not json")
    return str(path)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["no-such-model", "--target", "65536"], ("'no-such-model' is not a preset", "not found")),
        (["BAD_CONFIG", "--target", "65536"], ("not valid JSON",)),
        (["llama-3.1-8b", "--target", "4096"], ("target must be longer than", "8,192")),
        (["llama-3.1-8b", "--target", str(10**12)], ("target",)),
        (["t5-base", "--target", "65536"], ("not RoPE",)),
        (["bloom.json", "--target", "65536"], ("not RoPE",)),
        (["llama-3.1-8b", "--target", "65536", "--method", "longrope"], ("longrope", "short_factor")),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(hub, capsys, bad_config, argv, words):
    argv = [bad_config if arg == "BAD_CONFIG" else str(CONFIGS / arg) if arg.endswith(".json") else arg for arg in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("posenc plan: ") and captured.err.count("\n") == 1
    assert all(word in captured.err for word in words), captured.err


@pytest.mark.parametrize(
    "argv", [["llama-3.1-8b"], ["llama-3.1-8b", "--target", "65536", "--method", "ntk"], ["--target", "65536"]]
)
def test_argument_errors_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2 and capsys.readouterr().out == ""


def test_the_posenc_command_dispatches_plan(capsys):
    assert "plan" in router.COMMANDS and "posenc plan llama-3.1-8b --target 262144" in router.__doc__
    assert router.main(["plan", "llama-3.1-8b", "--target", "16384", "--method", "llama3", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["method"] == "llama3" and printed["settings"]["rope_scaling"]["rope_type"] == "llama3"
    assert router.main(["plan", "llama-3.1-8b", "--target", "100"]) == 2


def _config(tmp_path, **changes) -> str:
    config = json.loads((CONFIGS / "llama-2-7b.json").read_text()) | changes
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return str(path)


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"head_dim": 65536}, ("rotary dim", "at most 1,024")),
        ({"rope_theta": 1e15}, ("at most 1e12",)),
        (
            {"rope_scaling": {"rope_type": "yarn", "factor": 2.0, "beta_fast": 32, "beta_slow": 1e-320}},
            ("rope_scaling.beta_slow", "0.001"),
        ),
    ],
)
def test_work_past_the_plan_s_bounds_is_one_line_and_status_2_at_once(capsys, tmp_path, changes, words):
    """Issue 35 defect 5: head_dim 65,536 cost minutes of CPU; beta_slow 1e-320 crashed the command."""
    start = time.process_time()  # this process's CPU: what a busy machine does not stretch
    assert main([_config(tmp_path, **changes), "--target", "16384"]) == 2
    assert time.process_time() - start < 2.0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("posenc plan: ") and captured.err.count("\n") == 1
    assert all(word in captured.err for word in words), captured.err


def test_a_config_json_s_own_shape_shapes_its_blocks(capsys):
    """A Gemma 3 file keeps its language model under text_config: the blocks go there, per layer type."""
    printed = _json(capsys, [str(CONFIGS / "gemma-3-27b-it.json"), "--target", "65536", "--method", "linear"])
    v5 = printed["paste"]["config.json (transformers 5)"]
    assert set(v5) == {"text_config"} and set(v5["text_config"]["rope_parameters"]) == {
        "full_attention",
        "sliding_attention",
    }
    assert printed["paste_versions"]["config.json (transformers 5)"] == "transformers 5.23.0"
