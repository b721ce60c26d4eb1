"""Read a PDF through PyMuPDF (``PdfParser(backend="pymupdf")``): the same ``Extraction``
the pypdfium2 reader (``_pdf_extract``) gives the analysis stages.

**Licence**: PyMuPDF is AGPL-3.0 (or a commercial licence from Artifex). It is an
optional extra, ``fastrag-ai[pymupdf]``, never required and never the default: whoever
turns it on accepts the AGPL for their deployment.

Per page, one ``page.get_text("dict")`` call (with MuPDF's accurate glyph boxes, no
images) gives blocks → lines → spans with font size, flags, font name, box and baseline
origin, in content-stream order. Each MuPDF line becomes one or more ``Span``: a line is
cut where its runs move to another row or leave a wide gap (the rule ``_group_rects``
applies to pdfium's runs), so a table row or a term and its definition stay separate
cells as they do with pypdfium2. Both readers clean text with the same table
(``CLEAN_TEXT``) and read boldness and monospacing from the same font-name patterns
(a row is monospaced by the same share rule, ``MONO_SHARE``).

Hyphenation: pdfium marks a line-end hyphen after a letter as a soft hyphen (U+FFFE);
MuPDF keeps the ``-``. The same rule is applied here (the hyphen is dropped and the span
marked ``hyphenated``), so both backends join ``Redirec-`` / ``tions`` alike.

Failures raise the pypdfium2 reader's errors: ``EncryptedDocumentError`` (``needs_pass``
and no or a wrong password — ``authenticate``), ``ParsingError`` for a file MuPDF cannot
open *and* for one it opens with 0 pages — MuPDF "repairs" a truncated file silently into
an empty document (the corpus's truncated acmart paper), which would otherwise look like
a valid PDF without text. MuPDF is not thread-safe: every call runs under one lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import EncryptedDocumentError, ParsingError
from fastrag.ingestion.steps.parsing._pdf_extract import (
    CLEAN_TEXT,
    MONO_SHARE,
    SOFT_HYPHENS,
    Extraction,
    bold_by_name,
    is_mono_font,
    is_neutral_font,
)
from fastrag.ingestion.steps.parsing._pdf_layout import Box, PageText, Span
from fastrag.ingestion.steps.parsing._pdf_outline import MAX_OUTLINE_ENTRIES, OutlineEntry

__all__ = ["MUPDF_LOCK", "PYMUPDF_FEATURE", "extract_pymupdf"]

PYMUPDF_FEATURE: Final = (
    "PdfParser(backend='pymupdf') (PyMuPDF is AGPL-3.0 licensed; the default backend "
    "pypdfium2 needs no such licence)"
)
"""Named in the missing-dependency error, so the licence is stated where it is chosen."""

MUPDF_LOCK: Final = threading.Lock()
"""Serializes every MuPDF call in the process (a MuPDF context is not thread-safe)."""

_BOLD_FLAG: Final = 16
_MONO_FLAG: Final = 8
_MAX_TITLE_CHARS: Final = 2048


def _pymupdf() -> Any:
    return require("pymupdf", extra="pymupdf", feature=PYMUPDF_FEATURE)


def extract_pymupdf(
    data: bytes,
    *,
    name: str,
    password: str | None,
    max_pages: int,
    max_characters: int,
) -> Extraction:
    """Open ``data`` with PyMuPDF and read every page's spans and the outline.

    Raises what ``_pdf_extract.extract`` raises, each naming ``name``; see the module
    docstring for the 0-page case.
    """
    pymupdf = _pymupdf()
    flags = (pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES) | pymupdf.TEXT_ACCURATE_BBOXES
    with MUPDF_LOCK, _opened(pymupdf, data, name, password) as document:
        count = int(document.page_count)
        if count == 0:
            raise ParsingError(
                f"{name}: PyMuPDF cannot read it (it opens with 0 pages); the file is "
                "truncated, damaged or not a PDF — re-export or repair it, or exclude it"
            )
        if count > max_pages:
            raise ParsingError(
                f"{name}: has {count} pages, more than the PDF parser's max_pages="
                f"{max_pages}; raise PdfParser(max_pages=...) to ingest it"
            )
        pages: list[PageText] = []
        unreadable: list[int] = []
        characters = 0
        for index in range(count):
            try:
                page = _read_page(document[index], index + 1, flags)
            except RuntimeError:  # MuPDF's FzError family: a page it cannot interpret
                unreadable.append(index + 1)
                page = PageText(index + 1, 0.0, 0.0, (), 0)
            characters += sum(len(span.text) for span in page.spans)
            if characters > max_characters:
                raise ParsingError(
                    f"{name}: more than max_characters={max_characters} characters of "
                    f"text by page {index + 1} of {count}; raise "
                    "PdfParser(max_characters=...) to ingest it"
                )
            pages.append(page)
        outline = _outline(document, count)
    return Extraction(tuple(pages), outline, tuple(unreadable))


@contextmanager
def _opened(pymupdf: Any, data: bytes, name: str, password: str | None) -> Iterator[Any]:
    """The open, authenticated document, closed on exit; the password is never shown."""
    try:
        document = pymupdf.open(stream=data, filetype="pdf")
    except RuntimeError as error:  # FileDataError and MuPDF's other errors
        raise ParsingError(
            f"{name}: PyMuPDF cannot open it ({type(error).__name__}); the file is "
            "truncated, damaged or not a PDF — re-export or repair it, or exclude it"
        ) from None
    try:
        if document.needs_pass and (password is None or not document.authenticate(password)):
            hint = "the password given is wrong" if password else "it is encrypted"
            raise EncryptedDocumentError(
                f"{name}: {hint}; pass the document's password with "
                "PdfParser(password=...) or fastrag ingest --pdf-password"
            )
        yield document
    finally:
        document.close()


def _read_page(page: Any, number: int, flags: int) -> PageText:
    """One page's spans, in MuPDF's (content-stream) order, placed top-left like pdfium's."""
    rect = page.rect
    width, height = float(rect.width), float(rect.height)
    left, top = float(rect.x0), float(rect.y0)
    spans: list[Span] = []
    row = -1
    for block in page.get_text("dict", flags=flags, sort=False)["blocks"]:
        if block.get("type") != 0:
            continue
        pieces = [
            (span, number > 0 and position == 0)
            for number, line in enumerate(block["lines"])
            for position, span in enumerate(line["spans"])
        ]
        for run in _runs(pieces):
            span = _span(run, row, left, top, width, height)
            if span is None:
                continue
            # pdfium numbers printed rows; a run on the row of the span before it (a
            # running header and its page number) shares that row's number.
            previous = spans[-1] if spans else None
            if previous is None or not _same_row(previous, span):
                row += 1
                span = _on_row(span, row)
            spans.append(span)
    images = 0 if spans else len(page.get_images(full=True))
    return PageText(number, round(width, 1), round(height, 1), tuple(spans), images)


_Piece = tuple[dict[str, Any], bool]
"""A MuPDF span and whether it starts a new MuPDF line (not the block's first)."""


def _runs(pieces: Sequence[_Piece]) -> list[list[_Piece]]:
    """A block's spans grouped into runs: a new run at a new row or a wide gap.

    MuPDF may cut one printed row into several lines (a section number and its title, a
    word in another font), so runs are built across the block's lines. The thresholds
    are ``_pdf_extract._group_rects``'s for pdfium's runs: rows differ when the boxes
    overlap vertically by less than half the smaller height (a much smaller run — a
    superscript, a comma — only needs to be near); a gap is wide beyond 1.6 times the
    taller box's height or when the text runs backwards. Whitespace-only spans join the
    run they sit in and never measure anything.
    """
    runs: list[list[_Piece]] = []
    last: tuple[float, float, float] | None = None
    """The current run's right edge, top and bottom."""
    for piece in pieces:
        span = piece[0]
        if not span["text"].strip():
            if runs:
                runs[-1].append(piece)
            continue
        x0, y0, x1, y1 = (float(value) for value in span["bbox"])
        if last is not None:
            right, top, bottom = last
            overlap = min(bottom, y1) - max(top, y0)
            smaller = min(bottom - top, y1 - y0)
            taller = max(bottom - top, y1 - y0, 0.01)
            same_row = overlap >= 0.5 * smaller or (
                smaller < 0.6 * taller and overlap > -0.25 * taller
            )
            if same_row and -0.5 * taller <= x0 - right <= 1.6 * taller:
                runs[-1].append(piece)
                last = (max(right, x1), min(top, y0), max(bottom, y1))
                continue
        runs.append([piece])
        last = (x1, y0, y1)
    return runs


def _span(
    run: list[_Piece], row: int, left: float, top: float, width: float, height: float
) -> Span | None:
    """The ``Span`` of one run; None when nothing is left after cleaning."""
    parts: list[str] = []
    visible: list[dict[str, Any]] = []
    for span, new_line in run:
        text = span["text"]
        if new_line and parts and not parts[-1].endswith(" ") and not text.startswith(" "):
            parts.append(" ")  # MuPDF's line break inside one printed row: a word gap
        parts.append(text)
        if text.strip():
            visible.append(span)
    raw = "".join(parts).rstrip()
    hyphenated = raw.endswith(SOFT_HYPHENS) or (
        raw.endswith("-") and len(raw) >= 2 and raw[-2].isalpha()
    )
    if hyphenated:
        raw = raw[:-1]
    mono = _mono_run(visible)
    text = raw.translate(CLEAN_TEXT).strip()
    if not mono:  # MuPDF keeps runs of spaces pdfium writes as one; code keeps them
        text = " ".join(text.split())
    if not text:
        return None
    x0 = min(float(span["bbox"][0]) for span in visible) - left
    y0 = min(float(span["bbox"][1]) for span in visible) - top
    x1 = max(float(span["bbox"][2]) for span in visible) - left
    y1 = max(float(span["bbox"][3]) for span in visible) - top
    x0, x1 = min(max(x0, 0.0), width), min(max(x1, 0.0), width)
    y0, y1 = min(max(y0, 0.0), height), min(max(y1, 0.0), height)
    box = Box(round(x0, 1), round(y0, 1), round(max(x0, x1), 1), round(max(y0, y1), 1))
    size = round(max(float(span["size"]) for span in visible), 2)
    bold = all(_bold(span) for span in visible)
    baselines = sorted(float(span["origin"][1]) - top for span in visible)
    baseline = round(baselines[len(baselines) // 2], 2)
    if not box.y0 - size <= baseline <= box.y1 + size:
        baseline = box.y1
    return Span(text, box, size, bold, mono, hyphenated, row, baseline)


def _same_row(previous: Span, span: Span) -> bool:
    return abs(previous.baseline - span.baseline) <= 0.35 * max(previous.size, span.size, 1.0)


def _on_row(span: Span, row: int) -> Span:
    return Span(
        span.text, span.box, span.size, span.bold, span.mono, span.hyphenated, row, span.baseline
    )


def _bold(span: dict[str, Any]) -> bool:
    """By name when the name tells (as the pdfium backend reads it), else by flag."""
    named = bold_by_name(str(span["font"]))
    return bool(int(span["flags"]) & _BOLD_FLAG) if named is None else named


def _mono(span: dict[str, Any]) -> bool:
    return bool(int(span["flags"]) & _MONO_FLAG) or is_mono_font(str(span["font"]))


def _mono_run(spans: list[dict[str, Any]]) -> bool:
    """Monospaced like pdfium's spans (``MONO_SHARE``): the first and last MuPDF spans
    that are not math symbols are monospaced, and so are that share of their characters."""
    voters = [span for span in spans if _mono(span) or not is_neutral_font(str(span["font"]))]
    if not voters or not (_mono(voters[0]) and _mono(voters[-1])):
        return False
    chars = sum(len(span["text"].strip()) for span in voters)
    mono = sum(len(span["text"].strip()) for span in voters if _mono(span))
    return mono >= MONO_SHARE * chars


def _outline(document: Any, pages: int) -> tuple[OutlineEntry, ...]:
    """``get_toc()``'s bookmarks that point at a page, capped like pdfium's outline."""
    entries: list[OutlineEntry] = []
    for level, title, page in document.get_toc(simple=True)[:MAX_OUTLINE_ENTRIES]:
        text = " ".join(str(title).split())
        if 1 <= int(page) <= pages and text and len(text) <= _MAX_TITLE_CHARS:
            entries.append(OutlineEntry(text, int(level), int(page)))
    return tuple(entries)
