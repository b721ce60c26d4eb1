"""Navigation apparatus: tables of contents and back-of-book indexes.

A table of contents ("3.5.2 Tilde Expansion … 25") or an index ("tilde expansion, 25",
"alias … 55") repeats the document's own words, each paired with a page number. Kept as
content it is retrieved for almost every query that names a section or a term — the
chunk matches well and answers nothing — and a TOC at the front has no section at all.
So these rows are **left out** of the content, the way running headers and footers are,
and **recorded**: the parser reports the kind, the pages and the number of rows removed
(``metadata["removed_navigation"]`` and a diagnostic line), so nothing vanishes silently.
Keeping them under a "Contents" or "Index" heading was the alternative; it stops the
empty section path but not the retrieval noise, and the page references are worthless
once the text is chunked.

Detection is deliberately conservative, because a dropped row of real content is lost:

* Rows are classified one by one (``entry_kind``). *Strong* entries end in a page
  reference after a dot leader (``Title … 12``, ``Notices … vii``), in the leader itself
  (the page numbers set in a column of their own, read as another region), or after a
  comma
  (``term, 12, 34–36``, ``term, see other``); a *weak* entry merely ends in a number
  (``1 Definition of CRC 2``). Monospaced rows (code) and rows of three or more cells
  (table rows) are never entries; the references must look like page numbers
  (``$6,205.`` and ``2.50`` after a leader are table cells, not references).
* Entries form a run in reading order across regions and pages; at most ``MAX_GAP``
  other rows (wrapped titles, index letters) may sit between two entries, but a weak
  entry only extends a run it directly follows ("Release 3.19.0 11 Apr 2022" under the
  next chapter's heading is not the end of the TOC before it).
* A run counts only when entries make up ``DENSITY`` of its rows, and either it is long
  (``MIN_ENTRIES`` entries, mostly strong) or it follows a title that names it
  ("Contents", "Table of Contents", "Inhaltsverzeichnis", "Concept Index",
  "D.1 Index of Shell Builtin Commands"). A run of weak entries alone never counts
  unless a contents title announces it and its entries are numbered — a table whose
  last column holds numbers is not a table of contents.
* The title rows (and index letters or a first headword between the title and the
  first entry) go with the run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_headings import heading_number
from fastrag.ingestion.steps.parsing._pdf_layout import Line
from fastrag.ingestion.steps.parsing._pdf_lines import LEADER

__all__ = [
    "DENSITY",
    "MAX_GAP",
    "MIN_ENTRIES",
    "Entry",
    "NavigationKind",
    "NavigationRun",
    "entry_kind",
    "find_navigation",
    "title_kind",
]

MAX_GAP: Final = 2
"""Non-entry rows allowed between two entries of one run (a wrapped title, an index letter)."""
DENSITY: Final = 0.6
"""The share of a run's rows that must be entries."""
MIN_ENTRIES: Final = 5
"""Entries a run needs when no title announces it."""
_MAX_LEAD: Final = 2
"""Short rows between a title and the first entry taken with the run: index letters
("A", "." in Texinfo), an index's first headword."""
_MAX_LEAD_WORDS: Final = 3
_MAX_TITLES: Final = 2
"""Title rows absorbed before a run ("Appendix D Indexes" over "D.1 Index of …")."""
_MAX_WORDS: Final = 25
_MAX_SHORT_WORDS: Final = 12
_MAX_ENTRY_CHARACTERS: Final = 500
"""Longer rows are no entries (25 words of 20 letters): a hostile row of one endless word
would cost the entry patterns, which backtrack, quadratic time."""

_ARABIC = r"\d{1,4}"
_REF = rf"(?:{_ARABIC}|[ivxlc]{{1,6}})"  # front matter is numbered in lowercase roman
_REFS = rf"{_REF}(?:\s*[-–]\s*{_REF})?(?:\s*,\s*{_REF}(?:\s*[-–]\s*{_REF})?)*"
_ARABIC_REFS = rf"{_ARABIC}(?:\s*[-–]\s*{_ARABIC})?(?:,\s+{_ARABIC}(?:\s*[-–]\s*{_ARABIC})?)*"
# A leader with nothing after it: the page numbers stand in a column of their own, read
# as another region (auto-multiple-choice's DocBook manual).
_LEADER_ENTRY = re.compile(
    rf"\S.*{LEADER}(?:(?:p|pp|page|s|seite)\.?\s*)?{_REFS}|\S.*{LEADER.rstrip()}"
)
_COMMA_ENTRY = re.compile(
    rf".*?[^\W\d_].*?,\s+(?:{_ARABIC_REFS}|(?:see|siehe)(?:\s+(?:also|auch))?\s+[^\W\d_].*)"
)
_PAGE_END = re.compile(rf".*[^\W\d_].*\s{_ARABIC}")
_NUMBERED = re.compile(
    r"(?:(?:chapter|appendix|part|kapitel|anhang)\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.?\s"
)
_TITLE_PREFIX = (
    r"(?:(?:appendix|anhang|chapter|kapitel)\s+\S{1,4}\.?\s+"
    r"|(?:\d{1,3}|[A-Z])(?:\.\d{1,3})*\.?\s+)?"
)
"""A section number or "Appendix D" before a title ("D.1 Index of …")."""
_CONTENTS_TITLE = re.compile(
    _TITLE_PREFIX + r"(?:(?:table\s+of\s+)?contents|inhalt(?:sverzeichnis)?|sommaire"
    r"|table\s+des\s+mati[eè]res|[íi]ndice(?:\s+general)?"
    r"|list\s+of\s+(?:figures|tables|examples|listings|illustrations)"
    r"|abbildungsverzeichnis|tabellenverzeichnis)",
    re.I,
)
_INDEX_TITLE = re.compile(
    _TITLE_PREFIX + r"(?:(?:[\w\-]+\s+(?:(?:and|und|&)\s+)?){0,4}"
    # Not a bare "Register": "Federal Register" is a masthead, "Register" a CPU's.
    r"(?:index|indexes|indices|indizes|(?:sach|stichwort|namens|personen)(?:register|verzeichnis))"
    r"|(?:index|indexes)\s+of\s+[^\W\d_][\w\s\-]{0,60})",
    re.I,
)
_BARE_LABEL = re.compile(
    r"(?:chapter|part|appendix|section|lecture|lesson|unit|book|volume"
    r"|kapitel|teil|anhang|abschnitt|chapitre|partie|cap[ií]tulo|parte)\s+\d{1,4}",
    re.I,
)
"""A heading's label on a row of its own ("Chapter 2" over "Installation", as LaTeX's book
class sets it): it ends in a number, yet names nothing a page number could point to."""
_LETTER = re.compile(r"\S{1,3}")
_SENTENCE_END = re.compile(r"[.!?:]$")


class NavigationKind(StrEnum):
    """What a removed run was."""

    CONTENTS = "contents"
    INDEX = "index"


class Entry(StrEnum):
    """How a single row reads as a navigation entry."""

    LEADER = "leader"
    """``Title … 12``: strong."""
    COMMA = "comma"
    """``term, 12, 34`` or ``term, see other``: strong."""
    PAGE_END = "page_end"
    """``1 Definition of CRC 2``: weak, a number at the end may be anything."""


_STRONG: Final = frozenset({Entry.LEADER, Entry.COMMA})

Key = tuple[int, int, int]
"""(page index, region index, row index), as ``_pdf_headings.LineKey``."""


@dataclass(frozen=True, slots=True)
class NavigationRun:
    """One removed run: its kind and every row it covers (titles included)."""

    kind: NavigationKind
    rows: tuple[Key, ...]


def entry_kind(line: Line) -> Entry | None:
    """How ``line`` reads as a TOC or index entry, None when it does not."""
    text = line.text
    if line.mono or len(line.cells) > 2 or not text or len(text) > _MAX_ENTRY_CHARACTERS:
        return None
    words = len(text.split())
    if words > _MAX_WORDS:
        return None
    if _LEADER_ENTRY.fullmatch(text):
        return Entry.LEADER
    if words > _MAX_SHORT_WORDS:
        return None
    if _COMMA_ENTRY.fullmatch(text):
        return Entry.COMMA
    if _PAGE_END.fullmatch(text) and not _BARE_LABEL.fullmatch(text):
        return Entry.PAGE_END
    return None


def title_kind(text: str) -> NavigationKind | None:
    """The kind of navigation a title row announces ("Contents", "Concept Index")."""
    text = " ".join(text.split())
    if _CONTENTS_TITLE.fullmatch(text):
        return NavigationKind.CONTENTS
    if _INDEX_TITLE.fullmatch(text):
        return NavigationKind.INDEX
    return None


def find_navigation(pages: Sequence[Sequence[Sequence[Line]]]) -> list[NavigationRun]:
    """Every table-of-contents and index run of ``pages`` (pages → regions → rows)."""
    flat = [
        ((page, region, row), line)
        for page, regions in enumerate(pages)
        for region, lines in enumerate(regions)
        for row, line in enumerate(lines)
    ]
    kinds = [entry_kind(line) for _key, line in flat]
    runs: list[NavigationRun] = []
    start = 0
    while start < len(flat):
        if kinds[start] is None:
            start += 1
            continue
        end = _run_end(kinds, start)
        before, announced = _lead(flat, start)
        run = kinds[start : end + 1]
        if _qualifies(run, [flat[i][1] for i in range(start, end + 1)], announced):
            kind = announced or _guess_kind(run)
            rows = tuple(flat[i][0] for i in range(before, end + 1))
            runs.append(NavigationRun(kind, rows))
        start = end + 1
    return runs


def _run_end(kinds: Sequence[Entry | None], start: int) -> int:
    """The last entry of the run starting at ``start`` (gaps up to ``MAX_GAP`` rows)."""
    end = start
    gap = 0
    for index in range(start + 1, len(kinds)):
        kind = kinds[index]
        if kind in _STRONG or (kind is not None and gap == 0):
            end, gap = index, 0
            continue
        gap += 1
        if gap > MAX_GAP:
            break
    return end


def _lead(flat: Sequence[tuple[Key, Line]], start: int) -> tuple[int, NavigationKind | None]:
    """Where the run's lead-in starts and the kind its title announces.

    Read backwards from the first entry: up to ``_MAX_LEAD`` short rows (index letters,
    an index's first headword such as "Abbildung" over "affine, 107"), then up to two
    title rows ("Appendix D Indexes" over "D.1 Index of …"). Without a title nothing
    is taken: the run starts at its first entry and is judged bare."""
    index = start
    lead = 0
    while lead < _MAX_LEAD and index > lead and _is_lead(flat[index - lead - 1][1]):
        if title_kind(flat[index - lead - 1][1].text) is not None:
            break
        lead += 1
    announced: NavigationKind | None = None
    for skipped in range(lead + 1):
        announced, first = _titles(flat, index - skipped)
        if announced is not None:
            return first, announced
    return start, None


def _titles(flat: Sequence[tuple[Key, Line]], index: int) -> tuple[NavigationKind | None, int]:
    """The kind announced by up to ``_MAX_TITLES`` title rows right before ``index``
    (the nearest title decides) and the first of those rows."""
    announced: NavigationKind | None = None
    titles = 0
    while titles < _MAX_TITLES and index > 0:
        kind = title_kind(flat[index - 1][1].text)
        if kind is None:
            break
        announced = announced or kind
        index -= 1
        titles += 1
    return announced, index


def _is_lead(line: Line) -> bool:
    """A short row that may stand between a title and the first entry."""
    return _LETTER.fullmatch(line.text) is not None or (
        len(line.text.split()) <= _MAX_LEAD_WORDS and not _SENTENCE_END.search(line.text)
    )


def _qualifies(
    run: Sequence[Entry | None], lines: Sequence[Line], announced: NavigationKind | None
) -> bool:
    """Whether a run is navigation (see the module docstring for the rules)."""
    entries = [kind for kind in run if kind is not None]
    if len(entries) < DENSITY * len(run):
        return False
    strong = sum(kind in _STRONG for kind in entries)
    if announced is not None and len(entries) >= 2:
        if strong:
            return True
        # A bare "Title 12" list counts only under a contents title and numbered like a
        # TOC; under "Index" it may be a table of index names and sizes.
        numbered = sum(
            _NUMBERED.match(line.text) is not None
            for line, kind in zip(lines, run, strict=True)
            if kind is not None
        )
        return announced is NavigationKind.CONTENTS and numbered * 2 >= len(entries)
    if len(entries) >= MIN_ENTRIES and strong >= max(3, len(entries) / 2):
        return True
    # A chapter's own contents under its heading (doxygen's manual, LaTeX's minitoc):
    # short, untitled, yet every row a dotted section number, a leader and a page.
    return len(entries) >= 2 and all(
        kind is Entry.LEADER and len(heading_number(line.text) or ()) > 1
        for line, kind in zip(lines, run, strict=True)
    )


def _guess_kind(run: Sequence[Entry | None]) -> NavigationKind:
    """Untitled: comma references are an index's, leaders mostly a table of contents'."""
    commas = sum(kind is Entry.COMMA for kind in run)
    leaders = sum(kind is Entry.LEADER for kind in run)
    return NavigationKind.INDEX if commas > leaders else NavigationKind.CONTENTS
