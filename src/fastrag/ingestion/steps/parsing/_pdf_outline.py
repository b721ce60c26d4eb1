"""The document outline (bookmarks) through pdfium's raw API, defensively.

Each bookmark's page comes from its destination or, as LaTeX's hyperref writes them,
from its GoTo action. Outlines are hostile input like the rest of the file: a cycle of
bookmarks is cut, at most ``MAX_OUTLINE_ENTRIES`` bookmarks are visited, and a title
longer than 4 KB is skipped.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["MAX_OUTLINE_ENTRIES", "OutlineEntry", "read_outline"]

MAX_OUTLINE_ENTRIES: Final = 10_000
_MAX_TITLE_BYTES: Final = 4096
_CONTROL = str.maketrans(dict.fromkeys(range(32), " "))


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One bookmark of the document outline."""

    title: str
    level: int
    """1-based depth in the outline tree."""
    page: int
    """1-based page the bookmark points to."""


def read_outline(raw: Any, document: Any, pages: int) -> tuple[OutlineEntry, ...]:
    """The bookmarks that point at a page, depth first; cycles and excess are cut off."""
    entries: list[OutlineEntry] = []
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(raw.FPDFBookmark_GetFirstChild(document, None), 1)]
    while stack and len(seen) < MAX_OUTLINE_ENTRIES:
        bookmark, level = stack.pop()
        if not bookmark:
            continue
        address = ctypes.addressof(bookmark.contents)
        if address in seen:
            continue
        seen.add(address)
        stack.append((raw.FPDFBookmark_GetNextSibling(document, bookmark), level))
        stack.append((raw.FPDFBookmark_GetFirstChild(document, bookmark), level + 1))
        page = _bookmark_page(raw, document, bookmark)
        title = _bookmark_title(raw, bookmark)
        if page is not None and 0 <= page < pages and title.strip():
            entries.append(OutlineEntry(" ".join(title.split()), level, page + 1))
    return tuple(entries)


def _bookmark_page(raw: Any, document: Any, bookmark: Any) -> int | None:
    destination = raw.FPDFBookmark_GetDest(document, bookmark)
    if not destination:
        action = raw.FPDFBookmark_GetAction(bookmark)
        if action and int(raw.FPDFAction_GetType(action)) == raw.PDFACTION_GOTO:
            destination = raw.FPDFAction_GetDest(document, action)
    if not destination:
        return None
    index = int(raw.FPDFDest_GetDestPageIndex(document, destination))
    return index if index >= 0 else None


def _bookmark_title(raw: Any, bookmark: Any) -> str:
    size = int(raw.FPDFBookmark_GetTitle(bookmark, None, 0))
    if size <= 2 or size > _MAX_TITLE_BYTES:
        return ""
    buffer = ctypes.create_string_buffer(size)
    raw.FPDFBookmark_GetTitle(bookmark, buffer, len(buffer))
    return buffer.raw[: len(buffer) - 2].decode("utf-16-le", "replace").translate(_CONTROL)
