"""From extracted spans to the analysed ``DocumentLayout``: the analysis stages in order.

1. Body size: the font size most characters are set in.
2. Furniture (``_pdf_furniture``): running headers, footers, page numbers — dropped.
3. Reading order per page (``_pdf_columns``) and rows per region (``_pdf_lines``);
   then the joints between rows the default gets wrong (``_pdf_joints``: compounds'
   line-end hyphens, URLs cut at a row's end).
4. Headings for the whole document (``_pdf_headings``): outline or fonts.
5. Blocks per page (``_pdf_blocks``); a paragraph cut by a column or page break is
   marked as continuing the one before it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_blocks import block_page, line_pitches
from fastrag.ingestion.steps.parsing._pdf_columns import reading_order
from fastrag.ingestion.steps.parsing._pdf_extract import Extraction
from fastrag.ingestion.steps.parsing._pdf_furniture import find_furniture
from fastrag.ingestion.steps.parsing._pdf_headings import detect_headings
from fastrag.ingestion.steps.parsing._pdf_joints import decide_joints
from fastrag.ingestion.steps.parsing._pdf_layout import (
    Block,
    BlockKind,
    DocumentLayout,
    Line,
    PageLayout,
    PageText,
)
from fastrag.ingestion.steps.parsing._pdf_lines import region_lines

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
        regions.append([region_lines(region) for region in reading_order(kept)])
    decide_joints(regions)
    headings = detect_headings(regions, extraction.outline, body, use_outline=use_outline)
    pitches = line_pitches(regions)
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
    notes: list[str] = []
    if headings.source == "outline" and headings.unmatched:
        notes.append(
            f"outline: {headings.unmatched} of {len(extraction.outline)} entries not found "
            "on their page"
        )
    return DocumentLayout(tuple(layouts), headings.source, len(removed_rows), tuple(notes))


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
