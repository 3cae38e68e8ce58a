"""The catalogue areas: each page, with the figure family it draws, has its own ``.po`` file per language, so a
translator (or a contributor adding a page) works in one file. Everything shared is in ``common``."""

from __future__ import annotations

from pathlib import PurePosixPath

# area -> the source it holds: a page script, figure packages, other files (paths relative to the repository)
AREAS: dict[str, tuple[str, ...]] = {
    "why": ("pages/why_position.py", "posenc/figures/why/"),
    "sinusoidal": ("pages/sinusoidal.py", "posenc/figures/sinusoidal/"),
    "learned": ("pages/learned.py", "posenc/figures/learned/"),
    "relative": ("pages/relative.py", "posenc/figures/relative/"),
    "alibi": ("pages/alibi.py", "posenc/figures/alibi/"),
    "rope": ("pages/rope.py", "posenc/figures/rope/", "posenc/figures/layers/"),
    "context": ("pages/context_extension.py", "posenc/figures/context/"),
    "plan": ("pages/plan.py", "posenc/figures/plan/"),
    "mrope": ("pages/mrope.py", "posenc/figures/mrope/"),
    "vision": ("pages/vision.py", "posenc/figures/vision/"),
    "nope": ("pages/nope_and_sinks.py", "posenc/figures/nope/", "posenc/figures/real_attention/"),
    "compare": ("pages/compare.py", "posenc/figures/compare/"),
    "lab": ("pages/length_lab.py", "posenc/figures/lab/", "posenc/ui/lab_"),
    "lessons": (
        "pages/lessons.py",
        "pages/glossary.py",
        "posenc/lessons/",
        "posenc/ui/lesson",
        "posenc/ui/presenter.py",
        "posenc/lessons/reader.py",
        "posenc/lessons/answers.py",
    ),
}
COMMON = "common"  # app.py, posenc/ui/, posenc/drawing/, posenc/i18n/ and anything not above
SOURCE_ROOTS = ("app.py", "pages", "posenc/ui", "posenc/figures", "posenc/drawing", "posenc/i18n", "posenc/lessons")


def area_of(path: str) -> str:
    """The area whose catalogue holds the messages of source file ``path`` (relative, '/'-separated)."""
    text = PurePosixPath(path).as_posix()
    for area, prefixes in AREAS.items():
        if any(text == prefix or (prefix.endswith("/") and text.startswith(prefix)) for prefix in prefixes):
            return area
        if any(not prefix.endswith((".py", "/")) and text.startswith(prefix) for prefix in prefixes):
            return area
    return COMMON
