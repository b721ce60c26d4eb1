"""What each Word paragraph *is* — heading, list item, code, quote, TOC entry or body text.

Word records structure in styles, not markup, so the role is read from the paragraph's
style (and the style's ``basedOn`` chain) and its numbering:

* **Headings**: style ``Title`` → level 1, ``Heading N`` → level N + 1 (capped at 6), so a
  document's title sits above its chapters. Style names are Word's internal English
  names (python-docx maps them), which survives localized UIs (``Titre1`` is still
  ``heading 1``); a custom or renamed style counts as a heading when it, the paragraph,
  or a style it is based on carries an outline level (``w:outlineLvl`` 0-8 → level 2-6).
* **Lists**: a numbering reference (``w:numPr``) on the paragraph or its style chain; the
  level's ``w:numFmt`` decides bullet (``bullet``) or number (anything else); ``none`` and
  ``numId`` 0 mean "not a list". Missing definitions fall back to a bullet.
* **Code**: styles named like code (``HTML Preformatted``, ``Plain Text``, ``Code``...).
* **Quotes**: ``Quote`` and ``Intense Quote``.
* **TOC entries** (``toc N``, ``TOC Heading``): navigation with page numbers, excluded
  from the content like page headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from fastrag.ingestion.steps.parsing._office_docx_text import child_value, qn

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.styles.style import BaseStyle

__all__ = ["Role", "RoleReader", "StyleFacts", "run_bold", "run_size"]

RoleKind = Literal["heading", "list", "code", "quote", "toc", "body"]

_HEADING_NAME: Final = re.compile(r"heading ([1-9])")
_CODE_NAME: Final = re.compile(r"\b(?:code|preformatted|plain text|macro text)\b")
_TOC_NAME: Final = re.compile(r"toc ([1-9]|heading)")
_QUOTE_NAMES: Final = frozenset({"quote", "intense quote"})
_MAX_STYLE_CHAIN: Final = 32
_MAX_LIST_LEVEL: Final = 8
_NUMBERING_REL: Final = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering"
)
_VAL: Final = qn("w:val")
_OFF: Final = frozenset({"0", "false", "off", "none"})
_MAX_SIZE: Final = 3276
"""Word's largest font size, 1638 pt, in half-points; anything else says nothing."""


@dataclass(frozen=True, slots=True)
class Role:
    """A paragraph's role: ``level`` is the heading level (1-6) or the list depth (0-8)."""

    kind: RoleKind
    level: int = 0
    ordered: bool = False


@dataclass(frozen=True, slots=True)
class StyleFacts:
    """What a style and the styles it is based on set (the nearest definition wins)."""

    name: str
    """Word's internal style name, lower case (``heading 1``, ``caption``)."""
    outline: int | None
    num_id: str | None
    ilvl: int | None
    bold: bool | None
    """``w:b`` of its run properties: on, off, or not said."""
    size: int | None
    """``w:sz`` of its run properties, in half-points."""


_BODY: Final = Role("body")


class RoleReader:
    """Decides paragraph roles for one document, caching per style and numbering level."""

    def __init__(self, document: WordDocument) -> None:
        self._document = document
        self._styles: dict[tuple[str | None, bool], StyleFacts] = {}
        self._formats: dict[tuple[str, int], str | None] = {}
        self._nums, self._abstracts = _numbering_definitions(document)

    def role(self, paragraph: BaseOxmlElement) -> Role:
        """The role of the ``w:p`` element ``paragraph``."""
        properties = paragraph.find(qn("w:pPr"))
        style = self.style(child_value(properties, "w:pStyle"))
        name = style.name
        if name == "title":
            return Role("heading", 1)
        if _TOC_NAME.fullmatch(name):
            return Role("toc")
        heading = _HEADING_NAME.fullmatch(name)
        if heading:
            return Role("heading", min(int(heading.group(1)) + 1, 6))
        outline = _int(child_value(properties, "w:outlineLvl"))
        outline = style.outline if outline is None else outline
        if outline is not None and 0 <= outline <= 8:
            return Role("heading", min(outline + 2, 6))
        if _CODE_NAME.search(name):
            return Role("code")
        if name in _QUOTE_NAMES:
            return Role("quote")
        return self._list_role(properties, style)

    def _list_role(self, properties: BaseOxmlElement | None, style: StyleFacts) -> Role:
        numbering = None if properties is None else properties.find(qn("w:numPr"))
        num_id = child_value(numbering, "w:numId")
        num_id = style.num_id if num_id is None else num_id
        if num_id is None or num_id == "0":
            return _BODY
        ilvl = _int(child_value(numbering, "w:ilvl"))
        ilvl = style.ilvl if ilvl is None else ilvl
        level = min(max(ilvl or 0, 0), _MAX_LIST_LEVEL)
        number_format = self._format(num_id, level)
        if number_format == "none":
            return _BODY
        return Role("list", level, ordered=number_format not in (None, "bullet"))

    def _format(self, num_id: str, level: int) -> str | None:
        key = (num_id, level)
        if key not in self._formats:
            self._formats[key] = self._lookup_format(num_id, level)
        return self._formats[key]

    def _lookup_format(self, num_id: str, level: int) -> str | None:
        num = self._nums.get(num_id)
        if num is None:
            return None
        wanted = str(level)
        for override in num.iterchildren(qn("w:lvlOverride")):
            if override.get(qn("w:ilvl")) == wanted:
                found = _level_format(override.find(qn("w:lvl")))
                if found is not None:
                    return found
        abstract = self._abstracts.get(child_value(num, "w:abstractNumId") or "")
        if abstract is None:
            return None
        for lvl in abstract.iterchildren(qn("w:lvl")):
            if lvl.get(qn("w:ilvl")) == wanted:
                return _level_format(lvl)
        return None

    def style(self, style_id: str | None, *, character: bool = False) -> StyleFacts:
        """The facts of paragraph style ``style_id`` (of character style ``style_id`` if
        ``character``); an unknown or absent id is the document's default style."""
        key = (style_id, character)
        if key not in self._styles:
            self._styles[key] = self._read_style(style_id, character)
        return self._styles[key]

    def _read_style(self, style_id: str | None, character: bool) -> StyleFacts:
        from docx.enum.style import WD_STYLE_TYPE

        kind = WD_STYLE_TYPE.CHARACTER if character else WD_STYLE_TYPE.PARAGRAPH
        style: BaseStyle | None = self._document.part.get_style(style_id, kind)
        name = (style.name or "").lower() if style is not None else ""
        outline: int | None = None
        num_id: str | None = None
        ilvl: int | None = None
        bold: bool | None = None
        size: int | None = None
        seen: set[int] = set()
        # Nearest definition wins; a basedOn cycle or a very long chain is cut off.
        while style is not None and id(style) not in seen and len(seen) < _MAX_STYLE_CHAIN:
            seen.add(id(style))
            properties = style.element.find(qn("w:pPr"))
            if outline is None:
                outline = _int(child_value(properties, "w:outlineLvl"))
            numbering = None if properties is None else properties.find(qn("w:numPr"))
            if num_id is None:
                num_id = child_value(numbering, "w:numId")
            if ilvl is None:
                ilvl = _int(child_value(numbering, "w:ilvl"))
            run_properties = style.element.find(qn("w:rPr"))
            if bold is None:
                bold = run_bold(run_properties)
            if size is None:
                size = run_size(run_properties)
            style = getattr(style, "base_style", None)
        return StyleFacts(name, outline, num_id, ilvl, bold, size)


def run_bold(properties: BaseOxmlElement | None) -> bool | None:
    """``w:b`` of a run-properties element (``w:rPr``): on, off, or not said."""
    found = None if properties is None else properties.find(qn("w:b"))
    if found is None:
        return None
    value = found.get(_VAL)
    return value is None or str(value).lower() not in _OFF


def run_size(properties: BaseOxmlElement | None) -> int | None:
    """``w:sz`` of a run-properties element in half-points, if it says a real size."""
    size = _int(child_value(properties, "w:sz"))
    return size if size is not None and 0 < size <= _MAX_SIZE else None


def _numbering_definitions(
    document: WordDocument,
) -> tuple[dict[str, BaseOxmlElement], dict[str, BaseOxmlElement]]:
    """``w:num`` by ``numId`` and ``w:abstractNum`` by ``abstractNumId`` (empty if none)."""
    part = next(
        (
            rel.target_part
            for rel in document.part.rels.values()
            if rel.reltype == _NUMBERING_REL and not rel.is_external
        ),
        None,
    )
    element = getattr(part, "element", None)
    if element is None:
        return {}, {}
    nums = {n.get(qn("w:numId")): n for n in element.iterchildren(qn("w:num"))}
    abstracts = {a.get(qn("w:abstractNumId")): a for a in element.iterchildren(qn("w:abstractNum"))}
    return nums, abstracts


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _level_format(lvl: BaseOxmlElement | None) -> str | None:
    if lvl is None:
        return None
    return child_value(lvl, "w:numFmt")
