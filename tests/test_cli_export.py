"""The batch exporter, run as a user runs it: `posenc export ...` (here `python -m posenc export`) in a subprocess."""

import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posenc.commands.export import main
from posenc.drawing import export

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "posenc", "export", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_list_names_every_figure():
    from posenc import figures  # noqa: F401
    from posenc.drawing.registry import FIGURES

    listed = run_cli("list")
    assert listed.returncode == 0, listed.stderr
    for figure_id in FIGURES:
        assert figure_id in listed.stdout


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
def test_many_figures_in_every_format_with_a_preset_and_overrides(tmp_path):
    done = run_cli(
        "why-attention",
        "why-attention",
        "--preset",
        "llama-3.1-8b",
        "--set",
        "embedding_dim=64",
        "--format",
        *export.FORMATS,
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    stem = "why-attention_llama-3.1-8b_d64"
    png = (tmp_path / f"{stem}_screen_screen.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24])[0] == 2400
    assert (tmp_path / f"{stem}_screen_screen.svg").read_bytes().lstrip().startswith(b"<svg")
    assert (tmp_path / f"{stem}_screen_screen.pdf").read_bytes().startswith(b"%PDF-")
    assert b"<html" in (tmp_path / f"{stem}_screen.html").read_bytes()[:2000]
    assert (tmp_path / f"{stem}.csv").read_text().startswith("row,column,weights_A_no_PE")
    assert len(np.load(tmp_path / f"{stem}.npz").files) == 4
    assert done.stdout.count("wrote") == 2 * len(export.FORMATS)


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
def test_a_size_preset_sets_the_page_and_the_name_and_kaleido_stays_quiet(tmp_path):
    done = run_cli(
        "why-attention", "--set", "embedding_dim=32", "--format", "pdf", "png",
        "--style", "slides-light", "--size", "column", "--out", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    stem = "why-attention_custom_d32_slides-light_column"
    pdf = (tmp_path / f"{stem}.pdf").read_bytes()
    width = float(re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)", pdf).group(1))
    assert width == pytest.approx(252, abs=0.5)  # 3.5 in
    png = (tmp_path / f"{stem}.png").read_bytes()
    assert struct.unpack(">II", png[16:24])[0] == 1050  # 3.5 in at 300 dpi
    assert "kopts" not in done.stderr + done.stdout and "Warning" not in done.stderr


def test_exported_data_equal_what_the_app_builds(tmp_path):
    from posenc import figures  # noqa: F401
    from posenc.drawing import registry

    assert (
        run_cli("why-attention", "--set", "embedding_dim=32", "--format", "npy", "--out", str(tmp_path)).returncode == 0
    )
    params, _ = registry.resolve_params("why-attention", {"embedding_dim": 32})
    expected = registry.build("why-attention", params).data
    saved = np.load(tmp_path / "why-attention_custom_d32.npz")
    for name, values in expected.items():
        # The exporter runs with the machine's torch threads, this process with one: float32 sums are reordered by
        # the thread count, so the values agree to float32 precision (a few ulp of their magnitude), not bit for bit.
        scale = float(np.max(np.abs(values))) if np.size(values) else 1.0
        np.testing.assert_allclose(saved[name], values, rtol=1e-6, atol=4 * np.finfo(np.float32).eps * scale)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "unknown figure 'nope'"),
        (["why-attention", "--preset", "gpt-17"], "gpt-17"),
        (
            ["why-attention", "--set", "embedding_dim=abc"],
            "bad parameter: embedding_dim='abc' is not a valid whole number",
        ),
        (["why-attention", "--set", "colour=red"], "unknown parameter 'colour'"),
        (["why-attention", "--set", "embedding_dim"], "NAME=VALUE"),
        (["why-attention", "--format", "csv", "--out", "/proc/posenc"], "cannot create output folder"),
        (["why-attention", "--size", "poster"], "invalid choice: 'poster'"),
    ],
)
def test_errors_are_one_clear_line(args, message, capsys):
    """Each mistake through the exporter's own entry point (the next test meets one as a user does, in a shell)."""
    try:
        status = main(args)
    except SystemExit as exit_:  # argparse's own refusals (a choice it does not offer)
        status = exit_.code
    stderr = capsys.readouterr().err
    assert status == 2
    assert message in stderr and "Traceback" not in stderr


def test_an_error_exits_2_with_one_line_from_the_command():
    done = run_cli("why-attention", "--set", "colour=red")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("posenc export: error: unknown parameter 'colour'"), line


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
def test_lang_exports_the_figure_with_its_text_in_that_language(tmp_path):
    """The SVG's text (titles, axes, legend) is Korean with --lang ko, and Chinese with --lang zh-CN."""
    scripts = {"en": r"[\uac00-\ud7af\u4e00-\u9fff]", "ko": r"[\uac00-\ud7af]", "zh-CN": r"[\u4e00-\u9fff]"}
    counts = {}
    for code, letters in scripts.items():
        out = tmp_path / code
        done = run_cli("alibi-slopes", "--lang", code, "--format", "svg", "--out", str(out))
        assert done.returncode == 0, done.stderr
        (written,) = out.iterdir()
        assert written.name.endswith(f"_{code}.svg") == (code != "en"), written.name
        svg = written.read_text(encoding="utf-8")
        counts[code] = len(re.findall(letters, svg))
        families = set(re.findall(r"font-family: ?([^;\"]+)", svg))
        first = {"en": "'DejaVu Sans'", "ko": "'Noto Sans CJK KR'", "zh-CN": "'Noto Sans CJK SC'"}[code]
        assert families and all(family.startswith(first) for family in families), families  # the face drawn with
    assert counts["en"] == 0 and counts["ko"] >= 5 and counts["zh-CN"] >= 5, counts


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
def test_a_sweep_writes_a_12_frame_gif_an_mp4_and_an_html_with_12_frames(tmp_path):
    """The issue's command: posenc export rope-wavelengths --sweep base=10000..1000000:12 --format gif mp4 html."""
    from PIL import Image

    done = run_cli(
        "rope-wavelengths",
        "--sweep",
        "base=10000..1000000:12",
        "--format",
        "gif",
        "mp4",
        "html",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    files = {path.suffix: path for path in tmp_path.iterdir()}
    assert set(files) == {".gif", ".mp4", ".html"} and all("sweep-base-12" in p.name for p in files.values())
    assert Image.open(files[".gif"]).n_frames == 12
    assert files[".mp4"].read_bytes()[4:8] == b"ftyp"
    html = files[".html"].read_text()
    assert len(set(re.findall(r'"name":\s*"(\d+)"', html))) == 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["context-inv-freq", "--sweep", "rope_type=1..2:3", "--format", "gif"], "rope_type is not a number"),
        (["rope-wavelengths", "--sweep", "base=0.5..1000000:12", "--format", "gif"], "0.5 is outside what it allows"),
        (["rope-wavelengths", "--sweep", "base=10000..1000000:0", "--format", "gif"], "frames must be 2 to 60"),
        (["rope-wavelengths", "--sweep", "base=10000..1000000:10000", "--format", "gif"], "(got 10000)"),
        (["rope-wavelengths", "--sweep", "base=1..2..3", "--format", "gif"], "must be numbers"),
        (["rope-wavelengths", "--format", "gif"], "needs --sweep"),
        (["rope-wavelengths", "--sweep", "base=10000..1000000:3", "--format", "csv"], "not csv"),
        (
            ["rope-wavelengths", "--sweep", "base=10000..1000000:3", "--format", "gif", "--size", "column"],
            "screen or slide",
        ),
    ],
)
def test_a_bad_sweep_is_one_line_and_status_2(args, message, capsys):
    status = main(args)
    stderr = capsys.readouterr().err
    assert status == 2 and message in stderr and "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1


# Issue 35, defect 6: a file holds every frame asked for; the page's 3 MB bound is not a file's.
def test_a_60_frame_heatmap_sweep_writes_a_gif_of_60_frames(tmp_path, monkeypatch):
    import io

    from PIL import Image

    drawn = []

    def small_png(figure, fmt, width, height, scale, browser):  # the figure as kaleido would, at a small size
        drawn.append(fmt)
        buffer = io.BytesIO()
        Image.new("RGB", (40, 30), (4 * len(drawn), 0, 0)).save(buffer, format="PNG")
        return buffer.getvalue()

    monkeypatch.setattr(export, "image_browser", lambda: "chromium")
    monkeypatch.setattr(export, "start_browser_server", lambda: None)
    monkeypatch.setattr(export, "stop_browser_server", lambda: None)
    monkeypatch.setattr(export, "to_image", small_png)
    args = ["sinusoidal-heatmap", "--sweep", "base=10000..1000000:60", "--format", "gif", "--out", str(tmp_path)]
    assert main(args) == 0
    (gif,) = tmp_path.glob("*.gif")
    assert "sweep-base-60" in gif.name
    assert Image.open(gif).n_frames == 60 and len(drawn) == 60


# Issue 35, defect 7: Ctrl-C during an export exits 130 with one line, no traceback, as the lab's commands do.
def test_ctrl_c_during_an_export_exits_130_with_one_line(tmp_path):
    import signal

    # Ctrl-C's signal handled as a shell's foreground job has it: a pytest-xdist worker ignores SIGINT, and an
    # ignored signal stays ignored in its children (Python then installs no KeyboardInterrupt handler), so the
    # export is started with Python's own handler put back, then run as `python -m posenc export ...` runs.
    start = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv = ['posenc', *sys.argv[1:]]; runpy.run_module('posenc', run_name='__main__', alter_sys=True)"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", start, "export", "all", "--format", "npy", "csv", "--out", str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = process.stdout.readline()  # its own word that the work has started: a file written
        assert first.startswith("wrote "), first + process.stderr.read()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines() == ["posenc export: interrupted"], stderr
