"""Blocks: a region's rows grouped into headings, paragraphs, list items, code and tables.

Rows of one region are read in order and a new block starts when

* the row is a heading (``_pdf_headings`` decided), or the row before was one;
* monospacing starts or stops (a code block), or the font size changes by more than
  ``SIZE_CHANGE``;
* the baseline jumps by more than ``GAP`` times the usual line pitch of that size (a
  paragraph gap; ``CODE_GAP`` between monospaced rows of a code block, which keeps a
  blank line), or goes backwards;
* the row is indented by one to four ems against the row above (a first-line indent),
  unless the row above is a block's first, starts at the margin and runs to the other
  one mid-sentence, and the row is not centred: a hanging indent (a term's
  description, a proof after "Proof:", a reference after its number);
* the row above ended a sentence well short of the column's right edge;
* the row starts with a list marker (``•``, ``1.``, ``(a)``, ``[12]`` …; a dash or a
  number only where a new item can start, not in the middle of a sentence).

Runs of at least ``TABLE_ROWS`` rows of several separate cells form a table when the
cells stand in columns (pdfium reports each cell as its own text run in many
generators; a table printed as one run per row stays text). A row ending in a dot
leader (a table of contents) ends its block. Monospaced rows keep their indentation
(from their x offsets); a lone monospaced term over its indented definition joins it,
and a monospaced row far left of a code block starts a new block (the next term).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from statistics import median
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_headings import LineKey
from fastrag.ingestion.steps.parsing._pdf_layout import Block, BlockKind, Line
from fastrag.ingestion.steps.parsing._pdf_lines import (
    BULLET,
    DASH,
    LIST_NUMBER,
    is_leader_row,
    pitch,
)

__all__ = ["GAP", "block_page"]

GAP: Final = 1.15
CODE_GAP: Final = 2.5
"""Line pitches between two monospaced rows of one code block: one blank line is two
pitches, which rounding puts a hair over (26.3 pt against 2 x 13.1 pt in Texinfo's
manuals); two blank lines, three pitches, end the block."""
SIZE_CHANGE: Final = 0.15
TABLE_ROWS: Final = 3
TERM_INDENT: Final = 2.5
"""Ems a definition sits right of its monospaced term (Texinfo ``@table``: about five)."""
_SENTENCE_END = re.compile(r"[.!?:][\"'”’)\]]*$")
_WORDS = re.compile(r"[\w][\w \-.'’]*")


@dataclass(slots=True)
class _Group:
    """A block being built."""

    kind: BlockKind
    lines: list[Line]
    level: int = 0
    marker: str = ""


def block_page(
    page_index: int,
    regions: Sequence[Sequence[Line]],
    levels: Mapping[LineKey, int],
    continued: frozenset[LineKey],
    pitches: Mapping[float, float],
) -> list[list[Block]]:
    """The blocks of one page, region by region, in reading order."""
    number = page_index + 1
    blocks: list[list[Block]] = []
    for region_index, lines in enumerate(regions):
        if not lines:
            continue
        right = max(line.box.x1 for line in lines)
        width = right - min(line.box.x0 for line in lines)
        groups: list[_Group] = []
        for row, line in enumerate(lines):
            key = (page_index, region_index, row)
            previous = groups[-1] if groups else None
            if key in continued and previous is not None and previous.kind is BlockKind.HEADING:
                previous.lines.append(line)
                continue
            if key in levels:
                groups.append(_Group(BlockKind.HEADING, [line], levels[key]))
                continue
            marker = _marker(line, previous, pitches)
            if marker:
                groups.append(_Group(BlockKind.LIST_ITEM, [line], 0, marker))
                continue
            if previous is not None and _continues(previous, line, right, width, pitches):
                previous.lines.append(line)
                continue
            groups.append(_Group(BlockKind.CODE if line.mono else BlockKind.PARAGRAPH, [line]))
        blocks.append(_finish(number, groups))
    return blocks


def _marker(line: Line, previous: _Group | None, pitches: Mapping[float, float]) -> str:
    """The list marker starting ``line`` when it starts a list item, else ``""``."""
    text = line.text
    match = BULLET.match(text)
    if match is not None and match.end() < len(text):
        return text[: match.end()].rstrip()
    match = DASH.match(text) or LIST_NUMBER.match(text)
    if match is None or match.end() >= len(text) or line.mono or is_leader_row(line):
        return ""
    if previous is None or previous.kind in (BlockKind.LIST_ITEM, BlockKind.HEADING):
        return text[: match.end()].rstrip()
    last = previous.lines[-1]
    gap = line.baseline - last.baseline > GAP * pitch(last.size, pitches)
    if gap or _SENTENCE_END.search(last.text) or line.box.x0 > last.box.x0 + 0.5 * line.size:
        return text[: match.end()].rstrip()
    return ""


def _continues(
    group: _Group, line: Line, right: float, width: float, pitches: Mapping[float, float]
) -> bool:
    """Whether ``line`` goes on the block ``group`` is building (may retype the group)."""
    last = group.lines[-1]
    if group.kind is BlockKind.HEADING or is_leader_row(last):
        return False
    if abs(line.size - last.size) > SIZE_CHANGE * max(last.size, 1.0):
        return False
    step = line.baseline - last.baseline
    code = group.kind is BlockKind.CODE
    limit = pitch(last.size, pitches) * (CODE_GAP if code and line.mono else GAP)
    if step <= 0.1 * last.size or step > limit:
        return False
    em = max(line.size, 1.0)
    if line.mono != last.mono:
        # A lone monospaced term over its indented definition: one paragraph. A term of
        # words needs an em of indentation; any other term (``${parameter:-word}``) the
        # deeper indent of a definition list, beyond a paragraph's first-line indent.
        indent = line.box.x0 - last.box.x0
        term = code and len(group.lines) == 1 and not line.mono
        if term and indent >= (em if _WORDS.fullmatch(last.text) else TERM_INDENT * em):
            group.kind = BlockKind.PARAGRAPH
            return True
        return False
    if code and line.box.x0 < min(row.box.x0 for row in group.lines) - TERM_INDENT * em:
        return False  # far left of the whole block: the next term of a definition list
    if code or last.hyphenated or last.joint == "":  # a word or a URL cut at the row's end
        return True
    if group.kind is BlockKind.LIST_ITEM:
        # Hanging continuation lines, or any line while the item's sentence runs on.
        text_x = group.lines[0].box.x0 + (em if group.marker else 0.0)
        return line.box.x0 >= text_x - 0.5 * em or _SENTENCE_END.search(last.text) is None
    indent = line.box.x0 - last.box.x0
    ended = _SENTENCE_END.search(last.text) is not None
    full = last.box.x1 >= right - 0.15 * width
    if em <= indent <= 4 * em:
        # A new paragraph's indented first line, unless the block's first line starts
        # at the margin and runs to the other one mid-sentence: then this is a hanging
        # indent, of a term's description ("Lang: use it to specify … only DE (German),
        # ES" / "(Spanish), FR …") or a reference ("[1] Rafal Ablamowicz … Package" /
        # "for Clifford Algebra …"). A centred line (a title page's affiliation) stands
        # as far from the right edge as from the left: not one.
        left = right - width
        centred = abs((right - line.box.x1) - indent) < 0.5 * em
        return (
            full
            and not ended
            and not centred
            and len(group.lines) == 1
            and last.box.x0 <= left + em
        )
    return not (ended and not full)


def _finish(number: int, groups: list[_Group]) -> list[Block]:
    """Groups as blocks; runs of multi-cell rows become tables."""
    blocks: list[Block] = []
    for group in groups:
        if group.kind is BlockKind.PARAGRAPH and len(group.lines) >= TABLE_ROWS:
            blocks.extend(_tables(number, group.lines))
            continue
        blocks.append(Block(group.kind, number, tuple(group.lines), group.level, group.marker))
    return blocks


def _tables(number: int, lines: list[Line]) -> list[Block]:
    """Split a paragraph's rows into runs of plain rows and table rows."""
    blocks: list[Block] = []
    start = 0
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and len(lines[end].cells) >= 2:
            end += 1
        if end - index >= TABLE_ROWS and _aligned(lines[index:end]):
            if index > start:
                blocks.append(Block(BlockKind.PARAGRAPH, number, tuple(lines[start:index])))
            rows = _table_rows(lines[index:end])
            blocks.append(Block(BlockKind.TABLE, number, tuple(lines[index:end]), rows=rows))
            start = end
            index = end
        else:
            index = end + 1
    if start < len(lines):
        blocks.append(Block(BlockKind.PARAGRAPH, number, tuple(lines[start:])))
    return blocks


def _aligned(lines: list[Line]) -> bool:
    """Whether the rows are a table: cells at least 1.5 ems apart, and either most rows
    hold three cells or more, or among the rows of the most common cell count every
    column's cells align (left, right or centre) within two ems."""
    em = max(median(line.size for line in lines), 1.0)
    gaps = [box.x0 - before.x1 for line in lines for before, box in pairwise(line.cell_boxes)]
    if median(gaps) < 1.5 * em:
        return False
    if sum(len(line.cells) >= 3 for line in lines) * 2 > len(lines):
        return True
    counts = Counter(len(line.cells) for line in lines)
    common, rows = counts.most_common(1)[0]
    if rows < 2:
        return False
    same = [line for line in lines if len(line.cells) == common]
    for column in range(common):
        boxes = [line.cell_boxes[column] for line in same]
        edges = (
            [box.x0 for box in boxes],
            [box.x1 for box in boxes],
            [(box.x0 + box.x1) / 2 for box in boxes],
        )
        if all(max(values) - min(values) > 2 * em for values in edges):
            return False
    return True


def _table_rows(lines: list[Line]) -> tuple[tuple[str, ...], ...]:
    """Cells placed in columns: the widest rows set the columns, others snap to them."""
    widest = max(len(line.cells) for line in lines)
    anchors = [
        median(line.cell_boxes[column].x0 for line in lines if len(line.cells) == widest)
        for column in range(widest)
    ]
    rows: list[tuple[str, ...]] = []
    for line in lines:
        cells = [""] * widest
        for text, box in zip(line.cells, line.cell_boxes, strict=True):
            column = min(range(widest), key=lambda c: abs(anchors[c] - box.x0))
            cells[column] = f"{cells[column]} {text}".strip()
        rows.append(tuple(cells))
    return tuple(rows)
