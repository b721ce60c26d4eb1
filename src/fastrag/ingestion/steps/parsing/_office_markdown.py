"""Markdown rendering shared by the office parsers: blocks that say only what the file says.

DOCX, PPTX and XLSX content becomes Markdown so the structure-aware engine packs it like
any Markdown file. The danger runs the other way too: document text must never *become*
structure by accident. A paragraph reading ``# 1 priority`` or ``1. Introduction`` is
prose, not a heading or a list, so every line is escaped at its start (where CommonMark
decides block structure) and leading indentation (an indented code block) is dropped.
Inline text is left alone — escaping ``*`` or ``_`` everywhere would litter chunks with
backslashes for no structural gain.

Tables are GFM pipe tables: the first row is the header, rows are padded to one width,
``|`` is escaped and a newline inside a cell becomes a space (a row must stay on one line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ListItem",
    "code_block",
    "escape_cell",
    "escape_lines",
    "heading",
    "join_blocks",
    "list_block",
    "paragraph",
    "pipe_table",
    "quote",
]

MAX_HEADING_LEVEL: Final = 6

_BLOCK_START: Final = re.compile(
    r"""
    (?P<mark>\#{1,6})(?=[ \t]|$)        # ATX heading
    | (?P<lead>[>])                    # block quote
    | (?P<bullet>[-+*])(?=[ \t]|$)      # bullet list item
    | (?P<rule>(?P<stroke>[-*_])[ \t]*(?P=stroke)[ \t]*(?P=stroke)[-*_ \t]*$)  # thematic break
    | (?P<setext>=+[ \t]*$)            # setext heading underline
    | (?P<fence>```|~~~)               # code fence
    | (?P<html><)                      # HTML block
    | (?P<refdef>\[[^\]]*\]:)          # link reference definition or footnote
    | \d{1,9}(?P<ordinal>[.)])(?=[ \t]|$)  # ordered list item
    """,
    re.VERBOSE,
)
_CLOSING_HASHES: Final = re.compile(r"(?<=[ \t])(#+)$")
_SPACES: Final = re.compile(r"[ \t\r\n\v\f]+")
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _clean(text: str) -> str:
    """Drop C0 control characters (Office stores some, e.g. soft hyphens as ``\\x1f``)."""
    return _CONTROL.sub("", text)


def _escape_start(line: str) -> str:
    """``line`` with a backslash where CommonMark would otherwise start a block."""
    match = _BLOCK_START.match(line)
    if match is None:
        return line
    if match.group("ordinal") is not None:
        cut = match.start("ordinal")
        return f"{line[:cut]}\\{line[cut:]}"
    return f"\\{line}"


def escape_lines(text: str) -> list[str]:
    """The non-blank lines of ``text``, stripped and escaped so each stays plain text.

    In a multi-line block ``|`` is escaped too: two lines can form a GFM table header and
    delimiter row, one line cannot.
    """
    lines = [_clean(line).strip() for line in text.replace("\v", "\n").splitlines()]
    kept = [line for line in lines if line]
    if len(kept) > 1:
        kept = [line.replace("|", "\\|") for line in kept]
    return [_escape_start(line) for line in kept]


def paragraph(text: str) -> str:
    """A paragraph block (its line breaks kept as soft breaks), or ``""`` when blank."""
    return "\n".join(escape_lines(text))


def quote(text: str) -> str:
    """A block quote of ``text``, or ``""`` when blank."""
    return "\n".join(f"> {line}" for line in escape_lines(text))


def heading(level: int, text: str) -> str:
    """An ATX heading at ``level`` (clamped to 1..6) on one line, or ``""`` when blank.

    A trailing `` #`` would be read as a closing sequence and vanish, so it is escaped.
    """
    line = _SPACES.sub(" ", _clean(text)).strip()
    if not line:
        return ""
    line = _CLOSING_HASHES.sub(r"\\\1", line)
    return f"{'#' * min(max(level, 1), MAX_HEADING_LEVEL)} {line}"


def code_block(lines: Sequence[str]) -> str:
    """A fenced code block keeping ``lines`` verbatim (indentation included).

    The fence is longer than any backtick run inside, so no line can close it early.
    """
    body = [_clean(line).rstrip() for line in lines]
    while body and not body[0]:
        body.pop(0)
    while body and not body[-1]:
        body.pop()
    if not body:
        return ""
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence, *body, fence])


def escape_cell(text: str) -> str:
    """One table cell on one line: whitespace runs collapsed, ``|`` escaped."""
    return _SPACES.sub(" ", _clean(text)).strip().replace("|", "\\|")


def pipe_table(rows: Sequence[Sequence[str]]) -> str:
    """A GFM pipe table whose first row is the header; ``""`` when it has no cells.

    Rows are padded with empty cells to the widest row, since GFM drops cells beyond the
    header's width and a ragged table would lose them.
    """
    width = max((len(row) for row in rows), default=0)
    if width == 0:
        return ""
    lines: list[str] = []
    for index, row in enumerate(rows):
        cells = [escape_cell(cell) for cell in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + "|".join(["---"] * width) + "|")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class ListItem:
    """One list item as an office file describes it."""

    level: int
    """Nesting depth from 0 (Word's ``ilvl``, PowerPoint's paragraph level)."""
    ordered: bool
    """Numbered (``1.``) rather than bulleted (``-``)."""
    text: str


def list_block(items: Iterable[ListItem]) -> str:
    """Nested Markdown list items, indented under their parent's marker.

    A level may only go one deeper than the item before it (``0`` then ``3`` renders as
    ``0`` then ``1``): a deeper indent would turn the item into an indented code block.
    Numbers count up per level and restart when a shallower item interrupts.
    """
    lines: list[str] = []
    indents: list[int] = []  # content column of each open level
    counters: list[int] = []
    kinds: list[bool] = []
    for item in items:
        text_lines = escape_lines(item.text)
        if not text_lines:
            continue
        depth = min(max(item.level, 0), len(indents))
        del indents[depth:], counters[depth + 1 :], kinds[depth + 1 :]
        if len(counters) <= depth or kinds[depth] != item.ordered:
            del counters[depth:], kinds[depth:]
            counters.append(0)
            kinds.append(item.ordered)
        counters[depth] += 1
        pad = indents[-1] if indents else 0
        marker = f"{counters[depth]}." if item.ordered else "-"
        lines.append(f"{' ' * pad}{marker} {text_lines[0]}")
        content_column = pad + len(marker) + 1
        lines.extend(f"{' ' * content_column}{line}" for line in text_lines[1:])
        indents.append(content_column)
    return "\n".join(lines)


def join_blocks(blocks: Iterable[str]) -> str:
    """Blocks separated by one blank line, blank blocks dropped, ending with a newline."""
    kept = [block for block in blocks if block]
    return "\n\n".join(kept) + "\n" if kept else ""
