"""``DoclingParser``: Word, PowerPoint, Excel (and HTML, Markdown) files through Docling.

Docling reads an Office file into a ``DoclingDocument``: headings, paragraphs, lists and
tables as a tree, with page (slide, sheet) provenance. ``output_format="docling"`` keeps
that structure — the content is the document serialized as JSON, content format
``docling``, for ``DoclingChunker`` to split on the real structure;
``output_format="markdown"`` flattens it to Markdown for the Markdown chunkers.

PDF is refused: Docling's PDF pipeline downloads a layout model at run time, and fastrag
never downloads anything. ``PdfParser(output_format="docling")`` builds a
``DoclingDocument`` from a PDF offline instead. Like every optional route this parser is
opt-in, never a default: ``router.route(office_filter, DoclingParser())``.

The content is byte-identical for the same bytes in any run or process (it is the parsed
document's identity): the JSON is dumped with sorted keys, picture pixels are dropped and
the origin names the file by its relative path (see ``_docling_convert``).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any, Literal, get_args

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError, ParsingError
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES
from fastrag.ingestion.steps.parsing._docling_convert import (
    DOCLING_SOURCE_TYPES,
    DoclingConversion,
)
from fastrag.ingestion.steps.parsing._docling_json import serialize
from fastrag.ingestion.steps.parsing.base import Parsed, Parser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import CacheSetting, Policy

__all__ = ["DoclingOutputFormat", "DoclingParser"]

DoclingOutputFormat = Literal["docling", "markdown"]

_FORMATS: Mapping[str, ContentFormat] = {
    "docling": ContentFormat.DOCLING,
    "markdown": ContentFormat.MARKDOWN,
}


class DoclingParser(Parser):
    """Convert Office (and HTML/Markdown) files with Docling; never PDF, never a download.

    Accepts raw documents whose ``source_type`` is ``docx``, ``pptx``, ``xlsx``, ``html``
    or ``markdown`` (route them with ``office_filter`` or a ``SourceTypeFilter``). A file
    Docling cannot read fails with a ``ParsingError`` naming it and Docling's reason; a
    partial conversion keeps the document and records Docling's errors in
    ``parse_diagnostics``.
    """

    def __init__(
        self,
        *,
        output_format: DoclingOutputFormat = "docling",
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        if output_format not in _FORMATS:
            raise ConfigurationError(
                "DoclingParser 'output_format' must be one of "
                f"{list(get_args(DoclingOutputFormat))} (got {output_format!r:.40}); use "
                "'docling' for DoclingChunker or 'markdown' for the Markdown chunkers"
            )
        # Fail at construction, not per file, when the extra is missing; the heavy
        # imports (~2 s) wait for the first file.
        docling = require("docling", extra="docling", feature="DoclingParser")
        require("docling_core", extra="docling", feature="DoclingParser")
        self.output_format: DoclingOutputFormat = output_format
        self._docling_versions = {
            "docling": str(docling.__version__),  # docling-slim's, or the meta-package's
            "docling_core": metadata.version("docling-core"),
        }
        self._conversion = DoclingConversion()
        super().__init__(max_bytes=max_bytes, cache=cache, policy=policy)

    def config(self) -> Mapping[str, Any]:
        """Cache identity: version, read cap, output format and the Docling versions.

        Docling's versions are part of it because a Docling upgrade changes the output for
        the same bytes.
        """
        return {
            **super().config(),
            "output_format": self.output_format,
            **self._docling_versions,
        }

    def parse(self, data: bytes, source: Document) -> Parsed:
        """Convert ``data`` with Docling and render it as ``output_format``."""
        name = source.source_id
        source_type = str(source.metadata.get("source_type", ""))
        if source_type == "pdf":
            raise ParsingError(
                f"{name}: DoclingParser does not convert PDF (Docling's PDF pipeline downloads "
                "a layout model, and fastrag never downloads at run time); route PDFs to "
                'PdfParser(output_format="docling") instead'
            )
        if source_type not in DOCLING_SOURCE_TYPES:
            raise ParsingError(
                f"{name}: DoclingParser converts {sorted(DOCLING_SOURCE_TYPES)} files, but this "
                f"one's source_type is {source_type!r:.40}; route it to another parser "
                "(ParserRouter with SourceTypeFilter, e.g. office_filter)"
            )
        converted = self._conversion.convert(data, name, source_type)
        document = converted.document
        if self.output_format == "docling":
            content = serialize(document)
        else:
            content = document.export_to_markdown()
        return Parsed(content, _FORMATS[self.output_format], converted.diagnostics)
