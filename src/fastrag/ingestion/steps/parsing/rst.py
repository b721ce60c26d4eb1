"""``RstParser``: reStructuredText files as their exact decoded source text."""

from __future__ import annotations

from typing import ClassVar

from fastrag.ingestion.steps.parsing.text import TextParser
from fastrag.models import ContentFormat

__all__ = ["RstParser"]


class RstParser(TextParser):
    """Decode like ``TextParser``; content format ``rst``.

    Nothing is executed or rendered here: the hardened RST normalizer reads the source
    later, and chunk offsets point into this very string.
    """

    content_format: ClassVar[ContentFormat] = ContentFormat.RST
