"""``HtmlParser``: HTML files as the original HTML string, charset resolved like a browser.

The content is the HTML source itself (format ``html``): the HTML normalizer reads its
structure and excludes scripts, styles and boilerplate later, and chunk offsets point into
this original string. Only the charset is decided here, in the browser's order: a BOM,
else a ``<meta charset>`` (or ``http-equiv`` Content-Type) within the first 4 KB, else
UTF-8 — with undecodable bytes replaced and reported, never silently. Like browsers, a
declared ``iso-8859-1``/``us-ascii`` is read as windows-1252 and a declared UTF-16 without
a BOM as UTF-8 (the meta tag itself was readable as ASCII, so it cannot be UTF-16).
"""

from __future__ import annotations

import codecs
import re
from typing import ClassVar

from fastrag.ingestion.steps.parsing.base import Parsed, Parser
from fastrag.ingestion.steps.parsing.decoding import decode_text, is_ascii_compatible
from fastrag.models import ContentFormat, Document

__all__ = ["HtmlParser", "declared_charset"]

META_SCAN_BYTES = 4096
_META_CHARSET = re.compile(
    rb"""<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_WINDOWS_1252_ALIASES = frozenset({"iso8859-1", "ascii"})


class HtmlParser(Parser):
    """Decode HTML by BOM, ``<meta charset>`` or UTF-8; content format ``html``."""

    content_format: ClassVar[ContentFormat] = ContentFormat.HTML

    def parse(self, data: bytes, source: Document) -> Parsed:
        """Decode ``data`` with its declared charset; the HTML itself is kept unchanged."""
        encoding, notes = declared_charset(data)
        decoded = decode_text(data, source.source_id, encoding=encoding, diagnostics=notes)
        return Parsed(
            decoded.text, self.content_format, decoded.diagnostics, {"encoding": decoded.encoding}
        )


def declared_charset(data: bytes) -> tuple[str | None, tuple[str, ...]]:
    """The codec a ``<meta>`` in the first 4 KB declares, with a note on how.

    None when nothing is declared: the decoder then reads UTF-8, or windows-1252 for
    8-bit text that is not UTF-8 at all (``decoding.LEGACY_ENCODING``, what browsers
    assume for undeclared legacy pages). A BOM, checked by the decoder, still wins over
    whatever is returned here.
    """
    match = _META_CHARSET.search(data[:META_SCAN_BYTES])
    if match is None:
        return None, ()
    label = match.group(1).decode("ascii").lower()
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return "utf-8", (f"charset: unknown charset {label!r} declared; decoded as UTF-8",)
    if name in _WINDOWS_1252_ALIASES:
        name = "cp1252"
    if not is_ascii_compatible(name):
        return "utf-8", (f"charset: {label!r} declared without a BOM; decoded as UTF-8",)
    return name, (f"charset: {name} from a <meta> charset declaration",)
