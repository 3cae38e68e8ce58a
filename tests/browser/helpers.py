"""What the browser tests look at: figures drawn, their fingerprints, Streamlit exceptions."""

from __future__ import annotations

CHART = "div[data-testid='stPlotlyChart']"
# A drawn figure has a trace group (scatter, bar) or a heatmap image; a "Computing…" placeholder has neither.
DRAWN_TRACE = ".main-svg g.trace, .main-svg g.hm"
ALL_DRAWN = (
    """() => {
  const DRAWN_TRACE = '"""
    + DRAWN_TRACE
    + """';
  const charts = document.querySelectorAll("div[data-testid='stPlotlyChart']");
  const running = document.querySelector("[data-testid='stStatusWidget']");
  return charts.length > 0 && !running && [...charts].every(c => c.querySelector(DRAWN_TRACE));
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


def wait_until_drawn(page, timeout: float = 90_000) -> None:
    page.wait_for_selector(f"{CHART} .main-svg", state="attached", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_function(ALL_DRAWN, timeout=timeout)


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
