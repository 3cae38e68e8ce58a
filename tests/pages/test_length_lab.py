"""The Length lab page through AppTest, on the small made-up lab folder (tests/figures/lab_data.py): it draws from
the results, a bad factor is a message beside its control, Train your own refuses politely when the server is
full, a finished run of the session joins the loss figure as a dashed curve, and a run is registered to end with
its session."""

from __future__ import annotations

import queue

import pytest

from posenc.figures.lab import source
from posenc.ui import lab_controls, lab_runs, lab_training, session_end
from tests.figures import lab_data
from tests.pages.conftest import assert_healthy, chart_specs, open_page, payload_bytes, titles, warning_text


@pytest.fixture(autouse=True)
def lab(tmp_path, monkeypatch):
    monkeypatch.setenv(source.ENVIRONMENT, str(lab_data.make_folder(tmp_path / "lab")))


def test_the_page_draws_every_figure_from_the_results_with_the_papers_beside_ours():
    at = open_page("length_lab")
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == 10, shown
    assert shown[0] == "Loss against evaluation length (sliding window)" and "factor s = 4" in shown[5]
    assert shown[2:4] == [
        "Passkey retrieval: exact-match accuracy against length",
        "Passkey retrieval by the RoPE model, scaled by s = 4",
    ]
    assert (
        "after 1,000 steps at 256 tokens" in shown[6] and shown[-1] == "Training loss of each scheme (language model)"
    )
    text = "\n".join(block.value for block in at.markdown)
    assert "Kazemnejad et al. 2023" in text and "more than 10% worse: NoPE, sinusoidal, RoPE" in text
    assert "Across 3 seeds" in text
    assert payload_bytes(at) < 2_500_000


def test_a_bad_factor_in_the_link_is_a_message_beside_the_control():
    at = open_page("length_lab", {"factor": "abc"}, section="RoPE scaling")
    assert not at.exception and "factor='abc' is not a valid number; using 4" in warning_text(at)
    assert titles(at)[0] == "The RoPE model under each scaling method, factor s = 4 (sliding window)"
    assert "fine-tune" in titles(at)[1] and len(titles(at)) == 2


def test_a_factor_a_method_refuses_shows_its_message_and_no_traceback(monkeypatch):
    def refuse(config, rope_type, factor=None):
        if rope_type == "yarn":
            raise ValueError("factor must be >= 1 for yarn")

    monkeypatch.setattr(lab_controls, "rope_scaling", refuse)
    at = open_page("length_lab", {"factor": "0.5"}, section="RoPE scaling")
    assert not at.exception and len(titles(at)) == 1 and "fine-tune" in titles(at)[0]  # no scaling figure
    assert "factor = 0.5 is refused (yarn): factor must be >= 1 for yarn" in warning_text(at)


def _train_button(at):
    return next(button for button in at.button if button.label == "Train")


def test_train_says_busy_when_the_server_is_full(monkeypatch):
    monkeypatch.setattr(lab_runs, "MAX_RUNS", 0)
    at = open_page("length_lab", section="Copy task")
    _train_button(at).click().run()
    assert not at.exception
    assert "Busy: 0 runs in progress, try again shortly." in warning_text(at)
    assert lab_training.RUN not in at.session_state


def test_a_finished_run_joins_the_loss_figure_as_a_dashed_curve(monkeypatch):
    rows = {mode: by_scheme["nope"] for mode, by_scheme in lab_data.results()["lm"].items()}
    run = lab_runs.Run(10_001, "rope", "lm", 50, 3, state="done", rows=rows)
    monkeypatch.setitem(lab_runs.RUNS, run.id, run)
    at = open_page("length_lab", section=None)
    at.session_state[lab_training.RUN] = run.id
    at.run()
    assert_healthy(at)
    traces = chart_specs(at)[0]["data"]
    assert traces[-1]["name"] == "your RoPE (seed 3)" and traces[-1]["line"]["dash"] == "dash"
    assert len(traces) == 13  # six means, six bands, the reader's run
    assert "RoPE (seed 3) trained" in "\n".join(block.value for block in at.success)


def _session_with(run: lab_runs.Run, monkeypatch):
    monkeypatch.setitem(lab_runs.RUNS, run.id, run)
    at = open_page("length_lab", section="Copy task")
    at.session_state[lab_training.RUN] = run.id
    return at.run()


def test_a_running_run_shows_its_progress_and_cancel_ends_it(monkeypatch):
    run = lab_runs.Run(10_002, "alibi", "copy", 50, 1, step=10, loss=1.25, messages=queue.Queue())
    at = _session_with(run, monkeypatch)
    assert not at.exception
    bar = at.get("progress")[0]
    assert "step 10 of 50, loss 1.250" in bar.proto.text and bar.proto.value == 20
    assert _train_button(at).disabled  # one run per session: Train waits for this one
    next(button for button in at.button if button.label == "Cancel").click().run()
    assert run.state == "cancelled" and "Training cancelled." in "\n".join(block.value for block in at.info)


def test_a_run_past_its_last_step_says_it_is_evaluating_and_a_failed_run_says_why(monkeypatch):
    run = lab_runs.Run(10_003, "rope", "lm", 50, 2, step=50, loss=0.5, messages=queue.Queue())
    at = _session_with(run, monkeypatch)
    assert "Evaluating your RoPE (seed 2)" in at.get("progress")[0].proto.text
    failed = lab_runs.Run(10_004, "rope", "lm", 50, 2, state="failed", error="RuntimeError: out of memory")
    at = _session_with(failed, monkeypatch)
    assert "Training failed: RuntimeError: out of memory" in warning_text(at)


def test_train_starts_a_run_for_the_session_and_a_refused_setting_is_a_message(monkeypatch):
    started = lab_runs.Run(10_005, "nope", "lm", 50, 0, state="done", rows={})
    registered = []
    monkeypatch.setattr(session_end, "close_at_end", lambda name, thing: registered.append((name, thing)) or True)

    def start(scheme, task, steps, seed):
        if seed == 13:
            raise ValueError("seed must be lucky")
        return started

    monkeypatch.setattr(lab_runs, "start", start)
    monkeypatch.setitem(lab_runs.RUNS, started.id, started)
    at = open_page("length_lab", section="Copy task")
    at.number_input(key="lab_train_seed").set_value(13)
    _train_button(at).click().run()
    assert "seed must be lucky" in warning_text(at) and lab_training.RUN not in at.session_state
    at.number_input(key="lab_train_seed").set_value(0)
    _train_button(at).click().run()
    assert at.session_state[lab_training.RUN] == started.id and not at.exception
    assert registered[0] == (lab_training.RUN, started)  # a closed tab or a reload ends it (Run.close)


def test_a_new_run_lets_the_sessions_finished_one_go(monkeypatch):
    old = lab_runs.Run(10_006, "rope", "lm", 50, 1, state="done", rows={})
    new = lab_runs.Run(10_007, "alibi", "lm", 50, 2, state="done", rows={})
    monkeypatch.setitem(lab_runs.RUNS, old.id, old)
    monkeypatch.setattr(lab_runs, "start", lambda *args: lab_runs.RUNS.setdefault(new.id, new))
    at = _session_with(old, monkeypatch)
    _train_button(at).click().run()
    assert at.session_state[lab_training.RUN] == new.id and old.id not in lab_runs.RUNS and not at.exception
    lab_runs.RUNS.pop(new.id)
