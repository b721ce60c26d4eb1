"""Markdown sections kept whole, with their heading ancestry for retrieval."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from fastrag.ingestion.steps.chunking._markdown_headings import MarkdownHeading, scan_headings
from fastrag.ingestion.steps.chunking.base import Chunker, Piece

if TYPE_CHECKING:
    from fastrag.models import Document
    from fastrag.pipeline import CacheSetting, Policy

__all__ = ["HeadingChunker"]

# Bumped whenever the scanner or the section rules change what a document splits into, so
# chunks cached under an older version are not replayed as if they were current.
# 2: a heading over 2,000 characters keeps its inline markup in its title.
_SECTIONING_VERSION = 2

_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*+(?:\r\n|\r|\n))++")


class HeadingChunker(Chunker):
    """Split Markdown at headings without splitting section bodies.

    Each chunk is one section — a heading and the body up to the next heading of any
    level — with its ancestor headings' Markdown lines prepended (separated by a blank
    line), and metadata ``{"headings": [outermost, ..., innermost]}`` of plain-text titles.
    ATX (``#`` to ``######``, optional closing ``#``s, up to three spaces of indentation)
    and Setext (``===``/``---`` under a paragraph) headings are recognized; headings inside
    fenced (```````/``~~~``) or indented code, list items and block quotes are not.

    A heading with no body of its own whose next heading is one of its subsections does
    not become an isolated title chunk: it travels, exactly as written in the source, with
    that first subsection. Text before the first heading is one chunk with an empty heading
    path. Sections have no size cap and no overlap, so code, lists and tables stay intact
    even when a section is long; pair this with a size-bounded chunker when a budget
    matters.

    Dependency-free on purpose (a small line scanner, not a Markdown parser), so it works
    in the base install.
    """

    accepted_content_formats = frozenset({"markdown", "text"})

    def __init__(
        self,
        *,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(cache=cache, policy=policy)

    def config(self) -> Mapping[str, Any]:
        """Return the section splitting configuration for cache identity."""
        return {"version": _SECTIONING_VERSION}

    def split(self, document: Document) -> Iterator[Piece]:
        """Yield whole sections with their heading paths and original Markdown."""
        for text, headings in _sections(document.content):
            yield text, {"headings": headings}


def _sections(source: str) -> Iterator[tuple[str, list[str]]]:
    """``(text, heading path)`` for the preamble and every section of ``source``, in order.

    ``ancestors`` is the stack of open headings; ``travelling`` marks where, in it, a run of
    body-less headings starts whose source text goes out with the next emitted section
    (they are contiguous with it in the source, so their text is taken verbatim).
    """
    headings = scan_headings(source)
    preamble = _trim(source[: headings[0].start if headings else len(source)])
    if preamble:
        yield preamble, []
    ancestors: list[MarkdownHeading] = []
    travelling: int | None = None
    for index, heading in enumerate(headings):
        following = headings[index + 1] if index + 1 < len(headings) else None
        end = following.start if following is not None else len(source)
        while ancestors and ancestors[-1].level >= heading.level:
            ancestors.pop()
        if (
            following is not None
            and following.level > heading.level
            and not source[heading.end : end].strip()
        ):
            if travelling is None:
                travelling = len(ancestors)
            ancestors.append(heading)
            continue
        # A travelling run is always a chain of ancestors of this heading: each member is
        # followed by a deeper heading, so nothing between them pops one off the stack.
        shown = ancestors if travelling is None else ancestors[:travelling]
        start = heading.start if travelling is None else ancestors[travelling].start
        parts = [source[ancestor.start : ancestor.end] for ancestor in shown]
        parts.append(_trim(source[start:end]))
        yield "\n\n".join(parts), [ancestor.title for ancestor in ancestors] + [heading.title]
        ancestors.append(heading)
        travelling = None


def _trim(text: str) -> str:
    """Drop trailing whitespace and leading blank lines, keeping the first line's indent."""
    text = text.rstrip()
    match = _LEADING_BLANK_LINES.match(text)
    return text[match.end() :] if match else text
