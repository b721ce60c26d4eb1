"""Read a PDF through pypdfium2: pages → spans of text with their boxes and fonts.

Speed decides the shape of this module. A ctypes call costs about a microsecond, and a
long manual has half a million characters, so nothing here asks pdfium about every
character. Per page: one ``FPDFText_GetText`` for all the text (with pdfium's own line
breaks), then per pdfium line one ``FPDFText_CountRects`` — pdfium's runs of one text
object, so one or a few per line — and a font sample of three characters per span.
Only a line whose runs sit on different rows (pdfium joins a soft-hyphenated row with
the next one) or are separated by a wide gap (a column gutter, a table cell) is split,
at the character ``FPDFText_GetCharIndexAtPos`` finds at the start of the run.

pdfium is not thread-safe: every call happens under one module-level lock, and every
document, page and text page is closed in a ``finally``.
"""

from __future__ import annotations

import ctypes
import math
import re
import threading
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import EncryptedDocumentError, ParsingError
from fastrag.ingestion.steps.parsing._pdf_layout import Box, PageText, Span
from fastrag.ingestion.steps.parsing._pdf_outline import OutlineEntry, read_outline

__all__ = [
    "BOLD_NAME",
    "CLEAN_TEXT",
    "MONO_NAME",
    "MONO_SHARE",
    "PDFIUM_LOCK",
    "REGULAR_NAME",
    "SOFT_HYPHENS",
    "Extraction",
    "bold_by_name",
    "extract",
    "is_mono_font",
    "is_neutral_font",
]

PDFIUM_LOCK: Final = threading.Lock()
"""Serializes every pdfium call in the process (pdfium keeps global state)."""

_MAX_OBJECTS_SCANNED: Final = 10_000
_MAX_FONT_NAMES: Final = 4096
_FIXED_PITCH: Final = 1
_FORCE_BOLD: Final = 1 << 18
_ERRORS: Final = {
    1: "unknown error",
    2: "file not found or could not be opened",
    3: "bad format: not a PDF, or damaged",
    4: "password required or incorrect",
    5: "unsupported security scheme",
    6: "page not found or content error",
}
# Bold by name: the usual words; TeX's bold extended (cmbx, bx); a ``-B``/``,B`` suffix;
# Elsevier's Advent faces, ``AdvOTb83ee1dd.B`` (bold) and ``.BI`` beside ``.I``; URW's
# abbreviated medium (their Times' bold), ``NimbusRomNo9L-Medi``.
BOLD_NAME = re.compile(
    r"bold|black|heavy|semibold|demi|^cmbx|^cmb\d|bx\d|-b$|,b$|\.bi?$|-medi(?:ital)?$", re.I
)
# A face its name calls regular is not bold whatever its weight: pdfium reports 695 for
# ghostscript's Times-Roman (groff's man pages through ps2pdf), against 728 for Times-Bold,
# and as much for URW's abbreviated names (``NimbusRomNo9L-Regu``, ``URWPalladioL-Roma``,
# ``URWBookmanL-Ligh``).
REGULAR_NAME = re.compile(r"roman|regular|-regu|-roma|book|light|-ligh|thin|-r$|,r$", re.I)


def bold_by_name(name: str) -> bool | None:
    """True for a bold face by name, False for a regular one, None when it says neither."""
    if BOLD_NAME.search(name):
        return True
    return False if REGULAR_NAME.search(name) else None


# Monospaced families by name, because pdfium sets the FixedPitch flag only when the
# font descriptor does: TeX's Type 1 typewriter fonts (Computer Modern CMTT, its slanted
# CMSLTT, italic CMITT, CMTEX; EC/cm-super SFTT/SFST/SFIT, ECTT/ECST/ECIT; Latin Modern
# LMTT and LMMono*; txfonts TXTT; Courier as pcr) come without it, and so does URW's
# Courier, Nimbus Mono L (``NimbusMonL-Regu``: DocBook's PDFs through FOP or dblatex set
# their examples in it). Matched after the subset tag (``ABCDEF+``) is removed (see
# ``is_mono_font``); "Arial Unicode" is no code.
MONO_NAME = re.compile(
    r"mono|courier|typewriter|consol|inconsolata|(?<!uni)code|menlo|cousine|nimbusmon|monaco"
    r"|^cm(?:sl|i|v)?tt|^cmtex|^(?:sf|ec)(?:tt|st|it)\d|^lm(?:tt|mono)|^txtt|^pcr[rbo]|^tt\d",
    re.I,
)
# Math and symbol fonts say nothing about code-ness or boldness: TeX sets the minus of
# ``[−]word``, a bullet or a variable in them inside typewriter, bold and body text alike.
_NEUTRAL_NAME = re.compile(r"^(?:cmsy|cmmi|cmex|msam|msbm)\d|^symbol|math", re.I)
_SUBSET_TAG: Final = re.compile(r"^[A-Z]{6}\+")
MONO_SHARE: Final = 0.75
"""A span is monospaced (code) when its first and last characters and at least this share
of its sampled characters are set in monospaced fonts: a code line with a slanted
placeholder is code; a prose line with an inline command, or a wrapped URL ending in the
text's own ``, 1993.``, is not — whichever characters happen to be sampled."""
_STYLE_SAMPLES: Final = 9
"""Characters sampled per span for boldness and monospacing (evenly spaced from the first
to the last; spaces and math-font symbols skipped)."""
_RECOUNT_SAMPLES: Final = 40
"""Characters sampled again when a first sample that is not unanimous says monospaced."""
# Control characters pdfium may leave in text (U+0002 soft hyphens, U+0003, NUL, lone CR
# of a drawn glyph) are dropped; tabs and form feeds become spaces; ligatures expand.
CLEAN_TEXT = str.maketrans(
    {
        **{code: None for code in range(32) if code not in (9, 12)},
        9: " ",
        12: " ",
        0x7F: None,
        0xAD: None,
        0xFFFE: None,
        0xFEFF: None,
        0xFB00: "ff",
        0xFB01: "fi",
        0xFB02: "fl",
        0xFB03: "ffi",
        0xFB04: "ffl",
        0xFB05: "st",
        0xFB06: "st",
    }
)
SOFT_HYPHENS: Final = ("\ufffe", "\xad", "\x02")
_BLANKS: Final = (0x20, 0xA0, 0x0D, 0x0A)


def _is_mono(votes: list[bool]) -> bool:
    """The ``MONO_SHARE`` rule over a span's monospacing votes, first to last."""
    return bool(votes) and votes[0] and votes[-1] and sum(votes) >= MONO_SHARE * len(votes)


def is_mono_font(name: str) -> bool:
    """Whether the font named ``name`` (a PDF BaseFont, maybe subset-tagged) is monospaced."""
    return MONO_NAME.search(_SUBSET_TAG.sub("", name)) is not None


def is_neutral_font(name: str) -> bool:
    """Whether ``name`` is a math or symbol font, whose glyphs say nothing about style."""
    return _NEUTRAL_NAME.search(_SUBSET_TAG.sub("", name)) is not None


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything read from the PDF; the document is closed by the time this exists."""

    pages: tuple[PageText, ...]
    """Every page in order (``pages[n - 1]`` is page n); an unreadable page has no spans."""
    outline: tuple[OutlineEntry, ...]
    unreadable_pages: tuple[int, ...]
    """1-based pages pdfium could not load (left empty, reported)."""


def _pdfium() -> tuple[Any, Any]:
    helpers = require("pypdfium2", extra="pdf", feature="PdfParser")
    raw = require("pypdfium2.raw", extra="pdf", feature="PdfParser")
    return helpers, raw


def extract(
    data: bytes,
    *,
    name: str,
    password: str | None,
    max_pages: int,
    max_characters: int,
) -> Extraction:
    """Open ``data`` and read every page's spans and the outline.

    Raises ``EncryptedDocumentError`` (no or a wrong password) or ``ParsingError``
    (unreadable file, more than ``max_pages`` pages — refused before any page is read —
    or more than ``max_characters`` characters of text), each naming ``name``.
    """
    helpers, raw = _pdfium()
    with PDFIUM_LOCK, _opened(helpers, data, name, password) as document:
        handle = document.raw
        count = int(raw.FPDF_GetPageCount(handle))
        if count > max_pages:
            raise ParsingError(
                f"{name}: has {count} pages, more than the PDF parser's max_pages="
                f"{max_pages}; raise PdfParser(max_pages=...) to ingest it"
            )
        reader = _PageReader(raw)
        pages: list[PageText] = []
        unreadable: list[int] = []
        characters = 0
        for index in range(count):
            page = reader.read(handle, index)
            if page is None:
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
        outline = read_outline(raw, handle, count)
    return Extraction(tuple(pages), outline, tuple(unreadable))


@contextmanager
def _opened(helpers: Any, data: bytes, name: str, password: str | None) -> Iterator[Any]:
    """The open pypdfium2 document, closed on exit; errors named, password never shown."""
    try:
        document = helpers.PdfDocument(data, password=password)
    except helpers.PdfiumError as error:
        code = getattr(error, "err_code", None)
        if code == 4:
            hint = "the password given is wrong" if password else "it is encrypted"
            raise EncryptedDocumentError(
                f"{name}: {hint}; pass the document's password with "
                "PdfParser(password=...) or fastrag ingest --pdf-password"
            ) from None
        reason = (
            f"pdfium error {code}: {_ERRORS.get(code, 'unknown error')}"
            if isinstance(code, int)
            else f"pdfium: {type(error).__name__}"
        )
        raise ParsingError(
            f"{name}: pdfium cannot open it ({reason}); the file is truncated, damaged or "
            "not a PDF — re-export or repair it, or exclude it"
        ) from None
    try:
        yield document
    finally:
        document.close()


class _PageReader:
    """Reads one page at a time with preallocated ctypes out-parameters."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.left, self.top = ctypes.c_double(), ctypes.c_double()
        self.right, self.bottom = ctypes.c_double(), ctypes.c_double()
        self.matrix = raw.FS_MATRIX()
        self.rect = raw.FS_RECTF()
        self.flags = ctypes.c_int()
        self.name = ctypes.create_string_buffer(256)
        self.kinds: dict[bytes, tuple[bool, bool, bool | None]] = {}
        """Font name → (monospaced, math font, bold) by name; see ``_font_kind``."""
        self.page = (0.0, 0.0, 0.0, 0.0)
        """The current page's left, top, width and height in PDF space."""

    def read(self, document: Any, index: int) -> PageText | None:
        """The page's spans (None when pdfium cannot load the page)."""
        raw = self.raw
        page = raw.FPDF_LoadPage(document, index)
        if not page:
            return None
        try:
            if not raw.FPDF_GetPageBoundingBox(page, self.rect):
                return None
            bounds = (self.rect.left, self.rect.top, self.rect.right, self.rect.bottom)
            width = abs(bounds[2] - bounds[0])
            height = abs(bounds[1] - bounds[3])
            textpage = raw.FPDFText_LoadPage(page)
            if not textpage:
                return None
            try:
                self.page = (bounds[0], max(bounds[1], bounds[3]), width, height)
                spans = self._spans(textpage)
            finally:
                raw.FPDFText_ClosePage(textpage)
            images = 0 if spans else _count_images(raw, page)
        finally:
            raw.FPDF_ClosePage(page)
        return PageText(index + 1, round(width, 1), round(height, 1), tuple(spans), images)

    def _spans(self, textpage: Any) -> list[Span]:
        raw = self.raw
        count = int(raw.FPDFText_CountChars(textpage))
        if count <= 0:
            return []
        buffer = (ctypes.c_ushort * (2 * count + 2))()
        written = int(raw.FPDFText_GetText(textpage, 0, count, buffer)) - 1
        if written <= 0:
            return []
        text = bytes(buffer)[: 2 * written].decode("utf-16-le", "replace")
        units = _UnitMap(text, written)
        spans: list[Span] = []
        position = 0
        for row, line in enumerate(text.split("\r\n")):
            end = position + len(line)
            if line.strip():
                self._line_spans(textpage, text, units, position, end, row, spans)
            position = end + 2
        return spans

    def _line_spans(
        self,
        textpage: Any,
        text: str,
        units: _UnitMap,
        start: int,
        end: int,
        row: int,
        out: list[Span],
    ) -> None:
        """Split one pdfium line ``text[start:end]`` into spans, placed on the page."""
        raw = self.raw
        first = int(raw.FPDFText_GetCharIndexFromTextIndex(textpage, units.unit(start)))
        last = int(raw.FPDFText_GetCharIndexFromTextIndex(textpage, units.unit(end) - 1))
        if first < 0 or last < first:
            return
        rects = self._rects(textpage, first, last - first + 1)
        if not rects:
            return
        groups = _group_rects(rects)
        cuts = [start]
        for group in groups[1:]:
            cut = self._char_at(textpage, rects[group[0]], units)
            cuts.append(cut if cut is not None and cuts[-1] < cut < end else -1)
        if -1 in cuts:  # a run pdfium could not locate: keep the line whole
            groups, cuts = [[index for group in groups for index in group]], [start]
        cuts.append(end)
        left, top, width, height = self.page
        for number, group in enumerate(groups):
            piece = text[cuts[number] : cuts[number + 1]]
            box = _placed([rects[index] for index in group], left, top, width, height)
            hyphenated = piece.rstrip(" ").endswith(SOFT_HYPHENS)
            clean = piece.translate(CLEAN_TEXT).strip()
            if not clean:
                continue
            size, bold, mono, baseline = self._font(
                textpage,
                units,
                cuts[number] + (len(piece) - len(piece.lstrip())),
                cuts[number + 1] - (len(piece) - len(piece.rstrip())),
            )
            baseline = box.y1 if baseline is None else round(top - baseline, 2)
            if not box.y0 - size <= baseline <= box.y1 + size:
                baseline = box.y1
            out.append(Span(clean, box, size, bold, mono, hyphenated, row, baseline))

    def _rects(self, textpage: Any, first: int, count: int) -> list[tuple[float, ...]]:
        raw = self.raw
        total = int(raw.FPDFText_CountRects(textpage, first, count))
        rects: list[tuple[float, ...]] = []
        left, top, right, bottom = self.left, self.top, self.right, self.bottom
        for index in range(total):
            if raw.FPDFText_GetRect(textpage, index, left, top, right, bottom):
                x0, x1 = left.value, right.value
                y0, y1 = bottom.value, top.value
                if x1 - x0 > 0.01 and y1 - y0 > 0.01:
                    rects.append((x0, y0, x1, y1))
        return rects

    def _char_at(self, textpage: Any, rect: tuple[float, ...], units: _UnitMap) -> int | None:
        """The text index of the first character of the run ``rect``, or None."""
        raw = self.raw
        x0, y0, x1, y1 = rect
        x = x0 + min(0.5, (x1 - x0) / 4)
        index = int(raw.FPDFText_GetCharIndexAtPos(textpage, x, (y0 + y1) / 2, 0.5, 0.5))
        if index < 0:
            return None
        unit = int(raw.FPDFText_GetTextIndexFromCharIndex(textpage, index))
        return None if unit < 0 else units.index(unit)

    def _font(
        self, textpage: Any, units: _UnitMap, start: int, end: int
    ) -> tuple[float, bool, bool, float | None]:
        """Size, boldness, monospacing and baseline of the span ``text[start:end]``.

        Size and baseline come from the first, middle and last characters: the largest
        size (a leading footnote mark or a run of small capitals is smaller than the
        text), the median baseline (a raised mark is outvoted). Boldness and monospacing
        are voted on by a sample of characters (``_styles``)."""
        raw = self.raw
        sizes: list[float] = []
        baselines: list[float] = []
        middle = (start + end - 1) // 2
        for position in dict.fromkeys((middle, start, end - 1)):
            char = int(raw.FPDFText_GetCharIndexFromTextIndex(textpage, units.unit(position)))
            if char < 0 or (position == middle and raw.FPDFText_IsGenerated(textpage, char) == 1):
                continue
            size = float(raw.FPDFText_GetFontSize(textpage, char))
            if raw.FPDFText_GetMatrix(textpage, char, self.matrix):
                size *= math.hypot(self.matrix.c, self.matrix.d)
            sizes.append(size)
            if raw.FPDFText_GetCharOrigin(textpage, char, self.left, self.bottom):
                baselines.append(self.bottom.value)
        if not sizes:
            return 0.0, False, False, None
        baselines.sort()
        baseline = baselines[len(baselines) // 2] if baselines else None
        bold, mono = self._styles(textpage, units, start, end)
        return round(max(sizes), 2), bold, mono, baseline

    def _styles(self, textpage: Any, units: _UnitMap, start: int, end: int) -> tuple[bool, bool]:
        """Boldness and monospacing voted by up to ``_STYLE_SAMPLES`` characters spread
        from the first to the last (spaces and math-font symbols do not vote): bold when
        every voter is bold (at least two, unless only one could vote); monospaced as
        ``MONO_SHARE`` says. The italic x ending "Computing powers of x" does not make a
        bold heading regular, nor a bold word in a definition a whole row bold. A split
        vote for monospacing is taken again with ``_RECOUNT_SAMPLES`` characters, so a
        prose row between two inline commands is not code by the luck of the sample."""
        bold, mono = self._votes(textpage, units, start, end, _STYLE_SAMPLES)
        if _is_mono(mono) and not all(mono) and end - start > _STYLE_SAMPLES:
            bold, mono = self._votes(textpage, units, start, end, _RECOUNT_SAMPLES)
        is_bold = all(bold) and len(bold) >= min(2, end - start)
        return is_bold, _is_mono(mono)

    def _votes(
        self, textpage: Any, units: _UnitMap, start: int, end: int, samples: int
    ) -> tuple[list[bool], list[bool]]:
        """(bold, monospaced) of up to ``samples`` characters from first to last; stops
        early once neither can be true (the usual prose span: its first voter)."""
        raw = self.raw
        last = end - 1
        samples = min(samples, end - start)
        gaps = max(samples - 1, 1)
        positions = dict.fromkeys(start + (k * (last - start)) // gaps for k in range(samples))
        bold: list[bool] = []
        mono: list[bool] = []
        for position in positions:
            char = int(raw.FPDFText_GetCharIndexFromTextIndex(textpage, units.unit(position)))
            if char < 0 or raw.FPDFText_GetUnicode(textpage, char) in _BLANKS:
                continue  # a space's font says nothing (TeX sets none; others use the text's)
            fixed, neutral, bold_name = self._font_kind(textpage, char)
            if neutral and not fixed:
                continue
            mono.append(fixed)
            bold.append(
                bold_name
                if bold_name is not None
                else bool(self.flags.value & _FORCE_BOLD)
                or int(raw.FPDFText_GetFontWeight(textpage, char)) >= 600
            )
            if not mono[0] and not bold[-1]:
                break
        return bold, mono

    def _font_kind(self, textpage: Any, char: int) -> tuple[bool, bool, bool | None]:
        """Whether character ``char``'s font is monospaced, a math font, bold by name
        (None when its name says neither bold nor regular: flags and weight decide);
        names are judged once per run (a page has a few fonts and many characters); the
        font's flags are left in ``self.flags``."""
        length = int(self.raw.FPDFText_GetFontInfo(textpage, char, self.name, 256, self.flags))
        name = self.name.value if 0 < length <= 256 else b""
        kind = self.kinds.get(name)
        if kind is None:
            text = name.decode("latin-1")
            kind = (is_mono_font(text), is_neutral_font(text), bold_by_name(text))
            if len(self.kinds) < _MAX_FONT_NAMES:  # a hostile file may name endless fonts
                self.kinds[name] = kind
        fixed, neutral, bold = kind
        return fixed or bool(self.flags.value & _FIXED_PITCH), neutral, bold


class _UnitMap:
    """Maps between indices of the decoded page text and pdfium's UTF-16 text indices.

    They differ only on pages with characters outside the BMP (two UTF-16 units, one
    code point); such pages get a table, every other page the identity.
    """

    __slots__ = ("_starts",)

    def __init__(self, text: str, units: int) -> None:
        if len(text) == units:
            self._starts: list[int] | None = None
            return
        starts, unit = [], 0
        for char in text:
            starts.append(unit)
            unit += 2 if ord(char) > 0xFFFF else 1
        starts.append(unit)
        self._starts = starts

    def unit(self, index: int) -> int:
        """The UTF-16 index of code point ``index``."""
        return index if self._starts is None else self._starts[index]

    def index(self, unit: int) -> int:
        """The code point holding UTF-16 index ``unit``."""
        if self._starts is None:
            return unit
        return bisect_right(self._starts, unit) - 1


def _group_rects(rects: list[tuple[float, ...]]) -> list[list[int]]:
    """Indices of ``rects`` grouped into spans: a new span at a new row or a wide gap.

    Rows differ when the runs overlap vertically by less than half the smaller height
    (runs are tight glyph boxes, so a lone comma barely overlaps its word: a run much
    smaller than its neighbour only needs to be near it);
    a gap is wide beyond 1.6 times the taller run's glyph height (about an em: wider than
    a word space of justified text, narrower than a gutter) or when the text runs backwards.
    """
    groups = [[0]]
    _x0, y0, x1, y1 = rects[0]
    for index in range(1, len(rects)):
        a0, b0, a1, b1 = rects[index]
        overlap = min(y1, b1) - max(y0, b0)
        smaller = min(y1 - y0, b1 - b0)
        height = max(y1 - y0, b1 - b0)
        same_row = overlap >= 0.5 * smaller or (
            # a small glyph run (a comma, a quote) beside a taller one on its row
            smaller < 0.6 * height and overlap > -0.25 * height
        )
        if same_row and -0.5 * height <= a0 - x1 <= 1.6 * height:
            groups[-1].append(index)
            x1 = max(x1, a1)
            y0, y1 = min(y0, b0), max(y1, b1)
        else:
            groups.append([index])
            y0, x1, y1 = b0, a1, b1
    return groups


def _placed(
    rects: list[tuple[float, ...]], left: float, top: float, width: float, height: float
) -> Box:
    """The union of ``rects`` (PDF space, y up) in top-left page coordinates, clamped."""
    x0 = min(max(min(r[0] for r in rects) - left, 0.0), width)
    x1 = min(max(max(r[2] for r in rects) - left, 0.0), width)
    y0 = min(max(top - max(r[3] for r in rects), 0.0), height)
    y1 = min(max(top - min(r[1] for r in rects), 0.0), height)
    return Box(round(x0, 1), round(y0, 1), round(max(x0, x1), 1), round(max(y0, y1), 1))


def _count_images(raw: Any, page: Any) -> int:
    """Image objects on a page, looking one level into form XObjects (scans nest there)."""
    found = 0
    total = min(int(raw.FPDFPage_CountObjects(page)), _MAX_OBJECTS_SCANNED)
    for index in range(total):
        item = raw.FPDFPage_GetObject(page, index)
        kind = int(raw.FPDFPageObj_GetType(item))
        if kind == raw.FPDF_PAGEOBJ_IMAGE:
            found += 1
        elif kind == raw.FPDF_PAGEOBJ_FORM:
            inner = min(int(raw.FPDFFormObj_CountObjects(item)), _MAX_OBJECTS_SCANNED)
            for position in range(inner):
                child = raw.FPDFFormObj_GetObject(item, position)
                if int(raw.FPDFPageObj_GetType(child)) == raw.FPDF_PAGEOBJ_IMAGE:
                    found += 1
    return found
