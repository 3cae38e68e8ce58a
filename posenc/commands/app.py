"""``posenc app``: start the dashboard, the installed app (``posenc/app/app.py`` and its ``pages/``; in a clone,
the repository's ``app.py``) with the serving settings of :data:`SERVING`, the same as the repository's
``.streamlit/config.toml``; anything after ``--`` goes to ``streamlit run`` as it is and wins over them."""

from __future__ import annotations

import argparse
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
"""The installed ``posenc`` package (this module is in its ``commands/``)."""
INSTALLED_APP = PACKAGE / "app" / "app.py"
"""The installed app: the repository's app.py, packaged into posenc/app/ beside its pages/ (pyproject.toml)."""
SOURCE_APP = PACKAGE.parent / "app.py"
"""The same script in a source tree (a clone, where posenc/app/ does not exist)."""

SERVING: dict[str, object] = {
    "server.headless": True,  # a server: do not try to open a browser
    "browser.gatherUsageStats": False,  # nothing leaves the machine
    "server.fileWatcherType": "none",  # no polling of every imported module for each session
    "server.enableWebsocketCompression": True,  # the largest page's payload is halved
    "server.maxUploadSize": 65,  # MB: the largest table accepted (8M float64 values, 64 MiB) and its header
    "client.showErrorDetails": "none",  # no tracebacks with server paths in the browser
    "client.toolbarMode": "viewer",  # the reader's menu only (no Deploy button, no developer options)
    "runner.postScriptGC": False,  # a full gc.collect after every run was 60% of a new session's server CPU
    "runner.magicEnabled": False,  # the pages use st.* calls only
}
"""Streamlit settings for serving the app, the same as ``.streamlit/config.toml`` (tests/test_cli.py checks)."""


def streamlit_argv(argv: list[str]) -> list[str]:
    """The ``streamlit run`` arguments for ``posenc app ARGV``: the installed app, the serving settings, the host
    and port asked for, then anything after ``--`` (Streamlit takes the last value given for an option)."""
    parser = argparse.ArgumentParser(prog="posenc app", description="Start the posenc dashboard.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    parser.add_argument("extra", nargs="*", help="after --: options passed to 'streamlit run' as they are")
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535 (got {args.port})")
    settings = [f"--{key}={_flag(value)}" for key, value in SERVING.items()]
    where = [f"--server.address={args.host}", f"--server.port={args.port}"]
    return ["run", str(app_script()), *settings, *where, *args.extra]


def served_at(run_argv: list[str]) -> tuple[str, int, str]:
    """(address, port, base URL path) the server of ``streamlit run RUN_ARGV`` listens on: the last value of each
    option, given as ``--name=value`` or ``--name value``."""
    found = {"server.address": "127.0.0.1", "server.port": "8501", "server.baseUrlPath": ""}
    for index, arg in enumerate(run_argv):
        name, equals, value = arg.removeprefix("--").partition("=")
        if name in found and arg.startswith("--"):
            if not equals and index + 1 < len(run_argv):
                value = run_argv[index + 1]
            found[name] = value
    return found["server.address"], int(found["server.port"]), found["server.baseUrlPath"]


def app_script() -> Path:
    """The app's main script: the installed copy, or a source tree's app.py."""
    return INSTALLED_APP if INSTALLED_APP.is_file() else SOURCE_APP


def _flag(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def main(argv: list[str], version: str) -> int:
    """``posenc app ARGV``: serve the dashboard until stopped (``version``: the router's, said as it starts)."""
    from posenc.serve import allocator

    allocator.settle()  # before Streamlit's threads: two malloc arenas, large temporaries mapped apart
    from streamlit.web import cli as streamlit_cli

    from posenc.serve import open_files_log
    from posenc.ui import warmup

    run_argv = streamlit_argv(argv)
    open_files_log.install()  # out of file handles: one line, then a count a minute, not a traceback per accept
    print(f"posenc {version}: starting the dashboard ({app_script()})", flush=True)
    warmup.start(warmup.local_url(*served_at(run_argv)))  # the figure cache, as soon as the server answers
    streamlit_cli.main(args=run_argv, prog_name="posenc app")  # serves until stopped, then exits the process
    return 0
