"""Markdown rendering of a ``DocumentLayout``, with the page maps of ``fastrag.ingestion.pages``.

One rule per block kind: ``#``…``######`` headings, paragraphs as one line each (a
paragraph continued across a column or page break joins the one before it, with a
space or, after a soft hyphen, none), ``-`` or
numbered list items (flat), fenced code keeping its indentation, GFM pipe tables. Blocks
are separated by a blank line.

PDF text is not Markdown, so what Markdown would read as syntax is escaped — and only
that, since every escape stays visible in chunk text (the Markdown normalizer keeps a
paragraph's source, inline syntax and all, as its text) and breaks exact search for
``__init__`` or ``*dst``. Paragraphs and list items are one line each, so inline syntax
there (emphasis, code spans, links, inline HTML) can only change how a renderer shows
the line, never the blocks: only a block-level marker at the start of a paragraph or list
item is escaped (``#``, ``>``, ``-``, ``+``, ``*``, ``1.``, a fence, a thematic break, an
HTML block start, a ``[label]:`` definition, a task box). Table cells escape ``|``.
Headings are the exception: their text is the parsed title (it names the section), so
they keep the inline escapes (``\\``, backticks, ``*``, ``_`` at word edges, ``<`` before
a tag-like character, ``&`` before an entity-like name, ``](``).

While writing, every rendered row records ``[start, end, page, x0, y0, x1, y1]``, and
each page its ``[start, end, page]`` range: a page starts where the previous page's
last row ends, so markup between two pages belongs to the page after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import (
    Block,
    BlockKind,
    DocumentLayout,
    Line,
    line_separator,
)

__all__ = [
    "Rendered",
    "code_indents",
    "escape_inline",
    "escape_start",
    "header_is_data",
    "render_markdown",
]

_INLINE: Final = re.compile(
    r"\\(?=[!-/:-@\[-`{-~])|`|\*|(?<![^\W_])_|_(?![^\W_])|<(?=[A-Za-z/!?])"
    r"|&(?=#?\w+;)|\](?=\()"
)
_CELL: Final = re.compile(r"\|")
_START: Final = re.compile(
    r"#{1,6}(?=[ \t]|$)|>|[-+*](?=[ \t]|$)|\d{1,9}(?=[.)](?:[ \t]|$))"
    r"|[-*_](?=(?:[ \t]*[-*_]){2,}[ \t]*$)|~~~|```|<(?=[A-Za-z/!?])"
    r"|\[(?=[^\]]*\]:)|\[(?=[ xX]\](?:[ \t]|$))"
)
_TRAILING_HASHES: Final = re.compile(r"(?<=\s)(#+)\s*$|^(#+)\s*$")
_ORDERED: Final = re.compile(r"\d{1,9}[.)]")
_NUMERIC: Final = re.compile(r"[\d\s.,%$€£+\-–()/]*")


@dataclass(frozen=True, slots=True)
class Rendered:
    """The Markdown content and its page maps (JSON-native lists)."""

    content: str
    pages: list[list[int]]
    layout: list[list[float]]


def escape_inline(text: str) -> str:
    """Backslash-escape the inline characters Markdown would read as syntax (headings
    only: their parsed text is the section title)."""
    return _INLINE.sub(lambda match: "\\" + match.group(0), text)


def escape_start(text: str) -> str:
    """Escape a block-level marker at the start of a paragraph or list item's text."""
    match = _START.match(text)
    if match is None:
        return text
    if match.group(0)[:1].isdigit():
        cut = match.end()
        return f"{text[:cut]}\\{text[cut:]}"
    return "\\" + text


@dataclass(slots=True)
class _Writer:
    parts: list[str] = field(default_factory=list)
    offset: int = 0
    layout: list[list[float]] = field(default_factory=list)
    pages: list[list[int]] = field(default_factory=list)
    page: int = 0
    text_end: int = 0
    """Where the last row's text ended: the next page starts there."""

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.offset += len(text)

    def row(self, text: str, line: Line, page: int) -> None:
        start = self.offset
        self.write(text)
        if text:
            box = line.box
            self.layout.append([start, self.offset, page, box.x0, box.y0, box.x1, box.y1])
            self.text_end = self.offset

    def enter(self, page: int) -> None:
        """Start writing ``page``'s blocks: the previous page ends at its last text."""
        if page == self.page:
            return
        if self.pages:
            self.pages[-1][1] = self.text_end
            start = self.text_end
        else:
            start = 0
        self.pages.append([start, start, page])
        self.page = page


def render_markdown(layout: DocumentLayout) -> Rendered:
    """Render every block of ``layout`` in order; maps cover the content exactly."""
    writer = _Writer()
    previous: Block | None = None
    for page in layout.pages:
        for block in page.blocks:
            writer.enter(block.page)
            if previous is not None:
                joint = line_separator(previous.lines[-1]) if block.continues else "\n\n"
                writer.write(joint)
            previous = block
            _RULES[block.kind](writer, block)
    if writer.parts:
        writer.write("\n")
        writer.pages[-1][1] = writer.offset
    return Rendered("".join(writer.parts), writer.pages, writer.layout)


def _rows(writer: _Writer, block: Block, lines: tuple[Line, ...], first_text: str) -> None:
    """Write ``lines`` as running text, literally; the first line's text is given (with
    its block-start escape)."""
    for index, line in enumerate(lines):
        text = first_text if index == 0 else line.text
        writer.row(text, line, block.page)
        if index + 1 < len(lines):
            writer.write(line_separator(line))


def _heading(writer: _Writer, block: Block) -> None:
    writer.write("#" * max(1, min(block.level, 6)) + " ")
    lines = block.lines
    last = len(lines) - 1
    for index, line in enumerate(lines):
        text = escape_inline(line.text)
        if index == last:
            text = _TRAILING_HASHES.sub(lambda m: "\\" + m.group(0), text)
        writer.row(text, line, block.page)
        if index < last:
            writer.write(line_separator(line))


def _paragraph(writer: _Writer, block: Block) -> None:
    first = block.lines[0].text
    _rows(writer, block, block.lines, first if block.continues else escape_start(first))


def _list_item(writer: _Writer, block: Block) -> None:
    marker = block.marker
    first = block.lines[0]
    rest = first.text[len(marker) :].lstrip() if first.text.startswith(marker) else first.text
    if _ORDERED.fullmatch(marker):
        writer.write(marker + " ")
    elif any(char.isalnum() for char in marker):
        writer.write("- " + marker + " ")
    else:
        writer.write("- ")
    _rows(writer, block, block.lines, escape_start(rest))


def code_indents(block: Block) -> list[int]:
    """Each code row's indentation in spaces: its offset from the block's leftmost row in
    the median character width (monospaced rows), at most 40."""
    lines = block.lines
    left = min(line.box.x0 for line in lines)
    widths = [line.box.width / len(line.text) for line in lines if len(line.text) >= 4]
    char = sorted(widths)[len(widths) // 2] if widths else 0.6 * max(lines[0].size, 1.0)
    return [min(round((line.box.x0 - left) / char) if char > 0 else 0, 40) for line in lines]


_BLANK_LINE: Final = 1.6
"""Line pitches from one code row to the next beyond which a blank line lies between."""


def _blank_lines(lines: Sequence[Line]) -> set[int]:
    """Rows of a code block that follow a blank line: a baseline step of more than
    ``_BLANK_LINE`` pitches, the pitch being the block's closest rows' step or, when
    every row stands apart, 1.25 times the font size (what text pitches are)."""
    steps = [below.baseline - above.baseline for above, below in pairwise(lines)]
    if not steps:
        return set()
    pitch = min(min(steps), 1.25 * max(lines[0].size, 1.0))
    return {index + 1 for index, step in enumerate(steps) if step > _BLANK_LINE * pitch}


def header_is_data(rows: tuple[tuple[str, ...], ...]) -> bool:
    """The table's first row holds figures, so it is data, not a header row."""
    return any(_NUMERIC.fullmatch(cell) for cell in rows[0] if cell)


def _code(writer: _Writer, block: Block) -> None:
    lines = block.lines
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line.text)), default=0)
    fence = "`" * max(3, longest + 1)
    writer.write(fence + "\n")
    blank = _blank_lines(lines)
    for index, (line, indent) in enumerate(zip(lines, code_indents(block), strict=True)):
        if index in blank:
            writer.write("\n")  # the blank line the code has there
        writer.write(" " * indent)
        writer.row(line.text, line, block.page)
        writer.write("\n")
    writer.write(fence)


def _table(writer: _Writer, block: Block) -> None:
    rows = block.rows
    columns = max(len(row) for row in rows)
    no_header = header_is_data(rows)
    if no_header:
        writer.write("|" + " |" * columns + "\n|" + " --- |" * columns + "\n")
    for index, (row, line) in enumerate(zip(rows, block.lines, strict=True)):
        cells = [_CELL.sub(r"\\|", cell) for cell in row]
        cells += [""] * (columns - len(cells))
        writer.row("| " + " | ".join(cells) + " |", line, block.page)
        if index == 0 and not no_header:
            writer.write("\n|" + " --- |" * columns)
        if index + 1 < len(rows):
            writer.write("\n")


_RULES: Final = {
    BlockKind.HEADING: _heading,
    BlockKind.PARAGRAPH: _paragraph,
    BlockKind.LIST_ITEM: _list_item,
    BlockKind.CODE: _code,
    BlockKind.TABLE: _table,
}
