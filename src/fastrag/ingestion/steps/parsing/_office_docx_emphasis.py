"""Headings a Word document shows only by formatting: short lines set in bold.

Many real documents — reports, contracts, books typed or converted by hand — never use
heading styles: a chapter or section title is a ``Normal`` paragraph in bold, often in a
larger size. Read by style alone, such a document has no structure, and every chunk of it
an empty heading path. So in a document **without style headings** (``Title`` alone does
not count) a body paragraph becomes a heading when:

* every run with visible text is bold — direct formatting, else the run's character
  style, else the paragraph style chain (``w:b``; ``w:val`` false/0/off turns it off);
* it is short: one line, at most ``MAX_WORDS`` words and ``MAX_CHARACTERS`` characters,
  with a letter in it;
* it does not end like a sentence, a clause or a lead-in (``.`` ``,`` ``;`` ``:``);
* its style is not a caption or a subtitle (those name a figure or the document);
* the next block with text is content — a table, a list, code, a quote, or a body
  paragraph that is not bold throughout — and the block before it is not bold
  throughout either (a bold address block or a bold run of paragraphs is emphasis, not
  structure; a title set on two bold lines stays text too);
* bold paragraphs are at most half of the body paragraphs (in a document set all in
  bold, bold says nothing).

Levels follow font size (``w:sz`` by the same inheritance, else the document default):
the largest size among these headings is level 2, as ``Heading 1`` is, the next size
down level 3, and so on to 6. A document that has style headings keeps only those: its
bold lines are emphasis inside sections its author marked up — unless its one style
heading opens the document (a title typed in ``Heading 1``): bold lines then head the
sections below it, one level down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

from fastrag.ingestion.steps.parsing._office_docx_text import qn, visible_runs

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.oxml.xmlchemy import BaseOxmlElement

__all__ = ["MAX_CHARACTERS", "MAX_WORDS", "BoldLine", "Emphasis", "bold_headings"]

_T = TypeVar("_T", bool, int)

MAX_WORDS: Final = 12
MAX_CHARACTERS: Final = 120
_SENTENCE_ENDS: Final = (".", ",", ";", ":")
_NOT_HEADING_STYLES: Final = ("caption", "subtitle")
_MAX_STYLE_CHAIN: Final = 32
_MAX_SIZE: Final = 3276
"""Word's largest font size, 1638 pt, in half-points; anything else says nothing."""
_OFF: Final = frozenset({"0", "false", "off", "none"})
_VAL: Final = qn("w:val")
_RUN_PROPERTIES: Final = qn("w:rPr")
_PARAGRAPH_PROPERTIES: Final = qn("w:pPr")
_TEXT: Final = qn("w:t")
_BOLD: Final = qn("w:b")
_SIZE: Final = qn("w:sz")
_STYLE_ID: Final = qn("w:styleId")


class BoldLine:
    """What the rules above need to know of one body paragraph."""

    __slots__ = ("bold", "short", "size")

    def __init__(self, bold: bool, short: bool, size: int | None) -> None:
        self.bold = bold
        """Every run with visible text is bold."""
        self.short = short
        """Shaped like a heading: short, one line, a letter, no sentence end."""
        self.size = size
        """Font size in half-points (``None``: nothing says)."""


class Emphasis:
    """Reads bold and size of paragraphs, following Word's formatting inheritance."""

    def __init__(self, document: WordDocument) -> None:
        styles = document.styles.element
        self._styles: dict[str, BaseOxmlElement] = {}
        self._default_style: str | None = None
        for style in styles.iterchildren(qn("w:style")):
            style_id = str(style.get(_STYLE_ID))
            self._styles.setdefault(style_id, style)
            default = str(style.get(qn("w:default")) or "").lower() in ("1", "true", "on")
            if default and style.get(qn("w:type")) == "paragraph":
                self._default_style = self._default_style or style_id
        self._cache: dict[str | None, tuple[bool | None, int | None]] = {}
        self._names: dict[str | None, str] = {}
        defaults = styles.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{_RUN_PROPERTIES}")
        self._default_bold = _bold(defaults) or False
        self._default_size = _size(defaults)

    def line(self, paragraph: BaseOxmlElement, text: str) -> BoldLine:
        """The ``BoldLine`` of the ``w:p`` element ``paragraph``, whose text is ``text``."""
        style_id = _attribute(paragraph.find(_PARAGRAPH_PROPERTIES), "w:pStyle")
        style_id = style_id or self._default_style
        paragraph_bold, paragraph_size = self._style(style_id)
        sizes: dict[int | None, int] = {}
        for run in visible_runs(paragraph):
            # Only w:t holds visible characters (tabs and breaks are whitespace), read
            # straight from the XML: python-docx's run text runs an XPath query per run.
            shown = sum(len(t.text.strip()) for t in run.iterchildren(_TEXT) if t.text)
            if not shown:
                continue
            properties = run.find(_RUN_PROPERTIES)
            character = self._style(_attribute(properties, "w:rStyle"))
            bold = _first(_bold(properties), character[0], paragraph_bold)
            if not (self._default_bold if bold is None else bold):
                return _NOT_BOLD
            size = _first(_size(properties), character[1], paragraph_size, self._default_size)
            sizes[size] = sizes.get(size, 0) + shown
        if not sizes:
            return _NOT_BOLD
        line = text.strip()
        short = (
            len(line) <= MAX_CHARACTERS
            and len(line.split()) <= MAX_WORDS
            and "\n" not in line
            and "\v" not in line
            and any(character.isalpha() for character in line)
            and not line.endswith(_SENTENCE_ENDS)
            and not any(name in self._name(style_id) for name in _NOT_HEADING_STYLES)
        )
        return BoldLine(True, short, max(sizes.items(), key=lambda item: item[1])[0])

    def _name(self, style_id: str | None) -> str:
        name = self._names.get(style_id)
        if name is None:
            style = None if style_id is None else self._styles.get(style_id)
            name = self._names[style_id] = (_attribute(style, "w:name") or "").lower()
        return name

    def _style(self, style_id: str | None) -> tuple[bool | None, int | None]:
        """Bold and size a style sets, its ``basedOn`` chain followed (nearest wins)."""
        if style_id not in self._cache:
            bold: bool | None = None
            size: int | None = None
            seen: set[str] = set()
            current = style_id
            while current is not None and current not in seen and len(seen) < _MAX_STYLE_CHAIN:
                seen.add(current)
                style = self._styles.get(current)
                if style is None:
                    break
                properties = style.find(_RUN_PROPERTIES)
                bold = _bold(properties) if bold is None else bold
                size = _size(properties) if size is None else size
                current = _attribute(style, "w:basedOn")
            self._cache[style_id] = (bold, size)
        return self._cache[style_id]


_NOT_BOLD: Final = BoldLine(False, False, None)


def bold_headings(lines: Sequence[BoldLine | None], top: int = 2) -> Mapping[int, int]:
    """Heading level by block index, for the blocks of a body without style headings.

    ``lines[i]`` is block ``i``'s ``BoldLine`` when it is a body paragraph with text,
    ``None`` for any other block with text (table, list item, code, quote); blocks
    without text are left out of ``lines`` by the caller. The largest bold lines get
    level ``top``.
    """
    body = [line for line in lines if line is not None]
    if not body or 2 * sum(line.bold for line in body) > len(body):
        return {}
    chosen: dict[int, int | None] = {}
    for index, line in enumerate(lines[:-1]):
        if line is None or not (line.bold and line.short):
            continue
        before = lines[index - 1] if index else None
        after = lines[index + 1]
        if not (before is not None and before.bold) and not (after is not None and after.bold):
            chosen[index] = line.size
    sizes = sorted({size or 0 for size in chosen.values()}, reverse=True)
    level_of = {size: min(top + rank, 6) for rank, size in enumerate(sizes)}
    return {index: level_of[size or 0] for index, size in chosen.items()}


def _first(*values: _T | None) -> _T | None:
    """The nearest formatting that says something (run, character style, paragraph style)."""
    return next((value for value in values if value is not None), None)


def _bold(properties: BaseOxmlElement | None) -> bool | None:
    """``w:b`` of a run-properties element: on, off, or not said."""
    found = None if properties is None else properties.find(_BOLD)
    if found is None:
        return None
    value = found.get(_VAL)
    return value is None or str(value).lower() not in _OFF


def _size(properties: BaseOxmlElement | None) -> int | None:
    found = None if properties is None else properties.find(_SIZE)
    value = None if found is None else found.get(_VAL)
    try:
        size = None if value is None else int(value)
    except ValueError:
        return None
    return size if size is not None and 0 < size <= _MAX_SIZE else None


def _attribute(element: BaseOxmlElement | None, child: str) -> str | None:
    found = None if element is None else element.find(qn(child))
    value = None if found is None else found.get(_VAL)
    return None if value is None else str(value)
