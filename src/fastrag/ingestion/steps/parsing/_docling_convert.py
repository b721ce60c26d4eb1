"""File bytes to a ``DoclingDocument``, offline, for ``DoclingParser``.

Why not Docling's ``DocumentConverter``: in docling-slim 2.143.0, importing
``docling.document_converter`` imports the audio (ASR) pipeline, which imports torch at
module level, and fastrag never installs torch (the ``docling`` meta-package would pull a
multi-GB CUDA build). For the formats converted here ``DocumentConverter`` does nothing
but pick ``SimplePipeline`` and the format's declarative backend and run it; this module
does exactly that with Docling's own classes, so the conversion is Docling's, unchanged.

What it adds around Docling, and why:

* Only model-free formats (DOCX, PPTX, XLSX, HTML, Markdown) have a route, so no code path
  can reach Docling's PDF/image pipelines, which download a layout model from a hub.
* Every backend option that fetches (remote or local images) is explicitly off, and the
  hook Docling uses to run LibreOffice (``soffice``) on DrawingML shapes or EMF/WMF
  pictures is disarmed: running an external program on a hostile file is never wanted,
  and output would otherwise differ between machines with and without LibreOffice.
* Office files are ZIP archives: their declared unpacked size and entry count are capped
  before any library opens them (Docling caps DOCX and XLSX itself, not PPTX).
* The result is made reproducible: picture pixels are dropped (fastrag keeps text, and
  the base64 PNGs would dominate the content) and ``origin.filename`` is the relative
  source path rather than whatever name the bytes arrived under.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from io import BytesIO
from typing import TYPE_CHECKING, Any, cast

from fastrag._optional import require
from fastrag.exceptions import ParsingError

if TYPE_CHECKING:
    from docling.backend.abstract_backend import AbstractDocumentBackend
    from docling.datamodel.backend_options import BackendOptions
    from docling.pipeline.simple_pipeline import SimplePipeline
    from docling_core.types.doc.document import DoclingDocument

__all__ = [
    "DOCLING_SOURCE_TYPES",
    "MAX_ARCHIVE_ENTRIES",
    "MAX_UNPACKED_BYTES",
    "Converted",
    "DoclingConversion",
]

MAX_UNPACKED_BYTES = 512 * 1024 * 1024
"""Cap on an Office file's declared unpacked size (Docling's own DOCX/XLSX default)."""

MAX_ARCHIVE_ENTRIES = 10_000
"""Cap on an Office file's ZIP entries (Docling's own DOCX/XLSX default)."""

_FEATURE = "DoclingParser"

_REASON_CHARS = 200
"""Docling's error text is cut here: it names parts and exceptions, and must stay a line."""

_HASH = re.compile(r" with hash [0-9a-f]{16,}")
"""Docling names a rejected input by its sha256, which says nothing the file name does not."""


@dataclass(frozen=True, slots=True)
class _Route:
    """How Docling reads one source type: its ``InputFormat``, backend and options."""

    input_format: str
    backend_module: str
    backend_class: str
    options_class: str
    needs: str
    """The third-party module the backend imports lazily, checked first for a clear error."""
    zipped: bool


_ROUTES: Mapping[str, _Route] = {
    "docx": _Route(
        "DOCX", "docling.backend.msword_backend", "MsWordDocumentBackend",
        "MsWordBackendOptions", "docx", zipped=True,
    ),
    "pptx": _Route(
        "PPTX", "docling.backend.mspowerpoint_backend", "MsPowerpointDocumentBackend",
        "MsPowerpointBackendOptions", "pptx", zipped=True,
    ),
    "xlsx": _Route(
        "XLSX", "docling.backend.msexcel_backend", "MsExcelDocumentBackend",
        "MsExcelBackendOptions", "openpyxl", zipped=True,
    ),
    "html": _Route(
        "HTML", "docling.backend.html_backend", "HTMLDocumentBackend",
        "HTMLBackendOptions", "bs4", zipped=False,
    ),
    "markdown": _Route(
        "MD", "docling.backend.md_backend", "MarkdownDocumentBackend",
        "MarkdownBackendOptions", "marko", zipped=False,
    ),
}  # fmt: skip

DOCLING_SOURCE_TYPES: frozenset[str] = frozenset(_ROUTES)
"""The ``source_type`` values Docling converts here without a model."""

_NO_FETCH: Mapping[str, Any] = {
    "enable_remote_fetch": False,
    "enable_local_fetch": False,
}
_OPTION_OVERRIDES: Mapping[str, Mapping[str, Any]] = {
    "docx": {**_NO_FETCH, "render_chart_images": False},
    "pptx": {**_NO_FETCH, "render_chart_images": False},
    "xlsx": {**_NO_FETCH, "render_chart_images": False},
    "html": {**_NO_FETCH, "fetch_images": False, "render_page": False},
    "markdown": {**_NO_FETCH, "fetch_images": False},
}
"""Options set explicitly (most are Docling's defaults) so a default change upstream can
never turn fetching, page rendering or LibreOffice chart rendering on."""

_EXTERNAL_TOOL_HOOKS = (
    ("docx_to_pdf_converter_init", "docx_to_pdf_converter"),
    ("pptx_to_pdf_converter_init", "pptx_to_pdf_converter"),
    ("xlsx_to_pdf_converter_init", "xlsx_to_pdf_converter"),
)
"""Backend attributes behind Docling's lazy LibreOffice lookup: marked "looked up, none
found", the backends skip the pictures they would have rasterized with ``soffice``."""


@dataclass(frozen=True, slots=True)
class Converted:
    """A converted document and what the reader should know about the conversion."""

    document: DoclingDocument
    diagnostics: tuple[str, ...]


class DoclingConversion:
    """Converts file bytes with Docling's ``SimplePipeline``; one pipeline, built on first use.

    The pipeline holds no per-document state, so one instance serves every file a
    ``DoclingParser`` reads; building it (and importing Docling, ~2 s) waits for the first
    file, so constructing a parser in a graph that never runs costs nothing.
    """

    def __init__(self) -> None:
        self._pipeline: SimplePipeline | None = None

    def convert(self, data: bytes, name: str, source_type: str) -> Converted:
        """Convert ``data`` (the file ``name``, of ``source_type``) to a ``DoclingDocument``.

        Raises ``ParsingError`` naming the file and Docling's reason when the file cannot
        be opened or converted; a partial conversion is returned with its errors as
        diagnostics.
        """
        route = _ROUTES[source_type]
        if route.zipped:
            _check_archive(data, name, source_type)
        backend, options = _backend(route, source_type)
        pipeline = self._get_pipeline()
        base_models = require("docling.datamodel.base_models", extra="docling", feature=_FEATURE)
        documents = require("docling.datamodel.document", extra="docling", feature=_FEATURE)
        input_format = base_models.InputFormat[route.input_format]
        try:
            source = documents.InputDocument(
                path_or_stream=BytesIO(data),
                format=input_format,
                backend=backend,
                backend_options=options,
                filename=name,
            )
        except Exception as error:  # a backend raises whatever its file library raised
            raise ParsingError(
                f"{name}: Docling could not open this {source_type} file ({_reason(error)}); "
                "check that it opens in its application, re-save it, or exclude it"
            ) from error
        if not source.valid:
            _unload(source)
            raise ParsingError(
                f"{name}: Docling could not open this {source_type} file "
                f"({_rejection(documents, source)}); re-save it from its application, "
                "or exclude it"
            )
        _disarm_external_tools(source)
        result = pipeline.execute(source, raises_on_error=False)
        status = result.status.value
        errors = tuple(_clip(item.error_message) for item in result.errors)
        if status not in ("success", "partial_success") or result.document is None:
            reason = "; ".join(errors) or f"status {status}"
            raise ParsingError(
                f"{name}: Docling failed to convert this {source_type} file ({reason}); "
                "re-save it from its application, or exclude it"
            )
        document = result.document
        notes = [f"docling: partial conversion: {error}" for error in errors]
        dropped = _normalize(document, name)
        if dropped:
            notes.append(f"images: pixels of {dropped} picture(s) not kept (text only)")
        return Converted(document, tuple(notes))

    def _get_pipeline(self) -> SimplePipeline:
        if self._pipeline is None:
            module = require("docling.pipeline.simple_pipeline", extra="docling", feature=_FEATURE)
            simple: type[SimplePipeline] = module.SimplePipeline
            self._pipeline = simple(simple.get_default_options())
        return self._pipeline


def _backend(
    route: _Route, source_type: str
) -> tuple[type[AbstractDocumentBackend], BackendOptions]:
    """The backend class and its no-fetch options; a missing library names the extra."""
    feature = f"DoclingParser ({source_type})"
    require(route.needs, extra="docling", feature=feature)
    module = require(route.backend_module, extra="docling", feature=feature)
    options_module = require("docling.datamodel.backend_options", extra="docling", feature=feature)
    options_class = getattr(options_module, route.options_class)
    options = options_class(**_OPTION_OVERRIDES[source_type])
    backend = cast("type[AbstractDocumentBackend]", getattr(module, route.backend_class))
    return backend, cast("BackendOptions", options)


def _check_archive(data: bytes, name: str, source_type: str) -> None:
    """Refuse a ZIP whose entry list declares more than the caps (a "zip bomb").

    Reads only the central directory. Declared sizes bound what ``zipfile`` will inflate,
    so the check holds even when an entry lies about its size. A file that is not a ZIP
    at all is left to Docling, which reports it in its own words.
    """
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError):
        return
    if len(entries) > MAX_ARCHIVE_ENTRIES:
        raise ParsingError(
            f"{name}: this {source_type} file holds {len(entries)} archive entries, over the "
            f"{MAX_ARCHIVE_ENTRIES} cap for Office files; it is refused as a possible zip bomb"
        )
    unpacked = sum(entry.file_size for entry in entries)
    if unpacked > MAX_UNPACKED_BYTES:
        raise ParsingError(
            f"{name}: this {source_type} file unpacks to {unpacked} bytes, over the "
            f"{MAX_UNPACKED_BYTES}-byte cap for Office files; it is refused as a possible "
            "zip bomb"
        )


def _disarm_external_tools(source: Any) -> None:
    """Mark the backend's LibreOffice lookup as done and empty (see ``_EXTERNAL_TOOL_HOOKS``).

    ``InputDocument._backend`` is private, but it is the only handle on the backend
    Docling built; the pinned Docling version and a test keep this honest.
    """
    backend = getattr(source, "_backend", None)
    for flag, converter in _EXTERNAL_TOOL_HOOKS:
        if hasattr(backend, flag):
            setattr(backend, converter, None)
            setattr(backend, flag, True)


def _normalize(document: DoclingDocument, name: str) -> int:
    """Drop picture pixels and name the origin by its relative path; count dropped images."""
    dropped = 0
    for picture in document.pictures:
        if picture.image is not None:
            picture.image = None
            dropped += 1
    for page in document.pages.values():
        page.image = None
    if document.origin is not None:
        document.origin.filename = name
    return dropped


def _unload(source: Any) -> None:
    backend = getattr(source, "_backend", None)
    if backend is not None:
        backend.unload()


def _rejection(documents: Any, source: Any) -> str:
    """Docling's reason for refusing the input, with the library error behind it."""
    messages = [
        _HASH.sub("", item.error_message) for item in documents.build_invalid_input_errors(source)
    ]
    reason = "; ".join(messages) or "the input is not valid"
    cause = documents.get_input_rejection_cause(source)
    behind = None if cause is None else (cause.__cause__ or cause.__context__)
    if behind is not None:
        reason = f"{reason}, because {_reason(behind)}"
    return _clip(reason)


def _reason(error: BaseException) -> str:
    return _clip(f"{type(error).__name__}: {error}")


def _clip(text: str) -> str:
    """One line of at most ``_REASON_CHARS`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= _REASON_CHARS else line[: _REASON_CHARS - 1] + "…"
