"""What a running step reports: frozen event values, delivered to pipeline listeners.

Every event names the step instance (``step_name``), the stage its work belongs to
(``event_name``, resolved by the rule ``PipelineStep.event_name`` documents) and the item
it is about (``item_id``: a document's id, never its text). A step announces each produced
item with the event class it declares in ``produced_event`` — ``DocumentChunked`` for the
``Chunker`` family, ``DocumentParsed`` for parsers, ``DocumentEmbedded`` for embedders —
and emits it identically for fresh and cached output; a cache hit adds one ``CacheHit``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "CacheHit",
    "DocumentChunked",
    "DocumentEmbedded",
    "DocumentParsed",
    "Event",
    "EventRecorder",
    "ItemCompleted",
    "ItemFailed",
    "ItemProduced",
    "ItemRetried",
    "ItemStarted",
]


@dataclass(frozen=True, slots=True)
class Event:
    """Common head of every event."""

    step_name: str
    """The emitting step instance's ``name``."""
    event_name: str
    """The emitting step's resolved stage label, e.g. ``"Chunking"``."""
    item_id: str
    """The input item's id, or ``"item #<n> (<type>)"`` for an item without one."""


@dataclass(frozen=True, slots=True)
class ItemStarted(Event):
    """An input item entered the step (before validation and cache lookup)."""


@dataclass(frozen=True, slots=True)
class CacheHit(Event):
    """The item's output is replayed from the cache; ``transform`` is not called."""

    outputs: int
    """How many items the replay yields."""


@dataclass(frozen=True, slots=True)
class ItemProduced(Event):
    """One output item of the input ``item_id``; the generic ``produced_event``."""

    document_id: str
    """The produced item's id."""
    index: int
    """Position of the produced item within its input's output, from 0."""


@dataclass(frozen=True, slots=True)
class DocumentParsed(ItemProduced):
    """A parser produced a parsed document."""


@dataclass(frozen=True, slots=True)
class DocumentChunked(ItemProduced):
    """A chunker produced one chunk of the parent ``item_id``."""


@dataclass(frozen=True, slots=True)
class DocumentEmbedded(ItemProduced):
    """An embedder produced an embedded document."""


@dataclass(frozen=True, slots=True)
class ItemCompleted(Event):
    """Every output of the item was handed downstream (drives per-item progress)."""

    outputs: int


@dataclass(frozen=True, slots=True)
class ItemRetried(Event):
    """An attempt failed and the policy allows another after ``delay`` seconds."""

    attempt: int
    """The attempt that failed, from 1."""
    delay: float
    error_type: str
    message: str


@dataclass(frozen=True, slots=True)
class ItemFailed(Event):
    """The item produced nothing: rejected, unroutable, or out of attempts.

    ``attempts`` is 0 when the item was rejected before any attempt (bad input, no route).
    """

    error_type: str
    message: str
    attempts: int


@dataclass(slots=True)
class EventRecorder:
    """A listener that keeps every event it receives, in order (tests, reports)."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    @property
    def failures(self) -> tuple[ItemFailed, ...]:
        """The ``ItemFailed`` events received so far."""
        return tuple(event for event in self.events if isinstance(event, ItemFailed))

    def of_type(self, kind: type[Event]) -> tuple[Event, ...]:
        """The received events that are instances of ``kind``."""
        return tuple(event for event in self.events if isinstance(event, kind))
