"""A Word table (``w:tbl``) as a rectangular grid of cell texts, merged cells resolved.

Merged cells are **repeated**: a horizontal span (``w:gridSpan``) writes its text in
every grid column it covers, and a vertical span (``w:vMerge`` continue) repeats the text
of the cell above at the same grid column — so every Markdown row reads complete on its
own, as Docling renders merges. Rows that start or end early (``w:gridBefore`` /
``w:gridAfter``) are padded with empty cells so columns stay aligned.

The walk reads the XML directly (python-docx's ``_Row.cells`` ignores ``gridBefore`` and
follows vertical merges recursively); a row wider than ``MAX_TABLE_COLUMNS`` grid columns
is refused, since Word itself stops at 63 and a hostile ``gridSpan`` could ask for billions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from fastrag.exceptions import ParsingError
from fastrag.ingestion.steps.parsing._office_docx_text import cell_text, qn

if TYPE_CHECKING:
    from docx.oxml.xmlchemy import BaseOxmlElement

__all__ = ["MAX_TABLE_COLUMNS", "table_grid"]

MAX_TABLE_COLUMNS: Final = 1000
_VAL: Final = qn("w:val")


def _count(properties: BaseOxmlElement | None, tag: str, default: int) -> int:
    """The ``w:val`` of child ``tag`` of ``properties``, clamped to 0..cap+1 (default if absent)."""
    found = None if properties is None else properties.find(qn(tag))
    if found is None:
        return default
    try:
        return min(max(int(found.get(_VAL, default)), 0), MAX_TABLE_COLUMNS + 1)
    except ValueError:
        return default


def table_grid(table: BaseOxmlElement, name: str) -> list[list[str]]:
    """The rows of ``table`` (a ``w:tbl``) as equal-width lists of one-line cell texts."""
    rows: list[list[str]] = []
    for row in table.iterchildren(qn("w:tr")):
        properties = row.find(qn("w:trPr"))
        cells: list[str] = [""] * _count(properties, "w:gridBefore", 0)
        above = rows[-1] if rows else []
        for cell in row.iterchildren(qn("w:tc")):
            cell_properties = cell.find(qn("w:tcPr"))
            span = max(_count(cell_properties, "w:gridSpan", 1), 1)
            merge = None if cell_properties is None else cell_properties.find(qn("w:vMerge"))
            continues = merge is not None and merge.get(_VAL, "continue") == "continue"
            column = len(cells)
            inherited = above[column] if column < len(above) else ""
            text = inherited if continues else cell_text(cell)
            cells.extend([text] * span)
            if len(cells) > MAX_TABLE_COLUMNS:
                break
        cells.extend([""] * _count(properties, "w:gridAfter", 0))
        if len(cells) > MAX_TABLE_COLUMNS:
            raise ParsingError(
                f"{name}: a table row spans {len(cells)} grid columns, over the cap of "
                f"{MAX_TABLE_COLUMNS} (Word allows 63): the file is not a genuine document"
            )
        rows.append(cells)
    width = max((len(row) for row in rows), default=0)
    return [row + [""] * (width - len(row)) for row in rows]
