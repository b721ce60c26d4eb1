"""Headings a Word document shows only by formatting: short lines set in bold.

Many real documents — reports, contracts, books typed or converted by hand — never use
heading styles: a chapter or section title is a ``Normal`` paragraph in bold, often in a
larger size. Read by style alone, such a document has no structure, and every chunk of it
an empty heading path. So in a document **without style headings** (``Title`` alone does
not count) a body paragraph becomes a heading when:

* every run with visible text is bold — direct formatting, else the run's character
  style, else the paragraph style chain (``w:b``; ``w:val`` false/0/off turns it off);
* it reads as a title (``fastrag._titles.reads_as_title``: one short line, not a
  sentence, a clause, a lead-in or a caption, opening on a word, number or bracket);
* its style is not a caption or a subtitle (those name a figure or the document);
* the next block with text is content — a table, a list, code, a quote, or a body
  paragraph that is not bold throughout — and the block before it is not bold
  throughout either (a bold address block or a bold run of paragraphs is emphasis, not
  structure; a title set on two bold lines stays text too);
* bold paragraphs are at most half of the body paragraphs (in a document set all in
  bold, bold says nothing).

Levels follow font size (``w:sz`` by the same inheritance, else the document default;
style chains are ``RoleReader``'s):
the largest size among these headings is level 2, as ``Heading 1`` is, the next size
down level 3, and so on to 6. A document that has style headings keeps only those: its
bold lines are emphasis inside sections its author marked up — unless its one style
heading opens the document (a title typed in ``Heading 1``): bold lines then head the
sections below it, one level down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

from fastrag._titles import reads_as_title
from fastrag.ingestion.steps.parsing._office_docx_roles import RoleReader, run_bold, run_size
from fastrag.ingestion.steps.parsing._office_docx_text import child_value, qn, visible_runs

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.oxml.xmlchemy import BaseOxmlElement

__all__ = ["BoldLine", "Emphasis", "bold_headings"]

_T = TypeVar("_T", bool, int)

_NOT_HEADING_STYLES: Final = ("caption", "subtitle")
_RUN_PROPERTIES: Final = qn("w:rPr")
_PARAGRAPH_PROPERTIES: Final = qn("w:pPr")
_TEXT: Final = qn("w:t")


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
    """Reads bold and size of paragraphs, following Word's formatting inheritance: the
    run's own properties, its character style, its paragraph style, the defaults."""

    def __init__(self, document: WordDocument, styles: RoleReader) -> None:
        self._styles = styles
        defaults = document.styles.element.find(
            f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{_RUN_PROPERTIES}"
        )
        self._default_bold = run_bold(defaults) or False
        self._default_size = run_size(defaults)

    def line(self, paragraph: BaseOxmlElement, text: str) -> BoldLine:
        """The ``BoldLine`` of the ``w:p`` element ``paragraph``, whose text is ``text``."""
        styles = self._styles
        style = styles.style(child_value(paragraph.find(_PARAGRAPH_PROPERTIES), "w:pStyle"))
        sizes: dict[int | None, int] = {}
        for run in visible_runs(paragraph):
            # Only w:t holds visible characters (tabs and breaks are whitespace), read
            # straight from the XML: python-docx's run text runs an XPath query per run.
            shown = sum(len(t.text.strip()) for t in run.iterchildren(_TEXT) if t.text)
            if not shown:
                continue
            properties = run.find(_RUN_PROPERTIES)
            character = styles.style(child_value(properties, "w:rStyle"), character=True)
            bold = _first(run_bold(properties), character.bold, style.bold)
            if not (self._default_bold if bold is None else bold):
                return _NOT_BOLD
            size = _first(run_size(properties), character.size, style.size, self._default_size)
            sizes[size] = sizes.get(size, 0) + shown
        if not sizes:
            return _NOT_BOLD
        short = reads_as_title(text) and not any(name in style.name for name in _NOT_HEADING_STYLES)
        return BoldLine(True, short, max(sizes.items(), key=lambda item: item[1])[0])


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
