"""The project's version, one answer for ``posenc --version``, the server's first line and
``posenc_core.__version__``: the installed distribution's, else (a clone never installed) what its pyproject.toml
states, marked "(source tree)"; "unknown" when neither is there."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"  # a clone's; an installed package has none


def project_version(pyproject: Path = PYPROJECT) -> str:
    try:
        return metadata.version("posenc")
    except metadata.PackageNotFoundError:
        pass
    try:
        with pyproject.open("rb") as handle:
            return f"{tomllib.load(handle)['project']['version']} (source tree)"
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"
