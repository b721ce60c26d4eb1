"""Reading order on one page: columns read one after the other, top to bottom.

pdfium returns text in content-stream order, which is the reading order for most
single-column documents but not for every multi-column one (a Federal Register page
streams its footnotes first and may run one column's last line into the next column's
footnote on the same pdfium line). So the order is rebuilt from geometry, as a
recursive gutter cut (the XY-cut family, tuned for columns):

1. Find a vertical *gutter*: an x-interval that no span covers, except a few that cross
   it (a title, a wide table, a figure caption spanning the columns). Both sides must
   look like columns of text — each at least ``MIN_COLUMN`` of the page's text width,
   side by side, with lines that mostly fill the column — so a definition list (narrow
   terms) or a table of short cells is not cut into columns.
2. The crossing spans cut the page into horizontal bands; in each band the left side is
   read before the right side, and the crossing spans in between are read where they
   stand. Each side is cut again recursively (three columns are two cuts).
3. A region with no gutter is read in pdfium's order, except that runs of lines pdfium
   streamed out of vertical order (footnotes before the text above them) are put back
   in order when they do not overlap.

Pure functions of span geometry; no pdfium here.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from statistics import median
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import Span

__all__ = ["MIN_COLUMN", "reading_order"]

MIN_COLUMN: Final = 0.18
"""A column is at least this fraction of the page's text width (four columns fit)."""
_MAX_DEPTH: Final = 6
_MAX_CROSSING: Final = 0.25
"""At most this fraction of a region's spans may cross its gutter."""
_TEXT_SIZE: Final = 0.75
"""Spans under this share of a region's median size are labels or scripts, not its text."""
_FILL: Final = 0.5
"""Lines of a text column are, in the median, at least half as wide as its widest line
(a side holding two columns still passes: its widest line is one column wide)."""


def reading_order(spans: Sequence[Span]) -> list[list[Span]]:
    """The page's spans as regions in reading order; each region is one column's stretch.

    Consecutive regions are separate areas of the page (a column break, a spanning
    title), so a paragraph never silently flows across them.
    """
    if not spans:
        return []
    width = max(s.box.x1 for s in spans) - min(s.box.x0 for s in spans)
    order = {id(span): index for index, span in enumerate(spans)}
    return _order(list(spans), width * MIN_COLUMN, order, 0)


def _order(
    spans: list[Span], min_column: float, order: dict[int, int], depth: int
) -> list[list[Span]]:
    if len(spans) < 4 or depth >= _MAX_DEPTH:
        return [_leaf(spans, order)]
    cut = _gutter(spans, min_column)
    if cut is None:
        return [_leaf(spans, order)]
    left, right, crossing = cut
    regions: list[list[Span]] = []
    # Spanning zones with no column text between them are one region: a title centred
    # over two columns wraps onto a second row that crosses the gutter on its own.
    after_zone = False
    for band_left, band_right, zone in _bands(left, right, crossing):
        for band in (band_left, band_right):
            if band:
                regions.extend(_order(band, min_column, order, depth + 1))
                after_zone = False
        if zone:
            if after_zone:
                regions[-1] = _leaf(regions[-1] + zone, order)
            else:
                regions.append(_leaf(zone, order))
            after_zone = True
    return regions


def _gutter(
    spans: list[Span], min_column: float
) -> tuple[list[Span], list[Span], list[Span]] | None:
    """The best column cut of ``spans``: (left, right, crossing), or None.

    Candidates are maximal x-runs covered by at most ``_MAX_CROSSING`` of the spans and
    at least half an em wide; the valid one crossed by the fewest spans wins.
    """
    size = median(s.size for s in spans) or 1.0
    min_gap = max(3.0, 0.5 * size)
    max_crossing = int(_MAX_CROSSING * len(spans))
    events: dict[float, int] = {}
    for span in spans:
        events[span.box.x0] = events.get(span.box.x0, 0) + 1
        events[span.box.x1] = events.get(span.box.x1, 0) - 1
    xs = sorted(events)
    runs: list[tuple[float, float]] = []
    coverage = 0
    for index in range(len(xs) - 1):
        coverage += events[xs[index]]
        if index == 0 or coverage > max_crossing:
            continue
        if runs and runs[-1][1] == xs[index]:
            runs[-1] = (runs[-1][0], xs[index + 1])
        else:
            runs.append((xs[index], xs[index + 1]))
    best: tuple[int, float, tuple[list[Span], list[Span], list[Span]]] | None = None
    for g0, g1 in runs:
        if g1 - g0 < min_gap:
            continue
        split = _split(spans, g0, g1, min_column, size)
        if split is not None:
            key = (len(split[2]), -(g1 - g0))
            if best is None or key < (best[0], -best[1]):
                best = (len(split[2]), g1 - g0, split)
    return None if best is None else best[2]


def _split(
    spans: list[Span], g0: float, g1: float, min_column: float, size: float
) -> tuple[list[Span], list[Span], list[Span]] | None:
    """Spans left of, right of and across the gutter ``[g0, g1]`` if both sides are columns.

    Whether a side's lines fill it is judged on its text, not on spans set much smaller
    than the region's median ``size`` (a chart's labels beside a column's lines made the
    real gutter fail and a gap between two rows of labels win).
    """
    left = [s for s in spans if s.box.x1 <= g1 and s.box.x0 < g0]
    right = [s for s in spans if s.box.x0 >= g0 and s.box.x1 > g1]
    if len(left) < 2 or len(right) < 2:
        return None
    kept = {id(s) for s in left} | {id(s) for s in right}
    crossing = [s for s in spans if id(s) not in kept]
    if len(crossing) > _MAX_CROSSING * len(spans):
        return None
    for side in (left, right):
        extent = max(s.box.x1 for s in side) - min(s.box.x0 for s in side)
        widths = [s.box.width for s in side if s.size >= _TEXT_SIZE * size] or [
            s.box.width for s in side
        ]
        if extent < min_column or median(widths) < _FILL * max(widths):
            return None
    top = max(min(s.box.y0 for s in left), min(s.box.y0 for s in right))
    bottom = min(max(s.box.y1 for s in left), max(s.box.y1 for s in right))
    shorter = min(
        max(s.box.y1 for s in side) - min(s.box.y0 for s in side) for side in (left, right)
    )
    if bottom - top < 0.3 * shorter:
        return None
    return left, right, crossing


def _bands(
    left: list[Span], right: list[Span], crossing: list[Span]
) -> list[tuple[list[Span], list[Span], list[Span]]]:
    """Cut the page at the crossing spans: (left, right, zone below), top down.

    Crossing spans that overlap vertically form one zone; a column span whose middle
    lies inside a zone is read with the zone (it stands beside a wide element).
    """
    zones: list[list[float]] = []
    for span in sorted(crossing, key=lambda s: s.box.y0):
        if zones and span.box.y0 <= zones[-1][1] + 1.0:
            zones[-1][1] = max(zones[-1][1], span.box.y1)
        else:
            zones.append([span.box.y0, span.box.y1])
    starts = [zone[0] for zone in zones]
    bands: list[tuple[list[Span], list[Span]]] = [([], []) for _ in range(len(zones) + 1)]
    zone_spans: list[list[Span]] = [[] for _ in zones]
    for span in crossing:
        zone_spans[bisect_right(starts, span.box.y0) - 1].append(span)
    for side, spans in ((0, left), (1, right)):
        for span in spans:
            middle = (span.box.y0 + span.box.y1) / 2
            index = bisect_right(starts, middle)
            if index > 0 and middle <= zones[index - 1][1]:
                zone_spans[index - 1].append(span)
            else:
                bands[index][side].append(span)
    return [
        (band_left, band_right, zone_spans[index] if index < len(zones) else [])
        for index, (band_left, band_right) in enumerate(bands)
    ]


def _leaf(spans: list[Span], order: dict[int, int]) -> list[Span]:
    """A region without columns: pdfium's order, with out-of-order runs put back."""
    spans = sorted(spans, key=lambda s: order[id(s)])
    runs: list[list[Span]] = []
    for span in spans:
        if runs and span.baseline >= runs[-1][-1].baseline - max(span.size, 1.0):
            runs[-1].append(span)
        else:
            runs.append([span])
    if len(runs) == 1:
        return spans
    extents = sorted((min(s.box.y0 for s in run), max(s.box.y1 for s in run)) for run in runs)
    if any(extents[i][1] > extents[i + 1][0] for i in range(len(extents) - 1)):
        return spans
    runs.sort(key=lambda run: min(s.box.y0 for s in run))
    return [span for run in runs for span in run]
