"""Where the tables are on a worksheet: a pure function from cells to blocks.

A sheet is a sparse grid, not a document; people put several tables on one sheet, notes
above and below them, and titles over them. The blocks are found in four steps:

1. **Defined tables** (Excel's *Format as Table*, ``ws.tables``) are taken as they are
   declared: their range, their header row (or their column names when the header row
   is hidden).
2. The remaining occupied cells — a value, or any cell of a merged range whose top-left
   has one — are grouped into **4-connected regions**; each region's bounding box is a
   candidate block.
3. A region is **split before a row** that starts a new table under an old one: a row of
   text only, spanning other columns than the row above, which held numbers.
4. Each block is classified: a **table** when it has 2+ rows and 2+ columns and its first
   row fills at least half the columns (that row is the header); a first row holding one
   value, in its first column, over a table — or a lone cell at most one blank row above
   one — is a **title**
   (rendered as a heading, not a header); anything else is **text** (notes), one line
   per row.

Merged cells in tables repeat their value over the whole range (each row then reads
complete on its own, as in Word tables); in text blocks the value appears once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

__all__ = ["Block", "DefinedTable", "Sheet", "sheet_blocks"]

Cell = tuple[int, int]
"""``(row, column)``, 1-based as in Excel."""
Range = tuple[int, int, int, int]
"""``(min_row, min_column, max_row, max_column)``, inclusive."""

_MIN_HEADER_FILL: Final = 0.5
_TITLE_GAP: Final = 1
"""Blank rows allowed between a title cell and the table under it."""


@dataclass(frozen=True, slots=True)
class DefinedTable:
    """An Excel table declared on the sheet."""

    area: Range
    header_rows: int = 1
    """0 when the header row is hidden; ``columns`` then names the columns."""
    columns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Sheet:
    """A worksheet's non-empty cell texts, merged ranges and defined tables."""

    values: Mapping[Cell, str]
    numeric: frozenset[Cell] = frozenset()
    """Cells holding numbers, dates or booleans (text cells are the rest)."""
    merges: Sequence[Range] = ()
    tables: Sequence[DefinedTable] = ()


@dataclass(frozen=True, slots=True)
class Block:
    """One thing to render: a table (first row = header), a title, or lines of text."""

    kind: Literal["table", "title", "text"]
    area: Range
    rows: tuple[tuple[str, ...], ...] = field(default=())


def sheet_blocks(sheet: Sheet) -> list[Block]:
    """The blocks of ``sheet`` in reading order (top to bottom, then left to right)."""
    merge_of: dict[Cell, Range] = {}
    for merge in sheet.merges:
        if (merge[0], merge[1]) in sheet.values:
            for cell in _cells(merge):
                merge_of[cell] = merge
    blocks: list[Block] = []
    used: set[Cell] = set()
    for table in sheet.tables:
        rows = _grid(sheet, merge_of, table.area, repeat=True)
        if table.header_rows == 0 and table.columns:
            rows.insert(0, list(table.columns))
        blocks.append(Block("table", table.area, _freeze(rows)))
        used.update(_cells(table.area))
    occupied = (set(sheet.values) | set(merge_of)) - used
    for region in _regions(occupied):
        for part in _split(region, sheet):
            blocks.extend(_classify(sheet, merge_of, part))
    blocks.sort(key=lambda block: block.area[:2])
    return _titled(blocks)


def _titled(blocks: list[Block]) -> list[Block]:
    """A lone text cell just above a table (one blank row at most) becomes its title."""
    titled = list(blocks)
    for index, block in enumerate(blocks[:-1]):
        following = blocks[index + 1]
        top, left, bottom, right = block.area
        if (
            block.kind == "text"
            and top == bottom
            and left == right
            and following.kind == "table"
            and 0 < following.area[0] - bottom <= _TITLE_GAP + 1
            and following.area[1] <= left <= following.area[3]
        ):
            titled[index] = Block("title", block.area, block.rows)
    return titled


def _cells(area: Range) -> Iterable[Cell]:
    top, left, bottom, right = area
    return ((row, column) for row in range(top, bottom + 1) for column in range(left, right + 1))


Region = dict[int, list[tuple[int, int]]]
"""A block's cells as runs of adjacent columns per row: ``{row: [(first, last), ...]}``."""


def _runs(columns: list[int]) -> list[tuple[int, int]]:
    """Sorted ``columns`` as maximal runs of consecutive numbers."""
    runs: list[tuple[int, int]] = []
    start = previous = columns[0]
    for column in columns[1:]:
        if column != previous + 1:
            runs.append((start, previous))
            start = column
        previous = column
    runs.append((start, previous))
    return runs


def _regions(occupied: set[Cell]) -> list[Region]:
    """4-connected groups of ``occupied`` cells.

    Cells are read as horizontal runs and runs joined by a union-find when they overlap a
    run of the row above: a few operations per run instead of four lookups per cell.
    """
    columns_by_row: dict[int, list[int]] = {}
    for row, column in occupied:
        columns_by_row.setdefault(row, []).append(column)
    runs: list[tuple[int, int, int]] = []
    parent: list[int] = []

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    above: list[int] = []
    above_row = 0
    for row in sorted(columns_by_row):
        current: list[int] = []
        candidates = above if above_row == row - 1 else []
        lowest = 0
        for first, last in _runs(sorted(columns_by_row[row])):
            index = len(runs)
            runs.append((row, first, last))
            parent.append(index)
            current.append(index)
            while lowest < len(candidates) and runs[candidates[lowest]][2] < first:
                lowest += 1
            for other in candidates[lowest:]:
                if runs[other][1] > last:
                    break
                parent[root(other)] = root(index)
        above, above_row = current, row
    grouped: dict[int, Region] = {}
    for index, (row, first, last) in enumerate(runs):
        grouped.setdefault(root(index), {}).setdefault(row, []).append((first, last))
    return list(grouped.values())


def _split(region: Region, sheet: Sheet) -> list[Region]:
    """``region`` cut before each row that starts a new table under the previous one."""
    parts: list[Region] = [{}]
    previous: list[tuple[int, int]] = []
    previous_row = 0
    for row in sorted(region):
        runs = region[row]
        if previous and _starts_table(row, runs, previous_row, previous, sheet):
            parts.append({})
        parts[-1][row] = runs
        previous, previous_row = runs, row
    return parts


def _row_cells(row: int, runs: list[tuple[int, int]]) -> Iterable[Cell]:
    return ((row, column) for first, last in runs for column in range(first, last + 1))


def _starts_table(
    row: int,
    runs: list[tuple[int, int]],
    previous_row: int,
    previous: list[tuple[int, int]],
    sheet: Sheet,
) -> bool:
    values = [cell for cell in _row_cells(row, runs) if cell in sheet.values]
    return (
        len(values) > 1
        and (runs[0][0], runs[-1][1]) != (previous[0][0], previous[-1][1])
        and not any(cell in sheet.numeric for cell in values)
        and any(cell in sheet.numeric for cell in _row_cells(previous_row, previous))
    )


def _grid(
    sheet: Sheet,
    merge_of: Mapping[Cell, Range],
    area: Range,
    *,
    repeat: bool,
    region: Region | None = None,
) -> list[list[str]]:
    """Texts of ``area``, row by row; merged cells repeated (``repeat``) or left blank.

    ``region``, when given, limits the grid to its cells: the bounding box of an L-shaped
    region can overlap another block, whose cells must not appear twice.
    """
    top, left, bottom, right = area
    rows: list[list[str]] = []
    for row in range(top, bottom + 1):
        texts = [""] * (right - left + 1)
        spans = [(left, right)] if region is None else region.get(row, [])
        for first, last in spans:
            for column in range(first, last + 1):
                text = sheet.values.get((row, column), "")
                if not text and repeat:
                    merge = merge_of.get((row, column))
                    if merge is not None:
                        text = sheet.values.get((merge[0], merge[1]), "")
                texts[column - left] = text
        rows.append(texts)
    return rows


def _freeze(rows: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(row) for row in rows)


def _units(row: Sequence[str], cells: Sequence[Cell], merge_of: Mapping[Cell, Range]) -> int:
    """How many distinct values a row shows (a merged range counts once)."""
    seen: set[Range | Cell] = set()
    for text, cell in zip(row, cells, strict=True):
        if text:
            seen.add(merge_of.get(cell, cell))
    return len(seen)


def _is_table(rows: Sequence[Sequence[str]]) -> bool:
    if len(rows) < 2 or len(rows[0]) < 2:
        return False
    filled = sum(1 for text in rows[0] if text)
    return filled >= _MIN_HEADER_FILL * len(rows[0])


def _classify(sheet: Sheet, merge_of: Mapping[Cell, Range], region: Region) -> list[Block]:
    top, bottom = min(region), max(region)
    left = min(runs[0][0] for runs in region.values())
    right = max(runs[-1][1] for runs in region.values())
    area = (top, left, bottom, right)
    rows = _grid(sheet, merge_of, area, repeat=True, region=region)
    columns = [(top, column) for column in range(left, right + 1)]
    if rows[0][0] and _units(rows[0], columns, merge_of) == 1 and _is_table(rows[1:]):
        return [
            Block("title", (top, left, top, right), ((rows[0][0],),)),
            Block("table", (top + 1, left, bottom, right), _freeze(rows[1:])),
        ]
    if _is_table(rows):
        return [Block("table", area, _freeze(rows))]
    plain = _grid(sheet, merge_of, area, repeat=False, region=region)  # merged values once
    lines = tuple((" ".join(text for text in row if text),) for row in plain)
    return [Block("text", area, tuple(line for line in lines if line[0]))]
