"""Decide a file's type from its first bytes plus its name — never from the name alone.

A file called ``report.pdf`` may be an HTML error page a crawler saved; a ``notes.md`` may
be binary garbage. Content signatures therefore come first and the extension only decides
among the text formats, which have no signature (Markdown and reStructuredText are both
plain text). The rules, in order:

1. ``%PDF-`` at the start (after optional whitespace) → ``pdf``.
2. A ZIP local header (``PK\\x03\\x04``) → an Office Open XML document if the archive holds
   ``word/``, ``ppt/`` or ``xl/`` entries (``docx``/``pptx``/``xlsx``), else unsupported.
   Only the central directory is read — never an entry — and only when its declared size
   is at most ``MAX_CENTRAL_DIRECTORY``, so a hostile archive cannot make sniffing slow.
3. HTML markers (``<!doctype html``, ``<html``, ``<head``, ``<body``) at the start, after a
   BOM, whitespace, ``<?xml ...?>`` and comments → ``html``.
4. NUL bytes without a UTF-16 byte-order mark, or a text decoding that is mostly
   replacement and control characters → binary, unsupported.
5. Otherwise the extension: Markdown, reStructuredText, text (also no extension), HTML.
   A ``.rst.txt`` or ``.md.txt`` (the copies of its sources Sphinx publishes beside the
   HTML, ``_sources/json.rst.txt``) is reStructuredText or Markdown. A
   ``.pdf``/``.docx``/... whose bytes carry no matching signature is not that format.

Only text content reaches step 5, so an extension can never route binary bytes to a text
parser; PDF and Office files are recognised here even before a parser for them exists.
"""

from __future__ import annotations

import codecs
import re
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Literal

__all__ = [
    "BINARY_FORMATS",
    "MAX_CENTRAL_DIRECTORY",
    "SNIFF_BYTES",
    "TEXT_FORMATS",
    "DetectedBy",
    "Sniffed",
    "SourceType",
    "binary_ratio",
    "sniff",
]

SNIFF_BYTES = 8192
"""How many leading bytes sniffing reads."""

MAX_CENTRAL_DIRECTORY = 4 * 1024 * 1024
"""The largest ZIP central directory (bytes) sniffing will read to look for Office parts."""

_BINARY_RATIO = 0.3
"""Above this share of replacement/control characters, decoded "text" is really binary."""

DetectedBy = Literal["content", "extension", "override"]


class SourceType(StrEnum):
    """The kind of source file, as ``metadata["source_type"]`` and the JSONL record name it."""

    TEXT = "text"
    MARKDOWN = "markdown"
    RST = "rst"
    HTML = "html"
    PDF = "pdf"
    DOCX = "docx"
    PPTX = "pptx"
    XLSX = "xlsx"


TEXT_FORMATS: frozenset[str] = frozenset({"text", "markdown", "rst", "html"})
BINARY_FORMATS: frozenset[str] = frozenset({"pdf", "docx", "pptx", "xlsx"})

_EXTENSIONS: Mapping[str, SourceType] = MappingProxyType(
    {
        ".md": SourceType.MARKDOWN,
        ".markdown": SourceType.MARKDOWN,
        ".mdown": SourceType.MARKDOWN,
        ".rst": SourceType.RST,
        ".rest": SourceType.RST,
        ".txt": SourceType.TEXT,
        ".text": SourceType.TEXT,
        "": SourceType.TEXT,
        ".html": SourceType.HTML,
        ".htm": SourceType.HTML,
        ".xhtml": SourceType.HTML,
    }
)
_SOURCE_COPIES: Mapping[str, SourceType] = MappingProxyType(
    {".rst": SourceType.RST, ".md": SourceType.MARKDOWN}
)
_SIGNATURE_EXTENSIONS: Mapping[str, str] = MappingProxyType(
    {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx"}
)
_OFFICE_PARTS: tuple[tuple[str, SourceType], ...] = (
    ("word/", SourceType.DOCX),
    ("ppt/", SourceType.PPTX),
    ("xl/", SourceType.XLSX),
)
_HTML_MARKERS = ("<!doctype html", "<html", "<head", "<body")
_PREAMBLE = re.compile(r"\s*(?:(?:<\?xml[^>]*>|<!--.*?-->)\s*)*", re.DOTALL)
_SUSPICIOUS = re.compile("[\x00-\x08\x0e-\x1f\ufffd]")
_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22
_ZIP64_MARK = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Sniffed:
    """What sniffing decided: a source type, or None with the reason it is unsupported."""

    source_type: str | None
    detected_by: DetectedBy
    reason: str = ""


def sniff(head: bytes, name: str, *, path: Path | None = None) -> Sniffed:
    """Classify a file from ``head`` (its first ``SNIFF_BYTES``) and its ``name``.

    ``path`` lets a ZIP's central directory be read to tell Office formats apart; without
    it a ZIP is unsupported. Never raises for odd content: anything unknown comes back as
    ``Sniffed(None, ..., reason)``.
    """
    extension = PurePosixPath(name).suffix.lower()
    if head.lstrip(b" \t\r\n\x0c")[:5] == b"%PDF-":
        return Sniffed(SourceType.PDF.value, "content")
    if head[:4] == b"PK\x03\x04":
        return _sniff_zip(path)
    text, has_utf16_bom, replaced = _head_text(head)
    if _looks_html(text):
        return Sniffed(SourceType.HTML.value, "content")
    if not has_utf16_bom and b"\x00" in head:
        return Sniffed(
            None,
            "content",
            "content looks binary (NUL bytes in the first 8 KB and no UTF-16 byte-order "
            "mark); it is not a text document",
        )
    if binary_ratio(text, replaced) > _BINARY_RATIO:
        return Sniffed(
            None,
            "content",
            "content looks binary (mostly undecodable or control bytes in the first 8 KB); "
            "if it is text in a legacy encoding, convert it to UTF-8",
        )
    if extension in _SIGNATURE_EXTENSIONS:
        claimed = _SIGNATURE_EXTENSIONS[extension]
        return Sniffed(
            None,
            "content",
            f"named {extension} but its bytes carry no {claimed} signature and it is not "
            "HTML; rename it to its real type or pass a --format override",
        )
    detected = _EXTENSIONS.get(extension)
    if extension == ".txt":
        # Sphinx copies each page's source beside the HTML as ``_sources/json.rst.txt``
        # (and MyST's as ``.md.txt``): the format is the inner extension's.
        inner = _SOURCE_COPIES.get(PurePosixPath(PurePosixPath(name).stem).suffix.lower())
        detected = inner or detected
    if detected is None:
        return Sniffed(
            None,
            "extension",
            f"no parser for extension {extension!r}; to ingest it as text, pass a format "
            f"override such as --format '*{extension}=text'",
        )
    return Sniffed(detected.value, "extension")


def binary_ratio(text: str, replaced: int | None = None) -> float:
    """Share of undecodable and C0 control characters (tab/newlines excluded) in ``text``.

    ``replaced``: how many U+FFFD the decoder put in for undecodable bytes, when the
    caller knows; the rest are the text's own (valid UTF-8 may spell U+FFFD) and count
    as text. ``None``: every U+FFFD counts as undecodable.
    """
    if not text:
        return 0.0
    suspicious = len(_SUSPICIOUS.findall(text))
    if replaced is not None:
        suspicious += replaced - text.count("\ufffd")
    return suspicious / len(text)


def _head_text(head: bytes) -> tuple[str, bool, int | None]:
    """Decode ``head`` for marker checks: by its BOM, else UTF-8 (a cut last char is fine).

    Also how many U+FFFD stand for undecodable bytes (UTF-8: those not spelled in the
    bytes; ``None`` for UTF-16, where every one counts).
    """
    if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        encoding = "utf-16-le" if head[:2] == codecs.BOM_UTF16_LE else "utf-16-be"
        body = head[2:]
        return body[: len(body) - len(body) % 2].decode(encoding, errors="replace"), True, None
    body = head[3:] if head[:3] == codecs.BOM_UTF8 else head
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(body, final=False)
    return text, False, text.count("\ufffd") - body.count("\ufffd".encode())


def _looks_html(text: str) -> bool:
    start = _PREAMBLE.match(text)
    rest = text[start.end() if start else 0 :][:64].lower()
    return rest.startswith(_HTML_MARKERS)


def _sniff_zip(path: Path | None) -> Sniffed:
    unsupported = "a ZIP archive that is not a Word, PowerPoint or Excel document"
    if path is None:
        return Sniffed(None, "content", f"{unsupported} (its entries could not be inspected)")
    try:
        size = _central_directory_size(path)
        if size is None:
            return Sniffed(None, "content", f"{unsupported} (no readable end-of-archive record)")
        if size > MAX_CENTRAL_DIRECTORY:
            return Sniffed(
                None,
                "content",
                f"a ZIP archive whose entry list ({size} bytes) exceeds the "
                f"{MAX_CENTRAL_DIRECTORY}-byte sniffing cap; it is not inspected",
            )
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError, EOFError) as error:
        return Sniffed(None, "content", f"a damaged ZIP archive ({type(error).__name__})")
    for prefix, source_type in _OFFICE_PARTS:
        if any(entry.startswith(prefix) for entry in names):
            return Sniffed(source_type.value, "content")
    return Sniffed(None, "content", unsupported)


def _central_directory_size(path: Path) -> int | None:
    """The declared central-directory size from the end record, read from the file's tail.

    A ZIP64 archive declares 0xFFFFFFFF here and keeps the real size elsewhere; it is then
    bounded only by the file itself, which discovery has already capped, so 0 is returned.
    """
    with path.open("rb") as handle:
        handle.seek(0, 2)
        file_size = handle.tell()
        tail_size = min(file_size, _EOCD_SIZE + 0xFFFF)
        handle.seek(file_size - tail_size)
        tail = handle.read(tail_size)
    position = tail.rfind(_EOCD)
    if position < 0 or len(tail) - position < _EOCD_SIZE:
        return None
    (size,) = struct.unpack_from("<I", tail, position + 12)
    return 0 if size == _ZIP64_MARK else int(size)
