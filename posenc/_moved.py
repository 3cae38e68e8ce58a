"""The modules of posenc 0.1 before the commands had one room: each old name still imports, as the module in its
room, with a ``DeprecationWarning`` that names the new place (the finder of ``posenc_core._moved``).

``from posenc.cli import main`` is :func:`posenc.commands.router.main`, ``import posenc.plan_report`` is
:mod:`posenc.commands.plan_report`, ``from posenc.export.cli import main`` is :mod:`posenc.commands.export`'s, and
``python -m posenc.export`` still runs the exporter (``python -m posenc export`` is the command)."""

from __future__ import annotations

from posenc_core import _moved

MOVED = {
    "cli": "posenc.commands.router",
    "config_command": "posenc.commands.config",
    "plan_command": "posenc.commands.plan",
    "plan_report": "posenc.commands.plan_report",
    "lab_command": "posenc.commands.lab",
    "lab_progress": "posenc.commands.lab_progress",
    "export.cli": "posenc.commands.export",
    "export.__main__": "posenc.commands.export",
    "api_inputs": "posenc.api.inputs",
}
"""Old module name (under ``posenc``) -> where it lives now."""

PACKAGES = {"export": "posenc.commands.export"}
"""Old packages whose modules all moved (``posenc.export`` held only the exporter's command)."""


def install() -> None:
    """Once per process (posenc's ``__init__``)."""
    _moved.install("posenc", MOVED, PACKAGES)
