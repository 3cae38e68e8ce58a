"""Korean and Chinese text in exported images is drawn with real glyphs, not the empty boxes a missing font gives.

A missing font draws every character as the same box, so two different titles of the same length give the same
image; real glyphs give different images, and either differs from the figure with no title at all."""

from __future__ import annotations

import io

import numpy as np
import pytest

from posenc import (
    figures,  # noqa: F401
    i18n,
)
from posenc.drawing import export, registry
from posenc.drawing.params import defaults

TITLES = {
    "ko": ("회전 위치 임베딩의 각도", "사인파 위치 인코딩의 표"),
    "zh-CN": ("旋转位置编码的角度", "正弦位置编码的表格"),
}
needs_browser = pytest.mark.skipif(
    export.find_browser() is None, reason="no Chrome/Chromium here: `make test` installs Debian's chromium"
)


@pytest.fixture(scope="module")
def browser_server():
    """One kaleido browser for the module's exports."""
    export.start_browser_server()
    yield
    export.stop_browser_server()


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.int16)


def _titled(title: str) -> registry.FigureResult:
    spec = registry.get_spec("alibi-slopes")
    result = registry.build(spec.id, defaults(spec.params))
    result.figure.update_layout(title_text=title)
    return result


def _differs(a: bytes, b: bytes) -> int:
    """How many pixels of the two PNGs differ clearly."""
    first, second = _pixels(a), _pixels(b)
    assert first.shape == second.shape
    return int((np.abs(first - second) > 60).sum())


@needs_browser
@pytest.mark.parametrize("code", list(TITLES))
def test_a_png_export_draws_korean_and_chinese_glyphs(code, browser_server):
    first, second = TITLES[code]
    assert len(first) == len(second)
    with i18n.language(code):
        images = [export.export(_titled(title), "png", scale=1).content for title in (first, second, "")]
    assert _differs(images[0], images[2]) > 200, "the title drew nothing"
    assert _differs(images[0], images[1]) > 200, "two different titles drew alike: empty boxes, no CJK font"


@needs_browser
@pytest.mark.parametrize("code", list(TITLES))
def test_a_pdf_export_embeds_a_cjk_font(code, browser_server):
    with i18n.language(code):
        content = export.export(_titled(TITLES[code][0]), "pdf").content
    assert b"NotoSansCJK" in content.replace(b"-", b"").replace(b" ", b""), "no Noto CJK font embedded in the PDF"
