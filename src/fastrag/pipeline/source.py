"""``IterableSource``: a step that yields given items, the leaf of a step graph."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline.context import ExecutionContext
from fastrag.pipeline.step import PipelineStep

__all__ = ["IterableSource"]

T = TypeVar("T")


class IterableSource(PipelineStep[T]):
    """Yield the items of an iterable or async iterable, in order.

    Binding a plain list to a step (``chunker(documents)``) wraps it in one of these.
    A list can be evaluated any number of times; a one-shot iterator or generator only
    once, and evaluating it again yields nothing.
    """

    requires_upstream: ClassVar[bool] = False

    def __init__(self, items: Iterable[T] | AsyncIterable[T], *, name: str | None = None) -> None:
        super().__init__(cache=False)
        if isinstance(items, str | bytes | Mapping) or not isinstance(
            items, Iterable | AsyncIterable
        ):
            raise ConfigurationError(
                f"IterableSource needs an iterable of items (got {type(items).__name__}: "
                f"{items!r:.60})"
            )
        self._items = items
        if name is not None:
            self.name = name

    def config(self) -> Mapping[str, Any]:
        """A source is never cached; its identity is its items, not a configuration."""
        return {}

    async def evaluate(self, context: ExecutionContext) -> AsyncIterator[T]:
        """Yield every item; ``context`` is unused (a source has no policy to apply)."""
        if isinstance(self._items, AsyncIterable):
            async for item in self._items:
                yield item
        else:
            for item in self._items:
                yield item
