"""``StructureAwareChunker``: the pipeline step around the pure packing engine.

The step normalizes a parsed document with the registry for its declared format, hands
the tree to ``fastrag.packing.pack`` and yields its ``(content, metadata)`` pieces; the
``Chunker`` base turns them into chunk documents, caching and events included. The
engine's output is validated independently (``validate_structure_chunks``) on every
fresh and replayed result. Nothing here packs: every output choice lives in
``PackingConfig`` and every algorithm in ``fastrag.packing``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking.base import Chunker, Piece
from fastrag.models import ContentFormat, Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry
from fastrag.packing.config import PackingConfig
from fastrag.packing.contract import STRUCTURE_VERSION, embedding_prefix
from fastrag.packing.engine import ENGINE_VERSION, pack
from fastrag.packing.validation import ChunkValidation
from fastrag.packing.validator import validate_structure_chunks

if TYPE_CHECKING:
    from fastrag.pipeline import CacheSetting, ExecutionContext, Policy
    from fastrag.tokenization import Tokenizer

__all__ = ["StructureAwareChunker"]

Diagnostics = Callable[[ChunkValidation], object]
"""Receives each output validation report (runtime only: never part of identity)."""

_PENDING_TREES: Final = 64
"""Trees kept between ``transform`` and ``validate_output`` (one per in-flight item)."""


class StructureAwareChunker(Chunker):
    """Pack normalized sections and structures using a hard embedding budget.

    Defaults never invoke a model. Exact budgets guarantee only the injected tokenizer
    (default ``TiktokenTokenizer("cl100k_base")``, offline); select the embedding
    model's tokenizer explicitly when needed. Chunks are Markdown-like readable text
    (``content_format = "markdown"``) with the structural metadata of
    ``fastrag.packing.contract``; ``build_embedding_text`` gives what is embedded.

    ``semantic_mode="llm"`` and ``semantic_refiner`` arrive with ``ChatBoundaryRefiner``
    in a later version: asking for them is a ``ConfigurationError`` today, never a
    silent fallback. ``diagnostics``, when given, is called with the
    ``ChunkValidation`` of every validated output.
    """

    content_format = ContentFormat.MARKDOWN
    replay_needs_content = True

    def __init__(
        self,
        *,
        tokenizer: Tokenizer | None = None,
        normalizers: NormalizerRegistry | None = None,
        target_tokens: int = 400,
        max_tokens: int = 600,
        min_preferred_tokens: int = 100,
        overlap_tokens: int = 0,
        max_overlap_tokens: int = 50,
        merge_small_sections: bool = True,
        allow_cross_top_level_merge: bool = False,
        preserve_heading_hierarchy: bool = True,
        preserve_code_blocks: bool = True,
        preserve_table_rows: bool = True,
        preserve_list_hierarchy: bool = True,
        include_heading_path_in_embedding: bool = True,
        semantic_mode: str = "heuristic",
        semantic_refiner: object | None = None,
        oversized_block_policy: str = "split_with_context",
        cache: CacheSetting = None,
        policy: Policy | None = None,
        diagnostics: Diagnostics | None = None,
    ) -> None:
        self.packing = PackingConfig(
            target_tokens=target_tokens,
            max_tokens=max_tokens,
            min_preferred_tokens=min_preferred_tokens,
            overlap_tokens=overlap_tokens,
            max_overlap_tokens=max_overlap_tokens,
            merge_small_sections=merge_small_sections,
            allow_cross_top_level_merge=allow_cross_top_level_merge,
            preserve_heading_hierarchy=preserve_heading_hierarchy,
            preserve_code_blocks=preserve_code_blocks,
            preserve_table_rows=preserve_table_rows,
            preserve_list_hierarchy=preserve_list_hierarchy,
            include_heading_path_in_embedding=include_heading_path_in_embedding,
            semantic_mode=semantic_mode,
            oversized_block_policy=oversized_block_policy,
        )
        if semantic_refiner is not None:
            raise ConfigurationError(
                f"semantic_refiner ({type(semantic_refiner).__name__}) is used only by "
                "semantic_mode='llm', which arrives with ChatBoundaryRefiner in a later "
                "version; remove semantic_refiner (heuristic boundaries need none)"
            )
        if diagnostics is not None and not callable(diagnostics):
            raise ConfigurationError(
                f"diagnostics must be a callable receiving a ChunkValidation "
                f"(got {type(diagnostics).__name__})"
            )
        self.tokenizer: Tokenizer = _checked_tokenizer(tokenizer)
        self.normalizers = NormalizerRegistry() if normalizers is None else normalizers
        if not isinstance(self.normalizers, NormalizerRegistry):
            raise ConfigurationError(
                f"normalizers must be a NormalizerRegistry (got "
                f"{type(self.normalizers).__name__}); register custom adapters on one"
            )
        self.semantic_refiner = None
        self.diagnostics = diagnostics
        self._trees: OrderedDict[int, tuple[Document, NormalizedDocument]] = OrderedDict()
        super().__init__(cache=cache, policy=policy)

    @property
    def accepted_content_formats(self) -> frozenset[str]:  # type: ignore[override]
        """Capabilities follow the supplied instance-local normalizer registry."""
        return self.normalizers.formats

    def config(self) -> Mapping[str, Any]:
        """Identify all output choices for existing pipeline/cache machinery."""
        return {
            "engine": ENGINE_VERSION,
            "packing": self.packing.identity(),
            "tokenizer": self.tokenizer.identity,
            "normalizers": self.normalizers.identities(),
            "content_format": str(self.content_format),
        }

    def _normalizer_identity(self, format_name: str) -> str:
        if format_name in self.normalizers:
            return self.normalizers.get(format_name).identity
        return format_name

    def split(self, document: Document) -> Iterator[Piece]:
        """Normalize once, then use the independently callable tree engine."""
        normalized = self.normalizers.normalize(document)
        self._remember(document, normalized)
        yield from self.split_normalized(normalized)

    async def asplit(self, document: Document) -> AsyncIterator[Piece]:
        """Normalize, then deterministically pack (CPU-bound; no model is called)."""
        for piece in self.split(document):
            yield piece

    def split_normalized(
        self, normalized: NormalizedDocument, *, _refined: bool = False
    ) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Consume any valid registered normalized tree without format routing."""
        if not isinstance(normalized, NormalizedDocument):
            raise ConfigurationError(
                f"split_normalized takes a NormalizedDocument (got "
                f"{type(normalized).__name__}); call split(document) for a Document"
            )
        identity = self._normalizer_identity(normalized.format)
        yield from pack(normalized, self.tokenizer, self.packing, normalizer_identity=identity)

    async def asplit_normalized(
        self, normalized: NormalizedDocument
    ) -> AsyncIterator[tuple[str, Mapping[str, Any]]]:
        """Async tree API; each call packs with its own state, so documents never mix."""
        for piece in self.split_normalized(normalized):
            yield piece

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        """Independently validate fresh or cached output against the parent's tree."""
        normalized = self._recall(item)
        report = validate_structure_chunks(
            normalized,
            produced,
            self.tokenizer,
            self.packing.max_tokens,
            self.packing.max_overlap_tokens,
            self.packing.min_preferred_tokens,
        )
        if self.diagnostics is not None:
            self.diagnostics(report)

    def _remember(self, document: Document, normalized: NormalizedDocument) -> None:
        self._trees[id(document)] = (document, normalized)
        while len(self._trees) > _PENDING_TREES:
            self._trees.popitem(last=False)

    def _recall(self, item: Document) -> NormalizedDocument:
        """The tree ``split`` built for ``item``, or a fresh one (replayed output)."""
        entry = self._trees.pop(id(item), None)
        if entry is not None and entry[0] is item:
            return entry[1]
        return self.normalizers.normalize(item)

    def identity_parts(self, text: str, metadata: Mapping[str, Any]) -> tuple[str, ...]:
        """Lineage, configuration and embedding context make a structural chunk's id."""
        if metadata.get("structure_version") != STRUCTURE_VERSION:
            return ()
        return (
            str(metadata.get("engine_identity", "")),
            "\x1f".join(metadata.get("section_ids", ())),
            "\x1f".join(metadata.get("heading_ids", ())),
            embedding_prefix(metadata),
            f"{metadata.get('char_start')}:{metadata.get('char_end')}",
        )


def _checked_tokenizer(tokenizer: object) -> Tokenizer:
    """The default offline tokenizer, or the given one if it has the three members."""
    if tokenizer is None:
        from fastrag.tokenization import TiktokenTokenizer

        return TiktokenTokenizer("cl100k_base")
    missing = [name for name in ("identity", "count", "boundaries") if not hasattr(tokenizer, name)]
    identity = getattr(tokenizer, "identity", None)
    if missing or not isinstance(identity, str) or not identity:
        raise ConfigurationError(
            f"tokenizer {type(tokenizer).__name__} must offer a nonempty str 'identity', "
            f"count(text) and boundaries(text) (missing or invalid: "
            f"{', '.join(missing) or 'identity'}); see fastrag.tokenization.Tokenizer"
        )
    return tokenizer  # type: ignore[return-value]
