"""The PDF layout model: what the page analysis found, before any output format is chosen.

``PdfParser`` works in three stages — extraction (``_pdf_extract``: spans of text with
their boxes and fonts), analysis (furniture, reading order, blocks, headings) and
rendering (``_pdf_render``: Markdown plus page maps). This module is the plain data that
flows between them, so a second renderer (a ``DoclingDocument`` builder) can consume the
same analysed document:

``DocumentLayout`` → ``PageLayout`` (one per page, in order) → ``Block`` (in reading
order) → ``Line`` (one printed row of one column) ← built from ``Span`` (one run of text
as pdfium reports it).

Coordinates are PDF points with the origin at the page's top-left corner, y growing
downwards (the convention of ``fastrag.ingestion.pages``). Every value is frozen.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "Block",
    "BlockKind",
    "Box",
    "DocumentLayout",
    "Line",
    "NavigationRemoved",
    "PageLayout",
    "PageText",
    "Span",
    "join_lines",
    "line_separator",
]


class BlockKind(StrEnum):
    """What a block is; the renderer has one rule per kind."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE = "table"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned rectangle: ``x0 <= x1``, ``y0 <= y1``, top-left origin, points."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        """Horizontal extent."""
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        """Vertical extent."""
        return self.y1 - self.y0

    def union(self, other: Box) -> Box:
        """The smallest box holding both."""
        return Box(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )


@dataclass(frozen=True, slots=True)
class Span:
    """One run of text on one printed row, as extraction reports it.

    A span never crosses a wide horizontal gap (a column gutter, a table cell border) nor
    a change of row: extraction splits pdfium's lines there.
    """

    text: str
    """Clean text: control characters removed, ligatures expanded, no line-end hyphen mark."""
    box: Box
    size: float
    """Effective font size in points (font size × text-matrix scale) of the run's typical
    character — a PDF that sets ``Tf`` to 1 pt and scales the matrix still reads right."""
    bold: bool
    mono: bool
    hyphenated: bool
    """The row ended in a soft hyphen (pdfium's U+FFFE): the word continues on the next row."""
    row: int
    """pdfium's line number on the page; spans of one row of one pdfium line share it."""
    baseline: float
    """The y of the run's baseline (same coordinates as ``box``): line spacing is measured
    between baselines, which do not move with ascenders and descenders as glyph boxes do."""


@dataclass(frozen=True, slots=True)
class PageText:
    """Extraction's output for one page: its size and its spans in pdfium's order."""

    number: int
    """1-based page number."""
    width: float
    height: float
    spans: tuple[Span, ...]
    images: int
    """Image (or form) objects found on a page without text; 0 when the page has text."""


@dataclass(frozen=True, slots=True)
class Line:
    """One printed row of one column: the spans of that row joined, in reading order."""

    text: str
    """The row's cells joined by one space."""
    box: Box
    size: float
    bold: bool
    mono: bool
    hyphenated: bool
    """The row ended in a line-end hyphen (dropped from ``text``): its word continues."""
    cells: tuple[str, ...]
    """The row's spans (several when the row has wide gaps: a table row, a term and its
    definition)."""
    cell_boxes: tuple[Box, ...]
    baseline: float
    """The y of the row's baseline (of its longest span)."""
    joint: str | None = None
    """What joins this row to the next row of its text when the analysis decided it
    (``_pdf_joints``: ``"-"`` keeps a compound's line-end hyphen, ``""`` continues a URL);
    None leaves it to ``line_separator``'s default."""

    @property
    def x0(self) -> float:
        """Where the row starts."""
        return self.box.x0


@dataclass(frozen=True, slots=True)
class Block:
    """One unit of the page's structure, in reading order."""

    kind: BlockKind
    page: int
    """1-based page number."""
    lines: tuple[Line, ...]
    level: int = 0
    """Heading level 1–6 for headings; nesting depth (0 = outermost) for list items."""
    marker: str = ""
    """A list item's printed marker (``•``, ``1.``, ``(a)``), which starts its first line."""
    rows: tuple[tuple[str, ...], ...] = ()
    """A table's cells, row by row (the first row is its header)."""
    continues: bool = False
    """This paragraph continues the previous block (across a column or page break)."""

    @property
    def box(self) -> Box:
        """The union of the block's line boxes."""
        box = self.lines[0].box
        for line in self.lines[1:]:
            box = box.union(line.box)
        return box

    @property
    def text(self) -> str:
        """The block's plain text: lines joined (see ``join_lines``), the marker removed."""
        text = join_lines(self.lines)
        if self.marker:
            text = text[len(self.marker) :].lstrip()
        return text


@dataclass(frozen=True, slots=True)
class PageLayout:
    """One analysed page."""

    number: int
    width: float
    height: float
    blocks: tuple[Block, ...]
    image_only: bool
    """No text but images: a scan that needs OCR."""


@dataclass(frozen=True, slots=True)
class NavigationRemoved:
    """Rows of one kind of navigation (a table of contents, an index) left out of the
    blocks (``_pdf_navigation``): counted and located, never dropped silently."""

    kind: str
    """``"contents"`` or ``"index"``."""
    pages: tuple[int, ...]
    """1-based pages the removed rows stood on, ascending."""
    rows: int


@dataclass(frozen=True, slots=True)
class DocumentLayout:
    """A whole analysed document, ready to render."""

    pages: tuple[PageLayout, ...]
    heading_source: str
    """``"outline"`` (bookmarks matched to the text), ``"layout"`` (fonts) or ``"none"``."""
    removed_furniture: int
    """Running headers, footers and page numbers left out of the blocks."""
    notes: tuple[str, ...] = ()
    """Diagnostics from the analysis (counts and page numbers, never document text)."""
    removed_navigation: tuple[NavigationRemoved, ...] = ()
    """Tables of contents and indexes left out of the blocks, one entry per kind."""


def join_lines(lines: tuple[Line, ...]) -> str:
    """Lines of one block as running text: a soft-hyphenated row joins the next without
    a space, a row ending in a dash right after a letter or digit joins without one."""
    parts: list[str] = []
    for index, line in enumerate(lines):
        parts.append(line.text)
        if index + 1 < len(lines):
            parts.append(line_separator(line))
    return "".join(parts)


def line_separator(line: Line) -> str:
    """What goes between ``line`` and the next row of its block: the analysed ``joint``,
    else nothing after a line-end hyphen or a dash, else one space."""
    if line.joint is not None:
        return line.joint
    if line.hyphenated:
        return ""
    text = line.text
    if len(text) >= 2 and text[-1] in "-‐–" and text[-2].isalnum():
        return ""
    return " "
