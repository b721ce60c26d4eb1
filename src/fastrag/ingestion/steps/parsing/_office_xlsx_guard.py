"""Refuse, before openpyxl loads them, worksheets that declare billions of cells in a line.

openpyxl's full loader materialises ranges: every cell of a merged range becomes a
``MergedCell`` and every cell of a hyperlink's range gets a copy of the link. One
``<mergeCell ref="A1:XFD1048576"/>`` — a few bytes — therefore asks for 17 billion
objects, and the load never returns. No openpyxl option prevents it, so every package
member is scanned first with lxml's ``iterparse`` (filtered to rows, merged ranges and
hyperlinks; rows are cleared as they pass, so memory stays flat) and the areas those
ranges declare are added up against ``max_cells``. Members are scanned whatever their
name, since a workbook may point to a sheet stored under any name; a member that is not
XML is skipped (if it were a sheet, openpyxl would fail on it anyway).

openpyxl also binds each hyperlink on a merged cell by a linear search of the merged
ranges, so a sheet with many of both costs their product; ``MAX_LINK_MERGE_PAIRS`` caps it.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import ParsingError

__all__ = ["check_declared_ranges", "range_area"]

MAX_ROWS: Final = 1_048_576
MAX_COLUMNS: Final = 16_384
_TAGS: Final = ("{*}row", "{*}mergeCell", "{*}hyperlink")
MAX_LINK_MERGE_PAIRS: Final = 50_000_000
"""Hyperlinks x merged ranges on one sheet: 50 million membership tests, a few seconds."""


def range_area(reference: str) -> int:
    """Cells in an A1-style range (``"B2:C3"`` → 4, ``"A:A"`` → a whole column)."""
    cells = require("openpyxl.utils.cell", extra="office", feature="XlsxParser")
    try:
        min_column, min_row, max_column, max_row = cells.range_boundaries(reference)
    except (TypeError, ValueError):
        return 0  # not a range openpyxl could expand either
    columns = (max_column or MAX_COLUMNS) - (min_column or 1) + 1
    rows = (max_row or MAX_ROWS) - (min_row or 1) + 1
    return max(columns, 0) * max(rows, 0)


def check_declared_ranges(data: bytes, name: str, max_cells: int) -> None:
    """``ParsingError`` when the merged and hyperlinked ranges cover over ``max_cells``."""
    etree = require("lxml.etree", extra="office", feature="XlsxParser")
    declared = 0
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        for member in package.infolist():
            with package.open(member) as stream:
                area, links, merges = _declared(etree, stream)
            declared += area
            if links * merges > MAX_LINK_MERGE_PAIRS:
                raise ParsingError(
                    f"{name}: an XLSX sheet has {links} hyperlinks and {merges} merged ranges; "
                    f"openpyxl binds them in quadratic time (over {MAX_LINK_MERGE_PAIRS} pairs), "
                    "so the file is refused; remove the hyperlinks or merges, or exclude it"
                )
            if declared > max_cells:
                raise ParsingError(
                    f"{name}: XLSX merged and hyperlinked ranges cover {declared} cells, over "
                    f"max_cells={max_cells}; raise max_cells to read it, or exclude the file"
                )


def _declared(etree: Any, stream: Any) -> tuple[int, int, int]:
    """``(cells the ranges declare, hyperlinks, merged ranges)`` of one member (0s if not XML)."""
    total = links = merges = 0
    events = etree.iterparse(
        stream, events=("end",), tag=_TAGS, resolve_entities=False, no_network=True
    )
    try:
        for _, element in events:
            if element.tag.endswith("}row"):
                element.clear(keep_tail=False)
                while element.getprevious() is not None:
                    del element.getparent()[0]
                continue
            if element.tag.endswith("}mergeCell"):
                merges += 1
            else:
                links += 1
            reference = element.get("ref")
            if reference:
                total += range_area(reference)
    except etree.XMLSyntaxError:
        pass  # not XML, or broken: openpyxl reports it if the workbook needs this member
    return total, links, merges
