"""``posenc lab`` (posenc/commands/lab.py): train writes a checkpoint (the same one for a seed, none when
interrupted), eval prints one JSON object of the documented shape (RoPE scaling included, a learned table past its
rows reported, copy accuracy), and every bad input is one line on stderr with status 2.

Evaluation runs on tiny untrained checkpoints made here (the command's output shape does not depend on training);
training runs the real command for a few steps of small batches."""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from posenc.commands import lab as lab_command
from posenc.commands import lab_all
from posenc.commands.lab import main
from posenc_lab import checkpoints
from posenc_lab import results as lab_results
from posenc_lab.evaluate import LengthResult
from posenc_lab.finetune import FINETUNE_METHODS, finetune_settings
from posenc_lab.longrope_search import SearchResult
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
        assert set(row) == {"length", "loss", "loss_se", "perplexity"} and row["loss_se"] >= 0
        assert row["perplexity"] == pytest.approx(math.exp(row["loss"]))


def test_the_default_lengths_are_the_ones_the_labs_results_use_for_the_task(tiny, capsys):
    report = _eval_json(capsys, tiny["rope-lm"])
    assert [row["length"] for row in report["results"]] == [8, 16, 24, 32, 48, 64, 96, 128]  # 0.5 to 8 x L
    report = _eval_json(capsys, tiny["alibi-copy"])  # strings of half to four times the 7 trained letters
    assert [row["letters"] for row in report["results"]] == [4, 7, 10, 14, 21, 28]
    assert [row["length"] for row in report["results"]] == lab_results.copy_lengths_for(7)


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
    if rope_type == "longrope":  # searched per model: its long factors are given (4 pairs at head_dim 8)
        factor += ["--long-factor", "1,1.5,2.5,4"]
    report = _eval_json(capsys, tiny["rope-lm"], "--lengths", "8,64", "--scaling", rope_type, *factor)
    assert all(math.isfinite(row["loss"]) for row in report["results"])
    assert (report["scaling"] is None) == (rope_type == "default")


def test_longrope_without_its_searched_factors_is_one_line(tiny, capsys):
    assert main(["eval", "--checkpoint", str(tiny["rope-lm"]), "--scaling", "longrope", "--factor", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "long_factor must be given for longrope" in err


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
    assert huge == {"length": 32, "loss": 1000.0, "loss_se": None, "perplexity": None}
    cleaned = lab_command._finite({"rows": [huge, {"loss": math.nan}], "scaling": None})
    assert cleaned == {"rows": [huge, {"loss": None}], "scaling": None}
    json.dumps(cleaned, allow_nan=False)


BAD = {
    "unknown scheme": (["train", "--scheme", "absolute"], "invalid choice: 'absolute'"),
    "no command": ([], "choose a command"),
    "no scheme": (["train"], "train needs --scheme"),
    "zero steps": (["train", "--scheme", "rope", "--steps", "0"], "--steps must be from 1 to 100,000 (got 0)"),
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


FAKE = {"format": lab_results.FORMAT, "fake": True}  # results a resumed run may replace


@pytest.fixture
def quick_all(monkeypatch):
    """``--all`` with tiny untrained models in place of training, fine-tuning and the LongRoPE search; what
    ``build_results`` was given is kept in the returned dict (under "by_seed")."""

    def quick(scheme, settings, *, device, on_step):
        on_step(settings.steps, settings.steps, 1.0)
        model = LabModel(LabConfig(scheme=scheme, **TINY))
        return checkpoints.Checkpoint(model, settings, [1.0], 0.5, device.type)

    def tuned(checkpoint, method, *, steps, device, on_step):
        model = LabModel(checkpoint.config)
        model.scheme.scaling = rope_scaling(checkpoint.config, method, None if method == "default" else 4.0)
        return checkpoints.Checkpoint(model, finetune_settings(checkpoint, steps=steps), [1.0], 0.5, device.type)

    def searched(checkpoint, *, seed, generations):
        return SearchResult([1.0] * 4, 0.5, [0.6, 0.5], {"pi": 1.0, "ntk": 0.7, "yarn": 0.8}, 3)

    seen = {}
    monkeypatch.setattr(lab_all, "train_checkpoint", quick)
    monkeypatch.setattr(lab_all, "finetune", tuned)
    monkeypatch.setattr(lab_all, "search", searched)
    monkeypatch.setattr(lab_all.results, "build_results", lambda by_seed: seen.update(by_seed=by_seed) or FAKE)
    return seen


def test_all_trains_every_scheme_on_every_task_for_each_seed_then_writes_results(tmp_path, capsys, quick_all):
    assert main(["train", "--all", "--steps", "2", "--seeds", "0,2", "--out", str(tmp_path)]) == 0
    names = sorted(path.name for path in tmp_path.glob("*.pt"))
    per_seed = 6 * 3 + len(FINETUNE_METHODS)  # six schemes x three tasks, and the RoPE fine-tunes
    assert len(names) == 2 * per_seed and "rope-copy-seed2.pt" in names and "nope-passkey-seed0.pt" in names
    assert "rope-lm-finetuned-yarn-seed2.pt" in names and not any("seed1" in name for name in names)
    by_seed = quick_all["by_seed"]
    assert sorted(by_seed) == [0, 2] and len(by_seed[2].checkpoints) == 18
    assert all(cp.settings.steps == 2 and cp.settings.seed == 2 for cp in by_seed[2].checkpoints.values())
    assert by_seed[0].finetuned["linear"].model.scheme.scaling["rope_type"] == "linear"  # read back as saved
    weights = by_seed[0].checkpoints["t5", "lm"].model.blocks[0].attention.qkv.weight
    assert torch.equal(weights, weights.half().float())  # results come from the checkpoints as saved (float16)
    assert json.loads((tmp_path / "results.json").read_text()) == FAKE
    assert f"total: {2 * per_seed} checkpoints of 2 seeds and their results in " in capsys.readouterr().out


def test_all_with_resume_keeps_what_was_trained_with_the_same_settings(tmp_path, capsys, quick_all):
    assert main(["train", "--all", "--steps", "2", "--seeds", "1", "--out", str(tmp_path)]) == 0
    kept = tmp_path / "alibi-lm-seed1.pt"
    before = kept.stat().st_mtime_ns
    other = tmp_path / "rope-passkey-seed1.pt"
    other.unlink()  # as if interrupted before it
    capsys.readouterr()
    assert main(["train", "--all", "--steps", "2", "--seeds", "1", "--resume", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"kept {kept} (trained with the same settings)" in out and f"wrote {other}" in out
    tuned = tmp_path / "rope-lm-finetuned-yarn-seed1.pt"
    assert f"kept {tuned} (trained with the same settings)" in out  # a fine-tune kept on the same terms
    assert kept.stat().st_mtime_ns == before and other.exists()
    assert main(["train", "--all", "--steps", "3", "--seeds", "1", "--resume", "--out", str(tmp_path)]) == 0
    assert "kept" not in capsys.readouterr().out  # other settings: everything trained again


def test_an_interrupt_while_writing_results_keeps_the_checkpoints(tmp_path, capsys, monkeypatch, quick_all):
    def interrupted(by_seed):
        raise KeyboardInterrupt

    monkeypatch.setattr(lab_all.results, "build_results", interrupted)
    assert main(["train", "--all", "--steps", "1", "--seeds", "0", "--out", str(tmp_path)]) == 130
    assert (
        capsys.readouterr().err.splitlines()[-1]
        == "posenc lab: interrupted: results.json not written (22 checkpoints kept)"
    )
    assert len(list(tmp_path.glob("*.pt"))) == 22 and not (tmp_path / "results.json").exists()


# --- issue 35: where train writes, the sizes it may ask for, the checkpoint's fields, the work of one evaluation ---


@pytest.fixture
def no_training(monkeypatch):
    """Training that fails the test if it starts: what is refused must be refused before any training."""

    def trained(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(lab_command, "train_checkpoint", trained)
    monkeypatch.setattr(lab_all, "train_checkpoint", trained)


def _device_node(path: Path) -> None:
    """A private copy of a /dev/null-like node (character device 1:3), where this process may make one."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("this process may not make device nodes (the fifo case stands for every non-regular file)")


def _unwritable(tmp_path: Path) -> Path:
    """A new name in a folder no one here can write in: a 0555 folder, or (as root, who writes anywhere on a disk)
    a folder of /proc, which no one can make files in."""
    if os.geteuid() == 0:
        return Path("/proc/self/posenc-lab-test.pt")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder / "model.pt"


def _target(kind: str, tmp: Path) -> Path | str:
    """The ``--out`` of each kind, made in ``tmp`` (which holds a lab checkpoint, ``any.pt``)."""
    notes = tmp / "notes.txt"
    if kind in ("a path under a file", "a file that is not a checkpoint"):
        notes.write_text("mine")
        return notes / "x.pt" if kind == "a path under a file" else notes
    made = {
        "a device node": lambda path: _device_node(path),
        "a fifo": os.mkfifo,
        "a link like /dev/stdout": lambda path: os.symlink("/proc/self/fd/1", path),
        "a link to a checkpoint": lambda path: os.symlink(tmp / "any.pt", path),
        "a folder": os.mkdir,
    }
    if kind in made:
        made[kind](tmp / "target")
        return tmp / "target"
    if kind == "an unwritable folder":
        return _unwritable(tmp)
    return {"a name ending in /": f"{tmp}/new/", ".": ".", "an empty name": ""}[kind]


TARGETS = {
    "a device node": "is not a regular file (a device, pipe or socket)",
    "a fifo": "is not a regular file (a device, pipe or socket)",
    "a link like /dev/stdout": "is a symbolic link",
    "a link to a checkpoint": "is a symbolic link",
    "a folder": "is a folder: give a file name",
    "a name ending in /": "names a folder",
    ".": "names a folder",
    "an empty name": "the checkpoint needs a file name (got '')",
    "a path under a file": "is under",
    "an unwritable folder": "cannot write in folder",
    "a file that is not a checkpoint": "holds no lab checkpoint: it is not overwritten",
}


def _node(path: Path) -> tuple | None:
    """What is at ``path`` (its kind, size and bytes if a file; its target if a link), to see it is untouched."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    kind = stat.S_IFMT(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return kind, os.readlink(path)
    return kind, info.st_size, path.read_bytes() if stat.S_ISREG(info.st_mode) else None


@pytest.mark.parametrize(("kind", "words"), list(TARGETS.items()), ids=list(TARGETS))
def test_train_refuses_an_out_that_is_not_a_new_file_or_a_checkpoint_before_training(
    kind, words, tmp_path, capsys, monkeypatch, no_training, tiny
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "any.pt").write_bytes(tiny["rope-lm"].read_bytes())
    out = _target(kind, tmp_path)
    before = sorted(os.listdir(tmp_path)), _node(Path(out)) if str(out) else None
    assert main(["train", "--scheme", "rope", *FEW_STEPS, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and captured.err.startswith("posenc lab: ")
    assert words in captured.err, captured.err
    assert (sorted(os.listdir(tmp_path)), _node(Path(out)) if str(out) else None) == before  # nothing written


def test_train_all_checks_every_file_it_will_write_before_training(tmp_path, capsys, no_training):
    (tmp_path / "results.json").write_text("my own notes")
    assert main(["train", "--all", "--steps", "1", "--out", str(tmp_path)]) == 2
    assert "results path" in capsys.readouterr().err and (tmp_path / "results.json").read_text() == "my own notes"
    (tmp_path / "results.json").unlink()
    os.mkfifo(tmp_path / "t5-copy-seed1.pt")
    assert main(["train", "--all", "--steps", "1", "--out", str(tmp_path)]) == 2
    assert "t5-copy-seed1.pt is not a regular file" in capsys.readouterr().err
    file = tmp_path / "file"
    file.write_text("x")
    assert main(["train", "--all", "--steps", "1", "--out", str(file)]) == 2
    assert "which is a file, not a folder" in capsys.readouterr().err


def test_a_checkpoint_is_replaced_by_a_retrain(tmp_path):
    out = tmp_path / "rope-copy.pt"
    assert main(["train", "--scheme", "rope", *FEW_STEPS, "--seed", "1", "--out", str(out)]) == 0
    assert main(["train", "--scheme", "rope", *FEW_STEPS, "--seed", "2", "--out", str(out)]) == 0
    assert checkpoints.load(out).settings.seed == 2 and sorted(os.listdir(tmp_path)) == ["rope-copy.pt"]


def test_a_disk_that_fails_while_writing_is_one_line_and_status_2(tmp_path, capsys, monkeypatch):
    def full_disk(data, file):
        file.write(b"part of a checkpoint")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(checkpoints.torch, "save", full_disk)
    out = tmp_path / "rope-copy.pt"
    assert main(["train", "--scheme", "rope", *FEW_STEPS, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (
        f"posenc lab: could not write {out} ({os.strerror(errno.ENOSPC)}): no checkpoint written"
    )
    assert os.listdir(tmp_path) == []  # no temporary file left


SIZES = {
    "batch of a million": (["--batch-size", "1000000"], "--batch-size must be from 1 to 1,024 (got 1000000)"),
    "batch 1e9": (["--batch-size", "1e9"], "invalid int value: '1e9'"),
    "zero batch": (["--batch-size", "0"], "--batch-size must be from 1 to 1,024 (got 0)"),
    "a billion steps": (["--steps", "1000000000"], "--steps must be from 1 to 100,000 (got 1000000000)"),
    "zero steps": (["--steps", "0"], "--steps must be from 1 to 100,000 (got 0)"),
    "a negative seed": (["--seed", "-1"], "--seed must be from 0 to 4,294,967,295 (got -1)"),
    "a 40-digit seed": (["--seed", "9" * 40], "--seed must be from 0 to 4,294,967,295 (got a 40-digit number)"),
}


@pytest.mark.parametrize(("options", "words"), list(SIZES.values()), ids=list(SIZES))
def test_a_run_past_its_bounds_is_refused_before_any_work(options, words, tmp_path, capsys, no_training):
    for command in (["--scheme", "rope"], ["--all"]):
        assert main(["train", *command, *options, "--out", str(tmp_path / "x")]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.splitlines() == [captured.err.strip()] and words in captured.err
    assert os.listdir(tmp_path) == []


def test_the_help_states_every_bound(capsys):
    for command, said in (
        ("train", ["1 to 100,000", "1 to 1,024", "0 to 4,294,967,295", "never a link, a folder, a device"]),
        (
            "eval",
            [
                "3 to 4,096",
                "at most 16",
                "536,870,912 attention scores",
                "8,192 lm tokens",
                "511 letters",
                "d_model 2-256",
            ],
        ),
    ):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert all(words in text for words in said), (command, text)


def _crafted(tiny: dict, tmp_path: Path, change) -> Path:
    """The tiny RoPE checkpoint's dict with ``change`` applied, saved as a new file."""
    data = torch.load(tiny["rope-lm"], weights_only=True)
    change(data)
    path = tmp_path / "crafted.pt"
    torch.save(data, path)
    return path


def _set(section: str | None, key: str, value):
    return lambda data: (data[section] if section else data).__setitem__(key, value)


FIELDS = {
    "no device": (lambda data: data.pop("device"), "field device is missing"),
    "no config.n_heads": (lambda data: data["config"].pop("n_heads"), "field config.n_heads is missing"),
    "infinite layers": (_set("config", "n_layers", math.inf), "field config.n_layers must be a whole number"),
    "steps NaN": (_set("settings", "steps", math.nan), "field settings.steps must be a whole number from 1"),
    "infinite seconds": (_set(None, "seconds", math.inf), "field seconds must be a finite number"),
    "d_model 16384": (_set("config", "d_model", 16384), "field config.d_model must be a whole number from 2 to 256"),
    "ten million layers": (_set("config", "n_layers", 10**7), "(got 10000000)"),
    "a 100-digit width": (_set("config", "d_ff", 10**100), "(got a whole number of 333 bits)"),
    "losses as text": (_set(None, "losses", "low"), "field losses must be a list"),
    "a device that is code": (_set(None, "device", "cpu; rm -rf"), "field device must be a device name"),
    "an unknown config key": (_set("config", "flash", True), "field config has a key the lab does not know"),
    "a missing weight": (lambda data: data["state"].pop("norm.weight"), "field state does not hold"),
    "a weight of another shape": (
        lambda data: data["state"].__setitem__("norm.weight", torch.zeros(3)),
        "field state.norm.weight must have shape (16,) (got (3,))",
    ),
    "no format": (lambda data: data.pop("format"), "is not a lab checkpoint of format 1 (found None)"),
}


@pytest.mark.parametrize(("change", "words"), list(FIELDS.values()), ids=list(FIELDS))
def test_every_field_of_a_checkpoint_is_checked_and_named(change, words, tiny, tmp_path, capsys, monkeypatch):
    def bounded(config):  # a reader without bounds would build a 100 GB model here: fail the test instead
        if config.d_model * config.d_model * config.n_layers > 10**8 or config.d_ff > 10**6:
            raise AssertionError(f"a huge model was built: {config}")
        return LabModel(config)

    monkeypatch.setattr(checkpoints, "LabModel", bounded)
    path = _crafted(tiny, tmp_path, change)
    assert main(["eval", "--checkpoint", str(path), "--lengths", "8"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and words in captured.err, captured.err


def test_a_repeated_length_is_evaluated_once(tiny, capsys):
    report = _eval_json(capsys, tiny["rope-lm"], "--lengths", ",".join(["32"] * 20 + ["8", "32"]))
    assert [row["length"] for row in report["results"]] == [32, 8]


WORK = {
    "17 lengths": (["--lengths", ",".join(map(str, range(8, 25)))], "at most 16 different lengths (got 17)"),
    "copy at 4096": (
        ["--task", "copy", "--lengths", "4096"],
        "one copy length up to 2047 tokens (1023 letters) fits",
    ),
    "ten long lm lengths": (
        ["--lengths", ",".join(map(str, range(4087, 4097)))],  # 10 x 4096² x 2 heads x 1 layer
        "more than the 536,870,912 one evaluation may compute",
    ),
}


@pytest.mark.parametrize(("options", "words"), list(WORK.values()), ids=list(WORK))
def test_an_evaluation_past_its_work_bound_is_refused_before_any_work(options, words, tiny, capsys, monkeypatch):
    def evaluated(*args, **kwargs):
        raise AssertionError("evaluation started")

    monkeypatch.setattr(lab_command, "evaluate", evaluated)
    assert main(["eval", "--checkpoint", str(tiny["rope-lm"]), *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and words in captured.err, captured.err
