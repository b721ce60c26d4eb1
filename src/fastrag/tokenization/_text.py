"""Small text helpers shared by the tokenizers: surrogate scrubbing and UTF-8 byte facts."""

from __future__ import annotations

import re

__all__ = ["CONTINUATION_BYTES", "REPLACEMENT", "scrub_surrogates"]

REPLACEMENT = "\ufffd"

# The UTF-8 continuation bytes 0x80..0xBF. Deleting them from a byte string with
# ``bytes.translate(None, CONTINUATION_BYTES)`` leaves one byte per code point *started*,
# so code-point positions come out of C-speed byte operations, never a per-character loop.
CONTINUATION_BYTES = bytes(range(0x80, 0xC0))

_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(text: str) -> str:
    """Replace every surrogate code point by U+FFFD, one for one.

    A Python ``str`` may hold lone (or paired) surrogates, which have no UTF-8 encoding and
    make native tokenizers raise. Replacing each one by exactly one code point keeps every
    offset into the original text valid, which a UTF-16 round trip (it would fuse a pair
    into one code point) does not.
    """
    if text.isascii():
        return text
    return _SURROGATE.sub(REPLACEMENT, text)
