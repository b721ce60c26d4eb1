"""``XlsxParser``: Excel workbooks as Markdown, one section per sheet (openpyxl).

Each worksheet becomes ``## <sheet name>`` followed by its blocks in reading order
(``_office_xlsx_blocks``): each table as a pipe table under its header row, a title row
over a table as a ``###`` heading, and stray notes as plain lines. Defined Excel tables
are used as declared. Values are the cached results Excel saved — formulas are never
evaluated — formatted as ``_office_xlsx_cells`` describes; charts and images are
ignored. ``max_cells`` (default 1,000,000) caps the cells read, with an error naming it,
and ranges openpyxl would expand cell by cell are checked against it before loading
(``_office_xlsx_guard``).

A package whose sheets point to a missing part (a drawing, say, as in readxl's
``datasets.xlsx``) makes openpyxl's full loader fail with ``KeyError``; it is then read
again in openpyxl's streaming (read-only) mode, which skips drawings, at the cost of
merged ranges and defined tables, and a diagnostic says so. External links are not loaded
(``keep_links=False``) and nothing is fetched.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES
from fastrag.ingestion.steps.parsing._office_markdown import (
    heading,
    join_blocks,
    paragraph,
    pipe_table,
)
from fastrag.ingestion.steps.parsing._office_parser import (
    OfficeParser,
    failure_reason,
    load_error,
)
from fastrag.ingestion.steps.parsing._office_xlsx_blocks import Sheet, sheet_blocks
from fastrag.ingestion.steps.parsing._office_xlsx_cells import CellBudget, read_sheet, stream_sheet
from fastrag.ingestion.steps.parsing._office_xlsx_guard import check_declared_ranges
from fastrag.ingestion.steps.parsing._office_zip import DEFAULT_ZIP_LIMITS
from fastrag.ingestion.steps.parsing.base import Parsed
from fastrag.pipeline import CacheSetting, Policy

__all__ = ["DEFAULT_MAX_CELLS", "XlsxParser"]

DEFAULT_MAX_CELLS: Final = 1_000_000


class XlsxParser(OfficeParser):
    """Render an XLSX workbook as Markdown: a ``## sheet`` section per worksheet.

    ``max_cells`` caps the cells read across the workbook (stored cells plus merged and
    table areas); the other options are ``OfficeParser``'s.
    """

    kind = "XLSX"
    version = 1

    def __init__(
        self,
        *,
        max_cells: int = DEFAULT_MAX_CELLS,
        max_uncompressed_bytes: int = DEFAULT_ZIP_LIMITS.max_uncompressed_bytes,
        max_members: int = DEFAULT_ZIP_LIMITS.max_members,
        max_compression_ratio: float = DEFAULT_ZIP_LIMITS.max_compression_ratio,
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells <= 0:
            raise ConfigurationError(
                f"XlsxParser 'max_cells' must be an int > 0 (got {max_cells!r:.40})"
            )
        self.max_cells = max_cells
        super().__init__(
            max_uncompressed_bytes=max_uncompressed_bytes,
            max_members=max_members,
            max_compression_ratio=max_compression_ratio,
            max_bytes=max_bytes,
            cache=cache,
            policy=policy,
        )

    def config(self) -> Mapping[str, Any]:
        """Cache identity: the ``OfficeParser`` caps and ``max_cells``."""
        return {**super().config(), "max_cells": self.max_cells}

    def convert(self, data: bytes, name: str) -> Parsed:
        """Load ``data`` with openpyxl (streaming mode as a fallback) and render each sheet."""
        openpyxl = require("openpyxl", extra="office", feature="XlsxParser")
        check_declared_ranges(data, name, self.max_cells)
        diagnostics: list[str] = []
        with warnings.catch_warnings():
            # openpyxl warns about features it drops (data validation, extensions...):
            # none of them is text, so the warnings are noise here.
            warnings.simplefilter("ignore")
            try:
                workbook = openpyxl.load_workbook(
                    io.BytesIO(data), data_only=True, keep_links=False, rich_text=False
                )
            except KeyError as error:
                sheets = _streamed(openpyxl, data, name, CellBudget(self.max_cells, name), error)
                diagnostics.append(
                    f"recovered: {failure_reason(error)}; read in streaming mode, without "
                    "merged cells or defined tables"
                )
            else:
                budget = CellBudget(self.max_cells, name)
                sheets = [
                    (ws.title, ws.sheet_state, read_sheet(ws, budget)) for ws in workbook.worksheets
                ]
        content = join_blocks(_render(sheets))
        hidden = sum(1 for _, state, _ in sheets if state != "visible")
        if hidden:
            diagnostics.append(f"hidden sheets: {hidden} included")
        metadata = {"sheets": tuple(str(title) for title, _, _ in sheets)}
        return Parsed(content, self.content_format, tuple(diagnostics), metadata)


def _streamed(
    openpyxl: Any, data: bytes, name: str, budget: CellBudget, cause: KeyError
) -> list[tuple[str, str, Sheet]]:
    """Every worksheet read in read-only mode; the first load error if even that fails."""
    try:
        workbook = openpyxl.load_workbook(
            io.BytesIO(data), read_only=True, data_only=True, keep_links=False
        )
    except Exception as error:  # recovery failed: report the first cause
        raise load_error(name, "XLSX", cause) from error
    try:
        return [(ws.title, ws.sheet_state, stream_sheet(ws, budget)) for ws in workbook.worksheets]
    finally:
        workbook.close()


def _render(sheets: list[tuple[str, str, Sheet]]) -> Iterator[str]:
    for title, _, sheet in sheets:
        yield heading(2, title)
        for block in sheet_blocks(sheet):
            if block.kind == "table":
                yield pipe_table(block.rows)
            elif block.kind == "title":
                yield heading(3, block.rows[0][0])
            else:
                yield paragraph("\n".join(row[0] for row in block.rows))
