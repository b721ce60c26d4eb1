"""Bold body-size rows: a term over its hanging definition is no heading.

A man page (groff through ps2pdf) sets each option and variable in bold at body size on
its own row, its description indented under it; its subsection headings are bold at
body size too, but outdented from the text margin. These synthetic pages pin the rule
(``_pdf_headings._defines``) without an outline, so the fonts alone decide.
"""

from __future__ import annotations

from fastrag.ingestion.steps.parsing._pdf_headings import detect_headings
from fastrag.ingestion.steps.parsing._pdf_layout import Box, Line

BODY = 10.0
PITCH = 12.0
MARGIN = 108.0
PROSE = "running text of the section, set at the body size and wrapped to the margin"


def row(text: str, x0: float, baseline: float, *, bold: bool = False) -> Line:
    box = Box(x0, baseline - BODY, x0 + 5 * len(text), baseline)
    return Line(text, box, BODY, bold, False, False, (text,), (box,), baseline)


def page(*entries: tuple[str, float, float, bool]) -> list[list[Line]]:
    """One region: each entry is (text, x0, gap above, bold)."""
    lines: list[Line] = []
    baseline = 60.0
    for text, x0, gap, bold in entries:
        baseline += gap
        lines.append(row(text, x0, baseline, bold=bold))
    return [lines]


def prose(rows: int, x0: float = MARGIN) -> list[tuple[str, float, float, bool]]:
    return [(PROSE.capitalize(), x0, PITCH, False)] * rows


def headings(*entries: tuple[str, float, float, bool]) -> list[str]:
    pages = [page(*entries)]
    found = detect_headings(pages, [], BODY)
    return [pages[key[0]][key[1]][key[2]].text for key in sorted(found.levels)]


def test_terms_over_hanging_definitions_are_not_headings() -> None:
    assert headings(
        *prose(12),
        ("Shell Variables", 87.0, 17.0, True),  # outdented: a subsection heading
        *prose(3),
        ("BASHPID", MARGIN, 17.0, True),
        ("Expands to the process ID of the current bash process, which", 144.0, PITCH, False),
        ("differs from $$ under certain circumstances.", 144.0, PITCH, False),
        ("BASH_ALIASES", MARGIN, PITCH, True),
        ("An associative array variable; its members are aliases.", 144.0, PITCH, False),
        ("COLUMNS", MARGIN, PITCH, True),
        ("Used by the select compound command to find the terminal width.", 144.0, PITCH, False),
        # The next paragraph, after paragraph spacing, is no second line of that one.
        (PROSE.capitalize(), MARGIN, 17.0, False),
        *prose(12),
    ) == ["Shell Variables"]


def test_a_heading_over_an_indented_first_line_or_a_list_stays_a_heading() -> None:
    assert headings(
        *prose(12),
        # A paragraph whose first line is indented: its second line is back at the margin.
        ("Scope of this guide", MARGIN, 20.0, True),
        ("This guide covers the installation of the package on", 144.0, PITCH, False),
        ("every supported platform, and nothing else.", MARGIN, PITCH, False),
        *prose(4),
        # A list indented under its heading.
        ("Requirements", MARGIN, 20.0, True),
        ("• Python 3.11 or later, with its development headers", 144.0, PITCH, False),
        ("installed from the platform's packages.", 152.0, PITCH, False),
        *prose(12),
    ) == ["Scope of this guide", "Requirements"]


def test_a_section_over_indented_lowercase_text_is_a_heading_a_run_on_phrase_is_not() -> None:
    # An mdoc man page: "DESCRIPTION" outdented over text that opens with the command's
    # name in lowercase. A bold phrase whose sentence runs on at its own margin is text.
    assert headings(
        ("DESCRIPTION", 72.0, 0.0, True),
        (
            "ssh (SSH client) is a program for logging into a remote machine and for",
            MARGIN,
            PITCH,
            False,
        ),
        *prose(12),
        ("Keep in mind that the server", MARGIN, 20.0, True),
        ("may refuse the connection if its host key is unknown to it.", MARGIN, PITCH, False),
        *prose(12),
    ) == ["DESCRIPTION"]


def test_numbered_sections_opening_on_their_first_subsection_and_lowercase_names() -> None:
    # man−db's manual (groff -ms): every heading bold at body size, a section right over
    # its first subsection, and text after paragraph spacing that opens on "man−db".
    left = 72.0
    assert headings(
        *prose(12, left),
        ("2. The specifics of Sections", left, 24.0, True),
        ("2.1. Package specific manual page sections", left, 24.0, True),
        ("The use of package specific manual page sections is discouraged", left, 16.2, False),
        *prose(6, left),
        ("2.2. man−db", left, 24.0, True),
        ("man−db is a package that is designed to provide users with", left, 16.2, False),
        *prose(6, left),
        # Two bold rows of a table stay text, and a bold phrase running on at line pitch.
        ("Alpha Beta Gamma", left, 24.0, True),
        ("Delta Epsilon Zeta", left, 18.0, True),
        *prose(3, left),
        ("Keep in mind that the server", left, 20.0, True),
        ("may refuse the connection if its host key is unknown to it.", left, PITCH, False),
        *prose(6, left),
    ) == [
        "2. The specifics of Sections",
        "2.1. Package specific manual page sections",
        "2.2. man−db",
    ]
