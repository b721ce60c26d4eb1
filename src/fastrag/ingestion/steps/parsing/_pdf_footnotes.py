"""First-page notes at the foot of a column are read after the page's columns.

A two-column article sets its first page's notes (the corresponding author's address,
the DOI, the copyright and permission lines) in small print at the foot of the left
column, and the left column's last paragraph goes on at the top of the right one. Read
in column order, the notes cut that paragraph in two: "… use III–V compound
semiconductors with direct | E-mail addresses … © 2015 Elsevier … | bandgaps [39]."
Moved after the page's last region, they no longer stand between the paragraph's halves,
which the block analysis then joins as one cut by a column break. Nothing is dropped.

Only the first page's, where such notes are the rule: elsewhere small print at a
column's foot may be a list of references or a table's notes, whose place is theirs. A
note run is the tail of a region that is not the page's last: at most ``MAX_ROWS`` rows
set at most ``SMALL`` of the body size, not monospaced, after a row of body text and a
gap of more than ``GAP`` of that row's size (the space, or the rule, that sets notes
off), and ending at the foot of the page's text.
"""

from __future__ import annotations

from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import Line

__all__ = ["GAP", "MAX_ROWS", "SMALL", "notes_last"]

SMALL: Final = 0.85
"""Notes are set at most this share of the body size (captions are larger)."""
GAP: Final = 1.5
"""Baseline distance, in sizes of the row above, that sets a note run off."""
MAX_ROWS: Final = 10
"""A longer run of small print is not a page's notes."""


def notes_last(regions: list[list[Line]], body: float) -> list[list[Line]]:
    """The first page's regions with each column's note run moved after the last one."""
    if len(regions) < 2 or body <= 0:
        return regions
    foot = max(line.baseline for lines in regions for line in lines)
    kept: list[list[Line]] = []
    notes: list[list[Line]] = []
    for index, lines in enumerate(regions):
        start = _notes_start(lines, body, foot) if index < len(regions) - 1 else len(lines)
        kept.append(lines[:start])
        if start < len(lines):
            notes.append(lines[start:])
    if not notes:
        return regions
    return [lines for lines in kept if lines] + notes


def _notes_start(lines: list[Line], body: float, foot: float) -> int:
    """Where the region's note run starts (``len(lines)`` when it has none)."""
    start = len(lines)
    while start > 0 and not lines[start - 1].mono and lines[start - 1].size <= SMALL * body:
        start -= 1
    if not 0 < start < len(lines) or len(lines) - start > MAX_ROWS:
        return len(lines)
    above = lines[start - 1]
    # Baselines, not row order: pdfium may stream a page's last note lines first.
    baselines = [line.baseline for line in lines[start:]]
    if (
        above.size < 0.95 * body
        or min(baselines) - above.baseline <= GAP * above.size
        or max(baselines) < foot - 2 * body
    ):
        return len(lines)
    return start
