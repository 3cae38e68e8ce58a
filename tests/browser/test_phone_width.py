"""Every page at phone width (390 px), and on a projector (1280 x 720, presenter mode: the slide style), in a real
Chromium: no chart title is cut or runs into anything else in its chart (subplot titles, legend, colour bar, axis
titles, the plot area), no two labels of a chart overlap, and the first figure is reachable without scrolling
through screens of controls."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from bench.scenarios import PAGES
from posenc.ui.navigation import URL_PATHS
from posenc.ui.sections import ALL
from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import exceptions_on_page, wait_until_drawn

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}  # an iPhone 14's CSS viewport
# A phone's browser: touch, 2x pixels, and a User-Agent saying "Mobile" (the app lays figures out for a phone by it)
PHONE_DEVICE = {
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 "
    "Mobile Safari/537.36",
}
PROJECTOR = {"width": 1280, "height": 720}  # a projector in presenter mode (?present=1: the slide style, no sidebar)
SCREENS_BEFORE_FIRST_FIGURE = 2  # the first figure starts within two screens of the page's top
# Every page once on a phone and once on a projector, in two different languages: the three languages by turns
# (en, ko, zh-CN on the phone; ko, zh-CN, en on the projector), so each page meets Latin text and wide text (Korean
# and Chinese characters are about twice as wide as Latin letters) and each language meets seven or eight pages. How a
# title wraps for each language's character widths is posenc.drawing.text_wrap's, tested in tests/drawing.
LANGS = ("en", "ko", "zh-CN")
VISITS = [("phone", page, LANGS[i % 3]) for i, page in enumerate(PAGES)] + [
    ("projector", page, LANGS[(i + 1) % 3]) for i, page in enumerate(PAGES)
]
SCREENS = {"phone": PHONE, "projector": PROJECTOR}

# For each drawn chart: its title's box against the chart's box and against every other labelled part of it.
TITLE_CLASHES = """() => {
  const box = el => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const problems = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, i) => {
    const title = gd.querySelector('.g-gtitle text.gtitle');
    if (!title || !title.textContent.trim()) return;
    const chart = box(gd), t = box(title);
    if (chart.width === 0) return;  // not on screen (a closed tab)
    const name = `chart ${i} "${title.textContent.slice(0, 60)}"`;
    if (t.left < chart.left - 1 || t.right > chart.right + 1)
      problems.push(`${name}: title cut (${Math.round(t.left)}..${Math.round(t.right)} outside ` +
                    `${Math.round(chart.left)}..${Math.round(chart.right)})`);
    const parts = [
      ['subplot title or note', '.annotation-text-g text'], ['legend', '.legend .bg'],
      ['colour bar title', '.cbtitle text'], ['x axis title', '[class^="g-x"][class$="title"] text'],
      ['y axis title', '[class^="g-y"][class$="title"] text'], ['plot area', '.nsewdrag'],
    ];
    for (const [what, selector] of parts)
      gd.querySelectorAll(selector).forEach(el => {
        const b = box(el);
        const label = (el.textContent || '').slice(0, 40);
        if (b.width > 0 && meets(t, b)) problems.push(`${name}: title runs into the ${what} "${label}"`);
      });
  });
  return problems;
}"""

# Within each drawn chart: its labels (subplot titles, axis titles, legend, colour bar titles) against each other.
LABEL_CLASHES = """() => {
  const box = el => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 2 && b.left < a.right - 2 && a.top < b.bottom - 2 && b.top < a.bottom - 2;
  const problems = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, i) => {
    if (box(gd).width === 0) return;
    const plotTop = Math.min(...[...gd.querySelectorAll('.nsewdrag')].map(el => box(el).top));
    const labels = [];
    const plots = [...gd.querySelectorAll('.nsewdrag')].map(box);
    const inside = b => plots.some(p => b.left >= p.left - 2 && b.right <= p.right + 2 && b.top >= p.top - 2 &&
                                        b.bottom <= p.bottom + 2);
    gd.querySelectorAll('.annotation-text-g text').forEach(el => {  // notes inside a plot may sit on its labels
      if (box(el).bottom <= plotTop + 2 || !inside(box(el))) labels.push(['subplot title', el]);
    });
    gd.querySelectorAll('[class^="g-x"][class$="title"] text').forEach(el => labels.push(['x axis title', el]));
    gd.querySelectorAll('[class^="g-y"][class$="title"] text').forEach(el => labels.push(['y axis title', el]));
    gd.querySelectorAll('.legend .bg').forEach(el => labels.push(['legend', el]));
    gd.querySelectorAll('.cbtitle text').forEach(el => labels.push(['colour bar title', el]));
    for (let a = 0; a < labels.length; a++)
      for (let b = a + 1; b < labels.length; b++) {
        const [whatA, elA] = labels[a], [whatB, elB] = labels[b];
        const [boxA, boxB] = [box(elA), box(elB)];
        if (boxA.width > 0 && boxB.width > 0 && meets(boxA, boxB))
          problems.push(`chart ${i}: ${whatA} "${(elA.textContent || '').slice(0, 30)}" runs into ` +
                        `${whatB} "${(elB.textContent || '').slice(0, 30)}"`);
      }
  });
  return problems;
}"""

FIRST_CHART_TOP = """() => {
  const chart = document.querySelector("div[data-testid='stPlotlyChart']");
  const main = document.querySelector("[data-testid='stMain']");
  return chart.getBoundingClientRect().top - main.getBoundingClientRect().top;
}"""


@pytest.fixture
def screen(browser, request):
    """A page on the screen the test names: a phone (touch, 2x pixels) or a projector."""
    kind = request.node.callspec.params["screen_kind"]
    device = PHONE_DEVICE if kind == "phone" else {}
    context = browser.new_context(viewport=SCREENS[kind], **device)
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize(("screen_kind", "page_name", "lang"), VISITS)
def test_every_chart_reads_on_a_phone_and_a_projector(app_url, screen, screen_kind, page_name, lang):
    """One visit per page, screen and language (All sections: every chart): the first chart near the top, then every
    chart's labels (Korean and Chinese characters are twice as wide as Latin letters, and wrap otherwise)."""
    size = SCREENS[screen_kind]
    screen.set_viewport_size({"width": size["width"], "height": 6000})  # Streamlit scrolls inside: draw it all
    presenting = "&present=1" if screen_kind == "projector" else ""
    screen.goto(f"{app_url}/{URL_PATHS[page_name]}?section={quote(ALL)}&lang={lang}{presenting}")
    wait_until_drawn(screen)
    assert exceptions_on_page(screen) == []
    top = screen.evaluate(FIRST_CHART_TOP)  # the first section's first chart: where a link to the page shows it
    assert top < SCREENS_BEFORE_FIRST_FIGURE * size["height"], (
        f"the first figure starts {top:.0f} px down, more than {SCREENS_BEFORE_FIRST_FIGURE} {screen_kind} screens"
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    screen.screenshot(path=str(SCREENSHOTS / f"{page_name}-{lang}-{size['width']}px.png"), full_page=True)
    assert screen.evaluate(TITLE_CLASHES) == []
    assert screen.evaluate(LABEL_CLASHES) == []
