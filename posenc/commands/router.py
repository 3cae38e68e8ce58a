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
repository's ``app.py``) with the serving settings of ``.streamlit/config.toml``; anything after ``--`` goes to
``streamlit run`` as it is and wins over them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from posenc_core._version import PYPROJECT, project_version

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


def _app(argv: list[str]) -> int:
    from posenc.commands.app import main as app_main

    return app_main(argv, version())  # passed in: the app's module does not import the router


def _export(argv: list[str]) -> int:
    from posenc.commands.export import main as export_main

    return export_main(argv)


def _config(argv: list[str]) -> int:
    from posenc.commands.config import main as config_main

    return config_main(argv)


def _plan(argv: list[str]) -> int:
    from posenc.commands.plan import main as plan_main

    return plan_main(argv)


def _lab(argv: list[str]) -> int:
    from posenc.commands.lab import main as lab_main

    return lab_main(argv)


_COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "app": _app,
    "export": _export,
    "config": _config,
    "plan": _plan,
    "lab": _lab,
}
