"""The catalogue areas: each page, with the figure family it draws, has its own ``.po`` file per language, so a
translator (or a contributor adding a page) works in one file. Everything shared is in ``common``."""

from __future__ import annotations

from pathlib import PurePosixPath

# area -> the source it holds: a page script, figure packages, other files (paths relative to the repository)
AREAS: dict[str, tuple[str, ...]] = {
    "why": ("pages/why_position.py", "figures/why/"),
    "sinusoidal": ("pages/sinusoidal.py", "figures/sinusoidal/"),
    "learned": ("pages/learned.py", "figures/learned/"),
    "relative": ("pages/relative.py", "figures/relative/"),
    "alibi": ("pages/alibi.py", "figures/alibi/"),
    "rope": ("pages/rope.py", "figures/rope/", "figures/layers/"),
    "context": ("pages/context_extension.py", "figures/context/"),
    "mrope": ("pages/mrope.py", "figures/mrope/"),
    "vision": ("pages/vision.py", "figures/vision/"),
    "nope": ("pages/nope_and_sinks.py", "figures/nope/", "figures/real_attention/"),
    "compare": ("pages/compare.py", "figures/compare/"),
    "lessons": (
        "pages/lessons.py",
        "pages/glossary.py",
        "lessons/",
        "ui/lesson",
        "ui/presenter.py",
        "figures/lessons.py",
        "figures/lesson_answers.py",
    ),
}
COMMON = "common"  # app.py, ui/, figures/*.py, i18n/ and anything not above
SOURCE_ROOTS = ("app.py", "pages", "ui", "figures", "i18n", "lessons")


def area_of(path: str) -> str:
    """The area whose catalogue holds the messages of source file ``path`` (relative, '/'-separated)."""
    text = PurePosixPath(path).as_posix()
    for area, prefixes in AREAS.items():
        if any(text == prefix or (prefix.endswith("/") and text.startswith(prefix)) for prefix in prefixes):
            return area
        if any(not prefix.endswith((".py", "/")) and text.startswith(prefix) for prefix in prefixes):
            return area
    return COMMON
