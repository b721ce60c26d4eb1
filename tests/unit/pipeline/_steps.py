"""Small real steps for the pipeline tests: counters, failures and delays on demand.

They are genuine ``DocumentStep`` subclasses run by the real engine; only their
``transform`` is simple, so each test controls exactly one behaviour.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from fastrag.models import Document
from fastrag.pipeline import (
    CacheSetting,
    CacheStore,
    DocumentHeader,
    DocumentStep,
    ExecutionContext,
    Policy,
)


def doc(doc_id: str, content: str = "alpha beta", **metadata: Any) -> Document:
    return Document(doc_id, f"src-{doc_id}", content, metadata)


class WordStep(DocumentStep):
    """One output per word; counts transform calls (the side effect tests look at)."""

    def __init__(
        self,
        *,
        suffix: str = "",
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(cache=cache, policy=policy)
        self.suffix = suffix
        self.calls: list[str] = []
        self.validated: list[tuple[str, int]] = []

    def config(self) -> Mapping[str, Any]:
        return {"suffix": self.suffix}

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        self.calls.append(item.id)
        for index, word in enumerate(item.content.split()):
            yield Document(
                f"{item.id}/{index}",
                item.source_id,
                word + self.suffix,
                {**item.metadata, "word": index, "pair": (index, [word])},
            )

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        self.validated.append((item.id, len(produced)))


class FlakyStep(WordStep):
    """Fails the first ``failures`` attempts of every item with ``error``."""

    def __init__(
        self,
        *,
        failures: int,
        error: type[Exception] = RuntimeError,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(cache=cache, policy=policy)
        self.failures = failures
        self.error = error
        self.attempts: dict[str, int] = {}

    def config(self) -> Mapping[str, Any]:
        return {"failures": self.failures}

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        self.attempts[item.id] = self.attempts.get(item.id, 0) + 1
        if self.attempts[item.id] <= self.failures:
            raise self.error(f"transient failure {self.attempts[item.id]} of {item.id}")
        async for produced in super().transform(item, context):
            yield produced


class SlowStep(WordStep):
    """Sleeps ``delays[item.id]`` seconds (default 0) between outputs of an item."""

    def __init__(
        self,
        delays: Mapping[str, float],
        *,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(cache=cache, policy=policy)
        self.delays = dict(delays)
        self.log: list[str] = []

    def config(self) -> Mapping[str, Any]:
        return {"delays": self.delays}

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        self.log.append(f"start {item.id}")
        async for produced in super().transform(item, context):
            await asyncio.sleep(self.delays.get(item.id, 0.0))
            self.log.append(f"yield {produced.id}")
            yield produced
        self.log.append(f"end {item.id}")


class SpyStore(CacheStore):
    """Wraps a real store and records each call, to observe batching and projections."""

    def __init__(self, inner: CacheStore) -> None:
        self.inner = inner
        self.calls: list[tuple[str, int]] = []

    def get_headers(self, keys: Sequence[str]) -> dict[str, tuple[DocumentHeader, ...]]:
        self.calls.append(("headers", len(keys)))
        return self.inner.get_headers(keys)

    def get_documents(self, keys: Sequence[str]) -> dict[str, tuple[Document, ...]]:
        self.calls.append(("documents", len(keys)))
        return self.inner.get_documents(keys)

    def put(self, key: str, documents: Sequence[Document]) -> None:
        self.calls.append(("put", len(documents)))
        self.inner.put(key, documents)
