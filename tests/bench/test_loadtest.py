"""The load test's pieces that need no server: its links, its statistics, its log scan, its report; and the
/proc readings it takes of server processes (of this test's own process)."""

from __future__ import annotations

import os
import time
import urllib.parse

from bench import procstat
from bench.loadtest import link, mixed_links, percentile
from bench.loadtest_report import readme_block, render_markdown
from bench.scenarios import PAGES, SCENARIOS
from bench.server_logs import log_errors, log_offsets
from bench.soak import distinct_links


def test_mixed_links_cover_every_page_at_every_scenario_once_and_mix_early():
    links = mixed_links()
    assert len(links) == len(set(links)) == len(PAGES) * len(SCENARIOS)
    largest = urllib.parse.urlencode(SCENARIOS["largest"])
    assert links[0] == "/" and links[1].endswith("?" + largest)  # the home page at its defaults, then a largest
    pages = {urllib.parse.urlsplit(each).path for each in links[: len(PAGES)]}
    assert len(pages) == len(PAGES)


def test_link_is_the_page_path_and_the_scenario_query():
    assert link("rope", "default") == "/rope"
    assert link(PAGES[0], "default") == "/"
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link("alibi", "largest")).query)["seq_len"] == ["1048576"]


def test_percentile_is_the_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0 and percentile(values, 0.95) == 95.0 and percentile(values, 1.0) == 100.0
    assert percentile([3.0], 0.95) == 3.0 and percentile([], 0.5) is None


def test_log_errors_reads_only_what_was_written_since(tmp_path):
    log = tmp_path / "replica.log"
    log.write_text("Traceback (most recent call last): old\n")
    offsets = log_offsets([log])
    with log.open("a") as out:
        out.write("  You can now view your Streamlit app\nValueError raised\nTraceback (most recent call last): new\n")
    assert log_errors([log], offsets) == ["Traceback (most recent call last): new"]


def test_soak_links_do_not_repeat():
    links = distinct_links()
    first = [next(links) for _ in range(5000)]
    assert len(set(first)) == 5000


def test_procstat_reads_this_process():
    pid = os.getpid()
    before, clock = procstat.cpu_seconds(pid), time.process_time()
    while time.process_time() - clock < 0.3:  # 0.3 s of this process's CPU, however busy the machine is
        sum(i * i for i in range(10_000))
    used, measured = procstat.cpu_seconds(pid) - before, time.process_time() - clock
    # /proc counts in clock ticks (10 ms), scaled by the kernel to the process's exact run time, and sums its
    # threads (idle here): within 0.1 s of the process's own CPU clock. (A short piece of work read once can fall
    # between two ticks and read as none: that was this test's flake under a busy core.)
    assert abs(used - measured) < 0.1, (used, measured)
    memory = procstat.memory([pid])
    assert 0 < memory["rss_mb"] <= memory["peak_mb"] == memory["peak_one_mb"]
    assert procstat.memory_mb(2**22 + 12345) == {"rss": 0.0, "hwm": 0.0}  # a process that is gone


def _step(sessions, served, errors=0, log=()):
    return {
        "sessions": sessions, "served": served, "first_figure_p50_s": 0.5, "first_figure_p95_s": 1.25,
        "first_figure_max_s": 2.0, "cpu_per_session_ms": 180, "peak_mb": 900.0, "peak_one_mb": 450.0,
        "errors": errors, "error_examples": ["TimeoutError: late"] if errors else [], "log_errors": list(log),
    }  # fmt: skip


def test_report_has_a_row_per_step_and_counts_log_errors():
    results = {
        "machine": {"cpu": "a CPU", "cores": 2, "python": "3.11"},
        "when": "2026-11-24 20:00 UTC",
        "settings": {"timeout_s": 120.0, "one_link": "/rope"},
        "modes": [
            {
                "mode": "HAProxy, 2 replicas",
                "workloads": {
                    "one link": [
                        _step(10, 10),
                        _step(50, 49, errors=1, log=["Traceback x"]),
                        {"sessions": 100, "skipped": "the run's time cap was reached"},
                    ]
                },
            }
        ],
    }
    report = render_markdown(results)
    assert "## HAProxy, 2 replicas: one link" in report
    assert "| 10 | 10/10 | 0.50 / 1.25 / 2.00 | 180 | 900 (largest replica 450) | 0 |" in report
    assert "| 50 | 49/50 | 0.50 / 1.25 / 2.00 | 180 | 900 (largest replica 450) | 2 |" in report
    assert "| 100 | skipped: the run's time cap was reached |" in report
    assert "`TimeoutError: late`" in report and "`Traceback x`" in report
    block = readme_block(results)
    assert "| HAProxy, 2 replicas | one link | 50 | 49/50 | 0.50 / 1.25 | 180 | 900 | 2 |" in block
    assert "100" not in block.split("\n", 2)[2].split("`make loadtest`")[0]  # skipped steps are left out


def test_soak_report_states_the_budget_and_the_growth():
    samples = [
        {"t_s": 60.0 * i, "runs": 100 * i, "rss_mb": 700.0 + i, "peak_mb": 0, "peak_one_mb": 0, "rss_largest_mb": 360.0}
        for i in range(13)
    ]
    soak = {
        "minutes": 12.0, "mode": "HAProxy, 2 replicas", "runs": 1200, "distinct_links": 1200, "served": 1200,
        "errors": 0, "log_errors": [], "workers": 4, "memory": samples, "budget_mb": 1536.0, "within_budget": True,
        "growth_second_half_mb": 6.0,
    }  # fmt: skip
    report = render_markdown({**_results_without_modes(), "soak": soak})
    assert "1200 runs of 1200 distinct links (1200 served, 0 errors, 0 error lines in the logs)" in report
    assert "start 700, end 712, highest 712" in report and "1536 MB (largest replica 360): kept" in report
    assert "second half of the soak: +6 MB" in report
    assert "| 12.0 | 1200 | 712 |" in report
    assert "For the README" not in report  # no load steps, no README table


def _results_without_modes():
    return {
        "machine": {"cpu": "a CPU", "cores": 2, "python": "3.11"},
        "when": "2026-11-24 20:00 UTC",
        "settings": {"timeout_s": 120.0, "one_link": "/rope"},
        "modes": [],
    }


def test_a_run_past_its_time_cap_starts_nothing_and_says_so(tmp_path, monkeypatch):
    import json

    from bench import loadtest

    monkeypatch.setattr(loadtest.signal, "signal", lambda *args: None)
    monkeypatch.setattr(loadtest, "running_replicas", lambda *a, **k: (_ for _ in ()).throw(AssertionError("started")))
    assert loadtest.main(["--short", "--max-minutes", "0", "--out", str(tmp_path / "lt")]) == 0
    results = json.loads((tmp_path / "lt.json").read_text())
    assert [mode["mode"] for mode in results["modes"]] == ["one process", f"HAProxy, {os.cpu_count()} replicas"]
    steps = [step for mode in results["modes"] for workload in mode["workloads"].values() for step in workload]
    assert len(steps) == 8 and all(step["skipped"] == "the run's time cap was reached" for step in steps)
    assert "| 5 | skipped: the run's time cap was reached |" in (tmp_path / "lt.md").read_text()
