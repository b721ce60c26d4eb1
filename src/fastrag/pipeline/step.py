"""``PipelineStep[T]``: the lazily bound, asynchronously evaluated node of a step graph.

``step(upstream)`` only records the upstream and returns the step, so a whole graph —
``embedder(chunker(parser(sources)))`` — is built without doing any work; items flow only
when the outermost step is consumed (``evaluate(context)``, ``run()`` or ``async for``).
An upstream may be another step or a plain (async) iterable of items, which is wrapped in
an ``IterableSource``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar

from fastrag.exceptions import ConfigurationError, PipelineError
from fastrag.pipeline.cache.base import CacheStore
from fastrag.pipeline.context import ExecutionContext, current_context
from fastrag.pipeline.hashing import stable_hash
from fastrag.pipeline.policy import Policy

__all__ = ["CacheSetting", "PipelineStep", "SkipItem", "item_label", "resolve_cache"]

T = TypeVar("T")

CacheSetting = CacheStore | Literal[False] | None
"""A step's ``cache`` argument: a store, ``False`` (never cache) or None (inherit)."""


class SkipItem(PipelineError):  # noqa: N818 - it names the action, like StopIteration
    """Raised by ``transform`` to skip one item with an ``ItemFailed``, whatever the policy.

    For conditions that are a property of the item rather than a fault of the run — an
    item no route accepts — so ``on_failure="raise"`` does not abort the whole batch.
    """


class PipelineStep(ABC, Generic[T]):
    """Base of every step: lazy binding, cache/policy settings, identity, entry points."""

    requires_upstream: ClassVar[bool] = True
    """False for sources, which produce items instead of transforming an upstream's."""

    name: str
    """This step instance's label in events; defaults to the class name."""

    # Class-level defaults keep a subclass that forgot super().__init__() usable.
    _upstream: PipelineStep[Any] | None = None
    _cache: CacheSetting = None
    _policy: Policy | None = None
    _config_hash: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("event_name")
        if "event_name" in cls.__dict__ and not isinstance(declared, str | property):
            raise ConfigurationError(
                f"{cls.__qualname__}.event_name must be a str such as 'Chunking' "
                f"(got {type(declared).__name__}: {declared!r:.60})"
            )

    def __init__(self, *, cache: CacheSetting = None, policy: Policy | None = None) -> None:
        if cache is not None and cache is not False and not isinstance(cache, CacheStore):
            raise ConfigurationError(
                f"{type(self).__name__} 'cache' must be a CacheStore, False (no caching) or "
                f"None (inherit) (got {type(cache).__name__}: {cache!r:.60})"
            )
        if policy is not None and not isinstance(policy, Policy):
            raise ConfigurationError(
                f"{type(self).__name__} 'policy' must be a Policy or None "
                f"(got {type(policy).__name__}: {policy!r:.60})"
            )
        self._cache = cache
        self._policy = policy
        self._upstream = None
        self._config_hash = None
        self.name = type(self).__name__

    @property
    def event_name(self) -> str:
        """The stage this step's work belongs to, e.g. ``"Chunking"``.

        Reached only when no class before ``PipelineStep`` in the MRO declares a plain
        ``event_name`` (a declared str shadows this property). Walks the whole MRO for the
        first class declaring one in its own body, else falls back to this instance's class
        name — computed here, never assigned onto the class, because an assigned fallback
        would look "declared" to subclasses, which would then inherit their base's name.
        """
        for klass in type(self).__mro__:
            declared = vars(klass).get("event_name")
            if isinstance(declared, str):
                return declared
        return type(self).__name__

    def __call__(self, upstream: PipelineStep[Any] | Iterable[Any] | AsyncIterable[Any]) -> Self:
        """Bind ``upstream`` as this step's input and return this step; nothing runs."""
        if not self.requires_upstream:
            raise ConfigurationError(
                f"{self.name} is a source step and takes no upstream; bind it as the input "
                "of another step instead"
            )
        step = self._as_step(upstream)
        node: PipelineStep[Any] | None = step
        while node is not None:
            if node is self:
                raise ConfigurationError(
                    f"binding {step.name} as the upstream of {self.name} would create a cycle; "
                    "a step graph must be acyclic"
                )
            node = node.upstream
        self._upstream = step
        return self

    @property
    def upstream(self) -> PipelineStep[Any] | None:
        """Return the upstream step bound via ``__call__``, or None."""
        return self._upstream

    @property
    def cache(self) -> CacheSetting:
        """Return the cache explicitly configured for this step."""
        return self._cache

    @property
    def policy(self) -> Policy | None:
        """Return the policy explicitly configured for this step."""
        return self._policy

    @abstractmethod
    def config(self) -> Mapping[str, Any]:
        """Return this step's own configuration, for cache-identity hashing.

        Abstract so a step that forgets it cannot be constructed, rather than silently
        sharing one constant hash (and one cache namespace) with every other config.
        """

    @property
    def config_hash(self) -> str:
        """A stable hash of this step's class name and ``config()``.

        Computed once per instance, on first use: configure a step before evaluating it.
        """
        if self._config_hash is None:
            config = self.config()
            if not isinstance(config, Mapping):
                raise ConfigurationError(
                    f"{type(self).__qualname__}.config() must return a mapping "
                    f"(got {type(config).__name__})"
                )
            klass = type(self)
            self._config_hash = stable_hash(
                {"step": f"{klass.__module__}.{klass.__qualname__}", "config": config}
            )
        return self._config_hash

    def effective_policy(self, context: ExecutionContext) -> Policy:
        """This step's explicitly set policy fields over the policy ``context`` carries."""
        if self._policy is None:
            return context.policy
        return self._policy.overlay(context.policy)

    def effective_cache(self, context: ExecutionContext) -> CacheStore | None:
        """The store this step reads and writes under ``context``, or None for no caching."""
        return resolve_cache(self._cache, context.cache)

    def validate_input(self, item: T) -> None:
        """Reject incompatible representations before transforming or replaying ``item``."""

    async def validate_output(
        self, item: T, produced: Sequence[T], context: ExecutionContext
    ) -> None:
        """Validate resolved output, fresh or replayed; raise to fail the item."""

    @abstractmethod
    def evaluate(self, context: ExecutionContext) -> AsyncIterator[T]:
        """Yield this step's items, pulling from the upstream as needed."""

    async def run(self) -> list[T]:
        """Execute this step independently and collect every item.

        Uses the installed context (``use_context``), else a default one carrying this
        step's own policy (or a fresh ``Policy``). Events go nowhere unless a context with
        listeners is installed: pipeline-wide observation is ``Pipeline``'s job.
        """
        return [item async for item in self.evaluate(self._entry_context())]

    def __aiter__(self) -> AsyncIterator[T]:
        return self.evaluate(self._entry_context()).__aiter__()

    def _entry_context(self) -> ExecutionContext:
        installed = current_context()
        if installed is not None:
            return installed
        return ExecutionContext(policy=self._policy if self._policy is not None else Policy())

    def _require_upstream(self) -> PipelineStep[Any]:
        if self._upstream is None:
            raise ConfigurationError(
                f"{self.name} has no upstream bound; call step(upstream) with a step or an "
                "iterable of items before evaluating it"
            )
        return self._upstream

    @staticmethod
    def _as_step(upstream: object) -> PipelineStep[Any]:
        if isinstance(upstream, PipelineStep):
            return upstream
        if isinstance(upstream, str | bytes | Mapping) or not isinstance(
            upstream, Iterable | AsyncIterable
        ):
            raise ConfigurationError(
                f"an upstream must be a PipelineStep or an iterable of items "
                f"(got {type(upstream).__name__}: {upstream!r:.60}); wrap a single item "
                "in a list"
            )
        # Imported here: source.py subclasses PipelineStep, so a top-level import would cycle.
        from fastrag.pipeline.source import IterableSource

        return IterableSource(upstream)


def resolve_cache(own: CacheSetting, inherited: CacheStore | None) -> CacheStore | None:
    """A step's cache setting over an inherited store: False disables, None inherits."""
    if own is False:
        return None
    if own is None:
        return inherited
    return own


def item_label(item: object, position: int) -> str:
    """An item's id for events and errors: its ``id`` if it has a str one, never its text."""
    identifier = getattr(item, "id", None)
    if isinstance(identifier, str):
        return identifier
    return f"item #{position} ({type(item).__name__})"
