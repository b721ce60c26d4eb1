"""The title page's headings: of the styles used on the first page only, the title's stays.

An Elsevier article (pdf-parse's test file from Solar Energy Materials & Solar Cells)
names its journal in the masthead a shade larger (13.95 pt) than the article's title
(13.45 pt, two rows); the largest first-page style used to win, so the abstract sat
under the journal's name and the title was a paragraph.
"""

from __future__ import annotations

from fastrag.ingestion.steps.parsing._pdf_headings import detect_headings
from fastrag.ingestion.steps.parsing._pdf_layout import Box, Line

BODY = 8.0
PROSE = "Body text of the article, set at the body size and wrapped to the column margin"


def row(text: str, baseline: float, size: float = BODY, *, bold: bool = False) -> Line:
    box = Box(40.0, baseline - size, 40.0 + 4 * len(text), baseline)
    return Line(text, box, size, bold, False, False, (text,), (box,), baseline)


def body_page(first: float = 100.0) -> list[list[Line]]:
    lines = [row("1. Introduction", first, bold=True)] if first == 100.0 else []
    lines += [row(PROSE, first + 20.0 + 10.0 * index) for index in range(40)]
    return [lines]


def title_page(masthead: float, title: float) -> list[list[Line]]:
    lines = [
        row("Solar Energy Materials & Solar Cells", 60.0, masthead),
        row("Performance evaluation of a GaInP/GaAs solar cell structure", 110.0, title),
        row("with the integration of AlGaAs tunnel junction", 126.0, title),
        row("Yunus Özen, Nihan Akın", 150.0, 10.5),
    ]
    lines += [row(PROSE, 180.0 + 10.0 * index) for index in range(30)]
    return [lines]


def headings(pages: list[list[list[Line]]]) -> list[str]:
    found = detect_headings(pages, [], BODY)
    return [pages[key[0]][key[1]][key[2]].text for key in sorted(found.levels)]


def test_a_longer_title_a_shade_smaller_than_the_masthead_is_the_title() -> None:
    pages = [title_page(13.95, 13.45), body_page(), body_page(40.0)]
    assert headings(pages) == [
        "Performance evaluation of a GaInP/GaAs solar cell structure",
        "1. Introduction",
    ]


def test_a_clearly_larger_title_stays_the_title_over_a_longer_subtitle() -> None:
    pages = [title_page(18.0, 13.45), body_page(), body_page(40.0)]
    assert headings(pages) == ["Solar Energy Materials & Solar Cells", "1. Introduction"]
