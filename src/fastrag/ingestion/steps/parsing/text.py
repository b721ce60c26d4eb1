"""``TextParser``: plain text files, decoded exactly (see ``decoding``)."""

from __future__ import annotations

from typing import ClassVar

from fastrag.ingestion.steps.parsing.base import Parsed, Parser
from fastrag.ingestion.steps.parsing.decoding import decode_text
from fastrag.models import ContentFormat, Document

__all__ = ["TextParser"]


class TextParser(Parser):
    """Decode UTF-8 (with or without BOM) or UTF-16 with a BOM; content format ``text``.

    A file that is not UTF-8 at all (8-bit legacy text, no UTF-8 sequence anywhere) is
    read as windows-1252 and says so in a diagnostic (see ``decoding``).

    The text is kept exactly as decoded — no line-ending or whitespace normalization — so
    every offset a chunk records points into it. Subclasses for other text formats only
    change ``content_format``.
    """

    content_format: ClassVar[ContentFormat] = ContentFormat.TEXT

    def parse(self, data: bytes, source: Document) -> Parsed:
        """Decode ``data``, recording a stripped BOM, an assumed legacy encoding and any
        replaced bytes."""
        decoded = decode_text(data, source.source_id)
        return Parsed(
            decoded.text,
            self.content_format,
            decoded.diagnostics,
            {"encoding": decoded.encoding},
        )
