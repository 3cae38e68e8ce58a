"""What the browser tests look at: figures drawn, their fingerprints, Streamlit exceptions."""

from __future__ import annotations

from posenc.ui.run_marker import SELECTOR as RUN_MARK

CHART = "div[data-testid='stPlotlyChart']"
# A drawn figure has a trace group (scatter, bar) or a heatmap image; a "Computing…" placeholder has neither.
DRAWN_TRACE = ".main-svg g.trace, .main-svg g.hm"
# The last run's mark is later than ``after`` (on page ``where``), the app is no longer running, and the page holds
# exactly the charts that run drew (none left over from the run before), each drawn.
RUN_DRAWN = (
    """([selector, after, where]) => {
  const marks = document.querySelectorAll(selector);
  const mark = marks[marks.length - 1];
  if (!mark || Number(mark.dataset.run) <= after || (where !== null && mark.dataset.page !== where)) return false;
  if (document.querySelector("[data-testid='stStatusWidget']")) return false;
  const charts = [...document.querySelectorAll("div[data-testid='stPlotlyChart']")];
  return charts.length === Number(mark.dataset.charts) && charts.every(c => c.querySelector('"""
    + DRAWN_TRACE
    + """'));
}"""
)
# Arrays come as lists or, from Plotly 6, as typed-array objects {dtype, bdata (base64), shape}: both read in full.
FINGERPRINT = """() => {
  const hash = text => {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
    return h;
  };
  const read = v => v == null ? null : (v.bdata !== undefined ? hash(v.bdata) : hash(JSON.stringify(v)));
  return [...document.querySelectorAll('.js-plotly-plot')].map(gd => JSON.stringify({
    title: gd.layout && gd.layout.title && gd.layout.title.text,
    data: (gd.data || []).map(t => [t.type, t.name, read(t.x), read(t.y), read(t.z)]),
  }));
}"""


def runs(page) -> int:
    """The number of the last script run whose end the page shows (0 before the first): read it before acting,
    then :func:`wait_until_drawn` with ``after`` waits for the run the action caused."""
    marks = page.locator(RUN_MARK)
    return int(marks.last.get_attribute("data-run")) if marks.count() else 0


def wait_until_drawn(page, after: int = 0, where: str | None = None, timeout: float = 90_000) -> None:
    """Until a script run later than ``after`` has finished (on page ``where``, a url path, "home" for the first
    page) and the browser shows every chart that run drew, each with its traces: the app's end-of-run mark
    (``ui.run_marker``) says how many. ``after=0`` suits a page just opened (a new session counts from 1)."""
    page.wait_for_function(RUN_DRAWN, arg=[RUN_MARK, after, where], timeout=timeout)


def fingerprint(page, *, settle_ms: int = 700, tries: int = 40) -> list[str]:
    """What the page's figures show, once two reads ``settle_ms`` apart agree (reruns redraw figures one by one)."""
    previous = page.evaluate(FINGERPRINT)
    for _ in range(tries):
        page.wait_for_timeout(settle_ms)
        current = page.evaluate(FINGERPRINT)
        if current == previous:
            return current
        previous = current
    return previous


def exceptions_on_page(page) -> list[str]:
    return page.locator("[data-testid='stException']").all_inner_texts()


def png_size(content: bytes) -> tuple[int, int]:
    import struct

    assert content[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", content[16:24])
