"""Plain text: paragraphs separated by blank lines, everything else retained as written.

A paragraph is a maximal run of lines that each hold at least one non-whitespace
character; a blank line is empty or whitespace-only. Line ends are ``\\n``, ``\\r\\n`` or
a lone ``\\r``, mixed freely. Each paragraph is a ``paragraph`` node owning its exact
source (first line's indentation and last line's trailing spaces included), and
everything between paragraphs — the line end closing a paragraph, blank lines, leading
and trailing blank space of the document — is excluded as ``whitespace``. Nothing else
is excluded, so retained plus whitespace is the whole string. There is no MIME sniffing:
a document without a declared format is text.

Separators are found by one regular expression that starts with a line end, so the scan
is linear (a 50 MB line of spaces included) and Python runs once per paragraph.
"""

from __future__ import annotations

import re

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document
from fastrag.normalization.model import (
    ExclusionColumns,
    NodeIds,
    Nodes,
    NormalizedDocument,
    Units,
)

__all__ = ["TextNormalizer"]

# A blank-line separator: the line end closing a paragraph plus every following blank
# line with its line end. It starts with a line end, so the scan between separators is a
# single character test per position in C; possessive ``\r\n?+`` keeps a CRLF one line end.
_SEPARATOR = re.compile(r"(?:\r\n?+|\n)(?:[^\S\r\n]*+(?:\r\n?+|\n))++")
_LINE_END = re.compile(r"[\r\n]")


def _paragraph_spans(content: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every paragraph, in order.

    Segments between separators start at a line start and end before a line end, both
    on non-blank lines; only the first and last need trimming: blank lines before the
    first paragraph and after the last one (keeping their own lines' indentation and
    trailing spaces, as in the middle of the text).
    """
    bounds: list[tuple[int, int]] = []
    position = 0
    for separator in _SEPARATOR.finditer(content):
        bounds.append((position, separator.start()))
        position = separator.end()
    bounds.append((position, len(content)))
    spans: list[tuple[int, int]] = []
    last = len(bounds) - 1
    for index, (start, end) in enumerate(bounds):
        if index == 0 or index == last:
            segment = content[start:end]
            stripped = segment.strip()
            if not stripped:
                continue
            leading = segment.index(stripped[0])
            line_start = _last_line_end(segment, leading)
            trailing_start = leading + len(stripped)
            line_end = _LINE_END.search(segment, trailing_start)
            end = start + (line_end.start() if line_end is not None else len(segment))
            start += line_start
        spans.append((start, end))
    return spans


def _last_line_end(segment: str, before: int) -> int:
    """The offset just after the last line end before ``before`` (0 when there is none)."""
    return max(segment.rfind("\n", 0, before), segment.rfind("\r", 0, before)) + 1


class TextNormalizer:
    """Reads plain-text ``Document.content`` into blank-line separated paragraphs.

    ``max_characters`` (100,000,000): longer input raises ``NormalizationError``. It is
    not part of ``identity``: it decides whether input is accepted, never the output.
    """

    identity = "text:paragraphs:v1"

    def __init__(self, *, max_characters: int = 100_000_000) -> None:
        if type(max_characters) is not int or max_characters < 1:
            raise ConfigurationError(
                f"TextNormalizer 'max_characters' must be an int >= 1 (got {max_characters!r})"
            )
        self.max_characters = max_characters

    def normalize(self, document: Document) -> NormalizedDocument:
        content = document.content
        if len(content) > self.max_characters:
            raise NormalizationError(
                f"text document {document.id!r} has {len(content)} characters, more than "
                f"max_characters={self.max_characters}; raise "
                "TextNormalizer(max_characters=...) or split the document"
            )
        # Columns (``Nodes``): node 0 is the document, node ``i`` the ``i``-th paragraph,
        # whose text is its source slice; no node object or id string is kept per paragraph.
        prefix = document.id
        spans = _paragraph_spans(content)
        count = len(spans) + 1
        starts = [0 if content else -1, *(start for start, _ in spans)]
        ends = [len(content) if content else -1, *(end for _, end in spans)]
        nodes = Nodes(
            content,
            prefix,
            ("document", *("paragraph",) * len(spans)),
            ("", *(None,) * len(spans)),
            (starts, ends),
            (-1, *(0,) * len(spans)),
        )
        gaps = ExclusionColumns()  # the whitespace between paragraphs
        position = 0
        for start, end in spans:
            if start > position:
                gaps.add(position, start, "whitespace")
            position = end
        if position < len(content):
            gaps.add(position, len(content), "whitespace")
        units = Units.from_offsets(
            starts[1:], ends[1:], NodeIds(nodes, range(1, count)), id_prefix=f"{prefix}:u"
        )
        result = NormalizedDocument(document, "text", nodes, units, gaps.build())
        return result.validate()
