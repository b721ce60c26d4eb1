"""``Pipeline``: run a step graph from its root and let callers observe its events.

The graph is the chain of ``upstream`` bindings below ``root``. A pipeline adds what a
bare ``step.run()`` lacks: one ``ExecutionContext`` for every step (a default policy and
cache for steps that set none) and listeners receiving every event in order — e.g. to
drive a progress bar or to write a run report. It performs no work until consumed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any, Generic, Self, TypeVar

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline.cache.base import CacheStore
from fastrag.pipeline.context import EventListener, ExecutionContext
from fastrag.pipeline.policy import Policy
from fastrag.pipeline.step import PipelineStep

__all__ = ["Pipeline"]

T = TypeVar("T")


class Pipeline(Generic[T]):
    """Evaluate ``root`` (with its bound upstreams) under one context.

    ``policy`` is inherited by steps without a policy of their own (a step's explicit
    fields still win); ``cache`` is used by steps constructed with ``cache=None``;
    ``listeners`` receive every event synchronously, in emission order.
    """

    def __init__(
        self,
        root: PipelineStep[T],
        *,
        policy: Policy | None = None,
        cache: CacheStore | None = None,
        listeners: Iterable[EventListener] = (),
    ) -> None:
        if not isinstance(root, PipelineStep):
            raise ConfigurationError(
                f"Pipeline needs a PipelineStep as its root (got {type(root).__name__}: "
                f"{root!r:.60})"
            )
        for step in _chain(root):
            if step.requires_upstream and step.upstream is None:
                raise ConfigurationError(
                    f"{step.name} in this pipeline has no upstream bound; call "
                    "step(upstream) so every step but the source has an input"
                )
        self._root = root
        self._policy = policy if policy is not None else Policy()
        self._cache = cache
        self._listeners: list[EventListener] = []
        ExecutionContext(policy=self._policy, cache=cache)  # rejects bad values up front
        for listener in listeners:
            self.subscribe(listener)

    @property
    def root(self) -> PipelineStep[T]:
        """The step whose output this pipeline yields."""
        return self._root

    @property
    def steps(self) -> tuple[PipelineStep[Any], ...]:
        """Every step of the graph, from the source to the root."""
        return tuple(reversed(_chain(self._root)))

    def subscribe(self, listener: EventListener) -> Self:
        """Add a listener for the events of later runs; returns this pipeline."""
        if not callable(listener):
            raise ConfigurationError(
                f"a pipeline listener must be callable event -> None (got "
                f"{type(listener).__name__}: {listener!r:.60})"
            )
        self._listeners.append(listener)
        return self

    def context(self) -> ExecutionContext:
        """The context a run evaluates the graph under."""
        return ExecutionContext(
            policy=self._policy, cache=self._cache, listeners=tuple(self._listeners)
        )

    async def stream(self) -> AsyncIterator[T]:
        """Yield the root's items as they are produced."""
        async for item in self._root.evaluate(self.context()):
            yield item

    async def run(self) -> list[T]:
        """Evaluate the whole graph and collect the root's items."""
        return [item async for item in self.stream()]

    def run_sync(self) -> list[T]:
        """``run()`` from synchronous code (a CLI); not from inside a running event loop."""
        return asyncio.run(self.run())


def _chain(root: PipelineStep[Any]) -> list[PipelineStep[Any]]:
    chain: list[PipelineStep[Any]] = []
    node: PipelineStep[Any] | None = root
    while node is not None:
        chain.append(node)
        node = node.upstream
    return chain
