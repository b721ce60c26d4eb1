"""Rows the outline leaves out become headings only when set apart as headings are.

An outline heading style admits unlisted rows (front matter, exercises). doxygen's manual
bookmarks a few file names whose rows share the size of hundreds of list items and
wrapped paragraph lines; those rows once all read as level-4 headings. These synthetic
pages pin the rule: a bullet, a closing period or a neighbour at the paragraph's line
pitch keeps a row in the text, and so does a stack of such rows (a list set in the
style); space above and below makes it a heading.
"""

from __future__ import annotations

from fastrag.ingestion.steps.parsing._pdf_headings import detect_headings
from fastrag.ingestion.steps.parsing._pdf_layout import Box, Line
from fastrag.ingestion.steps.parsing._pdf_outline import OutlineEntry

BODY = 10.0
PITCH = 12.0
PROSE = "Body text set at the usual size and pitch, long enough to count as running prose"


def row(text: str, baseline: float, size: float = BODY, *, bold: bool = False) -> Line:
    box = Box(72.0, baseline - size, 72.0 + 5 * len(text), baseline)
    return Line(text, box, size, bold, False, False, (text,), (box,), baseline)


def page(*entries: tuple[str, float, float]) -> list[list[Line]]:
    """One region: each entry is (text, gap above in points, size)."""
    lines: list[Line] = []
    baseline = 60.0
    for text, gap, size in entries:
        baseline += gap
        lines.append(row(text, baseline, size, bold=size > BODY))
    return [lines]


def prose(rows: int) -> list[tuple[str, float, float]]:
    return [(PROSE, PITCH, BODY)] * rows


def apart(rows: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """``rows`` with space above the first, as after a heading."""
    (text, _gap, size), *rest = rows
    return [(text, 24.0, size), *rest]


def heading_texts(pages: list[list[list[Line]]], outline: list[OutlineEntry]) -> list[str]:
    found = detect_headings(pages, outline, BODY)
    assert found.source == "outline"
    return [pages[key[0]][key[1]][key[2]].text for key in sorted(found.levels)]


def test_unlisted_rows_in_an_outline_style_are_headings_only_when_set_apart() -> None:
    pages = [
        page(
            ("1 Getting started", 0.0, 12.0),
            *prose(12),
            # Same style as the bookmarked headings, inside a paragraph: the rows above
            # and below sit at the paragraph's line pitch.
            ("set the EXTRACT_ALL tag to YES then everything", PITCH, 12.0),
            *prose(12),
            # A bullet and a closing period are text, however much space surrounds them.
            ("• The GNU tools flex and bison", 20.0, 12.0),
            *apart(prose(3)),
            ("Ghostscript can be downloaded from Sourceforge.", 20.0, 12.0),
            *apart(prose(3)),
            # Rows of the style one after another, spaced apart: a list set in it.
            ("greek small letter alpha", 24.0, 12.0),
            ("greek small letter beta", 24.0, 12.0),
            ("greek small letter gamma", 24.0, 12.0),
            *apart(prose(3)),
            ("Exercises", 30.0, 12.0),  # unlisted, set apart: a heading
            ("Compute the square root of eleven and round it", 26.0, BODY),
            *prose(12),
        ),
        page(("2 Running doxygen", 0.0, 12.0), *prose(40)),
    ]
    outline = [
        OutlineEntry("Getting started", 1, 1),
        OutlineEntry("Running doxygen", 1, 2),
    ]
    assert heading_texts(pages, outline) == ["1 Getting started", "Exercises", "2 Running doxygen"]


def test_a_row_at_line_pitch_below_its_heading_neighbour_is_still_judged_by_the_text() -> None:
    # The pitch compared is the neighbouring text's, not the heading size's own: a run of
    # headings one after another measures a large "pitch" for the heading size, which
    # must not make a row one text-line below a heading look set apart.
    pages = [
        page(
            ("1 Scope", 0.0, 12.0),
            ("2 Terms", 30.0, 12.0),
            ("3 Rules", 30.0, 12.0),
            ("Notes", 30.0, 12.0),  # unlisted, set apart from the prose below
            *[(PROSE, 26.0 if index == 0 else PITCH, BODY) for index in range(30)],
        )
    ]
    outline = [OutlineEntry(title, 1, 1) for title in ("Scope", "Terms", "Rules")]
    assert heading_texts(pages, outline) == ["1 Scope", "2 Terms", "3 Rules", "Notes"]
