"""The length lab's benchmark (bench/lab_bench.py): a step rate timed after the warm-up and extrapolated to the
shipped steps, the results.json estimate counted as build_results evaluates, and a report that marks each measure
against its target and says the training time is extrapolated."""

from __future__ import annotations

import pytest

from bench import lab_bench, run
from posenc_lab.scaling import SCALING_TYPES
from posenc_lab.schemes import SCHEMES
from tests.bench.test_run import _results


def _lab(*, make_lab_s=600.0, sliding_s=0.5, gpu=None) -> dict:
    row = {"steps_per_s": 4.0, "cpu_s_per_step": 0.2, "fastest_step_s": 0.1, "default_steps": 400}
    row |= {"seconds_extrapolated": 100.0, "cpu_seconds_extrapolated": 80.0}
    training = [{"scheme": scheme, "task": task, **row} for task in ("lm", "copy") for scheme in SCHEMES]
    evaluation = {"scheme": "rope", "lengths": [32, 64], "copy_lengths": [21, 41, 61], "sliding_s": sliding_s}
    evaluation |= {"nonoverlapping_s": 0.2}
    evaluation |= {"copy_s": 0.1, "sliding_cpu_s": 0.4, "nonoverlapping_cpu_s": 0.2, "copy_cpu_s": 0.1}
    return {
        "device": "cuda" if gpu else "cpu",
        "gpu": gpu,
        "threads": 2,
        "load_average_1m": 1.5,
        "parameters": 116_000,
        "measured_steps": 30,
        "training_text_s": 2.0,
        "training": training,
        "train_all_s_extrapolated": 1202.0,
        "eval": evaluation,
        "results_json_s_estimated": 30.0,
        "make_lab_s_estimated": make_lab_s,
        "train_all_cpu_s_extrapolated": 962.0,
        "train_all_fastest_s_extrapolated": 482.0,
        "results_json_cpu_s_estimated": 20.0,
        "make_lab_cpu_s_estimated": 480.0,
        "peak_memory_mb": 512.0,
        "targets": lab_bench.TARGETS,
    }


def test_a_report_within_the_targets_is_marked_met_and_says_extrapolated():
    text = "\n".join(lab_bench.render_markdown(_lab()))
    assert "❌" not in text and text.count("✅") == 8  # make lab and three evaluations, wall and CPU
    assert "**extrapolated**" in text and "CPU, 2 threads, no GPU" in text
    assert "`make lab` (wall): 20.0 min of training for 12 checkpoints (extrapolated)" in text
    assert "= **10.0 min** (target <= 20 min) ✅" in text and "= **8.0 min** (target <= 20 min) ✅" in text
    assert "| rope | copy | 4.0 | 0.2 | 0.1 | 400 | 100.0 | 80.0 |" in text
    assert "fastest step (the least disturbed by other work): 8.0 min for the 12 checkpoints" in text
    assert "at the 2 lengths 32, 64 (lm, sliding)" in text and "at the 3 lengths 21, 41, 61 (copy task)" in text


@pytest.mark.parametrize(
    ("over", "words"),
    [
        ({"make_lab_s": 1300.0}, "= **21.7 min** (target <= 20 min) ❌"),
        ({"sliding_s": 1.5}, "(lm, sliding): 1.50 s wall ❌, 0.40 s CPU ✅"),
    ],
)
def test_a_measure_over_its_target_is_marked_missed(over, words):
    assert words in "\n".join(lab_bench.render_markdown(_lab(**over)))


def test_a_gpu_run_names_the_gpu_and_its_memory():
    text = "\n".join(lab_bench.render_markdown(_lab(gpu="NVIDIA H100")))
    assert "GPU NVIDIA H100" in text and "Peak GPU memory allocated: 512 MB" in text


def test_the_full_report_holds_the_lab_section_when_measured():
    assert "Length lab on" not in run.render_markdown(_results())
    assert "Length lab on" in run.render_markdown(_results() | {"lab": _lab()})


def test_results_json_is_estimated_from_every_evaluation_build_results_runs():
    evaluation = {"sliding_s": 1.0, "nonoverlapping_s": 10.0, "copy_s": 100.0, "sliding_cpu_s": 2.0}
    evaluation |= {"nonoverlapping_cpu_s": 0.0, "copy_cpu_s": 0.0}
    assert lab_bench._results_json_seconds(evaluation) == len(SCHEMES) * 121.0 + len(SCALING_TYPES) * 1.0
    assert lab_bench._results_json_seconds(evaluation, "_cpu_s") == (len(SCHEMES) + len(SCALING_TYPES)) * 2.0


def test_a_rate_is_timed_after_the_warm_up_and_extrapolated(monkeypatch):
    clock = iter([0.0, 5.0, 5.5, 5.8, 6.5]).__next__  # the two warm-up steps are slow, the timed ones fast
    cpu = iter([0.0, 1.0, 1.1, 1.2, 1.3]).__next__

    def steps(scheme, settings, *, device, on_step):
        for step in range(1, settings.steps + 1):
            on_step(step, settings.steps, 1.0)

    monkeypatch.setattr(lab_bench, "train_checkpoint", steps)
    monkeypatch.setattr(lab_bench.time, "perf_counter", clock)
    monkeypatch.setattr(lab_bench.time, "process_time", cpu)
    row = lab_bench._train_rate("rope", "copy", 3, "cpu", lambda: None)
    assert row["steps_per_s"] == 2.0  # 3 steps from 5.0 to 6.5 s
    assert row["seconds_extrapolated"] == round(lab_bench.DEFAULT_STEPS["copy"] / 2.0, 1)
    assert row["cpu_s_per_step"] == pytest.approx(0.1) and row["fastest_step_s"] == pytest.approx(0.3)
    assert row["cpu_seconds_extrapolated"] == pytest.approx(lab_bench.DEFAULT_STEPS["copy"] * 0.1)
