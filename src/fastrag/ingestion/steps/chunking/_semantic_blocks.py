"""Source blocks, call windows and the local grouping of ``SemanticChunker``.

Everything here is a pure function over ``(start, end)`` spans of the document text, so
whatever the model answers, a chunk is always ``content[start:end]`` of the source: the
model chooses which consecutive blocks belong together, never what they say.

Blocks are paragraphs (runs of text between blank lines) with surrounding whitespace
trimmed; a paragraph longer than ``chunk_size`` is divided at the last whitespace before
the limit (or exactly at it when a run has no whitespace), hand-written because the rule
is three lines and must keep exact offsets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Final

__all__ = ["Span", "blocks", "grouped", "local_groups", "windows"]

Span = tuple[int, int]

_BLANK_LINES: Final = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_SPACE: Final = frozenset(" \t\n\r\f\v")


def blocks(text: str, chunk_size: int) -> list[Span]:
    """Trimmed paragraph spans of ``text``, each at most ``chunk_size`` characters."""
    spans: list[Span] = []
    position = 0
    for separator in _BLANK_LINES.finditer(text):
        spans.extend(_divided(text, position, separator.start(), chunk_size))
        position = separator.end()
    spans.extend(_divided(text, position, len(text), chunk_size))
    return spans


def _divided(text: str, start: int, end: int, chunk_size: int) -> Iterator[Span]:
    """``text[start:end]`` trimmed, cut into pieces of at most ``chunk_size``."""
    start, end = _trimmed(text, start, end)
    while end - start > chunk_size:
        limit = start + chunk_size
        cut = max(text.rfind(" ", start + 1, limit + 1), text.rfind("\n", start + 1, limit + 1))
        if cut <= start:
            cut = limit  # one unbroken run longer than chunk_size: cut inside it
        piece = _trimmed(text, start, cut)
        if piece[0] < piece[1]:
            yield piece
        start, end = _trimmed(text, cut, end)
    if start < end:
        yield start, end


def _trimmed(text: str, start: int, end: int) -> Span:
    while start < end and text[start] in _SPACE:
        start += 1
    while end > start and text[end - 1] in _SPACE:
        end -= 1
    return start, end


def windows(spans: Sequence[Span], max_input_chars: int) -> Iterator[Sequence[Span]]:
    """Consecutive runs of ``spans`` whose source characters total ``max_input_chars``."""
    first = 0
    total = 0
    for index, (start, end) in enumerate(spans):
        size = end - start
        if index > first and total + size > max_input_chars:
            yield spans[first:index]
            first, total = index, 0
        total += size
    if first < len(spans):
        yield spans[first:]


def local_groups(spans: Sequence[Span], chunk_size: int) -> Iterator[Span]:
    """Without a model: consecutive blocks merged while the covered range fits ``chunk_size``."""
    group: Span | None = None
    for start, end in spans:
        if group is not None and end - group[0] <= chunk_size:
            group = (group[0], end)
            continue
        if group is not None:
            yield group
        group = (start, end)
    if group is not None:
        yield group


def grouped(spans: Sequence[Span], starts: Sequence[int]) -> Iterator[Span]:
    """The source range of each group, given the index of every group's first block."""
    bounds = [*starts, len(spans)]
    for first, following in pairwise(bounds):
        yield spans[first][0], spans[following - 1][1]
