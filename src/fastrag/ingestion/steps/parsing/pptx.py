"""``PptxParser``: PowerPoint decks as Markdown, one section per slide (python-pptx).

Each slide becomes ``## Slide N: <title>`` (``## Slide N`` when it has no title), then its
shapes in reading order — top to bottom, then left to right, groups opened in place —
with text frames as paragraphs and nested list items (``_office_pptx_text``), tables as
pipe tables (header = first row, merged cells repeated), and the speaker notes under
``### Notes``. There is no ``#`` deck heading: the first slide's title already heads
slide 1, and repeating it above every slide would only lengthen each heading path.

Each slide is a page: ``metadata["pages"]`` maps content offsets to slide numbers (see
``fastrag.ingestion.pages``), so every chunk record gets its slide as ``page``. Footer,
date and slide-number placeholders are page furniture, counted in
``metadata["excluded"]``; pictures, charts and diagrams have no text and are counted in
the diagnostics. Linked (external) media are never fetched.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, cast

from fastrag._optional import require
from fastrag.ingestion.pages import PAGES_KEY
from fastrag.ingestion.steps.parsing._office_markdown import heading, pipe_table
from fastrag.ingestion.steps.parsing._office_parser import OfficeParser
from fastrag.ingestion.steps.parsing._office_pptx_text import Bullet, frame_blocks, table_rows
from fastrag.ingestion.steps.parsing.base import Parsed

if TYPE_CHECKING:
    from pptx.shapes.autoshape import Shape
    from pptx.shapes.base import BaseShape
    from pptx.shapes.graphfrm import GraphicFrame
    from pptx.shapes.group import GroupShape
    from pptx.slide import Slide

__all__ = ["PptxParser"]

_SEPARATOR: Final = "\n\n"
_FURNITURE: Final = {
    "DATE": "date",
    "SLIDE_NUMBER": "slide number",
    "FOOTER": "footer",
    "HEADER": "header",
}
"""``PP_PLACEHOLDER`` names of page furniture, with the part name they are excluded as."""
_BODY_PLACEHOLDERS: Final = frozenset({"BODY", "OBJECT"})
"""Content placeholders, whose text the master bullets."""
_GRAPHICS: Final = frozenset({"CHART", "DIAGRAM", "EMBEDDED_OLE_OBJECT", "LINKED_OLE_OBJECT"})
"""``MSO_SHAPE_TYPE`` names of graphics without readable text."""
_ROW_TOLERANCE: Final = 228_600
"""A quarter inch, in EMU: tops closer than this are one row of the slide."""
_MAX_INHERITANCE: Final = 3
"""Slide, layout and master: a placeholder never inherits from further away."""


class PptxParser(OfficeParser):
    """Render a PPTX deck as Markdown, one ``## Slide N`` section (and page) per slide."""

    kind = "PPTX"
    version = 1

    def convert(self, data: bytes, name: str) -> Parsed:
        """Load ``data`` with python-pptx and render every slide."""
        pptx = require("pptx", extra="office", feature="PptxParser")
        deck = pptx.Presentation(io.BytesIO(data))
        tally = _Tally()
        slides = [
            _SEPARATOR.join(block for block in _slide_blocks(slide, number, tally) if block)
            for number, slide in enumerate(deck.slides, start=1)
        ]
        pages: list[tuple[int, int, int]] = []
        offset = 0
        for number, text in enumerate(slides, start=1):
            start = offset
            offset += len(text) + (len(_SEPARATOR) if number > 1 else 0)
            pages.append((start, offset, number))
        content = _SEPARATOR.join(slides) + ("\n" if slides else "")
        if pages:  # the final newline belongs to the last slide
            start, _, number = pages[-1]
            pages[-1] = (start, len(content), number)
        metadata: dict[str, Any] = {"slides": len(slides), PAGES_KEY: tuple(pages)}
        if tally.excluded:
            metadata["excluded"] = tuple(
                MappingProxyType({"part": part, "characters": count})
                for part, count in sorted(tally.excluded.items())
            )
        return Parsed(content, self.content_format, tally.diagnostics(), metadata)


class _Tally:
    """What a deck held that is not content: furniture characters, shapes without text."""

    def __init__(self) -> None:
        self.excluded: dict[str, int] = {}
        self.pictures = 0
        self.graphics = 0

    def diagnostics(self) -> tuple[str, ...]:
        notes: list[str] = []
        if self.pictures:
            notes.append(f"pictures: {self.pictures} not rendered (no text extracted)")
        if self.graphics:
            notes.append(
                f"charts/diagrams/objects: {self.graphics} not rendered (no text extracted)"
            )
        return tuple(notes)


def _slide_blocks(slide: Slide, number: int, tally: _Tally) -> Iterator[str]:
    title_shape = slide.shapes.title
    title = title_shape.text_frame.text if title_shape is not None else ""
    label = f"Slide {number}: {title}" if title.strip() else f"Slide {number}"
    yield heading(2, label)
    skip = title_shape.shape_id if title_shape is not None else None
    yield from _shape_blocks(slide.shapes, skip, tally)
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = frame_blocks(frame) if frame is not None else []
        if notes:
            yield heading(3, "Notes")
            yield from notes


def _inheritance(shape: BaseShape) -> list[Any]:
    """The shape's element, then its layout and master placeholders' (nearest first).

    python-pptx resolves a placeholder's inherited position through the private
    ``_base_placeholder``, but not its list styles; the same link is followed here.
    """
    chain: list[Any] = [shape.element]
    base = getattr(shape, "_base_placeholder", None)
    while base is not None and len(chain) < _MAX_INHERITANCE:
        chain.append(base.element)
        base = getattr(base, "_base_placeholder", None)
    return chain


def _reading_order(shapes: Iterable[BaseShape]) -> list[BaseShape]:
    """Shapes in rows top to bottom, each row left to right; unplaced ones last.

    Shapes whose tops lie within ``_ROW_TOLERANCE`` of a row's first shape share that
    row: boxes laid side by side are rarely aligned to the EMU.
    """
    placed: list[tuple[int, int, int, BaseShape]] = []
    unplaced: list[BaseShape] = []
    for index, shape in enumerate(shapes):
        # python-pptx types these as lengths, but a shape without a transform has None.
        top: int | None = shape.top
        left: int | None = shape.left
        if top is None or left is None:
            unplaced.append(shape)
        else:
            placed.append((int(top), int(left), index, shape))
    placed.sort(key=lambda entry: entry[:3])
    rows: list[list[tuple[int, int, int, BaseShape]]] = []
    for entry in placed:
        if not rows or entry[0] - rows[-1][0][0] > _ROW_TOLERANCE:
            rows.append([])
        rows[-1].append(entry)
    ordered = [entry[3] for row in rows for entry in sorted(row, key=lambda e: (e[1], e[0], e[2]))]
    return ordered + unplaced


def _shape_blocks(shapes: Iterable[BaseShape], skip: int | None, tally: _Tally) -> Iterator[str]:
    for shape in _reading_order(shapes):
        if shape.shape_id == skip:
            continue
        placeholder = shape.placeholder_format.type.name if shape.is_placeholder else ""
        shape_type = shape.shape_type.name if shape.shape_type is not None else "GRAPHIC_FRAME"
        if placeholder in _FURNITURE:
            frame = cast("Shape", shape).text_frame if shape.has_text_frame else None
            characters = len(frame.text.strip()) if frame is not None else 0
            if characters:
                part = _FURNITURE[placeholder]
                tally.excluded[part] = tally.excluded.get(part, 0) + characters
        elif shape_type == "GROUP":
            yield from _shape_blocks(cast("GroupShape", shape).shapes, skip, tally)
        elif shape.has_table:
            yield pipe_table(table_rows(cast("GraphicFrame", shape).table))
        elif shape.has_text_frame:
            frame = cast("Shape", shape).text_frame
            default: Bullet = "bullet" if placeholder in _BODY_PLACEHOLDERS else "plain"
            yield from frame_blocks(frame, _inheritance(shape), default)
        elif hasattr(type(shape), "image"):
            tally.pictures += 1
        elif shape_type in _GRAPHICS or shape_type == "GRAPHIC_FRAME":
            tally.graphics += 1
