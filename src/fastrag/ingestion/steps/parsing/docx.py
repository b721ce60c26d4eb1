"""``DocxParser``: Word documents as Markdown, read with python-docx (``fastrag-ai[office]``).

The body is rendered in document order — paragraphs and tables interleaved, content
controls opened — as Markdown the structure-aware engine packs:

* headings from styles and outline levels (``Title`` → ``#``, ``Heading N`` → N + 1 ``#``;
  see ``_office_docx_roles``), so they reach chunks' heading paths; a document without
  heading styles gets its headings from short lines set in bold (``_office_docx_emphasis``);
* numbered and bulleted paragraphs → nested ``1.`` / ``-`` items by their level;
* consecutive code-styled paragraphs → one fenced block, quotes → ``>``;
* tables → pipe tables, header = first row, merged cells repeated (``_office_docx_tables``);
* hyperlinks keep their text, tracked deletions are dropped, insertions kept.

Not content: page headers and footers and table-of-contents entries are recorded as
``metadata["excluded"]`` facts — ``{"part": "header", "characters": N}`` — never as text.
Pictures, equations (OMML) and text boxes have no rendering; their counts are reported
as diagnostics. Nothing external (linked images, templates) is ever fetched.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from fastrag._optional import require
from fastrag.ingestion.steps.parsing._office_docx_emphasis import BoldLine, Emphasis, bold_headings
from fastrag.ingestion.steps.parsing._office_docx_roles import Role, RoleReader
from fastrag.ingestion.steps.parsing._office_docx_tables import table_grid
from fastrag.ingestion.steps.parsing._office_docx_text import (
    iter_blocks,
    paragraph_text,
    qn,
)
from fastrag.ingestion.steps.parsing._office_markdown import (
    ListItem,
    code_block,
    heading,
    join_blocks,
    list_block,
    paragraph,
    pipe_table,
    quote,
)
from fastrag.ingestion.steps.parsing._office_parser import OfficeParser
from fastrag.ingestion.steps.parsing.base import Parsed

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.oxml.xmlchemy import BaseOxmlElement

__all__ = ["DocxParser"]

_PARAGRAPH: Final = qn("w:p")
_TABLE_ROLE: Final = Role("body")
"""A table's place in the role list (tables are told apart by their tag)."""
_RELATIONSHIPS: Final = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_EXCLUDED_PARTS: Final = {_RELATIONSHIPS + "header": "header", _RELATIONSHIPS + "footer": "footer"}
_MATH: Final = "{http://schemas.openxmlformats.org/officeDocument/2006/math}oMath"
_FALLBACK: Final = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_UNRENDERED: Final = (
    ("pictures", (qn("w:drawing"), qn("w:pict"))),
    ("equations", (_MATH,)),
    ("text boxes", (qn("w:txbxContent"),)),
)


class DocxParser(OfficeParser):
    """Render a DOCX body as Markdown; headers, footers and the TOC become exclusions."""

    kind = "DOCX"
    version = 3
    """2 → 3: a bold line reads as a title by the rule HTML shares (``fastrag._titles``):
    it opens on a word, number or bracket, is no caption, and a question may be longer."""

    def convert(self, data: bytes, name: str) -> Parsed:
        """Load ``data`` with python-docx and render its body."""
        docx = require("docx", extra="office", feature="DocxParser")
        document: WordDocument = docx.Document(io.BytesIO(data))
        body = document.element.body
        renderer = _BodyRenderer(document, name)
        content = join_blocks(renderer.render(body))
        excluded = dict(_header_footer_characters(document))
        if renderer.toc_characters:
            excluded["toc"] = renderer.toc_characters
        metadata: dict[str, Any] = {}
        if excluded:
            metadata["excluded"] = tuple(
                MappingProxyType({"part": part, "characters": count})
                for part, count in excluded.items()
            )
        return Parsed(content, self.content_format, _unrendered(body), metadata)


class _BodyRenderer:
    """Turns body blocks into Markdown blocks, grouping list items and code lines."""

    def __init__(self, document: WordDocument, name: str) -> None:
        self._document = document
        self._roles = RoleReader(document)
        self._name = name
        self._items: list[ListItem] = []
        self._code: list[str] = []
        self.toc_characters = 0

    def render(self, container: BaseOxmlElement) -> Iterator[str]:
        """Markdown blocks of ``container``'s paragraphs and tables, in order."""
        blocks = list(iter_blocks(container))
        roles = [self._roles.role(b) if b.tag == _PARAGRAPH else _TABLE_ROLE for b in blocks]
        texts = [paragraph_text(b) if b.tag == _PARAGRAPH else "" for b in blocks]
        emphasized = self._bold_headings(blocks, roles, texts)
        for index, (block, role, text) in enumerate(zip(blocks, roles, texts, strict=True)):
            if block.tag != _PARAGRAPH:
                yield from self._flush()
                yield pipe_table(table_grid(block, self._name))
                continue
            if index in emphasized:
                role = Role("heading", emphasized[index])
            if role.kind == "code":
                yield from self._flush_list()
                self._code.extend(text.replace("\v", "\n").split("\n"))
            elif not text.strip():
                continue  # blank paragraphs are spacing: they end nothing but code
            elif role.kind == "list":
                yield from self._flush_code()
                self._items.append(ListItem(role.level, role.ordered, text))
            else:
                yield from self._flush()
                yield self._render(role, text)
        yield from self._flush()

    def _bold_headings(
        self, blocks: list[BaseOxmlElement], roles: list[Role], texts: list[str]
    ) -> Mapping[int, int]:
        """Heading levels of bold lines by block index (``_office_docx_emphasis``).

        One style heading opening the document is its title (typed in ``Heading 1``
        rather than ``Title``): bold lines then head sections below it. Any other style
        heading means the author marked sections up: bold lines are emphasis in them.
        """
        styled = [i for i, role in enumerate(roles) if role.kind == "heading" and role.level > 1]
        top = 2
        if styled:
            opening = next(
                (
                    i
                    for i, (b, t) in enumerate(zip(blocks, texts, strict=True))
                    if b.tag != _PARAGRAPH or t.strip()
                ),
                None,
            )
            if len(styled) > 1 or styled[0] != opening:
                return {}
            top = roles[styled[0]].level + 1
        emphasis = Emphasis(self._document, self._roles)
        indices: list[int] = []
        lines: list[BoldLine | None] = []
        for index, (block, role, text) in enumerate(zip(blocks, roles, texts, strict=True)):
            if block.tag == _PARAGRAPH and (not text.strip() or role.kind == "toc"):
                continue  # spacing and navigation are not what follows a heading
            indices.append(index)
            paragraph = block.tag == _PARAGRAPH and role.kind == "body"
            lines.append(emphasis.line(block, text) if paragraph else None)
        return {indices[line]: level for line, level in bold_headings(lines, top).items()}

    def _render(self, role: Role, text: str) -> str:
        if role.kind == "heading":
            return heading(role.level, text)
        if role.kind == "quote":
            return quote(text)
        if role.kind == "toc":
            self.toc_characters += len(text)
            return ""
        return paragraph(text)

    def _flush(self) -> Iterator[str]:
        yield from self._flush_list()
        yield from self._flush_code()

    def _flush_list(self) -> Iterator[str]:
        if self._items:
            yield list_block(self._items)
            self._items = []

    def _flush_code(self) -> Iterator[str]:
        if self._code:
            yield code_block(self._code)
            self._code = []


def _header_footer_characters(document: WordDocument) -> Iterator[tuple[str, int]]:
    """``(part, characters)`` per kind of page furniture with text (headers, footers)."""
    totals: dict[str, int] = {}
    for rel in document.part.rels.values():
        kind = _EXCLUDED_PARTS.get(rel.reltype)
        if kind is None or rel.is_external:
            continue
        element = getattr(rel.target_part, "element", None)
        if element is None:
            continue
        characters = sum(len(paragraph_text(p).strip()) for p in element.iter(_PARAGRAPH))
        totals[kind] = totals.get(kind, 0) + characters
    for kind in ("header", "footer"):
        if totals.get(kind):
            yield kind, totals[kind]


def _unrendered(body: BaseOxmlElement) -> tuple[str, ...]:
    """Diagnostics counting what has no text rendering (alternate-content copies skipped)."""
    notes: list[str] = []
    for label, tags in _UNRENDERED:
        count = sum(
            1
            for tag in tags
            for element in body.iter(tag)
            if not any(ancestor.tag == _FALLBACK for ancestor in element.iterancestors())
        )
        if count:
            notes.append(f"{label}: {count} not rendered (no text extracted)")
    return tuple(notes)
