"""``RoutedStep[T]``: dispatch each item to the first child whose filter matches it.

A mixin over an item engine such as ``DocumentStep`` (``ChunkerRouter(RoutedStep[Document],
Chunker)``): it supplies ``transform`` and the per-item hooks the engine calls, so caching,
retries and events stay the engine's single implementation. A routed item is cached under
the matched child's ``config_hash`` — the child's configuration decides the output, the
router has none — and runs under the child's policy; a child that sets no cache or policy
of its own inherits the router's effective ones, since a routed child is scoped to its
router. Nested routers are resolved to the leaf child in one pass. An item that no route
matches, with no default, is skipped with an ``ItemFailed`` naming it — never dropped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, Self, TypeVar, cast

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline.cache.base import CacheStore
from fastrag.pipeline.context import ExecutionContext
from fastrag.pipeline.document_step import CachePlan
from fastrag.pipeline.filters import Filter
from fastrag.pipeline.policy import Policy
from fastrag.pipeline.step import CacheSetting, PipelineStep, SkipItem, item_label, resolve_cache

__all__ = ["NoRouteError", "RouteResolution", "RoutedStep"]

T = TypeVar("T")


class NoRouteError(SkipItem):
    """No route filter matched an item and the router has no default; the item is skipped."""


class _Transformer(Protocol[T]):
    replay_needs_content: bool

    def transform(self, item: T, context: ExecutionContext) -> AsyncIterator[T]: ...


@dataclass(frozen=True, slots=True)
class RouteResolution(Generic[T]):
    """The leaf child an item is routed to, with what it inherits for that item."""

    step: PipelineStep[T]
    cache: CacheStore | None
    policy: Policy
    context: ExecutionContext
    """The context the child's hooks run under (the inherited policy and cache)."""


class RoutedStep(PipelineStep[T]):
    """Route each item to the first matching ``route`` child, or to the ``default``."""

    routes: list[tuple[Filter[T], PipelineStep[T]]]
    """Registered (filter, child) pairs, tried in registration order."""

    routing_requires_content: bool = True
    """Whether choosing a route reads an item's content. True is the conservative answer
    for arbitrary filters: an executor that ships header projections (ids and metadata)
    between workers must send this router complete items. A router whose selection reads
    only ids and metadata (e.g. ``ContentFormatFilter``) declares False."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass that rewrites route selection may read anything: unless it says
        # otherwise in its own body, it requires complete items again.
        rewrites = {"_select", "_leaf", "_dispatch_route"} & cls.__dict__.keys()
        if rewrites and "routing_requires_content" not in cls.__dict__:
            cls.routing_requires_content = True

    def __init__(self, *, cache: CacheSetting = None, policy: Policy | None = None) -> None:
        super().__init__(cache=cache, policy=policy)
        self.routes = []
        self._default: PipelineStep[T] | None = None

    def route(self, filter_rule: Filter[T], step: PipelineStep[T]) -> Self:
        """Register a conditional branch ``step`` for items ``filter_rule`` matches."""
        if not callable(filter_rule):
            raise ConfigurationError(
                f"{self.name}.route() needs a filter callable item -> bool as its first "
                f"argument (got {type(filter_rule).__name__}: {filter_rule!r:.60})"
            )
        self.routes.append((filter_rule, self._checked_child(step, "route")))
        return self

    def default(self, step: PipelineStep[T]) -> Self:
        """Register a fallback ``step`` for items that match no route filter."""
        if self._default is not None:
            raise ConfigurationError(
                f"{self.name} already has the default {self._default.name}; register one "
                "default per router (use .route(...) for further branches)"
            )
        self._default = self._checked_child(step, "default")
        return self

    @property
    def default_step(self) -> PipelineStep[T] | None:
        """The registered default child, if any."""
        return self._default

    def config(self) -> Mapping[str, Any]:
        """No identity-affecting configuration of its own: items key by the matched child."""
        return {}

    def validate_input(self, item: T) -> None:
        """This router's own checks, then those of the child ``item`` routes to."""
        super().validate_input(item)
        leaf = self._leaf(item)
        if leaf is not None:
            leaf.validate_input(item)

    async def validate_output(
        self, item: T, produced: Sequence[T], context: ExecutionContext
    ) -> None:
        """Forward resolved output validation to the child ``item`` was routed to."""
        resolution = self._dispatch_route(item, context)
        if resolution is not None:
            await resolution.step.validate_output(item, produced, resolution.context)

    async def transform(self, item: T, context: ExecutionContext) -> AsyncIterator[T]:
        """Dispatch ``item`` to the first matching route, or the default.

        An item matching no route with no default is skipped with an ``ItemFailed`` naming
        it (``NoRouteError``), whatever the policy's ``on_failure`` says.
        """
        resolution = self._dispatch_route(item, context)
        if resolution is None:
            raise NoRouteError(
                f"{self.name} has no route for item {item_label(item, 0)!r}: it matched none "
                f"of {len(self.routes)} route filter(s) and no default is registered; add a "
                ".route(filter, step) that accepts it or a .default(step)"
            )
        child = cast(_Transformer[T], resolution.step)
        async for produced in child.transform(item, resolution.context):
            yield produced

    def _policy_for_item(self, item: T, context: ExecutionContext) -> Policy:
        """The matched child's policy over this router's (the retry wrap sits above)."""
        resolution = self._dispatch_route(item, context)
        return self.effective_policy(context) if resolution is None else resolution.policy

    def _cache_plan_for_item(self, item: T, context: ExecutionContext) -> CachePlan | None:
        """Cache a routed item under the matched child's configuration, never the router's."""
        resolution = self._dispatch_route(item, context)
        if resolution is None or resolution.cache is None:
            return None
        needs_content = bool(getattr(resolution.step, "replay_needs_content", False))
        return CachePlan(resolution.cache, resolution.step.config_hash, needs_content)

    def _select(self, item: T) -> PipelineStep[T] | None:
        for filter_rule, step in self.routes:
            if filter_rule(item):
                return step
        return self._default

    def _leaf(self, item: T) -> PipelineStep[T] | None:
        step = self._select(item)
        while isinstance(step, RoutedStep):
            step = step._select(item)
        return step

    def _dispatch_route(self, item: T, context: ExecutionContext) -> RouteResolution[T] | None:
        """Resolve ``item`` to its leaf child and the cache and policy it inherits."""
        cache = self.effective_cache(context)
        policy = self.effective_policy(context)
        step = self._select(item)
        while step is not None:
            cache = resolve_cache(step.cache, cache)
            if step.policy is not None:
                policy = step.policy.overlay(policy)
            if not isinstance(step, RoutedStep):
                derived = context.derive(policy=policy, cache=cache)
                return RouteResolution(step, cache, policy, derived)
            step = step._select(item)
        return None

    def _checked_child(self, step: object, method: str) -> PipelineStep[T]:
        if not isinstance(step, PipelineStep) or not callable(getattr(step, "transform", None)):
            raise ConfigurationError(
                f"{self.name}.{method}() needs a step with a per-item transform, such as a "
                f"Chunker (got {type(step).__name__}: {step!r:.60})"
            )
        if step is self:
            raise ConfigurationError(f"{self.name}.{method}() cannot route to the router itself")
        if step.upstream is not None:
            raise ConfigurationError(
                f"{self.name}.{method}() got {step.name}, which already has an upstream bound; "
                "a routed child receives items from its router, so register it unbound"
            )
        return cast(PipelineStep[T], step)
