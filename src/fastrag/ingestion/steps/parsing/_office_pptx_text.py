"""PowerPoint text frames and tables as Markdown blocks (bullets, levels, merged cells).

python-pptx exposes a paragraph's level but not whether PowerPoint shows a bullet, so
that is decided here, nearest definition first:

1. the paragraph's own properties: ``a:buAutoNum`` → numbered item, ``a:buChar`` /
   ``a:buBlip`` → bullet, ``a:buNone`` → plain paragraph;
2. the list style (``a:lstStyle``, per level) of the shape, then of the layout and master
   placeholders it inherits from (the caller passes that chain of elements);
3. the master's usual text styles: body/content placeholders bulleted, titles,
   subtitles, text boxes and shapes not (the master's ``p:txStyles`` are not read).

Table merges are repeated like Word's: a merged region's text fills every cell it covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from fastrag.ingestion.steps.parsing._office_markdown import (
    ListItem,
    list_block,
    paragraph,
)

if TYPE_CHECKING:
    from pptx.table import Table
    from pptx.text.text import TextFrame

__all__ = ["Bullet", "bullet_of", "frame_blocks", "table_rows"]

Bullet = Literal["numbered", "bullet", "plain"]

_A: Final = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P: Final = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_MARKS: Final[dict[str, Bullet]] = {
    _A + "buAutoNum": "numbered",
    _A + "buChar": "bullet",
    _A + "buBlip": "bullet",
    _A + "buNone": "plain",
}
_MAX_LEVEL: Final = 8


def bullet_of(properties: Any) -> Bullet | None:
    """The bullet a ``a:pPr`` / ``a:lvlNpPr`` element sets, or None when it sets none."""
    if properties is None:
        return None
    for child in properties:
        mark = _MARKS.get(child.tag)
        if mark is not None:
            return mark
    return None


def _list_style_bullet(shape_element: Any, level: int) -> Bullet | None:
    """The bullet a shape's ``a:lstStyle`` sets for paragraphs at ``level``, if any."""
    body = shape_element.find(_P + "txBody")
    styles = None if body is None else body.find(_A + "lstStyle")
    if styles is None:
        return None
    return bullet_of(styles.find(f"{_A}lvl{level + 1}pPr"))


def _inherited(chain: Sequence[Any], level: int, default: Bullet) -> Bullet:
    for element in chain:
        found = _list_style_bullet(element, level)
        if found is not None:
            return found
    return default


def frame_blocks(
    frame: TextFrame, chain: Sequence[Any] = (), default: Bullet = "plain"
) -> list[str]:
    """Markdown blocks of ``frame``: runs of list items grouped, other paragraphs alone.

    ``chain`` holds the shape element and those it inherits from (nearest first), whose
    list styles are consulted when a paragraph sets no bullet; ``default`` applies when
    none does.
    """
    blocks: list[str] = []
    items: list[ListItem] = []
    for item in frame.paragraphs:
        text = item.text
        if not text.strip():
            continue
        level = min(max(item.level, 0), _MAX_LEVEL)
        mark = bullet_of(item._p.pPr)  # python-pptx has no bullet API
        if mark is None:
            mark = _inherited(chain, level, default)
        if mark == "plain":
            if items:
                blocks.append(list_block(items))
                items = []
            blocks.append(paragraph(text))
        else:
            items.append(ListItem(level, mark == "numbered", text))
    if items:
        blocks.append(list_block(items))
    return blocks


def table_rows(table: Table) -> list[list[str]]:
    """The cell texts of ``table`` row by row, each merged region's text repeated."""
    height, width = len(table.rows), len(table.columns)
    grid: list[list[str | None]] = [[None] * width for _ in range(height)]
    for row_index, row in enumerate(table.rows):
        for column_index, cell in enumerate(row.cells):
            if column_index >= width or grid[row_index][column_index] is not None:
                continue
            text = " ".join(p.text for p in cell.text_frame.paragraphs)
            if cell.is_merge_origin:
                for r in range(row_index, min(row_index + cell.span_height, height)):
                    for c in range(column_index, min(column_index + cell.span_width, width)):
                        grid[r][c] = text
            else:
                grid[row_index][column_index] = "" if cell.is_spanned else text
    return [[cell or "" for cell in row] for row in grid]
