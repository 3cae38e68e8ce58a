"""A pasted or uploaded config.json carried in the link: ``?config=`` holds it compressed (zlib, base64url), so a
shared link reopens with the same config. A config too long for a link is not put in it, and the sidebar says so.
"""

from __future__ import annotations

import base64
import binascii
import zlib

from posenc.i18n import _
from posenc_core.models.hf_config import MAX_CONFIG_BYTES  # a decoded config larger than the reader takes is refused

MAX_LINK_CHARS = 6000  # the ?config= value; browsers and servers take URLs of 8 KB and more


def encode(text: str | bytes) -> str | None:
    """The config as a link value, or None when it would be longer than MAX_LINK_CHARS."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    value = base64.urlsafe_b64encode(zlib.compress(data, 9)).decode().rstrip("=")
    return value if len(value) <= MAX_LINK_CHARS else None


def decode(value: str) -> str:
    """The config text a link value holds; a ValueError says why it cannot be read."""
    if len(value) > MAX_LINK_CHARS:
        raise ValueError(_("the config in the link is longer than {limit:,} characters").format(limit=MAX_LINK_CHARS))
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        inflater = zlib.decompressobj()
        data = inflater.decompress(packed, MAX_CONFIG_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error) as error:
        raise ValueError(_("the config in the link is damaged (it is not a compressed config.json)")) from error
    if len(data) > MAX_CONFIG_BYTES or inflater.unconsumed_tail:
        message = _("the config in the link unpacks to more than {limit:,} bytes")
        raise ValueError(message.format(limit=MAX_CONFIG_BYTES))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(_("the config in the link is not UTF-8 text")) from error
