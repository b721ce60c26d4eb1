"""The first page's notes at a column's foot are read after the page's columns.

pdf-parse's test papers (the TraceMonkey paper, an Elsevier article) set their
permission, copyright, DOI and author notes in small print at the foot of the left
column; read in column order they cut the paragraph that goes on in the right column
("… complex applications | Permission to make digital … | and is used for …").
"""

from __future__ import annotations

from fastrag.ingestion.steps.parsing._pdf_analyze import analyze
from fastrag.ingestion.steps.parsing._pdf_extract import Extraction
from fastrag.ingestion.steps.parsing._pdf_footnotes import notes_last
from fastrag.ingestion.steps.parsing._pdf_layout import Box, Line, PageText, Span

BODY = 9.0


def row(text: str, x0: float, baseline: float, size: float = BODY) -> Line:
    box = Box(x0, baseline - size, x0 + 230.0, baseline)
    return Line(text, box, size, False, False, False, (text,), (box,), baseline)


def column(name: str, x0: float, top: float, rows: int) -> list[Line]:
    return [row(f"{name} {index}", x0, top + 11.0 * index) for index in range(rows)]


def notes(count: int, top: float, step: float = 8.0) -> list[Line]:
    return [row(f"note {index}", 54.0, top + step * index, 7.0) for index in range(count)]


def texts(regions: list[list[Line]]) -> list[list[str]]:
    return [[line.text for line in lines] for lines in regions]


def test_notes_at_the_foot_of_the_left_column_go_after_the_right_column() -> None:
    left = column("left", 54.0, 100.0, 50)  # last baseline 639
    right = column("right", 317.0, 100.0, 58)  # last baseline 727
    # pdfium may stream the notes out of order, the lowest neither first nor last:
    # baselines, not order, place them (the Elsevier article's DOI line came first).
    n0, n1, n2, n3 = notes(4, 700.0, 10.0)  # 700 … 730
    regions = [[*left, n0, n3, n2, n1], right]
    assert texts(notes_last(regions, BODY)) == [
        texts([left])[0],
        texts([right])[0],
        ["note 0", "note 3", "note 2", "note 1"],
    ]


def test_other_small_print_keeps_its_place() -> None:
    right = column("right", 317.0, 100.0, 58)  # the page's foot: 727
    cases = [
        # Too long for notes: a list of references (at the foot, after a gap).
        column("left", 54.0, 100.0, 50) + notes(12, 660.0),
        # Ends well above the page's foot: a table's notes.
        column("left", 54.0, 100.0, 50) + notes(3, 660.0),
        # No gap above it: small print that goes on from the text.
        column("left", 54.0, 100.0, 57) + notes(2, 722.0),
    ]
    for case in cases:
        assert notes_last([case, right], BODY) == [case, right]
    # The page's last region keeps its own tail.
    last = column("left", 54.0, 100.0, 50) + notes(4, 700.0)
    assert notes_last([right, last], BODY) == [right, last]


def _span(text: str, x0: float, baseline: float, size: float, row: int) -> Span:
    box = Box(x0, baseline - size, x0 + 230.0, baseline)
    return Span(text, box, size, False, False, False, row, baseline)


WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india")


def _text(number: int, index: int) -> str:
    """A row of prose no other page repeats (repeated rows are running furniture)."""
    return " ".join(WORDS[(number * 7 + index * k) % len(WORDS)] for k in range(1, 7)) + "."


def _two_column_page(number: int, note: str) -> PageText:
    spans = [
        _span(_text(number, index), 54.0, 100.0 + 11.0 * index, BODY, index) for index in range(50)
    ]
    spans.append(_span(note, 54.0, 716.0, 7.0, 50))
    spans += [
        _span(_text(number + 5, index), 317.0, 100.0 + 11.0 * index, BODY, 60 + index)
        for index in range(58)
    ]
    return PageText(number, 612.0, 792.0, tuple(spans), 0)


def test_only_the_first_pages_notes_move() -> None:
    # Elsewhere small print at a column's foot may be references or a table's notes.
    pages = (
        _two_column_page(1, "Corresponding author: ada@example.org"),
        _two_column_page(2, "Values are in thousands of units."),
    )
    first, second = analyze(Extraction(pages, (), ())).pages
    assert first.blocks[-1].lines[-1].text == "Corresponding author: ada@example.org"
    assert second.blocks[-1].lines[-1].text != "Values are in thousands of units."
