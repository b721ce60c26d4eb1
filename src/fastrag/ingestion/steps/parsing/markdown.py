"""``MarkdownParser``: Markdown files as their exact decoded source text."""

from __future__ import annotations

from typing import ClassVar

from fastrag.ingestion.steps.parsing.text import TextParser
from fastrag.models import ContentFormat

__all__ = ["MarkdownParser"]


class MarkdownParser(TextParser):
    """Decode like ``TextParser``; content format ``markdown``.

    The Markdown source is the content, unrendered: the Markdown normalizer reads its
    structure later, and chunk offsets point into this very string.
    """

    content_format: ClassVar[ContentFormat] = ContentFormat.MARKDOWN
