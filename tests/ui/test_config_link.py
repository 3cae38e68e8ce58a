"""ui.config_link: a config.json carried in a link, and links that cannot be one."""

import base64
import random
import zlib
from pathlib import Path

import pytest

from posenc.ui import config_link

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"


def test_a_real_config_travels_and_comes_back_unchanged():
    text = (CONFIGS / "phi-3-mini-128k-instruct.json").read_text()
    value = config_link.encode(text)
    assert value is not None and len(value) < len(text)
    assert all(c.isalnum() or c in "-_" for c in value)  # safe in a URL as it is
    assert config_link.decode(value) == text


def test_a_config_too_long_for_a_link_is_not_put_in_one():
    noise = base64.b64encode(random.Random(0).randbytes(8000)).decode()  # random bytes do not compress
    assert config_link.encode('{"x": "' + noise + '"}') is None


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("not-a-config!", "damaged"),
        (base64.urlsafe_b64encode(b"plain bytes, not zlib").decode(), "damaged"),
        (base64.urlsafe_b64encode(zlib.compress(b"\0" * 2_000_000, 9)).decode(), "unpacks to more than"),
        ("A" * (config_link.MAX_LINK_CHARS + 1), "longer than"),
    ],
)
def test_a_bad_link_value_is_a_message_naming_what_is_wrong(value, words):
    with pytest.raises(ValueError, match=words):
        config_link.decode(value)
