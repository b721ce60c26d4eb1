"""Headings: from the document outline when it has one, else from fonts.

*Outline*: each bookmark is looked for on the page it points to — a row (or two or
three consecutive rows) whose letters and digits equal the bookmark's title, with or
without a leading section number ("3.1 Shell Syntax" matches "Shell Syntax"). Its
depth in the outline is the heading level. The outline is used when at least half of
its entries are found; otherwise the fonts decide. Rows the outline leaves out but set
in the style of its headings (front matter, unlisted subsections) join them
(``_with_unlisted``).

*Layout*: the body size is the size most characters are set in. A row is a heading
candidate when it is larger than body text (``SIZE_RATIO``) or wholly bold at body size,
holds a few words with letters, is not monospaced, a table row or a caption; one to
three consecutive candidate rows of one style (sizes within 10 %) form one heading. A
numbered row ending in a page number beside other such rows is a table-of-contents
entry, not a heading. A style that sets too
much of the text is body text, not a heading style. A numbered heading's level is the
depth its number states ("3.1.2" → 3); an unnumbered one takes its style's level (the
depth its numbered headings state, else one below the nearest larger numbered style);
without any numbering, levels are the rank of the style: larger first, bold first. In
a document of three pages or more, a style used only on the first page is the title
page's: only its largest (the title) stays a heading, authors and affiliations do not;
a style used four times or more on one other page only letters a figure. Last, a
numbered heading whose number does not continue the numbered headings open above it
("2.1.7" under "Chapter 1" and "1.2", as in an excerpt that skips chapter 2's opening
pages) closes them: it takes the level of the first one it contradicts
(``_nest_by_number``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import Line
from fastrag.ingestion.steps.parsing._pdf_lines import (
    BULLETS,
    is_leader_row,
    line_pitches,
    pitch,
    starts_list_item,
)
from fastrag.ingestion.steps.parsing._pdf_outline import OutlineEntry

__all__ = [
    "SIZE_RATIO",
    "Headings",
    "LineKey",
    "PageLines",
    "detect_headings",
    "heading_number",
    "title_key",
]

LineKey = tuple[int, int, int]
"""(page index, region index, row index)."""
PageLines = Sequence[Sequence[Sequence[Line]]]
"""Pages → regions in reading order → rows."""
Style = tuple[float, bool]
"""(size rounded to half a point, bold) of a heading candidate."""

SIZE_RATIO: Final = 1.08
_MAX_LINES: Final = 3
_MAX_WORDS: Final = 20
_MAX_CHARS: Final = 200
_MAX_STYLE_SHARE: Final = 0.2
"""A style setting more than this share of all characters is not a heading style."""
_CAPTION = re.compile(r"(?:table|figure|fig\.|listing|algorithm|abbildung|tabelle)\s*[\dA-Z]", re.I)
_NUMBERING = re.compile(
    r"(?:(?:chapter|appendix|section|part|kapitel|anhang)\s+)?"
    r"(?:\d+|[A-Z]|[IVXLC]+)(?:[.\-]\d+)*\.?\s+",
    re.I,
)
_NOT_WORD = re.compile(r"[\W_]+")
_PAGE_NUMBER = re.compile(r"\D\s\d{1,4}$")
_PITCH_SLACK: Final = 1.1
"""Baseline distance, in line pitches, up to which two rows are lines of one paragraph."""
_TERM_INDENT: Final = 1.5
"""Ems a hanging definition starts right of its term (man pages: 3.6 for ``.TP``, 2 for
asciidoc's ``.RS 4``)."""
_MARGIN_SHARE: Final = 0.05
"""Share of the prose rows an x must start to count as the text margin."""
_TITLE_SLACK: Final = 0.05
"""Sizes within this share of the largest first-page style may set the title instead."""
_MAX_PITCH: Final = 1.5
"""The widest line pitch, in font sizes, a paragraph is taken to be set at."""
_SIZE_SLACK: Final = 0.1
"""Relative size difference still one heading style for a heading's further rows."""
_DEPTH = re.compile(
    r"(?:(?:chapter|kapitel|part|teil)\s+(?:\d{1,3}|[IVXLC]+)\b|(?:appendix|anhang)\s+[A-Z]\b"
    r"|(?P<digits>\d{1,3}(?:\.\d{1,3})*)\.?(?=\s)|(?P<letter>[A-Z](?:\.\d{1,3})+)\.?(?=\s))",
    re.I,
)
"""Heading numbering that states a depth: "Chapter 2", "Appendix B", "3.1.2", "A.1"."""
_NUMBER_PARTS = re.compile(
    r"(?:(?:chapter|kapitel)\s+(?P<chapter>\d{1,3})|(?:appendix|anhang)\s+(?P<appendix>[A-Z])"
    r"|(?P<dotted>\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+))\.?(?=\s|$)",
    re.I,
)
"""Hierarchical heading numbers: "3.1.2", "A.1", "Chapter 4", "Appendix B"."""
_WORD = re.compile(r"[^\W\d_]{2,}")
_LABEL = re.compile(
    r"(?:definition|bemerkung|beispiel|satz|lemma|theorem|proposition|corollary|korollar"
    r"|proof|beweis|example|remark|note|hinweis|folgerung|aufgabe|exercise|claim)\b",
    re.I,
)
"""Run-in labels of theorem-like paragraphs ("Definition 3", "Remark"): bold at body
size, but they head a paragraph, not a section."""


@dataclass(frozen=True, slots=True)
class Headings:
    """Which rows are headings, at which level, and where the levels came from."""

    levels: Mapping[LineKey, int] = field(default_factory=dict)
    """The first row of each heading → its level (1–6)."""
    continued: frozenset[LineKey] = frozenset()
    """Rows that continue the heading on the row before them."""
    source: str = "none"
    """``"outline"``, ``"layout"`` or ``"none"``."""
    unmatched: int = 0
    """Outline entries not found on their page (when the outline was used)."""


def title_key(text: str) -> str:
    """A title reduced to lowercase letters and digits, for matching."""
    return _NOT_WORD.sub("", text.casefold())


def _keys(text: str) -> set[str]:
    """The title with and without its leading section number."""
    keys = {title_key(text)}
    stripped = _NUMBERING.match(text)
    if stripped is not None and stripped.end() < len(text):
        keys.add(title_key(text[stripped.end() :]))
    keys.discard("")
    return keys


def detect_headings(
    pages: PageLines,
    outline: Sequence[OutlineEntry],
    body_size: float,
    *,
    use_outline: bool = True,
    pitches: Mapping[float, float] | None = None,
) -> Headings:
    """The headings of ``pages``: outline-matched when possible, else font-based.

    ``pitches`` are the document's ``line_pitches`` when the caller has them."""
    if use_outline and outline:
        matched = _from_outline(pages, outline, body_size)
        if len(matched.levels) * 2 >= len(outline):
            if pitches is None:
                pitches = line_pitches(pages)
            return _with_unlisted(pages, matched, body_size, pitches)
    return _from_layout(pages, body_size)


def _with_unlisted(
    pages: PageLines, matched: Headings, body: float, pitches: Mapping[float, float]
) -> Headings:
    """The outline's headings, plus rows set in their style that the outline leaves out.

    Outlines often skip the front matter and the smallest headings: GeoTopo's bookmarks
    start at chapter 1, yet "Vorwort", "Danksagungen" and "Was ist Topologie?" are set in
    its 14.3 pt section style, and read as paragraphs one of them dangled at the end of
    a chunk. A row becomes a heading here only when it passes the font-based candidate
    test (``_region_groups``) in exactly the (size, bold) style of outline headings
    larger than body text, which sets no more than ``_MAX_STYLE_SHARE`` of the text, and
    not in the title block of a document of three pages or more: its first page up to
    the first outline heading there (Bash's manual sets its authors in a heading style;
    an ACM paper's "CCS CONCEPTS" after its bookmarked ABSTRACT is a heading). Nor
    when it reads as text set in that style (``_stands_apart``) or stands in a stack of
    such rows. It takes the level the outline gives that style most often.
    """
    found: dict[Style, Counter[int]] = {}
    for (page, region, row), level in matched.levels.items():
        style = _candidate_style(pages[page][region][row], body)
        if style is not None and style[0] >= body * SIZE_RATIO:
            found.setdefault(style, Counter())[level] += 1
    if not found:
        return matched
    groups, allowed = _candidates(pages, body)
    levels = dict(matched.levels)
    continued = set(matched.continued)
    # The title page's title block (authors, affiliations) ends at its first outline
    # heading (a paper's ABSTRACT); a title page without one is all title block.
    opening = (0, -1, -1)
    if len(pages) >= 3:
        opening = min((key for key in matched.levels if key[0] == 0), default=(1, -1, -1))
    taken = levels.keys() | continued
    unlisted = [
        (first, count, style)
        for first, count, style in groups
        if style in found
        and style in allowed
        and first >= opening
        and taken.isdisjoint(_rows(first, count))
    ]
    # Unlisted rows of one style right after one another are a list set in that style
    # (doxygen's table of Greek letters), not headings.
    starts = {first: style for first, _count, style in unlisted}
    ends = {_rows(first, count + 1)[-1]: style for first, count, style in unlisted}
    for first, count, style in unlisted:
        page, region, row = first
        if (
            ends.get(first) == style
            or starts.get((page, region, row + count)) == style
            or not _stands_apart(pages[page][region], row, count, pitches)
        ):
            continue
        levels[first] = found[style].most_common(1)[0][0]
        continued.update(_rows(first, count)[1:])
    return Headings(levels, frozenset(continued), matched.source, matched.unmatched)


def _rows(first: LineKey, count: int) -> list[LineKey]:
    """The keys of ``count`` rows from ``first`` down its region."""
    page, region, row = first
    return [(page, region, row + step) for step in range(count)]


def _stands_apart(
    lines: Sequence[Line], row: int, count: int, pitches: Mapping[float, float]
) -> bool:
    """Whether rows ``[row, row + count)`` are set apart as a heading is, not as prose.

    A row the outline does not list is a heading only by its style, and a style can be
    shared by chance: doxygen's manual bookmarks five file names set in the size of
    hundreds of its list items and wrapped paragraph lines. Those read as running text:
    a bullet opens them, a period ends them, or the row above or below sits at the
    paragraph's usual line pitch. A heading has space around it.
    """
    first, last = lines[row], lines[row + count - 1]
    text = " ".join(line.text for line in lines[row : row + count])
    if text[:1] in BULLETS or text.endswith("."):
        return False
    if row > 0 and _at_line_pitch(lines[row - 1], first, lines[row - 1], pitches):
        return False
    following = lines[row + count] if row + count < len(lines) else None
    return following is None or not _at_line_pitch(last, following, following, pitches)


def _at_line_pitch(above: Line, below: Line, text: Line, pitches: Mapping[float, float]) -> bool:
    """``below`` follows ``above`` as the next line of ``text``'s paragraph would.

    The pitch is the neighbouring text's, and never over ``_MAX_PITCH`` sizes: the
    "pitch" measured for a heading size is the step between headings that follow one
    another, not between the lines of a paragraph.
    """
    step = below.baseline - above.baseline
    line_pitch = min(pitch(text.size, pitches), _MAX_PITCH * text.size)
    return 0 < step <= _PITCH_SLACK * line_pitch


def _from_outline(pages: PageLines, outline: Sequence[OutlineEntry], body: float) -> Headings:
    levels: dict[LineKey, int] = {}
    continued: set[LineKey] = set()
    unmatched = 0
    for entry in outline:
        found = _find(pages, entry, body, levels, continued)
        if found is None:
            unmatched += 1
            continue
        first, rows = found
        levels[first] = min(entry.level, 6)
        continued.update((first[0], first[1], first[2] + step) for step in range(1, rows))
    return Headings(levels, frozenset(continued), "outline", unmatched)


def _find(
    pages: PageLines,
    entry: OutlineEntry,
    body: float,
    taken: Mapping[LineKey, int],
    continued: set[LineKey],
) -> tuple[LineKey, int] | None:
    """The first free row (and how many rows) on the entry's page spelling its title."""
    targets = _keys(entry.title)
    if not targets:
        return None
    # A destination may sit at the foot of the page before its heading.
    for index, prominent_only in (
        (entry.page - 1, True),
        (entry.page - 1, False),
        (entry.page, True),
    ):
        if index >= len(pages):
            continue
        for region_index, lines in enumerate(pages[index]):
            for row, line in enumerate(lines):
                key = (index, region_index, row)
                if key in taken or key in continued:
                    continue
                if prominent_only and not (line.bold or line.size >= body * SIZE_RATIO):
                    continue
                text = ""
                for count in range(1, _MAX_LINES + 1):
                    if row + count > len(lines):
                        break
                    text = f"{text} {lines[row + count - 1].text}".strip()
                    if _keys(text) & targets:
                        return key, count
    return None


def _candidates(
    pages: PageLines, body: float
) -> tuple[list[tuple[LineKey, int, Style]], set[Style]]:
    """Accepted heading groups (first row, rows, style) in order, and the styles that
    set no more than ``_MAX_STYLE_SHARE`` of the text (rejected groups count too)."""
    groups: list[tuple[LineKey, int, Style]] = []
    style_chars: Counter[Style] = Counter()
    total = 0
    margin = _text_margin(pages)
    for page_index, regions in enumerate(pages):
        for region_index, lines in enumerate(regions):
            total += sum(len(line.text) for line in lines)
            for row, count, style, accepted in _region_groups(lines, body, margin):
                style_chars[style] += sum(len(line.text) for line in lines[row : row + count])
                if accepted:
                    groups.append(((page_index, region_index, row), count, style))
    allowed = {style for style, chars in style_chars.items() if chars <= _MAX_STYLE_SHARE * total}
    return groups, allowed


def _text_margin(pages: PageLines) -> float:
    """The leftmost x at which the document's prose rows commonly start (rounded to a
    point; at least ``_MARGIN_SHARE`` of them): the margin a definition's term stands
    at, and a man page's subsection heading is outdented from."""
    starts: Counter[int] = Counter(
        round(line.x0)
        for regions in pages
        for lines in regions
        for line in lines
        if not line.bold and not line.mono
    )
    total = starts.total()
    return float(min((x for x, n in starts.items() if n >= _MARGIN_SHARE * total), default=0))


def _from_layout(pages: PageLines, body: float) -> Headings:
    groups, allowed = _candidates(pages, body)
    if len(pages) >= 3:
        allowed -= _one_page_styles(groups, pages)
    kept = [(key, count, style) for key, count, style in groups if style in allowed]
    depths = {key: _depth(pages[key[0]][key[1]][key[2]].text) for key, _count, _style in kept}
    style_level = _style_levels([(style, depths[key]) for key, _count, style in kept])
    levels: dict[LineKey, int] = {}
    continued: set[LineKey] = set()
    for key, count, style in kept:
        levels[key] = min(depths[key] or style_level[style], 6)
        continued.update((key[0], key[1], key[2] + step) for step in range(1, count))
    titles = {key: pages[key[0]][key[1]][key[2]].text for key in levels}
    levels = _nest_by_number(levels, titles)
    return Headings(levels, frozenset(continued), "layout" if levels else "none")


def heading_number(text: str) -> tuple[str, ...] | None:
    """The parts of a heading's hierarchical number: "3.1.2 Quoting" → ("3", "1", "2"),
    "Chapter 2. Roles" → ("2",), "Appendix B" → ("B",), "A.1 Syntax" → ("A", "1");
    None when unnumbered. Parts ("Part II") are numbered apart from their chapters, so
    they state no number here."""
    match = _NUMBER_PARTS.match(text)
    if match is None:
        return None
    number = match.group("chapter") or match.group("appendix") or match.group("dotted")
    return tuple(number.casefold().split("."))


def _nest_by_number(
    levels: Mapping[LineKey, int], titles: Mapping[LineKey, str]
) -> dict[LineKey, int]:
    """Levels with numbered headings put under the parents their numbers name.

    Font levels nest a heading under whatever heading is open above it. A heading
    numbered "2.1.7" after "Chapter 1" and "1.2" (a sampled or excerpted document that
    lacks "Chapter 2" and "2.1") would sit in chapter 1. Going through the headings in
    order with a stack of the open ones, a numbered heading's open numbered ancestors
    must each number a prefix of its number; at the first that does not, the heading
    takes that ancestor's level, which closes it and everything below it. Unnumbered
    headings ("Authors", "Contents") are transparent: they neither contradict nor
    vouch for a number. Only ever lowers a level number, so no heading goes deeper.
    """
    stack: list[tuple[int, tuple[str, ...] | None]] = []
    result: dict[LineKey, int] = {}
    for key in sorted(levels):
        level = levels[key]
        number = heading_number(titles[key])
        if number is not None:
            for open_level, open_number in stack:
                if open_level >= level:
                    break
                if open_number is not None and not (
                    len(open_number) < len(number) and number[: len(open_number)] == open_number
                ):
                    level = open_level
                    break
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, number))
        result[key] = level
    return result


def _one_page_styles(
    groups: list[tuple[LineKey, int, tuple[float, bool]]], pages: PageLines
) -> set[tuple[float, bool]]:
    """Styles that letter one page only: not heading styles of a document of 3+ pages.

    A style seen only on the first page is the title page's (authors, affiliations,
    dates); only the document title's stays: the largest, unless a style within
    ``_TITLE_SLACK`` of its size sets more text (an Elsevier article's masthead names
    its journal a shade larger than the article's two-row title). A style used four
    times or more on one other page and nowhere else letters a figure or a form.
    """
    seen_on: dict[tuple[float, bool], set[int]] = {}
    counts: Counter[tuple[float, bool]] = Counter()
    chars: Counter[tuple[float, bool]] = Counter()
    for (page, region, row), count, style in groups:
        seen_on.setdefault(style, set()).add(page)
        counts[style] += 1
        chars[style] += sum(len(line.text) for line in pages[page][region][row : row + count])
    front = {style for style, seen in seen_on.items() if seen == {0}}
    if front:
        largest = max(front)[0]
        near = [style for style in front if style[0] >= (1 - _TITLE_SLACK) * largest]
        front.discard(max(near, key=lambda style: (chars[style], style)))
    lettering = {
        style
        for style, seen in seen_on.items()
        if len(seen) == 1 and 0 not in seen and counts[style] >= 4
    }
    return front | lettering


Group = tuple[int, int, tuple[float, bool], bool]
"""(first row, rows, style, accepted as a heading) of consecutive candidate rows."""


def _region_groups(lines: Sequence[Line], body: float, margin: float) -> list[Group]:
    """Candidate rows of one region grouped: up to three close rows of one style.

    Rejected (but still counted for the style's share): too long, a bold phrase that
    runs on into a lowercase line, a bold body-size term over its hanging definition,
    and bold body-size rows stacked one after another (a bold figure or table body,
    not headings)."""
    groups: list[Group] = []
    row = 0
    while row < len(lines):
        style = _candidate_style(lines[row], body)
        if style is None:
            row += 1
            continue
        count = 1
        while (
            row + count < len(lines)
            and _same_style(_candidate_style(lines[row + count], body), style)
            and _close(lines[row + count - 1], lines[row + count])
            and not _NUMBERING.match(lines[row + count].text)
        ):
            count += 1
        chars = sum(len(line.text) for line in lines[row : row + count])
        following = lines[row + count] if row + count < len(lines) else None
        runs_on = (
            following is not None
            and style[0] < body * SIZE_RATIO
            and not following.mono
            and following.text[:1].islower()
            # A sentence runs on at line pitch and at the same margin; text set apart
            # below the row or indented under it is its section's (man−db's manual:
            # "4.2. Compressed cat pages" over "man−db compresses …"; a man page's
            # "DESCRIPTION" over "ssh (SSH client) is …").
            and _next_line(lines[row + count - 1], following)
            and following.x0 < lines[row].x0 + _TERM_INDENT * max(following.size, 1.0)
        )
        toc = _toc_entry(lines, row, count)
        term = style[0] < body * SIZE_RATIO and _defines(lines, row + count - 1, margin)
        groups.append(
            (
                row,
                count,
                style,
                count <= _MAX_LINES
                and chars <= _MAX_CHARS
                and not runs_on
                and not toc
                and not term,
            )
        )
        row += count
    stacked: set[int] = set()
    for index in range(len(groups) - 1):
        (row, count, style, _ok), (after, _count, other, _ok2) = groups[index : index + 2]
        if (
            row + count == after
            and style == other
            and style[0] < body * SIZE_RATIO
            and not _opens(lines[row].text, lines[after].text)
        ):
            stacked.update((index, index + 1))
    return [
        (row, count, style, ok and index not in stacked)
        for index, (row, count, style, ok) in enumerate(groups)
    ]


def _defines(lines: Sequence[Line], row: int, margin: float) -> bool:
    """Whether row ``row``, bold, is a term over its hanging definition.

    The term stands at the document's text ``margin`` (a man page's subsection heading
    is outdented from it), and the next row, close under it, starts ``_TERM_INDENT`` ems
    or more to its right and is prose, not a list item (a man page's option or variable
    over its description, Texinfo's ``@table``, DocBook's variable lists); the next
    line of the same paragraph (at line pitch) back at the term's margin and not bold
    would make it a paragraph's indented first line instead.
    """
    term = lines[row]
    following = lines[row + 1] if row + 1 < len(lines) else None
    if (
        following is None
        or term.x0 < margin - 0.5 * max(term.size, 1.0)
        or following.mono
        or not _close(term, following)
        or starts_list_item(following.text)
        or following.x0 - term.x0 < _TERM_INDENT * max(term.size, 1.0)
    ):
        return False
    after = lines[row + 2] if row + 2 < len(lines) else None
    return not (
        after is not None
        and _next_line(following, after)
        and not after.bold
        and after.x0 < following.x0 - 0.5 * max(after.size, 1.0)
    )


def _opens(upper: str, lower: str) -> bool:
    """Whether heading ``lower`` is numbered as the first child of heading ``upper``
    ("2. The specifics of Sections" right over "2.1. Package specific …"): a section
    opening on its first subsection, not two rows of a bold table."""
    parent, child = heading_number(upper), heading_number(lower)
    return parent is not None and child == (*parent, "1")


def _next_line(above: Line, below: Line) -> bool:
    """``below`` sits where the next line of ``above``'s paragraph would: at most
    ``_MAX_PITCH`` sizes under it (paragraph spacing puts it further)."""
    return 0 < below.baseline - above.baseline <= _MAX_PITCH * max(below.size, 1.0)


def _same_style(style: tuple[float, bool] | None, first: tuple[float, bool]) -> bool:
    """A row continuing a heading: same boldness, size within ``_SIZE_SLACK`` (a cover
    title set 33 pt then 30 pt to fit is still one title)."""
    if style is None or style[1] != first[1]:
        return False
    return abs(style[0] - first[0]) <= _SIZE_SLACK * first[0]


def _toc_entry(lines: Sequence[Line], row: int, count: int) -> bool:
    """A table-of-contents entry set in a heading's style: numbered, ending in a page
    number ("4 Efficient software implementation 7"), next to a row that also ends in a
    number or a dot leader (a single heading like "3 Results for n = 8" stays)."""
    text = " ".join(line.text for line in lines[row : row + count])
    if not (_NUMBERING.match(text) and _PAGE_NUMBER.search(text)):
        return False
    neighbours = (lines[index] for index in (row - 1, row + count) if 0 <= index < len(lines))
    return any(is_leader_row(line) or _PAGE_NUMBER.search(line.text) for line in neighbours)


def _depth(text: str) -> int:
    """The depth a heading's own numbering states ("3.1.2 Quoting" → 3), 0 if none."""
    match = _DEPTH.match(text)
    if match is None:
        return 0
    dotted = match.group("digits") or match.group("letter")
    return 1 if dotted is None else dotted.count(".") + 1


def _style_levels(headings: list[tuple[tuple[float, bool], int]]) -> dict[tuple[float, bool], int]:
    """A level per style: the depth its numbered headings mostly state; a style without
    numbered headings goes one below the nearest larger numbered style (or at the top).

    Without any numbering, levels are simply the rank of the style (larger first, bold
    before regular at one size)."""
    stated: dict[tuple[float, bool], Counter[int]] = {}
    for style, depth in headings:
        counter = stated.setdefault(style, Counter())
        if depth:
            counter[depth] += 1
    ranked = sorted(stated, reverse=True)
    if not any(stated.values()):
        return {style: min(index + 1, 6) for index, style in enumerate(ranked)}
    levels: dict[tuple[float, bool], int] = {}
    above = 0
    for style in ranked:
        if stated[style]:
            levels[style] = stated[style].most_common(1)[0][0]
            above = levels[style]
        else:
            levels[style] = min(above + 1, 6)
    return levels


def _candidate_style(line: Line, body: float) -> tuple[float, bool] | None:
    """(size, bold) when ``line`` looks like a heading row by itself, else None."""
    if line.mono or line.hyphenated or body <= 0 or is_leader_row(line):
        return None
    text = line.text
    if len(line.cells) > 1 and not _NUMBERING.fullmatch(line.cells[0] + " "):
        return None
    letters = sum(char.isalpha() for char in text)
    if letters < 0.3 * len(text) or len(text.split()) > _MAX_WORDS or not _WORD.search(text):
        return None
    if _CAPTION.match(text) or text.endswith((",", ";")):
        return None
    if line.size >= body * SIZE_RATIO:
        return round(line.size * 2) / 2, line.bold
    if not line.bold or line.size < body * 0.95 or text.endswith((".", ":")):
        return None
    first = next((char for char in text if char.isalpha()), "")
    number = _NUMBERING.match(text)
    # A lowercase start is a run-in phrase, unless a section number stands before it
    # ("1.1. man−db": a program's name).
    lowercase = first.islower() and not (number and len(heading_number(text) or ()) > 1)
    if lowercase or _LABEL.match(text[number.end() :] if number else text):
        return None
    return round(line.size * 2) / 2, True


def _close(above: Line, below: Line) -> bool:
    """Two rows of one heading: the second right under the first."""
    return 0 < below.baseline - above.baseline <= 1.7 * max(above.size, below.size)
