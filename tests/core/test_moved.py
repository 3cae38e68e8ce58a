"""The flat module names of posenc_core 0.1 still import, as the very module in its room, with a warning that
names the new place; names that never existed still fail."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from posenc_core._moved import MOVED


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_name_is_the_module_in_its_room(old, new):
    sys.modules.pop(f"posenc_core.{old}", None)
    with pytest.warns(DeprecationWarning, match=rf"posenc_core\.{old} is now {new}"):
        module = importlib.import_module(f"posenc_core.{old}")
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new, "the module itself is unchanged"


def test_the_old_import_forms_work_in_a_fresh_interpreter():
    script = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from posenc_core import rope_scaling, hf_config\n"
        "from posenc_core.vision_rope import axial_inv_freq\n"
        "import posenc_core.rope_bounds\n"
        "from posenc_core import rope\n"
        "import posenc_core.rope.scaling as scaling, posenc_core.models.hf_config as config\n"
        "assert rope_scaling is scaling and hf_config is config\n"
        "assert posenc_core.rope_bounds.__name__ == 'posenc_core.rope.bounds'\n"
        "assert rope.apply is __import__('posenc_core.rope.rotary', fromlist=['apply']).apply\n"
        "print(axial_inv_freq.__module__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "posenc_core.rope.vision"


def test_a_name_that_never_existed_is_still_missing():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("posenc_core.rope_scalings")
