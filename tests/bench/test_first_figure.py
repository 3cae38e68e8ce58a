"""bench/first_figure.py without a browser: Streamlit's messages split at the first figure, and the report."""

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.first_figure import messages
from bench.first_figure_report import KEEP, report, write


def _delta(root: int, element: str | None = None, block: str | None = None) -> bytes:
    msg = ForwardMsg()
    msg.metadata.delta_path.extend([root, 0])
    if element == "plotly_chart":
        msg.delta.new_element.plotly_chart.spec = '{"data": []}'
    elif element:
        msg.delta.new_element.markdown.body = "text"
    else:
        getattr(msg.delta.add_block, block).SetInParent()
    return msg.SerializeToString()


def _finished() -> bytes:
    msg = ForwardMsg()
    msg.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    return msg.SerializeToString()


def test_messages_count_what_comes_before_the_first_figure_only():
    before = [_delta(1, "markdown"), _delta(0, block="expandable"), _delta(0, "markdown")]
    figure = _delta(0, "plotly_chart")
    frames = [(900.0 + 10 * i, raw) for i, raw in enumerate([*before, figure, _delta(0, "markdown"), _finished()])]
    row = messages(frames)
    assert (row["msg1"], row["fig_msg"], row["done"]) == (900.0, 930.0, 950.0)
    assert (row["elements"], row["sb"], row["main"], row["blocks"]) == (3, 1, 2, 1)
    assert row["kB_before"] == sum(len(raw) for raw in before) / 1000
    assert row["fig_kB"] == len(figure) / 1000
    assert row["kB_run"] == sum(len(raw) for _, raw in frames) / 1000


def _row(first_ms: float | None) -> dict:
    keys = ("html", "static", "ws", "msg1", "fig_msg", "run_to_fig", "fig_to_draw", "late_static", "done")
    return {key: 1.0 for key in keys} | {
        "first_figure": first_ms,
        "errors": [],
        "elements": 1,
        "sb": 0,
        "main": 1,
        "blocks": 0,
        "kB_before": 0.1,
        "fig_kB": 1.0,
        "kB_run": 2.0,
    }


def test_report_marks_each_page_against_floor_plus_a_third_of_a_second():
    text = report(_row(2000.0), {"rope": _row(2250.0), "alibi": _row(2400.0), "glossary": _row(None)}, 5)
    assert "| rope | 2.00 | 2.25 | 0.25 ✅ | 1.12 | – | – | – |" in text
    assert "| alibi | 2.00 | 2.40 | 0.40 ❌ | 1.20 | – | – | – |" in text
    assert "| glossary | 2.00 | – | – | – | – | – | – |" in text
    assert "shared with other work" not in text
    assert "shared with other work" in report(_row(2000.0), {}, 5, shared_machine=True)


def test_write_keeps_the_reading_written_below_the_tables(tmp_path):
    path = tmp_path / "first_figure.md"
    path.write_text(f"old tables\n{KEEP}\nwhere the time goes\n")
    write(path, "new tables\n")
    assert "old tables" not in path.read_text()
    assert path.read_text().endswith(f"new tables\n\n{KEEP}\nwhere the time goes\n")


def test_the_breakdown_is_put_beside_the_benchs_results_and_kept_when_they_are_rewritten(tmp_path):
    from bench import run
    from bench.first_figure_report import put_section

    results = tmp_path / "results.md"
    results.write_text("| page | rerun ms |\n")
    put_section(results, "| page | floor (s) |\n| rope | 2.00 |\n")
    put_section(results, "| page | floor (s) |\n| rope | 1.90 |\n")  # a second run replaces, not appends
    text = results.read_text()
    assert text.startswith("| page | rerun ms |") and text.count("first-figure:start") == 1
    assert "| rope | 1.90 |" in text and "| rope | 2.00 |" not in text
    run._write_results_md("| page | rerun ms, again |\n", results)  # bench/run rewrites its own tables
    text = results.read_text()
    assert text.startswith("| page | rerun ms, again |") and "| rope | 1.90 |" in text


def test_the_cpu_table_puts_each_page_against_the_floors_main_thread_and_is_left_out_untraced():
    def cpu(total: float) -> dict[str, float]:
        return {"scripts": total - 40, "react": 20.0, "other_js": 10.0, "layout": 5.0, "network": 3.0, "other": 2.0}

    floor = _row(2000.0) | {"cpu": cpu(900.0) | {"total": 900.0}}
    rows = {"rope": _row(2250.0) | {"cpu": cpu(1300.0) | {"total": 1300.0}}, "glossary": _row(None) | {"cpu": None}}
    text = report(floor, rows, 5)
    assert "| floor | 900 | +0 | 860 | 20 | 10 | 5 | 3 | 2 | – | – |" in text
    assert "| rope | 1300 | +400 | 1260 | 20 | 10 | 5 | 3 | 2 | – | – |" in text
    assert "| glossary | – | – | – | – | – | – | – | – | – | – |" in text
    assert "main thread" not in report(_row(2000.0), {"rope": _row(2250.0)}, 5)


def test_the_breakdown_shows_the_servers_side_of_the_run_beside_the_browsers():
    text = report(_row(2000.0), {"rope": _row(2250.0) | {"server_fig": 17.0}}, 5)
    breakdown = text[text.index("| page | html |") :].splitlines()
    server = breakdown[0].split("|").index(" server run→fig ")
    cells = {line.split("|")[1].strip(): line.split("|")[server].strip() for line in breakdown[2:] if line}
    assert cells["rope"] == "17" and cells["floor"] == "–"


def test_the_same_page_with_three_point_figures_splits_the_difference_into_first_screen_and_figure():
    def cpu(total: float) -> dict[str, float]:
        return {"scripts": 600.0, "react": 20.0, "other_js": 10.0, "layout": 5.0, "network": 3.0, "other": 2.0}

    three = _row(2150.0) | {"cpu": cpu(1100.0) | {"total": 1100.0}}
    floor = _row(2000.0) | {"cpu": cpu(900.0) | {"total": 900.0}}
    rows = {"rope": _row(2400.0) | {"cpu": cpu(1300.0) | {"total": 1300.0}, "three_point": three}}
    text = report(floor, rows, 5)
    assert "| rope | 2.00 | 2.40 | 0.40 ❌ | 1.20 | 2.15 | 0.15 | 0.25 |" in text
    assert "| rope | 1300 | +400 | 600 | 20 | 10 | 5 | 3 | 2 | 1100 | +200 |" in text
