"""``posenc lab`` (posenc/lab_command.py): train writes a checkpoint (the same one for a seed, none when
interrupted), eval prints one JSON object of the documented shape (RoPE scaling included, a learned table past its
rows reported, copy accuracy), and every bad input is one line on stderr with status 2.

Evaluation runs on tiny untrained checkpoints made here (the command's output shape does not depend on training);
training runs the real command for a few steps of small batches."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from posenc import lab_command
from posenc.lab_command import main
from posenc_lab import checkpoints
from posenc_lab.evaluate import LengthResult
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import SCALING_TYPES, rope_scaling
from posenc_lab.train import TrainSettings

ROOT = Path(__file__).resolve().parents[1]
TINY = {"d_model": 16, "n_heads": 2, "n_layers": 1, "d_ff": 32, "max_len": 16}
FEW_STEPS = ["--task", "copy", "--steps", "3", "--batch-size", "2"]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One torch thread: these models are too small to gain from two, and on a busy machine two wait on each other."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, Path]:
    """Untrained tiny checkpoints (trained length 16) by ``<scheme>-<task>``."""
    folder = tmp_path_factory.mktemp("tiny")
    made = {}
    for scheme, task in (("rope", "lm"), ("learned", "lm"), ("alibi", "copy")):
        torch.manual_seed(0)
        model = LabModel(LabConfig(scheme=scheme, **TINY)).eval()
        checkpoint = checkpoints.Checkpoint(model, TrainSettings(task=task, steps=1), [5.5], 0.1, "cpu")
        made[f"{scheme}-{task}"] = checkpoints.save(checkpoint, folder / f"{scheme}-{task}.pt")
    return made


def _eval_json(capsys, checkpoint: Path, *options: str) -> dict:
    assert main(["eval", "--checkpoint", str(checkpoint), "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


def test_train_writes_a_checkpoint_that_loads(tmp_path, capsys):
    out = tmp_path / "alibi-copy.pt"
    assert main(["train", "--scheme", "alibi", *FEW_STEPS, "--seed", "3", "--out", str(out)]) == 0
    loaded = checkpoints.load(out)
    assert loaded.config.scheme == "alibi" and loaded.settings == TrainSettings("copy", 3, 2, seed=3)
    assert len(loaded.losses) == 3 and all(math.isfinite(loss) for loss in loaded.losses)
    captured = capsys.readouterr()
    assert f"wrote {out}: alibi on copy, 3 steps in " in captured.out
    assert "alibi-copy [####################] 3/3" in captured.err  # the progress bar's last line


def test_a_seed_gives_the_same_weights_and_another_seed_others(tmp_path):
    states = []
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        out = tmp_path / f"{name}.pt"
        assert main(["train", "--scheme", "rope", *FEW_STEPS, "--seed", seed, "--out", str(out)]) == 0
        states.append(checkpoints.load(out).model.state_dict())
    same, other = states[1], states[2]
    assert all(torch.equal(states[0][name], same[name]) for name in same)
    assert not all(torch.equal(states[0][name], other[name]) for name in other)


def test_eval_json_has_the_documented_keys_and_lengths(tiny, capsys):
    report = _eval_json(capsys, tiny["rope-lm"], "--lengths", "8,16,48", "--mode", "nonoverlapping")
    assert list(report) == ["scheme", "task", "train_length", "scaling", "mode", "results"]
    assert (report["scheme"], report["task"], report["train_length"]) == ("rope", "lm", 16)
    assert report["scaling"] is None and report["mode"] == "nonoverlapping"
    assert [row["length"] for row in report["results"]] == [8, 16, 48]
    for row in report["results"]:
        assert set(row) == {"length", "loss", "perplexity"}
        assert row["perplexity"] == pytest.approx(math.exp(row["loss"]))


def test_the_default_lengths_are_half_to_eight_times_the_trained_length(tiny, capsys):
    report = _eval_json(capsys, tiny["alibi-copy"])
    assert [row["length"] for row in report["results"]] == [8, 16, 24, 32, 48, 64, 96, 128]


def test_yarn_scaling_gives_a_finite_loss_and_its_dict(tiny, capsys):
    report = _eval_json(capsys, tiny["rope-lm"], "--lengths", "64", "--scaling", "yarn", "--factor", "4")
    config = checkpoints.load(tiny["rope-lm"]).config
    assert report["scaling"] == rope_scaling(config, "yarn", 4.0)
    assert report["scaling"]["rope_type"] == "yarn" and report["scaling"]["factor"] == 4.0
    assert math.isfinite(report["results"][0]["loss"])


def test_a_scaling_key_option_reaches_the_dict(tiny, capsys):
    options = ("--lengths", "32", "--scaling", "yarn", "--factor", "2", "--beta-fast", "8", "--truncate", "false")
    report = _eval_json(capsys, tiny["rope-lm"], *options)
    assert report["scaling"]["beta_fast"] == 8.0 and report["scaling"]["truncate"] is False


@pytest.mark.parametrize("rope_type", SCALING_TYPES)
def test_every_scaling_type_gives_finite_losses(tiny, capsys, rope_type):
    factor = [] if rope_type == "default" else ["--factor", "4"]
    report = _eval_json(capsys, tiny["rope-lm"], "--lengths", "8,64", "--scaling", rope_type, *factor)
    assert all(math.isfinite(row["loss"]) for row in report["results"])
    assert (report["scaling"] is None) == (rope_type == "default")


def test_a_learned_table_asked_past_its_rows_says_so(tiny, capsys):
    report = _eval_json(capsys, tiny["learned-lm"], "--lengths", "16,17")
    within, past = report["results"]
    assert math.isfinite(within["loss"]) and "past_table" not in within
    assert past["past_table"] is True and past["loss"] is None and past["perplexity"] is None
    assert "past the table of 16 positions" in past["note"]
    assert main(["eval", "--checkpoint", str(tiny["learned-lm"]), "--lengths", "17"]) == 0
    assert "past the table of 16 positions" in capsys.readouterr().out  # the table shows the note too


def test_the_copy_task_reports_accuracy(tiny, capsys):
    report = _eval_json(capsys, tiny["alibi-copy"], "--lengths", "9,33")
    assert report["task"] == "copy"
    for row in report["results"]:
        assert 0.0 <= row["accuracy"] <= 1.0 and row["letters"] == (row["length"] - 1) // 2
    assert main(["eval", "--checkpoint", str(tiny["alibi-copy"]), "--lengths", "9"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("alibi on copy, trained at 16 tokens, no scaling")
    assert table[1].split() == ["length", "loss", "perplexity", "accuracy"] and table[2].split()[0] == "9"


def test_no_nan_or_infinity_reaches_the_json():
    huge = LengthResult(32, 1000.0).to_dict("lm")  # exp(1000) overflows a float: no perplexity
    assert huge == {"length": 32, "loss": 1000.0, "perplexity": None}
    cleaned = lab_command._finite({"rows": [huge, {"loss": math.nan}], "scaling": None})
    assert cleaned == {"rows": [{"length": 32, "loss": 1000.0, "perplexity": None}, {"loss": None}], "scaling": None}
    json.dumps(cleaned, allow_nan=False)


BAD = {
    "unknown scheme": (["train", "--scheme", "absolute"], "invalid choice: 'absolute'"),
    "no command": ([], "choose a command"),
    "no scheme": (["train"], "train needs --scheme"),
    "zero steps": (["train", "--scheme", "rope", "--steps", "0"], "--steps must be at least 1"),
    "no such device": (["eval", "--scheme", "rope", "--device", "tpu"], "invalid choice: 'tpu'"),
    "factor 0": (["--scaling", "yarn", "--factor", "0"], "factor must be a finite number > 0"),
    "length 0": (["--lengths", "0"], "from 3 to 4096 tokens (got 0)"),
    "length 10**9": (["--lengths", "1000000000"], "(got 1000000000)"),
    "length abc": (["--lengths", "abc"], "lengths must be whole numbers separated by commas (got 'abc')"),
    "factor alone": (["--factor", "2"], "--factor needs --scaling"),
    "key of another type": (["--scaling", "linear", "--factor", "2", "--beta-fast", "4"], "not read by linear"),
    "missing checkpoint": (["--checkpoint", "absent.pt"], "absent.pt does not exist"),
    "corrupted checkpoint": (["--checkpoint", "CORRUPT"], "is not a lab checkpoint or is damaged"),
    "scaling on alibi": (["--checkpoint", "alibi-copy", "--scaling", "yarn", "--factor", "4"], "rope scheme only"),
    "scheme mismatch": (["--checkpoint", "alibi-copy", "--scheme", "rope"], "trained with scheme alibi, not rope"),
}


@pytest.mark.parametrize(("argv", "words"), list(BAD.values()), ids=list(BAD))
def test_bad_input_is_one_line_and_status_2(tiny, tmp_path, capsys, argv, words):
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(tiny["rope-lm"].read_bytes()[:500])
    paths = {"CORRUPT": str(corrupt), "alibi-copy": str(tiny["alibi-copy"]), "absent.pt": str(tmp_path / "absent.pt")}
    argv = [paths.get(arg, arg) for arg in argv]
    if argv and argv[0] not in ("train", "eval"):
        argv = ["eval", *([] if "--checkpoint" in argv else ["--checkpoint", str(tiny["rope-lm"])]), *argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith("posenc lab: ") and words in captured.err


def test_the_posenc_command_exits_2_with_one_line(tiny):
    argv = [sys.executable, "-m", "posenc", "lab", "eval", "--checkpoint", str(tiny["rope-lm"]), "--lengths", "0"]
    environment = os.environ | {"OMP_NUM_THREADS": "1"}
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, env=environment)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["posenc lab: lengths must be whole numbers from 3 to 4096 tokens (got 0)"]


class _StopAtStep2:
    """A progress bar whose second step is a Ctrl-C."""

    def __init__(self, label):
        pass

    def __call__(self, step, steps, loss):
        if step == 2:
            raise KeyboardInterrupt

    def close(self):
        pass


def _interrupted(tmp_path, capsys) -> None:
    out = tmp_path / "run" / "rope-copy.pt"
    assert main(["train", "--scheme", "rope", *FEW_STEPS, "--out", str(out)]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "posenc lab: interrupted: no checkpoint written"
    assert not out.exists() and not list(tmp_path.rglob("*.part"))


def test_an_interrupt_during_training_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(lab_command, "Progress", _StopAtStep2)
    _interrupted(tmp_path, capsys)


def test_an_interrupt_while_saving_leaves_no_part_file(tmp_path, capsys, monkeypatch):
    def interrupted_save(data, file):
        file.write(b"half a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoints.torch, "save", interrupted_save)
    _interrupted(tmp_path, capsys)


def test_all_trains_every_scheme_on_both_tasks_then_writes_results(tmp_path, capsys, monkeypatch):
    def quick(scheme, settings, *, device, on_step):
        on_step(settings.steps, settings.steps, 1.0)
        model = LabModel(LabConfig(scheme=scheme, **TINY))
        return checkpoints.Checkpoint(model, settings, [1.0], 0.5, device.type)

    built = {}
    monkeypatch.setattr(lab_command, "train_checkpoint", quick)
    monkeypatch.setattr(lab_command.results, "build_results", lambda trained: built.update(trained) or {"n": 12})
    assert main(["train", "--all", "--steps", "2", "--out", str(tmp_path)]) == 0
    names = sorted(path.name for path in tmp_path.glob("*.pt"))
    assert len(names) == 12 and "rope-copy.pt" in names and "nope-lm.pt" in names
    assert len(built) == 12 and all(checkpoint.settings.steps == 2 for checkpoint in built.values())
    weights = built["t5", "lm"].model.blocks[0].attention.qkv.weight
    assert torch.equal(weights, weights.half().float())  # results come from the checkpoints as saved (float16)
    assert json.loads((tmp_path / "results.json").read_text()) == {"n": 12}
    assert "total: 12 checkpoints and their results in " in capsys.readouterr().out


def test_an_interrupt_while_evaluating_is_one_line_and_status_130(tiny, capsys, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(lab_command, "evaluate", interrupted)
    assert main(["eval", "--checkpoint", str(tiny["rope-lm"]), "--lengths", "8"]) == 130
    assert capsys.readouterr().err == "posenc lab: interrupted\n"


def test_an_interrupt_while_writing_results_keeps_the_checkpoints(tmp_path, capsys, monkeypatch):
    def quick(scheme, settings, *, device, on_step):
        return checkpoints.Checkpoint(LabModel(LabConfig(scheme=scheme, **TINY)), settings, [1.0], 0.5, "cpu")

    def interrupted(trained):
        raise KeyboardInterrupt

    monkeypatch.setattr(lab_command, "train_checkpoint", quick)
    monkeypatch.setattr(lab_command.results, "build_results", interrupted)
    assert main(["train", "--all", "--steps", "1", "--out", str(tmp_path)]) == 130
    assert (
        capsys.readouterr().err.splitlines()[-1]
        == "posenc lab: interrupted: results.json not written (12 checkpoints kept)"
    )
    assert len(list(tmp_path.glob("*.pt"))) == 12 and not (tmp_path / "results.json").exists()
