"""``semantic_mode="llm"`` for ``StructureAwareChunker``: ask, collect, report.

The chunker picks the paragraphs (``fastrag.packing.refinable``), this module asks the
refiner about all of them at once and turns the answers into the engine's
``refinements`` plus the runtime observations that go into ``ChunkValidation``
(``model_calls``, ``model_cache_hits``, ``model_fallbacks``, ``fallback_chunks``) —
never into chunk metadata or ids, so a replay or a cache hit changes no chunk.

Calls run in an ``asyncio.TaskGroup`` (the refiner's own semaphore bounds how many are
in flight): if one raises — cancellation, or a refusal such as a refiner that may not
transmit — the others are cancelled instead of left running, and the error propagates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from fastrag.models import Document
from fastrag.packing.refinable import RefinementRequest
from fastrag.packing.validation import ChunkValidation

__all__ = ["BoundaryRefiner", "ModelObservations", "refine_paragraphs"]


class BoundaryRefiner(Protocol):
    """What the chunker needs of ``ChatBoundaryRefiner``."""

    def config(self) -> Mapping[str, Any]: ...

    async def refine(self, *, node_id: str, text: str, allowed: Sequence[int]) -> Any: ...


@dataclass(frozen=True, slots=True)
class ModelObservations:
    """What the refiner did for one document (runtime only, never identity)."""

    calls: int = 0
    cache_hits: int = 0
    fallbacks: tuple[str, ...] = ()
    """One reason code per paragraph that kept its heuristic boundaries, in order."""
    fallback_spans: tuple[tuple[int, int], ...] = ()
    """Source spans of those paragraphs (to count the chunks they touch)."""

    @property
    def transient_fallbacks(self) -> bool:
        """Whether a fallback came from a failure a later attempt may not meet (a timeout
        or a provider error), rather than from the paragraph or the model's answer."""
        return any(
            reason == "timeout" or reason.startswith("provider_error:") for reason in self.fallbacks
        )

    def report(self, validation: ChunkValidation, produced: Sequence[Document]) -> ChunkValidation:
        """``validation`` with the model fields filled in from these observations."""
        touched = sum(1 for chunk in produced if _touches(chunk, self.fallback_spans))
        return replace(
            validation,
            model_calls=self.calls,
            model_cache_hits=self.cache_hits,
            model_fallbacks=self.fallbacks,
            fallback_chunks=touched,
        )


async def refine_paragraphs(
    refiner: BoundaryRefiner, requests: Sequence[RefinementRequest]
) -> tuple[dict[str, tuple[int, ...]], ModelObservations]:
    """Source-offset refinements by node id, and what the calls observed."""
    if not requests:
        return {}, ModelObservations()
    async with asyncio.TaskGroup() as group:
        tasks = [
            group.create_task(
                refiner.refine(node_id=request.node_id, text=request.text, allowed=request.allowed)
            )
            for request in requests
        ]
    refinements: dict[str, tuple[int, ...]] = {}
    calls = hits = 0
    fallbacks: list[str] = []
    spans: list[tuple[int, int]] = []
    for request, task in zip(requests, tasks, strict=True):
        result = task.result()
        calls += int(result.calls)
        hits += int(bool(result.cache_hit))
        if result.fallback is not None:
            fallbacks.append(str(result.fallback))
            spans.append((request.start, request.start + len(request.text)))
        elif result.boundaries:
            refinements[request.node_id] = tuple(
                request.start + offset for offset in result.boundaries
            )
    return refinements, ModelObservations(calls, hits, tuple(fallbacks), tuple(spans))


def _touches(chunk: Document, spans: Sequence[tuple[int, int]]) -> bool:
    start, end = chunk.metadata.get("char_start"), chunk.metadata.get("char_end")
    if not isinstance(start, int) or not isinstance(end, int):
        return False
    return any(start < high and low < end for low, high in spans)
