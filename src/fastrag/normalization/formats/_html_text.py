"""Draft nodes of the HTML adapter and how display text accumulates in them (the hot path).

A ``Block`` is a mutable draft of one node while the document streams past. Leaves gather
their readable text as parts plus a serialization map: runs of ``[display_start,
display_end, source_start, source_end]``. HTML whitespace collapses to one space outside
``pre``; a collapsed run of one character keeps equal lengths (offsets map one to one,
the display shows a space), a longer run maps one display space to the whole run. Text the
adapter adds itself (list labels, cell pipes, line breaks) has no run: display characters
outside every run are generated.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any

from fastrag.normalization.formats._html_tags import ENTITY, MULTI_SPACE, WS

__all__ = [
    "CONTAINER",
    "FLAT",
    "PARA",
    "PRE",
    "Block",
    "add_decoded",
    "add_generated",
    "add_references",
    "add_run",
    "add_verbatim",
    "request_break",
    "request_space",
    "trim_start",
    "truncate",
]

# html.unescape of one character reference, remembered: a page repeats a handful of them
# (&#39;, &gt;, &quot; … 11 distinct among 25,000 in the HTML bench corpus), and
# html.unescape runs a regex substitution with a Python callback each time (9x slower).
# Bounded, since a hostile page may hold a million distinct numeric references.
_unescape_reference = functools.lru_cache(maxsize=1024)(html.unescape)
_CELL_SPECIAL = re.compile(r" {2,}|\|")
"""What a table cell's text shows differently: runs of spaces (one space) and ``|``."""

# Modes: how a block takes text.
CONTAINER = 0  # holds blocks; text directly inside becomes an implicit paragraph child
PARA = 1  # prose: whitespace collapses, <br> breaks the line
FLAT = 2  # one-line leaves (headings, terms, rows, captions): nested blocks become spaces
PRE = 3  # verbatim text


class Block:
    """A node under construction. ``dom`` is its element's open-element index (-1: none)."""

    __slots__ = (
        "aligns",
        "attrs",
        "cells",
        "children",
        "closer",
        "counter",
        "depth",
        "dlen",
        "dom",
        "end",
        "first",
        "head",
        "header_cells",
        "implicit",
        "in_head",
        "kind",
        "level",
        "links",
        "list_depth",
        "mode",
        "nav",
        "parent",
        "parts",
        "pe",
        "pend",
        "plain",
        "prefix",
        "ps",
        "segs",
        "start",
        "style",
        "table",
        "tail",
        "text_start",
        "uend",
        "units",
        "ustart",
    )

    def __init__(self, kind: str, mode: int, parent: Block | None, start: int, dom: int) -> None:
        self.kind = kind
        self.mode = mode
        self.parent = parent
        self.children: list[Block] = []
        self.level: int | None = None
        self.attrs: dict[str, Any] = {}
        self.start = start  # element extent in the source; end is set when it closes
        self.end = start
        self.dom = dom
        self.implicit = dom < 0
        self.parts: list[str] = []
        self.dlen = 0  # display length so far
        self.segs: list[int] = []  # flat quadruples: no list per map run
        self.pend = 0  # pending separator: 0 none, 1 space, 2 line break, 3 blank line
        self.ps = -1  # source range of a pending space (-1: generated)
        self.pe = -1
        self.tail = False  # the display ends in text (not in a label or separator)
        self.plain = False  # some text shown outside <b> and <strong> (_html_emphasis)
        self.head = ""  # generated before the first text (list label, ": ")
        self.prefix = ""  # generated after each line break (continuation indent)
        self.text_start = -1  # PRE: where the content after the start tag begins
        self.links: list[tuple[int, int, str]] | None = None
        self.nav = 0  # links among ``links`` that name a navigation relation (rel=next …)
        self.closer = 0  # section: the level of the heading that closed it (0: none)
        self.units = 0
        self.ustart = -1
        self.uend = -1
        # kind-specific: list label state, row cells, the table of a row
        self.first = True  # list item / definition: no paragraph has shown its label yet
        self.cells = 0
        self.header_cells = 0
        self.list_depth = 0
        self.counter = 0  # list: next item number; table: rows so far
        self.style = "1"  # ordered list: numbering style of <ol type>
        self.in_head = 0  # table: open <thead> elements
        self.aligns: list[str] | None = None  # row: alignment of each cell
        self.table: Block | None = None
        self.depth: int = 0 if parent is None else parent.depth + 1

    def display(self) -> str:
        """The display text so far (joined once and kept, so later calls are cheap)."""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""


def _segment(block: Block, text: str, start: int, end: int) -> None:
    """Append ``text`` rendering source ``[start, end)``; coalesce one-to-one neighbours."""
    display_start = block.dlen
    display_end = display_start + len(text)
    block.parts.append(text)
    block.dlen = display_end
    block.tail = True
    segs = block.segs
    if (
        segs
        and display_end - display_start == end - start
        and segs[-3] == display_start
        and segs[-1] == start
        and segs[-3] - segs[-4] == segs[-1] - segs[-2]
    ):
        segs[-3] = display_end
        segs[-1] = end
        return
    segs += (display_start, display_end, start, end)


def add_generated(block: Block, text: str) -> None:
    """Append adapter-made text (labels, pipes): it renders no source."""
    block.pend = 0
    block.parts.append(text)
    block.dlen += len(text)
    block.tail = False


def _flush(block: Block) -> None:
    """Emit what must precede new text: the label, or a pending space or line break."""
    pending = block.pend
    if pending:
        block.pend = 0
        if pending == 1:
            if block.ps >= 0:
                _segment(block, " ", block.ps, block.pe)
            else:
                block.parts.append(" ")
                block.dlen += 1
        else:
            text = ("\n\n" if pending == 3 else "\n") + block.prefix
            block.parts.append(text)
            block.dlen += len(text)
    elif not block.dlen and block.head:
        add_generated(block, block.head)


def request_space(block: Block, start: int = -1, end: int = -1) -> None:
    """A space before the next text, if text precedes it (whitespace never leads a line)."""
    if block.tail and not block.pend:
        block.pend = 1
        block.ps = start
        block.pe = end


def request_break(block: Block, blank: bool = False) -> None:
    """A line break (``blank``: an empty line) before the next text."""
    if block.mode == PRE:
        if block.dlen:
            add_generated(block, "\n")
        return
    if block.mode == FLAT:
        request_space(block)
        return
    if block.dlen:
        block.pend = 3 if blank or block.pend >= 2 else 2


def add_run(block: Block, raw: str, start: int) -> None:
    """Append source text ``raw`` (no character references) that starts at ``start``."""
    if block.mode == PRE:
        add_verbatim(block, raw, start)
        return
    core = raw.strip(WS)
    if not core:
        if block.tail and not block.pend:
            block.pend = 1
            block.ps = start
            block.pe = start + len(raw)
        return
    lead = raw.find(core[0])  # everything before it is whitespace
    if lead and block.tail and not block.pend:
        block.pend = 1
        block.ps = start
        block.pe = start + lead
    if block.pend or not block.dlen:
        _flush(block)
    core_start = start + lead
    core_end = core_start + len(core)
    # Other whitespace shows as spaces, one for one. str.replace per character rather
    # than str.translate: a translation table is ten times slower on this text (per
    # character lookups; prose with any non-ASCII character takes its slowest path).
    if "\n" in core:
        core = core.replace("\n", " ")
    if "\t" in core:
        core = core.replace("\t", " ")
    if "\r" in core:
        core = core.replace("\r", " ")
    if "\f" in core:
        core = core.replace("\f", " ")
    if "|" in core and block.kind == "table_row":
        _add_rewritten(block, core, core_start, _CELL_SPECIAL)
    elif "  " in core:
        _add_rewritten(block, core, core_start, MULTI_SPACE)
    else:
        # _segment, inlined: this is the hot path of the whole adapter.
        display_start = block.dlen
        display_end = display_start + len(core)
        block.parts.append(core)
        block.dlen = display_end
        block.tail = True
        segs = block.segs
        if (
            segs
            and segs[-3] == display_start
            and segs[-1] == core_start
            and segs[-3] - segs[-4] == segs[-1] - segs[-2]
        ):
            segs[-3] = display_end
            segs[-1] = core_end
        else:
            segs += (display_start, display_end, core_start, core_end)
    if core_end < start + len(raw):
        block.pend = 1
        block.ps = core_end
        block.pe = start + len(raw)


def _add_rewritten(block: Block, core: str, start: int, special: re.Pattern[str]) -> None:
    """``core`` (whitespace already shown as spaces, no space at either end) with each
    ``special`` match rewritten: a run of spaces shows one space, a ``|`` in a table row
    shows as ``\\|`` (rows are GFM table lines, where a bare ``|`` would end the cell)."""
    done = 0
    for match in special.finditer(core):
        low, high = match.span()
        if low > done:
            _segment(block, core[done:low], start + done, start + low)
        _segment(block, "\\|" if core[low] == "|" else " ", start + low, start + high)
        done = high
    if done < len(core):
        _segment(block, core[done:], start + done, start + len(core))


def add_verbatim(block: Block, raw: str, start: int) -> None:
    """``add_run`` of a ``PRE`` block: the text as it is."""
    if start == block.text_start and raw[:1] in ("\n", "\r"):
        # HTML drops one newline right after <pre>; the unit keeps it.
        skip = 2 if raw.startswith("\r\n") else 1
        raw = raw[skip:]
        start += skip
        if not raw:
            return
    if not block.dlen and block.head:
        add_generated(block, block.head)
    # _segment, inlined: highlighted code arrives one token at a time.
    display_start = block.dlen
    display_end = display_start + len(raw)
    end = start + len(raw)
    block.parts.append(raw)
    block.dlen = display_end
    block.tail = True
    segs = block.segs
    if (
        segs
        and segs[-3] == display_start
        and segs[-1] == start
        and segs[-3] - segs[-4] == segs[-1] - segs[-2]
    ):
        segs[-3] = display_end
        segs[-1] = end
        return
    segs += (display_start, display_end, start, end)


def add_decoded(block: Block, text: str, start: int, end: int) -> None:
    """Append the decoding ``text`` of a character reference at source ``[start, end)``."""
    if "|" in text and block.kind == "table_row":
        text = text.replace("|", "\\|")  # &#124; in a cell: see _add_rewritten
    if block.mode != PRE:
        if not text.strip(WS):
            request_space(block, start, end)
            return
        if block.pend or not block.dlen:
            _flush(block)
    elif not block.dlen and block.head:
        add_generated(block, block.head)
    _segment(block, text, start, end)


def add_references(block: Block, raw: str, start: int, diagnose: Callable[[str], None]) -> None:
    """Append source text that holds character references, decoding each one.

    Unknown references stay literal (and are diagnosed when they look meant: ``&name;`` or
    numeric); invalid numeric ones decode to U+FFFD, as in HTML, with a diagnostic.
    """
    done = 0
    for match in ENTITY.finditer(raw):
        ref_start, ref_end = match.span()
        if ref_start > done:
            add_run(block, raw[done:ref_start], start + done)
        reference = match.group()
        text = _unescape_reference(reference)
        if text == reference or not text:
            if reference.endswith(";") or reference.startswith("&#"):
                diagnose(f"offset {start + ref_start}: unknown character reference kept as text")
            add_run(block, reference, start + ref_start)
        else:
            if text == "\ufffd" and not reference.lower().endswith(("fffd;", "65533;")):
                diagnose(f"offset {start + ref_start}: invalid character reference")
            add_decoded(block, text, start + ref_start, start + ref_end)
        done = ref_end
    if done < len(raw):
        add_run(block, raw[done:], start + done)


def truncate(block: Block, length: int) -> None:
    """Cut the display text to ``length`` characters, and its map with it."""
    text = block.display()[:length]
    block.parts = [text]
    block.dlen = length
    kept: list[int] = []
    segs = block.segs
    for index in range(0, len(segs), 4):
        display_start, display_end, start, end = segs[index : index + 4]
        if display_end <= length:
            kept += (display_start, display_end, start, end)
        elif display_start < length and display_end - display_start == end - start:
            kept += (display_start, length, start, start + length - display_start)
    block.segs = kept


def trim_start(block: Block, count: int) -> None:
    """Drop the first ``count`` display characters, shifting the map with them."""
    text = block.display()[count:]
    block.parts = [text]
    block.dlen = len(text)
    kept: list[int] = []
    segs = block.segs
    for index in range(0, len(segs), 4):
        display_start, display_end, start, end = segs[index : index + 4]
        if display_start >= count:
            kept += (display_start - count, display_end - count, start, end)
        elif display_end > count and display_end - display_start == end - start:
            cut = count - display_start
            kept += (0, display_end - count, start + cut, end)
    block.segs = kept
