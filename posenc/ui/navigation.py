"""The app's pages in sidebar order. app.py builds its navigation from this list; the benchmark and the tests
visit every page on it, so a new page is added here once."""

from __future__ import annotations

from dataclasses import dataclass

from posenc.i18n import N_

EXPLORE = N_("Explore")
LEARN = N_("Learn")


@dataclass(frozen=True)
class PageEntry:
    """One page: its script ``pages/<name>.py``, its title (English, shown translated), its icon (an emoji: icon
    fonts need the internet), its sidebar section, and whether its controls draw figures (the explorer pages, which
    the benchmark and the browser tests visit, do)."""

    name: str
    title: str
    icon: str
    section: str = EXPLORE
    explorer: bool = True

    @property
    def script(self) -> str:
        return f"pages/{self.name}.py"

    @property
    def url_path(self) -> str:
        """The page's path in the app's URL ("" for the first page, the app's home)."""
        return "" if self is PAGES[0] else self.name


PAGES = (
    PageEntry("why_position", N_("Why position"), "🧩"),
    PageEntry("sinusoidal", N_("Sinusoidal"), "🌊"),
    PageEntry("learned", N_("Learned"), "📚"),
    PageEntry("relative", N_("Relative (Shaw, T5)"), "↔️"),
    PageEntry("alibi", N_("ALiBi"), "📐"),
    PageEntry("rope", N_("RoPE"), "🌀"),
    PageEntry("context_extension", N_("Context extension"), "🔭"),
    PageEntry("plan", N_("Plan an extension"), "🧭"),
    PageEntry("mrope", N_("M-RoPE"), "🖼️"),
    PageEntry("vision", N_("Vision (2-D)"), "🧱"),
    PageEntry("nope_and_sinks", N_("NoPE and sinks"), "🕳️"),
    PageEntry("compare", N_("Compare"), "⚖️"),
    PageEntry("length_lab", N_("Length lab"), "📏"),
    PageEntry("lessons", N_("Lessons"), "🎓", LEARN, explorer=False),
    PageEntry("glossary", N_("Glossary"), "📖", LEARN, explorer=False),
)
PAGE_NAMES = tuple(page.name for page in PAGES)
URL_PATHS = {page.name: page.url_path for page in PAGES}  # page name -> its path in the URL ("" for home)
EXPLORER_PAGE_NAMES = tuple(page.name for page in PAGES if page.explorer)
SECTIONS = (LEARN, EXPLORE)  # sidebar order: the lessons first, for a class
