"""Reading order on synthetic two-column pages (``_pdf_columns.reading_order``).

Both cases come from a two-column paper (pdf-parse's test file, the TraceMonkey paper):
a chart's small labels beside the right column once made its real gutter fail the
"lines fill the column" test, so a gap between two columns of labels won and the two
text columns were read interleaved, row by row; and the title, centred over both
columns on two rows, was read as two regions, hence two headings.
"""

from __future__ import annotations

from fastrag.ingestion.steps.parsing._pdf_columns import reading_order
from fastrag.ingestion.steps.parsing._pdf_layout import Box, Span

LEFT, RIGHT, WIDTH = 54.0, 317.0, 240.0


def span(text: str, x0: float, baseline: float, width: float, size: float = 9.0) -> Span:
    box = Box(x0, baseline - size, x0 + width, baseline)
    return Span(text, box, size, False, False, False, int(baseline), baseline)


def column(name: str, x0: float, top: float, rows: int) -> list[Span]:
    return [span(f"{name} {index}", x0, top + 10.0 * index, WIDTH) for index in range(rows)]


def texts(regions: list[list[Span]]) -> list[list[str]]:
    return [[piece.text for piece in region] for region in regions]


def test_chart_labels_beside_a_column_do_not_move_the_gutter() -> None:
    left = column("left", LEFT, 100.0, 40)
    # A chart at the top of the right column: rows of short, tiny labels in two groups
    # with a narrow gap between them, then the column's text under it.
    labels = [
        span(f"label {index}", 330.0 + 3 * (index % 5), 100.0 + 5 * index, 60.0, 4.4)
        for index in range(30)
    ] + [span(f"value {index}", 460.0, 100.0 + 5 * index, 30.0, 4.4) for index in range(30)]
    right = column("right", RIGHT, 260.0, 24)
    # pdfium streams the page row by row across both columns.
    streamed = sorted(left + labels + right, key=lambda piece: (piece.baseline, piece.box.x0))
    read = [piece.text for region in reading_order(streamed) for piece in region]
    words = [text for text in read if text.startswith(("left", "right"))]
    assert words == [piece.text for piece in left] + [piece.text for piece in right]


def test_a_title_on_two_rows_over_both_columns_is_one_region() -> None:
    title = [
        span("Trace-based Just-in-Time Type Specialization for Dynamic", 81.0, 60.0, 440.0, 18),
        span("Languages", 264.0, 82.0, 80.0, 18),
    ]
    page = title + column("left", LEFT, 120.0, 30) + column("right", RIGHT, 120.0, 30)
    regions = texts(reading_order(page))
    assert regions[0] == [piece.text for piece in title]
    assert regions[1:] == [[f"left {i}" for i in range(30)], [f"right {i}" for i in range(30)]]
