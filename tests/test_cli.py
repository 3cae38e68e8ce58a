"""posenc.commands: the ``posenc`` command's dispatch (router.py), and ``posenc app``'s serving settings."""

import tomllib
from pathlib import Path

import pytest

from posenc.commands import app, router

ROOT = Path(__file__).resolve().parents[1]


def _flattened(table: dict, prefix: str = "") -> dict[str, object]:
    flat = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat |= _flattened(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def test_posenc_app_serves_with_the_settings_of_the_repositorys_streamlit_config():
    with (ROOT / ".streamlit" / "config.toml").open("rb") as handle:
        config = _flattened(tomllib.load(handle))
    assert config == app.SERVING


def test_posenc_app_runs_the_app_script_on_this_machine_only_by_default():
    argv = app.streamlit_argv([])
    assert argv[:2] == ["run", str(app.app_script())]
    assert app.app_script().is_file()
    assert "--server.address=127.0.0.1" in argv and "--server.port=8501" in argv
    assert "--server.fileWatcherType=none" in argv and "--client.showErrorDetails=none" in argv


def test_options_after_the_double_dash_come_last_so_they_win():
    argv = app.streamlit_argv(["--host", "0.0.0.0", "--port", "9001", "--", "--server.fileWatcherType=auto"])
    assert "--server.address=0.0.0.0" in argv and "--server.port=9001" in argv
    assert argv[-1] == "--server.fileWatcherType=auto"
    assert argv.index("--server.fileWatcherType=none") < argv.index("--server.fileWatcherType=auto")


@pytest.mark.parametrize("port", ["0", "70000"])
def test_a_port_out_of_range_is_refused_with_its_range(port, capsys):
    with pytest.raises(SystemExit) as stop:
        app.streamlit_argv(["--port", port])
    assert stop.value.code == 2
    assert "between 1 and 65535" in capsys.readouterr().err


def test_in_a_clone_the_app_is_the_repositorys_app_py():
    assert not app.INSTALLED_APP.exists()  # the packaged copy exists only in an installed wheel
    assert app.app_script() == ROOT / "app.py"


def test_no_command_prints_the_usage_and_an_unknown_one_fails(capsys):
    assert router.main([]) == 0
    assert "posenc app" in capsys.readouterr().out
    assert router.main(["serve"]) == 2
    assert "unknown command 'serve'" in capsys.readouterr().err


def test_version_names_the_package(capsys):
    assert router.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("posenc ")


def test_a_clone_never_installed_states_its_pyproject_version(capsys, monkeypatch):
    import tomllib

    from posenc_core import _version

    def not_installed(name):
        raise _version.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(_version.metadata, "version", not_installed)
    stated = tomllib.loads(router.PYPROJECT.read_text())["project"]["version"]
    assert router.main(["--version"]) == 0
    assert capsys.readouterr().out == f"posenc {stated} (source tree)\n"
    monkeypatch.setattr(router, "PYPROJECT", router.PYPROJECT.with_name("absent.toml"))
    assert router.version() == "unknown"


def test_export_is_the_batch_exporter(capsys):
    assert router.main(["export", "list"]) == 0
    assert "rope-angles" in capsys.readouterr().out


def _crashing_page():
    raise RuntimeError("secret /srv/posenc/internal/path")


def test_with_the_serving_settings_a_crash_shows_the_reader_no_details():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_crashing_page).run()  # AppTest reads ./.streamlit/config.toml like the server
    assert at.exception
    shown = at.exception[0]
    assert "/srv/posenc" not in shown.value and not any("/srv/posenc" in line for line in shown.stack_trace)


def test_python_dash_m_posenc_is_the_command():
    import subprocess
    import sys

    shown = subprocess.run(
        [sys.executable, "-m", "posenc", "config", str(ROOT / "tests/fixtures/configs/llama-3.1-8b.json"), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert "500000" in shown.stdout


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ([], ("127.0.0.1", 8501, "")),
        (["--host", "0.0.0.0", "--port", "9000"], ("0.0.0.0", 9000, "")),
        (["--port", "9000", "--", "--server.port", "9100", "--server.baseUrlPath=class"], ("127.0.0.1", 9100, "class")),
    ],
)
def test_the_warm_up_is_aimed_at_the_address_and_port_the_server_will_listen_on(extra, expected):
    assert app.served_at(app.streamlit_argv(extra)) == expected
