"""The modules of posenc_core 0.1, before the rooms: each old name still imports, as the module in its room.

``import posenc_core.rope_scaling``, ``from posenc_core import hf_config`` and ``from posenc_core.vision_rope import
x`` give the very module that now lives at ``posenc_core.rope.scaling``, ``posenc_core.models.hf_config`` and
``posenc_core.rope.vision``, with a ``DeprecationWarning`` that names the new place. A finder on ``sys.meta_path``
answers for the old names only; its loader puts the real module in ``sys.modules`` under the old name, so nothing
of the module itself (its ``__name__``, its ``__spec__``) changes.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    **{
        name: f"posenc_core.encodings.{name}"
        for name in ("sinusoidal", "learned", "relative", "alibi", "nope", "attention_sink", "vision", "metrics")
    },
    **{
        name: f"posenc_core.models.{name}"
        for name in ("hf_config", "hub", "hub_tables", "table_files", "presets", "preset_type")
    },
    **{
        name: f"posenc_core.teaching.{name}"
        for name in ("attention", "recurrent", "tokens", "wordpiece", "encoder_attention", "binary_counter")
    },
    "rope_scaling": "posenc_core.rope.scaling",
    "rope_scaling_keys": "posenc_core.rope.scaling_keys",
    "rope_yarn": "posenc_core.rope.yarn",
    "rope_bounds": "posenc_core.rope.bounds",
    "rope_methods": "posenc_core.rope.methods",
    "rope_method_facts": "posenc_core.rope.method_facts",
    "mrope": "posenc_core.rope.mrope",
    "vision_rope": "posenc_core.rope.vision",
}
"""Old module name (under ``posenc_core``) -> where it lives now. ``posenc_core.rope`` kept its name: the package
re-exports the old module's functions."""


class _Alias(importlib.abc.Loader):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec):
        return None  # a blank module, replaced in sys.modules by the real one below

    def exec_module(self, module) -> None:
        warnings.warn(f"{self.old} is now {self.new}", DeprecationWarning, stacklevel=2)
        sys.modules[self.old] = importlib.import_module(self.new)


class _Gone(importlib.abc.Loader):
    """An old package whose modules all moved: an empty package, so that its old submodules still import."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        warnings.warn(f"{self.old} is now {self.new}", DeprecationWarning, stacklevel=2)


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds ``<package>.<old name>`` only (for posenc_core, see :data:`MOVED`).

    ``moved`` maps an old name (dotted below ``package``: ``"export.cli"``) to the module it is now; ``packages``
    maps an old package that no longer exists to where its modules went: it imports as an empty package, and
    ``python -m <package>.<old package>`` runs the module named for ``<old package>.__main__``."""

    def __init__(
        self, package: str = "posenc_core", moved: dict[str, str] = MOVED, packages: dict[str, str] | None = None
    ) -> None:
        self.package, self.moved, self.packages = package, moved, packages or {}

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.partition(".")
        if package != self.package:
            return None
        if name in self.packages:
            return importlib.util.spec_from_loader(fullname, _Gone(fullname, self.packages[name]), is_package=True)
        if name not in self.moved:
            return None
        if name.endswith(".__main__"):  # python -m: the new module's own file, run as __main__
            origin = importlib.util.find_spec(self.moved[name]).origin
            return importlib.util.spec_from_file_location(fullname, origin)
        return importlib.util.spec_from_loader(fullname, _Alias(fullname, self.moved[name]))


def install(
    package: str = "posenc_core", moved: dict[str, str] = MOVED, packages: dict[str, str] | None = None
) -> None:
    """Once per process, for each package (posenc_core's ``__init__``; posenc's)."""
    if not any(isinstance(finder, MovedFinder) and finder.package == package for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder(package, moved, packages))
