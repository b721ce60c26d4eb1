"""``ExecutionContext``: what one evaluation inherits — policy, cache, event listeners.

A context flows down the graph with every ``evaluate(context)`` call. A step never mutates
it; an enclosing router hands its children a derived copy carrying the router's effective
cache and policy. ``use_context`` installs one in a ``ContextVar`` so that the no-argument
entry points (``step.run()``, ``async for item in step``) pick it up; with none installed
they build a default context from the step's own policy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline.cache.base import CacheStore
from fastrag.pipeline.events import Event
from fastrag.pipeline.policy import Policy

__all__ = ["EventListener", "ExecutionContext", "current_context", "use_context"]

EventListener = Callable[[Event], None]
"""A synchronous callback receiving every event, in emission order (e.g. a progress bar)."""

_CURRENT: ContextVar[ExecutionContext | None] = ContextVar("fastrag_context", default=None)
_KEEP: object = object()


@dataclass(frozen=True, slots=True)
class ExecutionContext:
    """The inherited execution settings of one evaluation."""

    policy: Policy = field(default_factory=Policy)
    """Policy for steps that set none (or only some fields) themselves."""
    cache: CacheStore | None = None
    """Cache for steps constructed with ``cache=None``; None means no caching."""
    listeners: tuple[EventListener, ...] = ()
    """Receivers of every event; with none, steps skip building event objects at all."""

    def __post_init__(self) -> None:
        if not isinstance(self.policy, Policy):
            raise ConfigurationError(
                f"ExecutionContext 'policy' must be a Policy (got {type(self.policy).__name__})"
            )
        if self.cache is not None and not isinstance(self.cache, CacheStore):
            raise ConfigurationError(
                "ExecutionContext 'cache' must be a CacheStore or None "
                f"(got {type(self.cache).__name__}: {self.cache!r:.60})"
            )
        if not isinstance(self.listeners, tuple) or not all(map(callable, self.listeners)):
            raise ConfigurationError(
                "ExecutionContext 'listeners' must be a tuple of callables "
                f"(got {self.listeners!r:.80})"
            )

    @property
    def observed(self) -> bool:
        """Whether anyone listens; lets the hot path skip constructing events."""
        return bool(self.listeners)

    def emit(self, event: Event) -> None:
        """Deliver ``event`` to every listener, in registration order."""
        for listener in self.listeners:
            listener(event)

    def derive(
        self, *, policy: Policy | None = None, cache: CacheStore | object | None = _KEEP
    ) -> ExecutionContext:
        """A copy with another policy and/or cache; listeners are shared."""
        new_policy = self.policy if policy is None else policy
        new_cache = self.cache if cache is _KEEP else cache
        if new_policy is self.policy and new_cache is self.cache:
            return self
        return replace(self, policy=new_policy, cache=new_cache)  # type: ignore[arg-type]


def current_context() -> ExecutionContext | None:
    """The context installed by the innermost active ``use_context``, if any."""
    return _CURRENT.get()


@contextmanager
def use_context(context: ExecutionContext) -> Iterator[ExecutionContext]:
    """Install ``context`` for ``step.run()`` and ``async for`` within the block."""
    if not isinstance(context, ExecutionContext):
        raise ConfigurationError(
            f"use_context() needs an ExecutionContext (got {type(context).__name__})"
        )
    token = _CURRENT.set(context)
    try:
        yield context
    finally:
        _CURRENT.reset(token)
