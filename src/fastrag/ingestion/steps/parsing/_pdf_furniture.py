"""Page furniture: running headers, running footers and page numbers.

A line is furniture when it sits in the top or bottom band of its page (``BAND`` of the
page height, or the page's first or last row when a gap sets it apart from the text),
is not larger than body text, and either

* is a page number alone (``12``, ``xi``, ``Page 3 of 9``, ``- 4 -``, ``7-45``), or
* repeats on other pages at the same height once digits are ignored (``Chapter 3: Basic
  Shell Features 25``, ``Federal Register / Vol. 85 … 47699``), or
* is the page's first or last row and stands exactly where repeated furniture stands
  on several other pages (the header of a chapter one page long still sits there).

Text in the left or right margin band (a vertical filing stamp) counts when repeated.

Furniture is left out of the content and only counted (the parser reports how many
lines), so chunks never carry "Chapter 3 … 25" in the middle of a sentence.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import PageText

__all__ = ["BAND", "find_furniture"]

BAND: Final = 0.1
"""The top and bottom tenth of a page hold its running header and footer."""
_SAME_HEIGHT: Final = 2.0
"""Points within which repeated lines count as standing at the same height."""
_MAX_WORDS: Final = 20
_PAGE_NUMBER = re.compile(
    r"(?:page\s+)?(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:/|of)\s*\d{1,5})?"
    r"|[-–—]\s*\d{1,5}\s*[-–—]|\[\d{1,5}\]"
    # Chapter-page numbers of manuals and handbooks: "7-45", "A-3", "12–104".
    r"|(?:page\s+)?(?:\d{1,3}|[a-z])[-–]\d{1,4}",
    re.IGNORECASE,
)
_MASTHEAD_ZONE: Final = 0.15
"""How far down (up) a first page's masthead (footer) may reach (``_masthead``)."""
_MASTHEAD_CHARS: Final = 8
"""Shortest masthead line taken for a piece of a running header: not a lone word."""
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")

Key = tuple[int, int]
"""(page number, index of the span in the page's spans)."""


def find_furniture(pages: Sequence[PageText], body_size: float) -> frozenset[Key]:
    """The spans of ``pages`` that are running headers, footers or page numbers."""
    limit = body_size * 1.25 if body_size > 0 else float("inf")
    candidates: list[tuple[Key, str, float, str]] = []
    furniture: set[Key] = set()
    edges: set[Key] = set()
    for page in pages:
        top, bottom = page.height * BAND, page.height * (1 - BAND)
        left, right = page.width * BAND, page.width * (1 - BAND)
        first, last = _edge_rows(page)
        edges.update((page.number, index) for index in first | last)
        for index, span in enumerate(page.spans):
            if span.size > limit or len(span.text.split()) > _MAX_WORDS:
                continue
            if span.box.y1 <= top or index in first:
                band = "top"
            elif span.box.y0 >= bottom or index in last:
                band = "bottom"
            elif span.box.x1 <= left:
                band = "left"
            elif span.box.x0 >= right:
                band = "right"
            else:
                continue
            key = (page.number, index)
            if _PAGE_NUMBER.fullmatch(span.text.strip()):
                furniture.add(key)
            candidates.append((key, band, span.box.y0, _normal(span.text)))
    repeated = _repeated(candidates)
    furniture |= repeated
    positions = Counter(
        (band, round(y / _SAME_HEIGHT)) for key, band, y, _text in candidates if key in repeated
    )
    common = {position for position, count in positions.items() if count >= 3}
    for key, band, y, _text in candidates:
        around = round(y / _SAME_HEIGHT)
        if key in edges and any((band, around + step) in common for step in (-1, 0, 1)):
            furniture.add(key)
    furniture |= _masthead(
        pages, limit, [(key, band, text) for key, band, _y, text in candidates if key in repeated]
    )
    return frozenset(furniture)


def _masthead(
    pages: Sequence[PageText], limit: float, running: list[tuple[Key, str, str]]
) -> set[Key]:
    """Lines of a page without a running header or footer of its own that are pieces
    of the running header or footer printed on other pages.

    A journal's first page sets its masthead as several lines instead of the one-line
    header of the pages after it: the Federal Register's page 1 prints "Federal
    Register", "Vol. 85, No. 152" and "Thursday, August 6, 2020" at the top of a column,
    reaching below the header band, and they landed in the middle of a sentence of
    the text read after them. Each such line, digits ignored, is part of the running
    header "Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed
    Rules" of the pages after it.
    """
    texts: defaultdict[str, set[str]] = defaultdict(set)
    pages_with: defaultdict[str, set[int]] = defaultdict(set)
    for (page_number, _index), band, text in running:
        texts[band].add(text)
        pages_with[band].add(page_number)
    found: set[Key] = set()
    for page in pages:
        top, bottom = page.height * _MASTHEAD_ZONE, page.height * (1 - _MASTHEAD_ZONE)
        for index, span in enumerate(page.spans):
            if span.size > limit:
                continue
            band = "top" if span.box.y1 <= top else "bottom" if span.box.y0 >= bottom else ""
            if not band or page.number in pages_with[band]:
                continue
            normal = _normal(span.text)
            if (
                len(normal) >= _MASTHEAD_CHARS
                and any(char.isalpha() for char in normal)
                and any(normal in header for header in texts[band])
            ):
                found.add((page.number, index))
    return found


def _normal(text: str) -> str:
    """``text`` compared digit-blind: casefolded, digit runs as ``#``, spaces collapsed."""
    return _SPACES.sub(" ", _DIGITS.sub("#", text.casefold())).strip()


def _edge_rows(page: PageText) -> tuple[set[int], set[int]]:
    """Indices of the page's topmost and bottommost rows, when a gap sets them apart."""
    spans = page.spans
    if len(spans) < 2:
        return set(), set()
    order = sorted(range(len(spans)), key=lambda i: spans[i].box.y0)
    edges: list[set[int]] = []
    for ranked in (order, order[::-1]):
        anchor = spans[ranked[0]]
        em = max(anchor.size, 1.0)
        row = [i for i in ranked if abs(spans[i].baseline - anchor.baseline) <= 0.5 * em]
        rest = [spans[i] for i in ranked if i not in row]
        if ranked is order:
            edge, gap = max(spans[i].box.y1 for i in row), min((s.box.y0 for s in rest), default=0)
            apart = not rest or gap - edge >= 0.8 * em
        else:
            edge, gap = min(spans[i].box.y0 for i in row), max((s.box.y1 for s in rest), default=0)
            apart = not rest or edge - gap >= 0.8 * em
        edges.append(set(row) if apart else set())
    return edges[0], edges[1]


def _repeated(candidates: list[tuple[Key, str, float, str]]) -> set[Key]:
    """Candidates whose digit-blind text recurs on another page at the same height."""
    groups: defaultdict[tuple[str, str], list[tuple[Key, float]]] = defaultdict(list)
    for key, band, y, text in candidates:
        if any(char.isalpha() for char in text):
            groups[(band, text)].append((key, y))
    found: set[Key] = set()
    for members in groups.values():
        if len({key[0] for key, _y in members}) < 2:
            continue
        # Pages per height bucket; a member repeats when a neighbouring bucket (the
        # tolerance spans at most the next one) holds another page.
        buckets: defaultdict[int, set[int]] = defaultdict(set)
        for key, y in members:
            buckets[round(y / _SAME_HEIGHT)].add(key[0])
        for key, y in members:
            near = round(y / _SAME_HEIGHT)
            pages = set().union(*(buckets.get(near + step, set()) for step in (-1, 0, 1)))
            if pages - {key[0]}:
                found.add(key)
    return found
