"""openpyxl worksheets read into ``Sheet`` values, under a cell budget.

Values are the **cached results** Excel saved (``data_only=True``): a formula is never
evaluated, and a formula never computed by a spreadsheet program reads as empty.
Numbers are written as stored (``0.25``, not the ``25%`` a number format would show),
integral floats without ``.0``, dates in ISO 8601 (``1947-01-08``; a time only when it is
not midnight), booleans as Excel shows them (``TRUE``/``FALSE``).

The budget counts stored cells, merged ranges' areas and defined tables' areas — the
cells the block finder will visit — so a sheet declaring a merge over all 17 billion
cells is refused rather than expanded.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import ParsingError
from fastrag.ingestion.steps.parsing._office_xlsx_blocks import Cell, DefinedTable, Range, Sheet

__all__ = ["CellBudget", "display", "read_sheet", "stream_sheet"]

_EXACT_INTEGER: Final = 2**53


class CellBudget:
    """Counts cells across a workbook; raises once more than ``limit`` are read."""

    def __init__(self, limit: int, name: str) -> None:
        self.limit = limit
        self.name = name
        self.used = 0

    def spend(self, cells: int, sheet: str) -> None:
        """Add ``cells`` read on ``sheet``; ``ParsingError`` past the limit."""
        self.used += cells
        if self.used > self.limit:
            raise ParsingError(
                f"{self.name}: XLSX holds more than max_cells={self.limit} cells (reached on "
                f"sheet {sheet!r:.60}); raise max_cells to read it, or exclude the file"
            )


def display(value: Any) -> tuple[str, bool]:
    """The text of a cell value, and whether it is a number, date or boolean."""
    if value is None:
        return "", False
    if isinstance(value, bool):
        return ("TRUE" if value else "FALSE"), True
    if isinstance(value, int):
        return str(value), True
    if isinstance(value, float):
        if value.is_integer() and abs(value) < _EXACT_INTEGER:
            return str(int(value)), True
        return repr(value), True
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0):
            return value.date().isoformat(), True
        return value.isoformat(sep=" "), True
    if isinstance(value, dt.date | dt.time):
        return value.isoformat(), True
    if isinstance(value, dt.timedelta):
        return str(value), True
    return str(value).strip(), False


def _area(area: Range) -> int:
    return (area[2] - area[0] + 1) * (area[3] - area[1] + 1)


def _range(bounds: Any) -> Range:
    return int(bounds.min_row), int(bounds.min_col), int(bounds.max_row), int(bounds.max_col)


def read_sheet(worksheet: Any, budget: CellBudget) -> Sheet:
    """A fully loaded openpyxl ``Worksheet`` as a ``Sheet`` (merges and tables included)."""
    title = str(worksheet.title)
    # Stored cells only: the public iter_rows() would create every cell of the used
    # range, and a hostile dimension makes that range billions of cells wide.
    stored = worksheet._cells
    budget.spend(len(stored), title)
    values: dict[Cell, str] = {}
    numeric: set[Cell] = set()
    for (row, column), cell in stored.items():
        text, is_number = display(cell.value)
        if text:
            values[(row, column)] = text
            if is_number:
                numeric.add((row, column))
    merges = [_range(merge) for merge in worksheet.merged_cells.ranges]
    budget.spend(sum(_area(merge) for merge in merges), title)
    tables = [_defined_table(table) for table in worksheet.tables.values()]
    budget.spend(sum(_area(table.area) for table in tables), title)
    return Sheet(values, frozenset(numeric), tuple(merges), tuple(tables))


def _defined_table(table: Any) -> DefinedTable:
    cells = require("openpyxl.utils.cell", extra="office", feature="XlsxParser")
    min_column, min_row, max_column, max_row = cells.range_boundaries(str(table.ref))
    header_rows = table.headerRowCount
    columns = tuple(str(column.name or "") for column in table.tableColumns)
    return DefinedTable(
        (int(min_row), int(min_column), int(max_row), int(max_column)),
        1 if header_rows is None else int(header_rows),
        columns,
    )


def stream_sheet(worksheet: Any, budget: CellBudget) -> Sheet:
    """A read-only (streamed) openpyxl worksheet as a ``Sheet``: values only.

    Used only to recover a package whose parts the full loader trips over; read-only mode
    sees neither merged ranges nor defined tables. The sheet's stored dimension is
    ignored (``reset_dimensions``): writers such as readxl's fixtures record ``A1``.
    """
    title = str(worksheet.title)
    worksheet.reset_dimensions()
    values: dict[Cell, str] = {}
    numeric: set[Cell] = set()
    for row in worksheet.iter_rows():
        budget.spend(len(row), title)
        for cell in row:
            text, is_number = display(cell.value)
            if text:
                values[(cell.row, cell.column)] = text
                if is_number:
                    numeric.add((cell.row, cell.column))
    return Sheet(values, frozenset(numeric))
