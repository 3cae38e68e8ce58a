"""How the image export finds its browser (drawing.export_browser): BROWSER_PATH first, else kaleido's driver's own
search (choreographer), checked to start; and what the export and `posenc export` say when there is none.

The browsers here are fake: executable scripts in tmp_path that answer `--version` (or fail), never given a page."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from choreographer.browsers import chromium as choreographer_chromium
from choreographer.browsers._chrome_constants import BrowserInfo

from posenc import figures  # noqa: F401
from posenc.commands import export as cli
from posenc.drawing import export, export_browser, registry


@pytest.fixture(autouse=True)
def fresh_lookup():
    """Each test looks for the browser itself (lookups are reused for a minute while the app runs)."""
    export_browser._find_browser.cache_clear()
    yield
    export_browser._find_browser.cache_clear()


def fake_browser(folder: Path, name: str = "chrome", *, starts: bool = True) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\necho 'Chromium 1.0'\n" if starts else "#!/bin/sh\nexit 1\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def nothing_installed(monkeypatch, tmp_path):
    """No BROWSER_PATH, an empty PATH, no downloaded Chrome and none at the usual places: choreographer's search
    runs as it is and finds nothing."""
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(choreographer_chromium, "get_chrome_download_path", lambda **_: None)
    monkeypatch.setattr(choreographer_chromium, "get_old_chrome_download_path", lambda: None)
    nowhere = {
        name: BrowserInfo(info.exe_names, info.ms_prog_id, ())
        for name, info in choreographer_chromium.chromium_based_browsers.items()
    }
    monkeypatch.setattr(choreographer_chromium, "chromium_based_browsers", nowhere)


def test_browser_path_comes_first(monkeypatch, tmp_path, nothing_installed):
    browser = fake_browser(tmp_path, "chrome")
    monkeypatch.setenv("BROWSER_PATH", str(browser))
    assert export.find_browser() == str(browser)


def test_a_browser_path_that_cannot_run_is_not_used_and_the_message_names_it(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-chrome"
    monkeypatch.setenv("BROWSER_PATH", str(missing))
    assert export.find_browser() is None  # even where another browser is installed
    with pytest.raises(ValueError, match="BROWSER_PATH is set to .*no-such-chrome, which is not an executable file"):
        export.image_browser()
    (tmp_path / "not-executable").write_text("")
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "not-executable"))
    assert export.find_browser() is None


def test_choreographers_search_finds_a_chromium_on_path(monkeypatch, tmp_path, nothing_installed):
    folder = tmp_path / "bin"
    folder.mkdir()
    browser = fake_browser(folder, "chromium")
    monkeypatch.setenv("PATH", str(folder))
    assert export.find_browser() == str(browser)


def test_choreographers_search_finds_the_chrome_kaleido_downloads(monkeypatch, tmp_path, nothing_installed):
    downloaded = fake_browser(tmp_path, "chrome")
    monkeypatch.setattr(choreographer_chromium, "get_chrome_download_path", lambda **_: downloaded)
    assert export.find_browser() == str(downloaded)


def test_nothing_found_is_none_and_the_message_says_how_to_get_one(nothing_installed):
    assert export.find_browser() is None
    assert export.start_browser_server() is False
    with pytest.raises(ValueError) as raised:
        export.image_browser()
    message = str(raised.value)
    assert "none was found" in message
    assert 'python -c "import kaleido; kaleido.get_chrome_sync()"' in message
    assert "apt-get install chromium" in message and "BROWSER_PATH" in message
    assert "camera button" in message and "BROWSER_PATH is set" not in message


def test_the_found_browser_is_given_to_kaleido_by_path(monkeypatch, tmp_path, nothing_installed):
    browser = fake_browser(tmp_path, "chrome")
    monkeypatch.setenv("BROWSER_PATH", str(browser))
    calls = []
    import kaleido

    monkeypatch.setattr(kaleido, "calc_fig_sync", lambda fig, **kwargs: calls.append(kwargs) or b"%PDF-")
    params, _ = registry.resolve_params("alibi-slopes", {})
    exported = export.export(registry.build("alibi-slopes", params), "pdf")
    assert calls[0]["kopts"]["path"] == str(browser) and str(browser) in exported.renderer


def test_the_command_line_refuses_images_plainly_and_still_writes_html_and_data(tmp_path, capsys, nothing_installed):
    assert cli.main(["alibi-slopes", "--format", "png", "csv", "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "kaleido.get_chrome_sync()" in error and "apt-get install chromium" in error and "camera button" in error
    assert list(tmp_path.iterdir()) == []
    assert cli.main(["alibi-slopes", "--format", "html", "csv", "--out", str(tmp_path)]) == 0
    assert sorted(path.suffix for path in tmp_path.iterdir()) == [".csv", ".html"]
    assert not os.environ.get("BROWSER_PATH")


def test_a_browser_that_does_not_start_is_refused_with_its_path_and_the_command_line_stops(
    monkeypatch, tmp_path, capsys, nothing_installed
):
    broken = fake_browser(tmp_path, "chrome", starts=False)
    monkeypatch.setenv("BROWSER_PATH", str(broken))
    assert export.find_browser() == str(broken)  # found, but it would leave kaleido's server waiting
    with pytest.raises(ValueError, match=f"The browser found at {broken} does not start.*kaleido.get_chrome_sync"):
        export.image_browser()
    assert export.start_browser_server() is False
    assert cli.main(["alibi-slopes", "--format", "pdf", "--out", str(tmp_path / "out")]) == 2
    assert f"The browser found at {broken} does not start" in capsys.readouterr().err


def test_a_lookup_is_reused_until_the_environment_changes(monkeypatch, tmp_path, nothing_installed):
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    assert export.find_browser() is None
    browser = fake_browser(folder, "chromium")
    assert export.find_browser() is None  # the same PATH within the minute: the lookup is reused
    monkeypatch.setenv("BROWSER_PATH", str(browser))
    assert export.find_browser() == str(browser)  # a changed environment is looked up again
