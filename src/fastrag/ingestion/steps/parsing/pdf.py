"""``PdfParser``: PDF files as Markdown (or a ``DoclingDocument``) with their page structure.

The default content is a Markdown rendering (``content_format = "markdown"``) so the
structure-aware engine packs it like any Markdown: headings (from the outline when the
PDF has one, else from fonts), paragraphs in reading order (columns read one after the
other), list items, simple tables and monospaced code. Running headers, footers and page
numbers are left out and counted; so are tables of contents and back-of-book indexes
(``_pdf_navigation``: they would match every query and answer none), whose kind, pages
and row count go to ``metadata["removed_navigation"]`` and a diagnostic.
``metadata["pages"]`` and ``metadata["layout"]`` map content offsets back to pages and
boxes (see ``fastrag.ingestion.pages``).

``output_format="docling"`` builds a ``DoclingDocument`` from the same analysis instead
(``_pdf_docling``; ``fastrag-ai[docling]``, offline, no model) and puts it, serialized as
``DoclingParser`` does, in the content (``content_format = "docling"``) for
``DoclingChunker``; its items carry their pages and boxes, so no offset maps are kept.

Text comes from pypdfium2 (``fastrag-ai[pdf]``, Apache-2.0/BSD) by default. The optional
``backend="pymupdf"`` reads it with PyMuPDF instead (``fastrag-ai[pymupdf]``) — PyMuPDF is
licensed **AGPL-3.0** (or commercially by Artifex), so it is never required and never the
default; whoever enables it accepts that licence for their deployment.

The stages live in private modules: ``_pdf_extract`` (pdfium) or ``_pdf_pymupdf``,
``_pdf_furniture``, ``_pdf_columns``, ``_pdf_lines``, ``_pdf_headings``, ``_pdf_blocks``
(analysis, joined by ``_pdf_analyze`` into the ``_pdf_layout`` model), then
``_pdf_render`` (Markdown) or ``_pdf_docling``.

Failures are ``ParsingError`` subclasses naming the file, never crashes: a PDF without
any text raises ``NeedsOcrError`` (ingestion quarantines it), an encrypted one without
(or with a wrong) password ``EncryptedDocumentError``, a damaged one ``ParsingError``
with pdfium's reason, and so do the page and character caps. The password is a secret:
it is kept out of ``config()``, messages, metadata and logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, Literal

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError, NeedsOcrError, ParsingError
from fastrag.ingestion.pages import LAYOUT_KEY, PAGES_KEY
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES
from fastrag.ingestion.steps.parsing._pdf_analyze import analyze
from fastrag.ingestion.steps.parsing._pdf_docling import build_docling, serialize
from fastrag.ingestion.steps.parsing._pdf_extract import Extraction, extract
from fastrag.ingestion.steps.parsing._pdf_layout import DocumentLayout
from fastrag.ingestion.steps.parsing._pdf_pymupdf import PYMUPDF_FEATURE, extract_pymupdf
from fastrag.ingestion.steps.parsing._pdf_render import render_markdown
from fastrag.ingestion.steps.parsing.base import Parsed, Parser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import CacheSetting, Policy

__all__ = ["PdfBackend", "PdfParser"]

OutputFormat = Literal["markdown", "docling"]
_OUTPUT_FORMATS: Final = ("markdown", "docling")
PdfBackend = Literal["pypdfium2", "pymupdf"]
_BACKENDS: Final = ("pypdfium2", "pymupdf")


class PdfParser(Parser):
    """Parse PDFs with pypdfium2 (``fastrag-ai[pdf]``) into Markdown with page maps.

    * ``password``: opens encrypted PDFs (user or owner password); never recorded.
    * ``max_pages`` (2000): a longer PDF is refused before any page is read.
    * ``max_characters`` (20,000,000): extraction stops with an error beyond this much text.
    * ``output_format``: ``"markdown"`` (default) or ``"docling"`` — a serialized
      ``DoclingDocument`` for ``DoclingChunker`` (needs ``fastrag-ai[docling]``).
    * ``use_outline`` (True): take headings from the PDF outline when it matches the
      text; False always detects them from fonts.
    * ``backend``: ``"pypdfium2"`` (default, Apache-2.0/BSD) or ``"pymupdf"`` (needs
      ``fastrag-ai[pymupdf]``; PyMuPDF is AGPL-3.0 — opt in only if that licence suits
      your deployment).
    """

    content_format: ClassVar[ContentFormat] = ContentFormat.MARKDOWN
    version: ClassVar[int] = 18
    """12 → 13: a chapter's label row ("Chapter 2") is no contents entry, and a chapter's
    own short contents (numbered leader rows) is navigation; rows in an outline heading
    style that the outline leaves out are headings only when set apart from the text.
    13 → 14: columns are judged on their text, not a chart's small labels; spanning
    rows with no column text between them are one region. 14 → 15: ``.B`` font names
    are bold and regular ones ("Times-Roman") never bold by weight; a bold body-size
    term over its hanging definition is no heading, nor is a bold row over text indented
    under it a phrase running on into that text (man pages). 15 → 16: URW's abbreviated
    face names (``-Regu``, ``-Medi``) decide boldness; a numbered section right over its
    first subsection, or over a lowercase name, is a heading. 16 → 17: of two first-page
    styles within 5 % in size, the one setting more text is the title's. 17 → 18: the
    first page's notes at a column's foot are read after its columns."""

    def __init__(
        self,
        *,
        password: str | None = None,
        max_pages: int = 2000,
        max_characters: int = 20_000_000,
        output_format: OutputFormat = "markdown",
        use_outline: bool = True,
        backend: PdfBackend = "pypdfium2",
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        if password is not None and not isinstance(password, str):
            raise ConfigurationError(
                f"PdfParser 'password' must be a str or None (got {type(password).__name__})"
            )
        for option, value in (("max_pages", max_pages), ("max_characters", max_characters)):
            if type(value) is not int or value < 1:
                raise ConfigurationError(
                    f"PdfParser {option!r} must be an int >= 1 (got {value!r:.40})"
                )
        if output_format not in _OUTPUT_FORMATS:
            raise ConfigurationError(
                f"PdfParser 'output_format' must be one of {_OUTPUT_FORMATS} "
                f"(got {output_format!r:.40})"
            )
        if not isinstance(use_outline, bool):
            raise ConfigurationError(
                f"PdfParser 'use_outline' must be a bool (got {use_outline!r:.40})"
            )
        if backend not in _BACKENDS:
            raise ConfigurationError(
                f"PdfParser 'backend' must be one of {_BACKENDS} (got {backend!r:.40})"
            )
        # Fail at construction, not per file, when an extra is missing.
        if backend == "pymupdf":
            require("pymupdf", extra="pymupdf", feature=PYMUPDF_FEATURE)
        if output_format == "docling":
            require("docling_core", extra="docling", feature='PdfParser(output_format="docling")')
        self._password = password
        self.max_pages = max_pages
        self.max_characters = max_characters
        self.output_format: OutputFormat = output_format
        self.use_outline = use_outline
        self.backend: PdfBackend = backend
        super().__init__(max_bytes=max_bytes, cache=cache, policy=policy)

    def config(self) -> dict[str, Any]:
        """Version and every option that changes the output (never the password)."""
        return {
            **super().config(),
            "max_pages": self.max_pages,
            "max_characters": self.max_characters,
            "output_format": self.output_format,
            "use_outline": self.use_outline,
            "backend": self.backend,
        }

    def parse(self, data: bytes, source: Document) -> Parsed:
        """Extract, analyse and render ``data``; see the module docstring for failures."""
        name = source.source_id
        if not data:
            raise ParsingError(f"{name}: is empty (0 bytes), not a PDF; fix or exclude it")
        read = extract_pymupdf if self.backend == "pymupdf" else extract
        extraction: Extraction = read(
            data,
            name=name,
            password=self._password,
            max_pages=self.max_pages,
            max_characters=self.max_characters,
        )
        layout = analyze(extraction, use_outline=self.use_outline)
        count = len(layout.pages)
        image_only = [page.number for page in layout.pages if page.image_only]
        # A page that held only a table of contents or an index had text: it was left out.
        navigation_pages = {page for part in layout.removed_navigation for page in part.pages}
        without_text = [
            page.number
            for page in layout.pages
            if not page.blocks and page.number not in navigation_pages
        ]
        if count and not any(page.blocks for page in layout.pages) and not navigation_pages:
            raise NeedsOcrError(
                f"{name}: no extractable text — needs OCR ({len(image_only)} image-only "
                f"page(s) of {count}); run OCR on it (e.g. ocrmypdf) and ingest the result, "
                "or exclude it"
            )
        reader = "PyMuPDF" if self.backend == "pymupdf" else "pdfium"
        diagnostics = (
            *_ocr_notes(image_only),
            *(
                f"page {number}: {reader} could not load it; left out"
                for number in extraction.unreadable_pages
            ),
            *_notes(layout),
        )
        metadata: dict[str, Any] = {
            "page_count": count,
            "heading_source": layout.heading_source,
            "pages_without_text": without_text,
            "removed_furniture": layout.removed_furniture,
            "removed_navigation": {
                part.kind: {"pages": list(part.pages), "lines": part.rows}
                for part in layout.removed_navigation
            },
        }
        if self.output_format == "docling":
            document = build_docling(layout, name=name, data=data)
            return Parsed(serialize(document), ContentFormat.DOCLING, diagnostics, metadata)
        rendered = render_markdown(layout)
        metadata = {PAGES_KEY: rendered.pages, LAYOUT_KEY: rendered.layout, **metadata}
        return Parsed(rendered.content, self.content_format, diagnostics, metadata)


def _ocr_notes(pages: list[int]) -> list[str]:
    """One note per run of consecutive image-only pages."""
    return [
        f"ocr: {f'page {first}' if first == last else f'pages {first}–{last}'} image-only, "
        "no extractable text — needs OCR"
        for first, last in _runs(pages)
    ]


def _runs(pages: Sequence[int]) -> list[tuple[int, int]]:
    """``(3, 4, 5, 9)`` → ``[(3, 5), (9, 9)]``: first and last page of each run."""
    runs: list[tuple[int, int]] = []
    for page in pages:
        if runs and page == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], page)
        else:
            runs.append((page, page))
    return runs


def _notes(layout: DocumentLayout) -> list[str]:
    notes = list(layout.notes)
    if layout.removed_furniture:
        notes.append(
            f"furniture: {layout.removed_furniture} running header/footer and page-number "
            "lines removed"
        )
    for part in layout.removed_navigation:
        what = "table of contents" if part.kind == "contents" else part.kind
        notes.append(f"navigation: {part.rows} {what} lines left out ({_page_ranges(part.pages)})")
    return notes


def _page_ranges(pages: tuple[int, ...]) -> str:
    """``(3, 4, 5, 9)`` → ``"pages 3–5, 9"``."""
    ranges = [str(first) if first == last else f"{first}–{last}" for first, last in _runs(pages)]
    return ("page " if len(pages) == 1 else "pages ") + ", ".join(ranges)
