"""A ``DoclingDocument`` built from the analysed PDF layout: the Docling route, offline.

Docling's own PDF pipeline downloads a layout model, so ``PdfParser(output_format=
"docling")`` builds the document from fastrag's ``DocumentLayout`` instead (the same
analysis the Markdown rendering reads), with docling-core's own builder API — no model,
no torch, nothing fetched:

* headings → section headers with their level (1–6), so a Docling chunker's heading
  path is the layout's heading hierarchy;
* paragraphs → text items; a paragraph the analysis marked as continuing the one before
  it (cut by a column or page break) is appended to that item, one provenance per part;
* list items → list items in list groups, nested by the layout's depth;
* tables → table items whose ``TableData`` holds one cell per layout cell, the first row
  a column header unless it holds figures (the Markdown renderer's rule);
* code → code items keeping each row's indentation.

Every item carries a ``ProvenanceItem``: its page number, its box and ``charspan`` over
its text (``(0, len(text))`` for a one-part item). Boxes are written as Docling's own
PDF pipeline writes them: ``CoordOrigin.BOTTOMLEFT``, y growing upwards from the page's
bottom edge (the layout's boxes are top-left, so ``t = height - y0``, ``b = height -
y1``). Every page is registered with its size, pages without text included.

The serialization is the one ``DoclingParser`` writes (``serialize``): ``export_to_dict``
dumped with sorted keys, compact separators and no ASCII escaping, so the same bytes
give the same content in every run and process.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Final

from fastrag._optional import require
from fastrag.ingestion.steps.parsing._docling_json import serialize
from fastrag.ingestion.steps.parsing._pdf_layout import (
    Block,
    BlockKind,
    Box,
    DocumentLayout,
    Line,
    line_separator,
)
from fastrag.ingestion.steps.parsing._pdf_render import code_indents, header_is_data

if TYPE_CHECKING:
    from docling_core.types.doc.common.reference import ProvenanceItem
    from docling_core.types.doc.document import DoclingDocument
    from docling_core.types.doc.items.group import ListGroup
    from docling_core.types.doc.items.node import NodeItem
    from docling_core.types.doc.items.text import ListItem, TextItem

__all__ = ["build_docling", "serialize"]

_FEATURE: Final = 'PdfParser(output_format="docling")'
_ORDERED: Final = re.compile(r"\(?\d{1,9}[.)]")
_UINT64: Final = 0xFFFFFFFFFFFFFFFF


def build_docling(layout: DocumentLayout, *, name: str, data: bytes) -> DoclingDocument:
    """The ``DoclingDocument`` of ``layout``, read from the file ``name`` holding ``data``.

    ``data`` only feeds the origin's ``binary_hash`` (the low 64 bits of its SHA-256, as
    Docling computes it), so the document names the exact bytes it came from.
    """
    types = require("docling_core.types.doc", extra="docling", feature=_FEATURE)
    document: DoclingDocument = types.DoclingDocument(
        name=PurePosixPath(name).stem or "document",
        origin=types.DocumentOrigin(
            mimetype="application/pdf",
            binary_hash=int(hashlib.sha256(data).hexdigest(), 16) & _UINT64,
            filename=name,
        ),
    )
    for page in layout.pages:
        document.add_page(
            page_no=page.number, size=types.Size(width=page.width, height=page.height)
        )
    builder = _Builder(types, document, {page.number: page.height for page in layout.pages})
    for page in layout.pages:
        for block in page.blocks:
            builder.add(block)
    return document


@dataclass(slots=True)
class _Builder:
    """Adds blocks in reading order, keeping the open list groups and the last text item."""

    types: Any
    document: DoclingDocument
    heights: dict[int, float]
    lists: list[tuple[int, ListGroup, NodeItem]] = field(default_factory=list)
    """Open lists, outermost first: (depth, group, last item added to it — the group
    itself until its first item is added)."""
    last: TextItem | None = None
    """The last paragraph or list item, which a continuing paragraph extends."""
    last_block: Block | None = None

    def add(self, block: Block) -> None:
        if block.continues and self.last is not None and self.last_block is not None:
            self._extend(block)
            return
        if block.kind is not BlockKind.LIST_ITEM:
            self.lists.clear()
        self.last, self.last_block = None, block
        if block.kind is BlockKind.HEADING:
            text = block.text
            self.document.add_heading(
                text=text,
                orig=text,
                level=max(1, min(block.level, 6)),
                prov=self._prov(block, text),
            )
        elif block.kind is BlockKind.PARAGRAPH:
            text = block.text
            self.last = self.document.add_text(
                label=self.types.DocItemLabel.TEXT,
                text=text,
                orig=text,
                prov=self._prov(block, text),
            )
        elif block.kind is BlockKind.LIST_ITEM:
            self.last = self._list_item(block)
        elif block.kind is BlockKind.TABLE:
            self._table(block)
        else:
            text = "\n".join(
                " " * indent + line.text
                for line, indent in zip(block.lines, code_indents(block), strict=True)
            )
            self.document.add_code(text=text, orig=text, prov=self._prov(block, text))

    def _extend(self, block: Block) -> None:
        """Append a continuing paragraph to the item it continues, with its own provenance."""
        item, previous = self.last, self.last_block
        assert item is not None and previous is not None
        joint = line_separator(previous.lines[-1])
        start = len(item.text) + len(joint)
        item.text = item.orig = item.text + joint + block.text
        item.prov.append(self._prov(block, block.text, start))
        self.last_block = block

    def _list_item(self, block: Block) -> ListItem:
        depth = block.level
        while self.lists and self.lists[-1][0] > depth:
            self.lists.pop()
        if not self.lists or self.lists[-1][0] < depth:
            parent: NodeItem | None = self.lists[-1][2] if self.lists else None
            group = self.document.add_list_group(parent=parent)
            self.lists.append((depth, group, group))
        _depth, group, _last = self.lists[-1]
        text = block.text
        item: ListItem = self.document.add_list_item(
            text=text,
            orig=text,
            enumerated=bool(_ORDERED.fullmatch(block.marker)),
            marker=block.marker,
            prov=self._prov(block, text),
            parent=group,
        )
        self.lists[-1] = (depth, group, item)
        return item

    def _table(self, block: Block) -> None:
        types, rows = self.types, block.rows
        columns = max(len(row) for row in rows)
        header = not header_is_data(rows)
        cells = [
            types.TableCell(
                text=text,
                bbox=self._bbox(block.page, box),
                start_row_offset_idx=index,
                end_row_offset_idx=index + 1,
                start_col_offset_idx=column,
                end_col_offset_idx=column + 1,
                column_header=header and index == 0,
            )
            for index, (row, line) in enumerate(zip(rows, block.lines, strict=True))
            for column, (text, box) in enumerate(zip(row, _cell_boxes(row, line), strict=True))
        ]
        data = types.TableData(num_rows=len(rows), num_cols=columns, table_cells=cells)
        self.document.add_table(data=data, prov=self._prov(block, "", 0))

    def _prov(self, block: Block, text: str, start: int = 0) -> ProvenanceItem:
        provenance: ProvenanceItem = self.types.ProvenanceItem(
            page_no=block.page,
            bbox=self._bbox(block.page, block.box),
            charspan=(start, start + len(text)),
        )
        return provenance

    def _bbox(self, page: int, box: Box) -> Any:
        """``box`` (top-left origin) as a Docling bottom-left ``BoundingBox``."""
        height = self.heights[page]
        return self.types.BoundingBox(
            l=box.x0,
            t=round(height - box.y0, 2),
            r=box.x1,
            b=round(height - box.y1, 2),
            coord_origin=self.types.CoordOrigin.BOTTOMLEFT,
        )


def _cell_boxes(row: tuple[str, ...], line: Line) -> list[Box]:
    """Each cell's box: its own span's when the row's filled cells are the line's spans
    one for one (the usual case), else the whole row's."""
    filled = [index for index, text in enumerate(row) if text]
    if [row[index] for index in filled] != list(line.cells):
        return [line.box] * len(row)
    boxes = [line.box] * len(row)
    for index, box in zip(filled, line.cell_boxes, strict=True):
        boxes[index] = box
    return boxes
