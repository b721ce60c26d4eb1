"""Windows: the layout in consecutive pieces, planned and finished one after the other.

Why: the packer's working state (display runs, prepared leaves, cut sites, plans) is
several times the input; planned and finished one window at a time, it stays the size
of a window instead of growing with the document. Packing the windows one after the
other gives exactly the chunks of packing the whole layout
(``tests/unit/packing/test_windows.py``), so a window ends only where the planner never
looks across. There are two kinds of such places.

A *boundary* lies between two top-level sections, neither of them bare (headings and
blank blocks only: a bare section's heading joins the chunk before it or after it), the
second opening with its heading and a shown, non-whitespace character (the window's
first chunk then shows text, and a chunk showing nothing is the only other thing joined
to the chunk before it). Merging stays inside a top-level section, overlap and lead-ins
inside a section, so nothing reaches across a boundary: a window ending at one is final.
With ``allow_cross_top_level_merge`` merging does reach across, and the whole document
is one window.

A *seam* is the heading of a section below top level that opens with text the same way,
after body text (past blank blocks), in a section that is not bare. Whether the planner
looks across one depends on counts: a section around it may fit whole, and small plans
on either side may merge. Yet a changelog or a manual under one title is one top-level
section, and without seams one window: its working state was 20x the input on 10 MB of
Markdown. So when a top-level section runs long, the window ends at a seam and
*continues*: the planner proves which of its seams hold (``Planner.cut``), the caller
finishes the plans before the last one that does and sends its block number back, and
the blocks from there on open the next window. When none holds, everything is carried
and the next window is twice as long, so the work done again stays a constant factor.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Final

from fastrag.normalization.model import NormalizedDocument
from fastrag.packing._display import RETAINED, Unit
from fastrag.packing.config import PackingConfig
from fastrag.packing.leaves import Assembler, Block, Layout, Section

__all__ = ["WINDOW_CHARACTERS", "build_layouts"]

WINDOW_CHARACTERS: Final = 1 << 17
"""Source characters after which a window closes at the next place it may: large enough
that per-window work (a batch of counts, a planner, the plans carried past a cut) stays
small beside the window's blocks, small enough that the packer's state is a fraction of a
large document. Against 64 Ki, packing the Markdown corpus took 2-8% less CPU (fewer
windows, less carried past cuts), for 0.08x the input more peak memory at 10 MB."""


def build_layouts(
    normalized: NormalizedDocument,
    config: PackingConfig,
    refinements: Mapping[str, tuple[int, ...]] | None = None,
    *,
    window: int | None = WINDOW_CHARACTERS,
    seams: bool = False,
) -> Generator[Layout, int | None, None]:
    """The layout of ``leaves.build_layout`` in windows of about ``window`` source
    characters (``None``: one window), closing at boundaries, and at seams too when
    ``seams`` is set.

    A window that continues (``Layout.continues``, only with ``seams``) must be answered
    by ``send``: how many of its blocks were finished. Blocks are numbered from 0 in
    each window; sections keep their document-wide indices.
    """
    assembler = Assembler(normalized, config, refinements)
    limit = None if config.allow_cross_top_level_merge else window
    deep = seams and limit is not None and config.preserve_heading_hierarchy
    sections = assembler.sections
    blocks: list[Block] = []
    units: list[list[Unit]] = []
    offset = 0  # the document's blocks before ``blocks[0]``; positions below count all
    span = limit if limit is not None else 0  # the length after which a window closes
    continued: frozenset[int] = frozenset()
    top = -1  # the top-level section (0: the root) of the last block
    top_shows = False  # whether that section is not bare
    boundary = -1  # where a boundary may be, once its section turns out not bare
    after_body = False  # the last block that is not blank is not a heading
    seam, seam_section = -1, -1  # where a seam may be, once its section shows text
    found: list[int] = []  # seams of the open window, to cut at
    passed: list[int] = []  # boundaries the open window did not close at
    for position, block_id, owned in assembler.groups():
        number = offset + len(blocks)
        block = assembler.block(len(blocks), position, block_id, owned)
        chain = sections[block.section].chain
        block_top = chain[1] if len(chain) > 1 else 0
        if block_top != top:
            boundary = -1
            opens = top_shows and top and block_top
            if opens and _opens_with_text(block, sections[block_top].heading_id):
                boundary = number
            top, top_shows = block_top, False
        elif (
            deep
            and after_body
            and len(chain) > 2
            and _opens_with_text(block, sections[block.section].heading_id)
        ):
            seam, seam_section = number, block.section
        blocks.append(block)
        units.append(owned)
        if block.kind == "heading":
            after_body = False
            continue
        if block.blank:
            continue
        after_body = True
        cut = -1
        if not top_shows:
            top_shows = True
            if boundary > offset and limit is not None:
                if _length(blocks, boundary - offset) >= span:
                    cut = boundary - offset
                    yield assembler.layout(blocks[:cut], units[:cut], continued=continued)
                elif deep:
                    passed.append(boundary)
            boundary = -1
        elif seam > offset and seam_section in chain:
            end = seam - offset
            if _length(blocks, end) >= span:
                finished = yield assembler.layout(
                    blocks[:end],
                    units[:end],
                    seams=tuple(s - offset for s in found),
                    boundaries=tuple(b - offset for b in passed),
                    continued=continued,
                    unfinished=frozenset(sections[seam_section].chain[1:-1]),
                )
                if finished is None:
                    raise TypeError("a window that continues needs send(blocks finished)")
                if finished:
                    cut = finished
                else:  # nothing proved final: carry it all, into a window twice as long
                    span = 2 * _length(blocks, end)
            found.append(seam)
        seam = -1
        if cut > 0:
            continued = _opened(sections, blocks[cut])
            assembler.builder.forget()
            blocks = [b._replace(number=n) for n, b in enumerate(blocks[cut:])]
            units = units[cut:]
            offset += cut
            span = limit if limit is not None else 0
            found = [s for s in found if s > offset]
            passed = [b for b in passed if b > offset]
    if blocks:
        yield assembler.layout(blocks, units, continued=continued)


def _length(blocks: list[Block], end: int) -> int:
    """Source characters from the first block to the end of block ``end - 1``."""
    return blocks[end - 1].end - blocks[0].start


def _opened(sections: list[Section], block: Block) -> frozenset[int]:
    """The sections a window opening with ``block`` (a heading) continues: its own
    section's ancestors but the root."""
    return frozenset(sections[block.section].chain[1:-1])


def _opens_with_text(block: Block, heading_id: str | None) -> bool:
    """Whether ``block`` is its section's heading and its first character is shown text."""
    runs = block.runs
    return (
        block.node_id == heading_id
        and bool(runs)
        and runs[0][0] == 0 < runs[0][1]
        and runs[0][4] in RETAINED
        and not block.text[0].isspace()
    )
