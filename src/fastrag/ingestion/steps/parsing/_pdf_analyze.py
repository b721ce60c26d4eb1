"""From extracted spans to the analysed ``DocumentLayout``: the analysis stages in order.

1. Body size: the font size most characters are set in.
2. Furniture (``_pdf_furniture``): running headers, footers, page numbers — dropped.
3. Reading order per page (``_pdf_columns``) and rows per region (``_pdf_lines``), the
   first page's notes after its columns (``_pdf_footnotes``); then the joints between
   rows the default gets wrong (``_pdf_joints``: compounds' line-end hyphens, URLs cut at
   a row's end).
4. Headings for the whole document (``_pdf_headings``): outline or fonts.
5. Navigation (``_pdf_navigation``): table-of-contents and index rows are taken out
   and recorded; a region is cut where they were, so the text around them never joins.
6. Blocks per page (``_pdf_blocks``); a paragraph cut by a column or page break is
   marked as continuing the one before it. A heading whose section can only be empty
   (a heading of a higher rank follows it, or nothing does) becomes a paragraph.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_blocks import block_page
from fastrag.ingestion.steps.parsing._pdf_columns import reading_order
from fastrag.ingestion.steps.parsing._pdf_extract import Extraction
from fastrag.ingestion.steps.parsing._pdf_footnotes import notes_last
from fastrag.ingestion.steps.parsing._pdf_furniture import find_furniture
from fastrag.ingestion.steps.parsing._pdf_headings import Headings, LineKey, detect_headings
from fastrag.ingestion.steps.parsing._pdf_joints import decide_joints
from fastrag.ingestion.steps.parsing._pdf_layout import (
    Block,
    BlockKind,
    DocumentLayout,
    Line,
    NavigationRemoved,
    PageLayout,
    PageText,
)
from fastrag.ingestion.steps.parsing._pdf_lines import line_pitches, region_lines
from fastrag.ingestion.steps.parsing._pdf_navigation import (
    NavigationRun,
    entry_kind,
    find_navigation,
    title_kind,
)

__all__ = ["analyze", "body_size"]

_OPEN_END: Final = re.compile(r"[^.!?:;\"'”’)\]]$")


def body_size(pages: Sequence[PageText]) -> float:
    """The font size that sets the most characters; 0.0 without text.

    Sizes are counted to 0.5 pt and the answer is the most common exact size in the
    winning bucket, so a heading 10 % larger than 10.91 pt text is not measured against
    a rounded 11.
    """
    buckets: Counter[float] = Counter()
    exact: Counter[float] = Counter()
    for page in pages:
        for span in page.spans:
            buckets[round(span.size * 2) / 2] += len(span.text)
            exact[span.size] += len(span.text)
    if not buckets:
        return 0.0
    winner = buckets.most_common(1)[0][0]
    return max((size for size in exact if round(size * 2) / 2 == winner), key=lambda s: exact[s])


def analyze(extraction: Extraction, *, use_outline: bool = True) -> DocumentLayout:
    """Analyse every page of ``extraction``; ``use_outline=False`` hides the outline."""
    pages = extraction.pages
    body = body_size(pages)
    furniture = find_furniture(pages, body)
    removed_rows = {(page, pages[page - 1].spans[index].row) for page, index in furniture}
    regions: list[list[list[Line]]] = []
    for page in pages:
        kept = [
            span for index, span in enumerate(page.spans) if (page.number, index) not in furniture
        ]
        page_regions = [region_lines(region) for region in reading_order(kept)]
        regions.append(notes_last(page_regions, body) if not regions else page_regions)
    decide_joints(regions)
    # Line pitches are the document's typography, measured on every row: taking the
    # navigation rows out of the count would shift them and move paragraph breaks elsewhere.
    pitches = line_pitches(regions)
    headings = detect_headings(
        regions, extraction.outline, body, use_outline=use_outline, pitches=pitches
    )
    # Headings are found on every row first: an outline entry pointing at an index's
    # title still matches (no false "not found" note), and its row then goes with the index.
    regions, headings, navigation = _without_navigation(regions, headings)
    layouts: list[PageLayout] = []
    previous: Block | None = None
    for index, page in enumerate(pages):
        blocks: list[Block] = []
        for region_blocks in block_page(
            index, regions[index], headings.levels, headings.continued, pitches
        ):
            for position, block in enumerate(region_blocks):
                if position == 0 and previous is not None and _continues(previous, block):
                    block = _continuing(block)
                blocks.append(block)
                previous = block
        image_only = not page.spans and page.images > 0
        layouts.append(PageLayout(page.number, page.width, page.height, tuple(blocks), image_only))
    layouts = _demote_empty_headings(layouts)
    notes: list[str] = []
    if headings.source == "outline" and headings.unmatched:
        notes.append(
            f"outline: {headings.unmatched} of {len(extraction.outline)} entries not found "
            "on their page"
        )
    return DocumentLayout(
        tuple(layouts), headings.source, len(removed_rows), tuple(notes), navigation
    )


def _without_navigation(
    regions: list[list[list[Line]]], headings: Headings
) -> tuple[list[list[list[Line]]], Headings, tuple[NavigationRemoved, ...]]:
    """``regions`` without their table-of-contents and index rows, the headings' keys
    moved to match, and what was removed (per kind: pages and rows).

    A heading inside a run that is neither an entry nor the run's title stays: it heads
    the content after the run (DocBook prints a part's heading between its TOC and its
    text). Any other heading a run touches goes whole (its continued rows too). A region
    is cut in two where rows were removed, so the rows before and after never join into
    one paragraph. When the runs would take every row, nothing is removed: a document
    that is only an index is still that index, and an empty result would read as a scan.
    """
    runs = find_navigation(regions)
    if not runs:
        return regions, headings, ()
    kind_of: dict[LineKey, str] = {key: str(run.kind) for run in runs for key in run.rows}
    for rows in _heading_rows(headings).values():
        kind = next((kind_of[key] for key in rows if key in kind_of), None)
        if kind is None:
            continue
        if _heads_content(regions, rows):
            for key in rows:
                kind_of.pop(key, None)
        else:
            kind_of.update(dict.fromkeys(rows, kind))
    total = sum(len(lines) for page in regions for lines in page)
    if len(kind_of) >= total:
        return regions, headings, ()
    moved: dict[LineKey, LineKey] = {}
    kept: list[list[list[Line]]] = []
    for page_index, page in enumerate(regions):
        pieces: list[list[Line]] = []
        for region_index, lines in enumerate(page):
            piece: list[Line] = []
            for row, line in enumerate(lines):
                key = (page_index, region_index, row)
                if key in kind_of:
                    if piece:
                        pieces.append(piece)
                        piece = []
                    continue
                moved[key] = (page_index, len(pieces), len(piece))
                piece.append(line)
            if piece:
                pieces.append(piece)
        kept.append(pieces)
    moved_headings = replace(
        headings,
        levels={moved[key]: level for key, level in headings.levels.items() if key in moved},
        continued=frozenset(moved[key] for key in headings.continued if key in moved),
    )
    return kept, moved_headings, _summary(kind_of, runs)


def _heads_content(regions: list[list[list[Line]]], rows: list[LineKey]) -> bool:
    """Whether a heading met inside a navigation run is a real heading to keep: not the
    run's title ("Contents", "D.1 Index of …"), not an entry itself, and not the first
    half of a wrapped entry (bold TOC lines such as "Appendix B Major Differences From"
    over "The Bourne Shell … 168", the next row an entry in the very same style)."""
    lines = [regions[page][region][row] for page, region, row in rows]
    if title_kind(" ".join(line.text for line in lines)) or entry_kind(lines[0]):
        return False
    page, region, row = rows[-1]
    region_lines = regions[page][region]
    following = region_lines[row + 1] if row + 1 < len(region_lines) else None
    return not (
        following is not None
        and entry_kind(following) is not None
        and following.bold == lines[-1].bold
        and abs(following.size - lines[-1].size) <= 0.05 * max(lines[-1].size, 1.0)
    )


def _heading_rows(headings: Headings) -> dict[LineKey, list[LineKey]]:
    """Each heading's first row → all its rows."""
    rows: dict[LineKey, list[LineKey]] = {}
    for first in headings.levels:
        page, region, row = first
        group = [first]
        while (page, region, row + len(group)) in headings.continued:
            group.append((page, region, row + len(group)))
        rows[first] = group
    return rows


def _summary(
    kind_of: dict[LineKey, str], runs: list[NavigationRun]
) -> tuple[NavigationRemoved, ...]:
    """One record per kind, in the order the kinds first appear."""
    pages: dict[str, set[int]] = {str(run.kind): set() for run in runs}
    counts: Counter[str] = Counter()
    for (page_index, _region, _row), kind in kind_of.items():
        pages.setdefault(kind, set()).add(page_index + 1)
        counts[kind] += 1
    return tuple(
        NavigationRemoved(kind, tuple(sorted(numbers)), counts[kind])
        for kind, numbers in pages.items()
    )


def _demote_empty_headings(layouts: list[PageLayout]) -> list[PageLayout]:
    """Headings that can head nothing, as paragraphs.

    A heading followed directly by a heading of a higher rank ("## Front cover" over
    the cover's "# Title"), or by nothing at all (a back cover's "Redpaper ™"), heads an
    empty section that no later text can fill: cover lettering, a brand line, a label
    the font rules took for a heading. Emitted as a heading it is a section of a few
    tokens holding only its title; as a paragraph its words stay with the text around
    it. A heading followed by one of its own level is left alone: that is also how a
    title page reads when its title and author lines are both detected as headings,
    and demoting the title there would lose the document's name as a section. Each
    heading is judged by the block that follows it as found.
    """
    blocks = [
        (page_position, position, block)
        for page_position, page in enumerate(layouts)
        for position, block in enumerate(page.blocks)
    ]
    demoted: set[tuple[int, int]] = set()
    for index, (page_position, position, block) in enumerate(blocks):
        if block.kind is not BlockKind.HEADING:
            continue
        following = blocks[index + 1][2] if index + 1 < len(blocks) else None
        if following is None or (
            following.kind is BlockKind.HEADING and following.level < block.level
        ):
            demoted.add((page_position, position))
    if not demoted:
        return layouts
    return [
        replace(
            page,
            blocks=tuple(
                _as_paragraph(block) if (page_position, position) in demoted else block
                for position, block in enumerate(page.blocks)
            ),
        )
        for page_position, page in enumerate(layouts)
    ]


def _as_paragraph(block: Block) -> Block:
    return Block(BlockKind.PARAGRAPH, block.page, block.lines)


def _continues(previous: Block, block: Block) -> bool:
    """A paragraph (or list item) cut by a column or page break: its last row ends open
    and the next region starts lowercase, or the last row ends in a soft hyphen or inside
    a URL."""
    if block.kind is not BlockKind.PARAGRAPH:
        return False
    if previous.kind not in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM):
        return False
    last, first = previous.lines[-1], block.lines[0]
    if abs(last.size - first.size) > 0.15 * max(last.size, 1.0) or last.mono or first.mono:
        return False
    if last.hyphenated or last.joint == "":  # a word or a URL cut at the break
        return True
    return bool(_OPEN_END.search(last.text)) and first.text[:1].islower()


def _continuing(block: Block) -> Block:
    return Block(block.kind, block.page, block.lines, block.level, block.marker, block.rows, True)
