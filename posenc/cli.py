"""The ``posenc`` command: start the dashboard, export figures, read a model's config, plan a context extension,
run the length lab.

    posenc app                          # the dashboard on http://localhost:8501 (this machine only)
    posenc app --host 0.0.0.0 --port 8080 -- --theme.base dark
    posenc export rope-angles --preset llama-3.1-8b --format png svg
    posenc config meta-llama/Llama-3.1-8B        # or a path to a config.json
    posenc plan llama-3.1-8b --target 262144 --method yarn --json   # settings to paste, the traps checked
    posenc lab train --scheme rope --task lm     # or --all: the twelve shipped checkpoints (make lab)
    posenc lab eval --scheme rope --scaling yarn --factor 4 --json
    posenc --version

Every command exits 0 when done, 2 on input it refuses (one line on stderr, no traceback) and 130 when stopped by
Ctrl-C (one line).

``posenc app`` runs the app installed with the package (``posenc/app/app.py`` and its ``pages/``; in a clone, the
repository's ``app.py``) with
the serving settings of :data:`SERVING`, the same as the repository's ``.streamlit/config.toml``; anything after
``--`` goes to ``streamlit run`` as it is and wins over them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from posenc_core._version import PYPROJECT, project_version

PACKAGE = Path(__file__).resolve().parent
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

COMMANDS = ("app", "export", "config", "plan", "lab")
BAD_INPUT = 2
"""The exit status of every command for input it refuses (argparse's own, and each command's one-line refusals)."""
INTERRUPTED = 130
"""The exit status of every command stopped by Ctrl-C (the shell's 128 + SIGINT), after one line, no traceback."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``posenc`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["--version"], ["-V"]):
        print(f"posenc {version()}")
        return 0
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print(__doc__.strip(), file=sys.stdout if argv[:1] in ([], ["-h"], ["--help"]) else sys.stderr)
        if argv and argv[0] not in ("-h", "--help"):
            print(f"\nposenc: unknown command {argv[0]!r}; one of: {', '.join(COMMANDS)}", file=sys.stderr)
            return BAD_INPUT
        return 0
    command, rest = argv[0], argv[1:]
    try:
        return _COMMANDS[command](rest)
    except KeyboardInterrupt:  # Ctrl-C while a command starts (its imports), or in one that does not say it itself
        print(f"posenc {command}: interrupted", file=sys.stderr)
        return INTERRUPTED


def version() -> str:
    """The installed distribution's version; in a clone never installed, the version its pyproject.toml states."""
    return project_version(PYPROJECT)


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


def _app(argv: list[str]) -> int:
    from posenc.serve import allocator

    allocator.settle()  # before Streamlit's threads: two malloc arenas, large temporaries mapped apart
    from streamlit.web import cli as streamlit_cli

    from posenc.serve import open_files_log
    from posenc.ui import warmup

    run_argv = streamlit_argv(argv)
    open_files_log.install()  # out of file handles: one line, then a count a minute, not a traceback per accept
    print(f"posenc {version()}: starting the dashboard ({app_script()})", flush=True)
    warmup.start(warmup.local_url(*served_at(run_argv)))  # the figure cache, as soon as the server answers
    streamlit_cli.main(args=run_argv, prog_name="posenc app")  # serves until stopped, then exits the process
    return 0


def _export(argv: list[str]) -> int:
    from posenc.export.cli import main as export_main

    return export_main(argv)


def _config(argv: list[str]) -> int:
    from posenc.config_command import main as config_main

    return config_main(argv)


def _plan(argv: list[str]) -> int:
    from posenc.plan_command import main as plan_main

    return plan_main(argv)


def _lab(argv: list[str]) -> int:
    from posenc.lab_command import main as lab_main

    return lab_main(argv)


_COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "app": _app,
    "export": _export,
    "config": _config,
    "plan": _plan,
    "lab": _lab,
}
