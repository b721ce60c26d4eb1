"""Page provenance of paginated sources: which page, and where on it, a content offset is.

A paginated parser (``PdfParser``) renders its document as text content and records, in
the parsed document's metadata, two JSON-native maps from content offsets back to the
page (this module is their one definition, for parsers, records and validation alike):

``metadata["pages"]`` (``PAGES_KEY``)
    ``[[start, end, page], ...]``: half-open content ranges, sorted, non-overlapping and
    contiguous from 0 to ``len(content)``; ``page`` is 1-based. Every offset of the
    content belongs to exactly one page (markup a renderer adds between two pages belongs
    to the page after it).
``metadata["layout"]`` (``LAYOUT_KEY``)
    ``[[start, end, page, x0, y0, x1, y1], ...]``: one entry per rendered line (or block),
    sorted by ``start``, non-overlapping; the box in PDF points with the origin at the
    page's top-left corner (y grows downwards), rounded to 0.1 pt.

Both maps describe the whole document, so chunk records do not copy them: each record
gets its own ``page`` (the page of ``char_start``), ``page_range`` and ``boxes``
(``chunk_pages``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = [
    "DEFAULT_MAX_PAGES",
    "DOCUMENT_LEVEL_KEYS",
    "LAYOUT_KEY",
    "PAGES_KEY",
    "ChunkPages",
    "PageMap",
    "chunk_pages",
    "page_of",
]

DEFAULT_MAX_PAGES: Final = 2000
"""Paginated documents of more pages are refused (``--max-pages``) before extraction."""

PAGES_KEY: Final = "pages"
LAYOUT_KEY: Final = "layout"
DOCUMENT_LEVEL_KEYS: Final = frozenset({PAGES_KEY, LAYOUT_KEY, "excluded", "sheets", "slides"})
"""Parent metadata that describes the whole document and is never copied into a chunk:
the page maps, and the office parsers' inventories (what was excluded, sheets, slides)."""

ChunkPages = tuple[int, tuple[int, int], tuple[tuple[float, ...], ...]]
"""``(page, (first_page, last_page), boxes)``, boxes as ``(page, x0, y0, x1, y1)``."""


def page_of(pages: Sequence[Sequence[int]], offset: int) -> int | None:
    """The page holding content ``offset`` (the last page for ``len(content)``)."""
    if not pages:
        return None
    starts = [entry[0] for entry in pages]
    return int(pages[max(0, bisect_right(starts, offset) - 1)][2])


def chunk_pages(metadata: Mapping[str, Any], start: int, end: int) -> ChunkPages | None:
    """Page, page range and per-page bounding boxes of content ``[start, end)``.

    None when the document carries no page map. For many ranges of one document build a
    ``PageMap`` once instead (this rebuilds its search index on every call).
    """
    page_map = PageMap.of(metadata)
    return None if page_map is None else page_map.locate(start, end)


class PageMap:
    """A document's page maps with their offsets indexed once, for locating many chunks."""

    __slots__ = ("_layout", "_layout_starts", "_page_starts", "_pages")

    def __init__(self, pages: Sequence[Sequence[int]], layout: Sequence[Sequence[Any]]) -> None:
        self._pages = pages
        self._page_starts = [entry[0] for entry in pages]
        self._layout = layout
        self._layout_starts = [entry[0] for entry in layout]

    @classmethod
    def of(cls, metadata: Mapping[str, Any]) -> PageMap | None:
        """The map of a parsed document's metadata; None when it carries no pages."""
        pages = metadata.get(PAGES_KEY)
        if not isinstance(pages, Sequence) or not pages:
            return None
        layout = metadata.get(LAYOUT_KEY)
        return cls(pages, layout if isinstance(layout, Sequence) else ())

    def page(self, offset: int) -> int:
        """The page holding content ``offset``."""
        return int(self._pages[max(0, bisect_right(self._page_starts, offset) - 1)][2])

    def locate(self, start: int, end: int) -> ChunkPages:
        """Page, page range and per-page boxes of ``[start, end)``; boxes are the union,
        per page, of the layout entries the range overlaps, in page order."""
        first, last = self.page(start), self.page(max(start, end - 1))
        unions: dict[int, list[float]] = {}
        layout = self._layout
        index = max(0, bisect_right(self._layout_starts, start) - 1)
        while index < len(layout) and layout[index][0] < end:
            _entry_start, entry_end, page, x0, y0, x1, y1 = layout[index]
            index += 1
            if entry_end <= start:
                continue
            box = unions.get(int(page))
            if box is None:
                unions[int(page)] = [float(x0), float(y0), float(x1), float(y1)]
            else:
                box[0], box[1] = min(box[0], x0), min(box[1], y0)
                box[2], box[3] = max(box[2], x1), max(box[3], y1)
        boxes = tuple((float(page), *box) for page, box in sorted(unions.items()))
        return first, (first, last), boxes
