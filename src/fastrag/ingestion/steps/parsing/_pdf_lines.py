"""Rows of text: the spans of one printed row of one region joined into a ``Line``.

Spans arrive in reading order (``_pdf_columns``); a row is a run of consecutive spans
whose baselines agree and that move rightwards. Several spans on a row are kept as the
row's ``cells`` (a term and its definition, the cells of a table row), and the row's
font facts are those of its longest span, boldness and monospacing of all of them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import Line, Span

__all__ = [
    "BULLET",
    "BULLETS",
    "DASH",
    "LEADER",
    "LIST_NUMBER",
    "is_leader_row",
    "line_pitches",
    "pitch",
    "region_lines",
    "size_key",
    "starts_list_item",
]

# Dot leaders, ". . . . ." and "....."; the whitespace around one goes with it
# (``_shortened``), added by hand: a pattern opening on ``\s*`` is tried again from every
# space of a long run of spaces with no dots after it (quadratic in the run's length).
_SPACED_DOTS: Final = re.compile(r"\.?(?:\.\s){4,}\.?")
_DOTS: Final = re.compile(r"(?:\.\s?){5,}")
BULLETS: Final = "•◦▪▫●○■□►▸▹‣⁃∙·➢➤✓✔❖◆◇♦"
"""Characters that open a bulleted list item."""
BULLET: Final = re.compile(rf"[{BULLETS}]\s*")
DASH: Final = re.compile(r"[-–—*]\s+")
LIST_NUMBER: Final = re.compile(
    r"(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)]\s+|\((?:\d{1,3}|[a-z]|[ivx]{1,4})\)\s+|\[\d{1,3}\]\s+",
    re.I,
)
"""A list item's number: "1.", "a)", "(iv)"; "[12]", a numbered reference list's."""


def starts_list_item(text: str) -> bool:
    """Whether ``text`` opens with a list item's bullet, dash or number."""
    return bool(BULLET.match(text) or DASH.match(text) or LIST_NUMBER.match(text))


LEADER: Final = " … "
"""What a dot leader (``Title . . . . . 12`` in a table of contents) is shortened to."""
_LEADER_ROW: Final = re.compile(r" … [^…]{0,20}$")
_SCRIPT_SIZE: Final = 0.85
"""A span set below this share of its neighbour's size is a superscript or subscript."""
_SCRIPT_SHIFT: Final = 0.5
"""How far (in ems of the larger size) a script's baseline may sit from its row's."""


def is_leader_row(line: Line) -> bool:
    """A table-of-contents or index row: a dot leader then a short page reference."""
    return _LEADER_ROW.search(line.text) is not None


def line_pitches(pages: Sequence[Sequence[Sequence[Line]]]) -> dict[float, float]:
    """The usual baseline-to-baseline distance per font size (rounded to 0.5 pt)."""
    steps: dict[float, Counter[float]] = {}
    for regions in pages:
        for lines in regions:
            for above, below in pairwise(lines):
                if abs(above.size - below.size) > 0.25:
                    continue
                step = round(below.baseline - above.baseline, 1)
                if 0 < step < 3 * max(above.size, 1.0):
                    steps.setdefault(size_key(above.size), Counter())[step] += 1
    return {size: counter.most_common(1)[0][0] for size, counter in steps.items()}


def size_key(size: float) -> float:
    """A font size rounded to half a point: sizes that differ by rounding are one size."""
    return round(size * 2) / 2


def pitch(size: float, pitches: Mapping[float, float]) -> float:
    """The usual line pitch of rows of ``size`` (``line_pitches``), else 1.2 sizes."""
    return pitches.get(size_key(size), 1.2 * max(size, 1.0))


def region_lines(spans: Sequence[Span]) -> list[Line]:
    """The rows of one region, in order."""
    lines: list[Line] = []
    row: list[Span] = []
    for span in spans:
        if row and _same_row(row[-1], span):
            row.append(span)
            continue
        if row:
            lines.append(_line(row))
        row = [span]
    if row:
        lines.append(_line(row))
    return lines


def _same_row(previous: Span, span: Span) -> bool:
    em = max(previous.size, span.size, 1.0)
    # A superscript (a power, a footnote mark) is set smaller and raised about 0.35-0.45
    # em: "S" then "2" then the rest of the row, where the exact tolerance read three
    # rows, each its own paragraph ("Die Kugeloberfläche S", "2", "lässt sich …").
    scripted = min(previous.size, span.size) < _SCRIPT_SIZE * em
    return (
        abs(previous.baseline - span.baseline) <= (_SCRIPT_SHIFT if scripted else 0.35) * em
        and span.box.x0 >= previous.box.x1 - 0.6 * em
        and not previous.hyphenated
    )


def _line(row: list[Span]) -> Line:
    box = row[0].box
    for span in row[1:]:
        box = box.union(span.box)
    main = max(row, key=lambda s: len(s.text))
    mono = all(span.mono for span in row)
    cells = tuple(_shorten(span.text, mono) for span in row)
    return Line(
        " ".join(cells),
        box,
        main.size,
        all(span.bold for span in row),
        mono,
        row[-1].hyphenated,
        cells,
        tuple(span.box for span in row),
        main.baseline,
    )


def _shorten(text: str, mono: bool) -> str:
    """``text`` with its dot leaders shortened to one ellipsis."""
    if ". ." not in text and (mono or "....." not in text):
        return text
    short = _shortened(_SPACED_DOTS, text)
    if not mono:
        short = _shortened(_DOTS, short)
    return short.strip() or text


def _shortened(leader: re.Pattern[str], text: str) -> str:
    """``text`` with each match of ``leader`` and the whitespace around it as ``LEADER``."""
    parts: list[str] = []
    done = 0
    for match in leader.finditer(text):
        start, end = match.span()
        while start > done and text[start - 1].isspace():
            start -= 1
        while end < len(text) and text[end].isspace():
            end += 1
        parts += (text[done:start], LEADER)
        done = end
    parts.append(text[done:])
    return "".join(parts)
