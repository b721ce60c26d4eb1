"""The visible text of WordprocessingML paragraphs and table cells, read from their XML.

python-docx's ``Paragraph.text`` reads only a paragraph's direct runs and hyperlinks, so
text inside tracked insertions (``w:ins``), simple fields (``w:fldSimple``), smart tags
and inline content controls (``w:sdt``) would vanish. This walker descends into those
wrappers and skips tracked deletions; each run's own text is still python-docx's
(``w:t``, tabs and breaks mapped to ``\\t`` and ``\\n``). Field instructions
(``w:instrText``) are code, not text, and are never read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from docx.oxml.xmlchemy import BaseOxmlElement as _Element

__all__ = ["W", "cell_text", "child_value", "iter_blocks", "paragraph_text", "qn", "visible_runs"]

W: Final = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
"""WordprocessingML's namespace, in Clark notation (python-docx is imported lazily)."""


def qn(tag: str) -> str:
    """``"w:p"`` as the Clark-notation tag lxml compares against."""
    return W + tag.removeprefix("w:")


_RUN: Final = qn("w:r")
_VAL: Final = qn("w:val")
_PARAGRAPH: Final = qn("w:p")
_TABLE: Final = qn("w:tbl")
_ROW: Final = qn("w:tr")
_CELL: Final = qn("w:tc")
_WRAPPERS: Final = frozenset(
    qn(tag)
    for tag in (
        "w:hyperlink",
        "w:ins",
        "w:moveTo",
        "w:smartTag",
        "w:fldSimple",
        "w:customXml",
        "w:sdt",
        "w:sdtContent",
        "w:dir",
        "w:bdo",
    )
)
"""Containers whose runs are visible text; everything else in a paragraph is skipped
(``w:del``/``w:moveFrom`` deletions, properties, bookmarks, comments' anchors)."""
_BLOCK_WRAPPERS: Final = frozenset(qn(tag) for tag in ("w:sdt", "w:sdtContent", "w:customXml"))
"""Block-level containers (content controls, custom XML) whose paragraphs are body text."""


def child_value(element: _Element | None, child: str) -> str | None:
    """``child``'s ``w:val`` under ``element`` (e.g. ``w:pStyle`` of a ``w:pPr``)."""
    if element is None:
        return None
    found = element.find(qn(child))
    value = None if found is None else found.get(_VAL)
    return None if value is None else str(value)


def paragraph_text(paragraph: _Element) -> str:
    """The text of a ``w:p`` element, in document order."""
    parts: list[str] = []
    _collect(paragraph, parts)
    return "".join(parts)


def _collect(element: _Element, parts: list[str]) -> None:
    parts.extend(str(getattr(run, "text", "") or "") for run in visible_runs(element))


def visible_runs(element: _Element) -> Iterator[_Element]:
    """The ``w:r`` runs of a paragraph whose text ``paragraph_text`` reads, in order."""
    for child in element:
        tag = child.tag
        if tag == _RUN:
            yield child
        elif tag in _WRAPPERS:
            yield from visible_runs(child)


def iter_blocks(container: _Element) -> Iterator[_Element]:
    """The ``w:p`` and ``w:tbl`` elements of a body or cell, content controls opened."""
    for child in container:
        tag = child.tag
        if tag in (_PARAGRAPH, _TABLE):
            yield child
        elif tag in _BLOCK_WRAPPERS:
            yield from iter_blocks(child)


def cell_text(cell: _Element) -> str:
    """A ``w:tc``'s text on one line: its paragraphs, and nested tables' cells, by spaces."""
    parts: list[str] = []
    for block in iter_blocks(cell):
        if block.tag == _PARAGRAPH:
            parts.append(paragraph_text(block))
        else:
            parts.extend(
                cell_text(nested)
                for row in block.iterchildren(_ROW)
                for nested in row.iterchildren(_CELL)
            )
    return " ".join(part.strip() for part in parts if part.strip())
