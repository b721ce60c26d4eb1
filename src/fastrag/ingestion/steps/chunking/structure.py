"""``StructureAwareChunker``: the pipeline step around the pure packing engine.

The step normalizes a parsed document with the registry for its declared format, hands
the tree to ``fastrag.packing.pack`` and yields its ``(content, metadata)`` pieces; the
``Chunker`` base turns them into chunk documents, caching and events included. The
engine's output is validated independently (``validate_structure_chunks``) on every
fresh and replayed result. Nothing here packs: every output choice lives in
``PackingConfig`` and every algorithm in ``fastrag.packing``.

``semantic_mode="llm"`` is the one asynchronous path: ``asplit`` asks the injected
``semantic_refiner`` about the eligible paragraphs (``fastrag.packing.refinable``) and
packs with its answers; the synchronous ``split`` refuses it rather than call a model
from a blocking API. Model calls, cache hits and fallbacks are reported through
``diagnostics`` (``ChunkValidation``), never in chunks.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking._structure_llm import ModelObservations, refine_paragraphs
from fastrag.ingestion.steps.chunking.base import Chunker, Piece
from fastrag.models import ContentFormat, Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry
from fastrag.packing.config import PackingConfig
from fastrag.packing.contract import STRUCTURE_VERSION, embedding_prefix
from fastrag.packing.engine import ENGINE_VERSION, pack
from fastrag.packing.refinable import refinement_requests
from fastrag.packing.validation import ChunkValidation
from fastrag.packing.validator import validate_structure_chunks

if TYPE_CHECKING:
    from fastrag.ingestion.steps.chunking.refiner import ChatBoundaryRefiner
    from fastrag.pipeline import CacheSetting, ExecutionContext, Policy
    from fastrag.tokenization import Tokenizer

__all__ = ["StructureAwareChunker"]

Diagnostics = Callable[[ChunkValidation], object]
"""Receives each output validation report (runtime only: never part of identity)."""

_Pending = tuple[Document, NormalizedDocument, ModelObservations | None]
"""What ``split``/``asplit`` leave for ``validate_output``: the tree and model observations."""

_PENDING_TREES: Final = 64
"""Trees kept between ``transform`` and ``validate_output`` (one per in-flight item)."""


class StructureAwareChunker(Chunker):
    """Pack normalized sections and structures using a hard embedding budget.

    Defaults never invoke a model. Exact budgets guarantee only the injected tokenizer
    (default ``TiktokenTokenizer("cl100k_base")``, offline); select the embedding
    model's tokenizer explicitly when needed. Chunks are Markdown-like readable text
    (``content_format = "markdown"``) with the structural metadata of
    ``fastrag.packing.contract``; ``build_embedding_text`` gives what is embedded.

    ``semantic_mode="llm"`` needs ``semantic_refiner`` (a ``ChatBoundaryRefiner`` with
    ``allow_external_transmission=True``) and runs through ``asplit`` (a pipeline does):
    paragraphs of Markdown/RST over ``target_tokens`` are sent, and the model's chosen
    sentence starts are preferred cuts; every failure keeps the heuristic cut. Chunk ids
    always differ from ``"heuristic"`` mode's (the refiner's ``config()`` is part of the
    engine identity), even where no boundary moved. ``diagnostics``, when given, is
    called with the ``ChunkValidation`` of every validated output.
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
        semantic_refiner: ChatBoundaryRefiner | None = None,
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
            semantic_refiner=semantic_refiner,
        )
        if getattr(semantic_refiner, "allow_external_transmission", True) is not True:
            raise ConfigurationError(
                "semantic_refiner has allow_external_transmission=False, so it may send "
                "nothing to its chat model: pass ChatBoundaryRefiner(..., "
                "allow_external_transmission=True), or use semantic_mode='heuristic'"
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
        self.semantic_refiner: ChatBoundaryRefiner | None = semantic_refiner
        self.diagnostics = diagnostics
        self._trees: OrderedDict[int, _Pending] = OrderedDict()
        self._producing: set[int] = set()
        """Items ``transform`` is chunking: only their trees are kept for the
        ``validate_output`` call that follows (see ``_remember``)."""
        self._retry_later: OrderedDict[int, Document] = OrderedDict()
        """Items whose refinement fell back after a transient failure (see keeps_output)."""
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

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        """The base step's chunking, marking ``item`` so that its tree is kept: the
        pipeline validates the output right after, and need not normalize again."""
        self._producing.add(id(item))
        try:
            async for chunk in super().transform(item, context):
                yield chunk
        finally:
            self._producing.discard(id(item))

    def split(self, document: Document) -> Iterator[Piece]:
        """Normalize once, then use the independently callable tree engine."""
        self._refuse_sync("split", "asplit(document)")
        normalized = self.normalizers.normalize(document)
        self._remember(document, normalized, None)
        yield from self.split_normalized(normalized)

    async def asplit(self, document: Document) -> AsyncIterator[Piece]:
        """Normalize, optionally refine safe prose, then deterministically pack."""
        if not self.packing.refined:
            for piece in self.split(document):
                yield piece
            return
        normalized = self.normalizers.normalize(document)
        refinements, observed = await self._refinements(normalized)
        self._remember(document, normalized, observed)
        for piece in self._pack(normalized, refinements):
            yield piece

    async def _refinements(
        self, normalized: NormalizedDocument
    ) -> tuple[dict[str, tuple[int, ...]], ModelObservations]:
        """Ask the refiner about every eligible paragraph at once."""
        requests = refinement_requests(normalized, self.tokenizer, self.packing)
        return await refine_paragraphs(self.packing.semantic_refiner, requests)

    def _refuse_sync(self, name: str, instead: str) -> None:
        if self.packing.refined:
            raise ConfigurationError(
                f"{name}() is synchronous, but semantic_mode='llm' calls a chat model: "
                f"use 'async for piece in chunker.{instead}', or run the chunker in a "
                "pipeline (which calls asplit); semantic_mode='heuristic' needs no model"
            )

    def _pack(
        self,
        normalized: NormalizedDocument,
        refinements: Mapping[str, tuple[int, ...]] | None = None,
    ) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        identity = self._normalizer_identity(normalized.format)
        return pack(
            normalized,
            self.tokenizer,
            self.packing,
            normalizer_identity=identity,
            refinements=refinements,
        )

    def split_normalized(
        self, normalized: NormalizedDocument, *, _refined: bool = False
    ) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Consume any valid registered normalized tree without format routing."""
        if not isinstance(normalized, NormalizedDocument):
            raise ConfigurationError(
                f"split_normalized takes a NormalizedDocument (got "
                f"{type(normalized).__name__}); call split(document) for a Document"
            )
        self._refuse_sync("split_normalized", "asplit_normalized(normalized)")
        yield from self._pack(normalized)

    async def asplit_normalized(
        self, normalized: NormalizedDocument
    ) -> AsyncIterator[tuple[str, Mapping[str, Any]]]:
        """Async tree API; each call packs with its own state, so documents never mix."""
        if not self.packing.refined:
            for piece in self.split_normalized(normalized):
                yield piece
            return
        if not isinstance(normalized, NormalizedDocument):
            raise ConfigurationError(
                f"asplit_normalized takes a NormalizedDocument (got "
                f"{type(normalized).__name__}); call asplit(document) for a Document"
            )
        refinements, _ = await self._refinements(normalized)
        for piece in self._pack(normalized, refinements):
            yield piece

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        """Independently validate fresh or cached output against the parent's tree."""
        normalized, observed = self._recall(item)
        report = validate_structure_chunks(
            normalized,
            produced,
            self.tokenizer,
            self.packing.max_tokens,
            self.packing.max_overlap_tokens,
            self.packing.min_preferred_tokens,
        )
        if observed is not None:
            report = observed.report(report, produced)
            if observed.transient_fallbacks:
                self._retry_later[id(item)] = item
                while len(self._retry_later) > _PENDING_TREES:
                    self._retry_later.popitem(last=False)
        if self.diagnostics is not None:
            self.diagnostics(report)

    def keeps_output(self, item: Document, outputs: Sequence[Document]) -> bool:
        """Not when a paragraph kept its heuristic cuts because the model timed out or
        the provider failed: caching that would replay the fallback on every later run.
        Fallbacks a retry cannot change (input too long, an answer rejected by
        validation) are cached like any output."""
        del outputs
        return self._retry_later.pop(id(item), None) is not item

    def _remember(
        self,
        document: Document,
        normalized: NormalizedDocument,
        observed: ModelObservations | None,
    ) -> None:
        """Keep the tree of an item ``transform`` is chunking, for ``validate_output``.

        Not on a direct ``split``/``asplit``: a caller looping over documents may never
        validate, and would keep the last ``_PENDING_TREES`` trees (each several times
        its document) alive — memory, and work for every full run of the cyclic
        collector (a tenth of the whole chunking time on the Markdown bench corpus).
        A direct ``validate_output`` call normalizes the document again.
        """
        if id(document) not in self._producing:
            return
        self._trees[id(document)] = (document, normalized, observed)
        while len(self._trees) > _PENDING_TREES:
            self._trees.popitem(last=False)

    def _recall(self, item: Document) -> tuple[NormalizedDocument, ModelObservations | None]:
        """The tree ``split`` built for ``item`` and what the model did, or a fresh tree
        and nothing (replayed output: no model was asked)."""
        entry = self._trees.pop(id(item), None)
        if entry is not None and entry[0] is item:
            return entry[1], entry[2]
        return self.normalizers.normalize(item), None

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
