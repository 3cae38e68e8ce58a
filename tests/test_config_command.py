"""``posenc config`` (posenc/commands/config.py) on a config.json file and on a model id served by the Hub stub."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from posenc import read_config
from posenc.commands.config import main
from posenc_core.models.hf_config import from_hf_config
from tests.hub_fixture import serve_hub

CONFIGS = Path(__file__).resolve().parent / "fixtures" / "configs"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    yield from serve_hub(tmp_path, monkeypatch)


def test_a_file_prints_what_the_reader_made_of_it(capsys):
    assert main([str(CONFIGS / "llama-3.1-8b.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("LlamaForCausalLM\n")
    assert "  scheme: rope" in out and "    rope_theta = 500000.0" in out and "    n_kv_heads = 8" in out
    assert "  RoPE scaling: llama3 (factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, " in out
    assert "    • no head_dim: derived 4096/32 = 128" in out


def test_json_output_holds_the_reading(capsys, tmp_path):
    folder = tmp_path / "gemma"
    folder.mkdir()
    (folder / "config.json").write_text((CONFIGS / "gemma-3-27b-it.json").read_text())
    assert main([str(folder), "--json"]) == 0  # a folder holding a config.json
    printed = json.loads(capsys.readouterr().out)
    reading = from_hf_config((CONFIGS / "gemma-3-27b-it.json").read_text())
    assert printed["scheme"] == reading.preset.scheme == "rope"
    assert printed["parameters"]["layer_types"] == list(reading.preset.layer_types)
    assert printed["parameters"]["sliding_window"] == 1024 and "name" not in printed["parameters"]
    assert printed["rope_scaling"] == dict(reading.preset.rope_scaling)
    assert printed["unread"] == reading.unread and printed["notes"] == list(reading.preset.notes)


def test_a_model_id_is_fetched_from_the_hub(hub, capsys):
    hub.add("Qwen/Qwen2.5-7B-Instruct", "config.json", (CONFIGS / "qwen2.5-7b-instruct.json").read_text())
    assert main(["Qwen/Qwen2.5-7B-Instruct@main", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["name"] == "Qwen/Qwen2.5-7B-Instruct"
    assert printed["source"].startswith(f"{hub.url}/Qwen/Qwen2.5-7B-Instruct config.json (revision main")
    expected = from_hf_config((CONFIGS / "qwen2.5-7b-instruct.json").read_text()).preset
    assert printed["parameters"]["rope_theta"] == expected.rope_theta
    assert printed["parameters"]["hidden_size"] == expected.hidden_size


@pytest.mark.parametrize(
    ("argument", "words"),
    [
        ("org/absent", "model 'org/absent' was not found on"),
        ("not an id", "'not an id' is not a Hugging Face model id"),
        ("missing.json", "'missing.json' is not a config.json file"),
    ],
)
def test_errors_go_to_stderr_with_status_2(hub, capsys, argument, words):
    assert main([argument]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("posenc config: ") and words in captured.err


def test_a_file_the_reader_rejects_is_status_2(capsys, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    assert main([str(bad)]) == 2
    assert "config is not valid JSON" in capsys.readouterr().err


def test_a_huge_file_is_refused_by_its_size_unread(capsys, tmp_path):
    huge = tmp_path / "config.json"
    with huge.open("wb") as handle:  # 3 GB that take no disk: a sparse file
        handle.truncate(3 * 10**9)
    assert main([str(huge)]) == 2
    assert "config is larger than 1 MB (3000.0 MB)" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"larger than 1 MB \(3000\.0 MB\)"):
        read_config(huge)  # the notebook API alike


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_path_that_is_no_file_is_refused_as_a_path_never_sent_to_the_hub(hub, capsys, tmp_path, kind):
    path = {"fifo": tmp_path / "config.json", "device": Path("/dev/null"), "folder": tmp_path / "org" / "name"}[kind]
    if kind == "fifo":
        os.mkfifo(path)  # reading it would wait forever for a writer
    if kind == "folder":
        path.mkdir(parents=True)  # looks like an org/name id, holds no config.json
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    expected = {"fifo": "is a FIFO", "device": "is a device", "folder": "is not a config.json file"}[kind]
    assert expected in err and "Hub" not in err and "was not found" not in err
    if kind != "folder":
        with pytest.raises(ValueError, match=expected):
            read_config(path)


def test_a_config_naming_itself_with_an_unpaired_surrogate_is_one_line(capsys, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text((CONFIGS / "llama-2-7b.json").read_text()[:-2] + ', "_name_or_path": "\\ud800"}')
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config key '_name_or_path' holds text that is not Unicode" in err


# Issue 35: one rule for the whole command line: 2 for bad input (as plan, lab and export), 130 for Ctrl-C.
def test_bad_input_exits_2_as_every_command_does(tmp_path, capsys):
    from posenc.commands.router import BAD_INPUT
    from posenc.commands.router import main as posenc_main

    assert BAD_INPUT == 2
    assert posenc_main(["config", str(tmp_path / "missing.json")]) == BAD_INPUT
    assert "Traceback" not in capsys.readouterr().err


def test_ctrl_c_in_a_command_exits_130_with_one_line(monkeypatch, capsys):
    from posenc.commands import router as cli

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli._COMMANDS, "config", interrupted)
    assert cli.main(["config", "x"]) == cli.INTERRUPTED == 130
    assert capsys.readouterr().err == "posenc config: interrupted\n"
