"""``CacheStore``: where a step keeps each input item's complete, ordered output.

A key names one (step configuration, input item) pair; its entry is the ordered tuple of
everything the step produced for that item — possibly empty, which is a hit, not a miss.
Stores offer two reads: a header-only projection (ids and metadata, no content), which
lets a step hold a whole look-ahead window of hits cheaply and fetch the text only when it
hands an item downstream, and a full read for steps that need the content to re-validate
a replay (``replay_needs_content``). Reads are batched by key because a step looks up a
window of items at once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fastrag.models import Document

__all__ = ["CacheStore", "DocumentHeader"]


@dataclass(frozen=True, slots=True)
class DocumentHeader:
    """A cached document without its content: enough to identify and route it."""

    id: str
    source_id: str
    metadata: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    @classmethod
    def of(cls, document: Document) -> DocumentHeader:
        """The header of a full document."""
        return cls(document.id, document.source_id, document.metadata)


class CacheStore(ABC):
    """Ordered per-key document tuples; implementations must be safe to share across tasks.

    Every read raises ``CacheError`` rather than return data it cannot vouch for.
    """

    @abstractmethod
    def get_headers(self, keys: Sequence[str]) -> dict[str, tuple[DocumentHeader, ...]]:
        """Headers of the entries present among ``keys``; absent keys are left out."""

    @abstractmethod
    def get_documents(self, keys: Sequence[str]) -> dict[str, tuple[Document, ...]]:
        """Full documents of the entries present among ``keys``; absent keys are left out."""

    @abstractmethod
    def put(self, key: str, documents: Sequence[Document]) -> None:
        """Store ``documents`` as the complete entry for ``key``, replacing any old one.

        Atomic: a concurrent reader sees the old entry or the new one, never a mixture.
        """

    def get(self, key: str) -> tuple[Document, ...] | None:
        """The full entry for one key, or None on a miss."""
        return self.get_documents((key,)).get(key)

    def close(self) -> None:  # noqa: B027 - a no-op default; stores with resources override
        """Release resources; the store may reopen them lazily if used again."""

    def __enter__(self) -> CacheStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
