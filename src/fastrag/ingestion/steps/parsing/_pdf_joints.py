"""Line joints: what goes between a printed row and the next when they are one text.

By default (``_pdf_layout.line_separator``) a row that pdfium marks as ending in a
line-end hyphen joins the next row without the hyphen, and any other row joins with one
space. Both are wrong in known cases, which this pass decides with the whole document
at hand and records on the row (``Line.joint``):

* The hyphen of a real compound is kept (``February-March``, ``FAA-approved``,
  ``non-normal``): pdfium marks *every* hyphen at a row's end, soft or not. The hyphen
  stays when the document itself writes the hyphenated form inside a row more often than
  the joined one (a per-document vote), when a plain capitalized word follows a plain
  word (``Schwarz-Weiß``; camel-case identifiers such as ``Fc``/``ConfigParse`` still
  join), and inside a URL or e-mail address, which TeX never hyphenates.
* A URL cut at the row's end (``https://www.acm.`` / ``org/…``) joins the next row
  without a space when the row ends inside the URL (after ``/``, ``.``, ``?`` …; after
  ``-`` it already does) and the next row starts with more of it (a path or domain
  piece, not a word).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from itertools import pairwise
from typing import Final

from fastrag.ingestion.steps.parsing._pdf_layout import Line

__all__ = ["decide_joints"]

_COMPOUND: Final = re.compile(r"\b(\w+)[-\u2010](\w+)\b")
_WORD: Final = re.compile(r"\w+")
_LAST_WORD: Final = re.compile(r"(?<!\w)\w+$")  # from a word's start only: linear
_URL: Final = re.compile(r"://|^\W*www\.|\w@[\w-]+")
_URL_CUT: Final = "/.-_?=&#%~:"
# The rest of a cut URL: URL characters with a path or query mark or an inner dot
# (``org/``, ``lfs20mar.html)``), or a run of digits (a DOI's ``1188915``) — not a word,
# nor a section number (``2.1``) starting the next heading.
_URL_PIECE: Final = re.compile(
    r"(?=[\w./?=#&%~:+@-]*(?:[/?=#&]|\.\w))[\w./?=#&%~:+@-]+[),.;]*|\d{3,}[),.;]*"
)
_SECTION_NUMBER: Final = re.compile(r"\d+(?:\.\d+)+\.?")
_MAX_PATTERN_WORDS: Final = 2000


def decide_joints(pages: list[list[list[Line]]]) -> int:
    """Set ``joint`` on the rows of ``pages`` (page → region → rows, reading order) where
    the default separator is wrong; returns how many rows changed."""
    slots = [(rows, index) for regions in pages for rows in regions for index in range(len(rows))]
    compounds: Counter[str] = Counter()
    for rows, index in slots:
        text = rows[index].text
        if "-" in text or "\u2010" in text:
            compounds.update(f"{a}-{b}".lower() for a, b in _COMPOUND.findall(text))
    pairs: list[tuple[list[Line], int, Line, tuple[str, str] | None]] = []
    for (rows, index), (after, position) in pairwise(slots):
        line, following = rows[index], after[position]
        pairs.append((rows, index, following, _split_word(line, following)))
    joined = _joined_counts(pages, compounds, [split for *_rest, split in pairs])
    changed = 0
    for rows, index, following, split in pairs:
        joint = _joint(rows[index], following, split, compounds, joined)
        if joint is not None:
            rows[index] = replace(rows[index], joint=joint)
            changed += 1
    return changed


def _split_word(line: Line, following: Line) -> tuple[str, str] | None:
    """The two halves of the word a line-end hyphen splits (None when not hyphenated)."""
    if not line.hyphenated:
        return None
    before = _LAST_WORD.search(line.text)
    after = _WORD.match(following.text)
    return None if before is None or after is None else (before.group(0), after.group(0))


def _joined_counts(
    pages: list[list[list[Line]]],
    compounds: Counter[str],
    splits: list[tuple[str, str] | None],
) -> Counter[str]:
    """How often the document writes each word in question joined inside a row
    ("nonzero"): one scan, for just the words whose hyphenated form it also writes."""
    wanted = {
        (first + second).lower()
        for first, second in filter(None, splits)
        if f"{first}-{second}".lower() in compounds
    }
    if not wanted:
        return Counter()
    text = "\n".join(line.text for regions in pages for rows in regions for line in rows)
    if len(wanted) > _MAX_PATTERN_WORDS:  # a huge alternation would be slow to compile
        return Counter(word for word in _WORD.findall(text.lower()) if word in wanted)
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(wanted))) + r")\b", re.I)
    return Counter(word.lower() for word in pattern.findall(text))


def _joint(
    line: Line,
    following: Line,
    split: tuple[str, str] | None,
    compounds: Counter[str],
    joined: Counter[str],
) -> str | None:
    """The joint between ``line`` and ``following`` when the default is wrong, else None."""
    token = line.text.rsplit(" ", 1)[-1]
    url = _URL.search(token) is not None
    if line.hyphenated:
        if split is None:
            return None
        first, second = split
        voted = compounds[f"{first}-{second}".lower()] > joined[(first + second).lower()]
        if url or voted or (_plain(first) and second[:1].isupper() and _plain(second)):
            return "-"
        return None
    if url and token[-1] in _URL_CUT and token[-1] != "-":
        piece = following.text.split(" ", 1)[0]
        if (
            _URL_PIECE.fullmatch(piece)
            and not _SECTION_NUMBER.fullmatch(piece)
            and not piece[:1].isupper()
        ):
            return ""
    return None


def _plain(word: str) -> bool:
    """A word of two letters or more, capitalized at most (not ``ConfigParse``, ``H2``)."""
    return len(word) >= 2 and word.isalpha() and not any(c.isupper() for c in word[1:])
