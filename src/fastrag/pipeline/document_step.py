"""``DocumentStep``: the per-item engine — validation, cache, policy, events — around ``transform``.

One input item goes through: ``ItemStarted`` → ``validate_input`` → cache lookup → either a
replay (``CacheHit``, no ``transform`` call) or ``transform`` under the item's policy
(timeout per attempt, retries with backoff, ``ItemRetried``) → ``validate_output`` on the
resolved output, fresh or replayed → cache write (fresh only) → one ``produced_event`` per
output via ``_on_produced`` → ``ItemCompleted``. A failure at any point is one
``ItemFailed``; the policy then skips the item or re-raises its error.

An item's output is collected whole before anything is yielded: a partial attempt is
never seen downstream, the cache stores complete entries, and each item's outputs stay
contiguous even when ``concurrency > 1`` finishes items out of order (items are then
yielded in completion order). Upstream items are read ``window`` at a time and looked up
in the cache in one batch; hits are read as header projections and their content fetched
when the item is reached, unless ``replay_needs_content`` asks for full documents at once.
Either way ``validate_output`` always receives complete documents.

Every admitted item ends in exactly one ``ItemCompleted`` or ``ItemFailed`` once the
stream is consumed — the invariant a progress bar or a run report counts on. Store
failures (a corrupt or locked cache file) are not item failures: they stop the run.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from fastrag.exceptions import CacheError, PipelineError
from fastrag.models import Document
from fastrag.pipeline.cache._codec import UncacheableValueError, item_fingerprint
from fastrag.pipeline.cache.base import CacheStore, DocumentHeader
from fastrag.pipeline.context import ExecutionContext
from fastrag.pipeline.events import (
    CacheHit,
    ItemCompleted,
    ItemFailed,
    ItemProduced,
    ItemRetried,
    ItemStarted,
)
from fastrag.pipeline.hashing import sha256_parts
from fastrag.pipeline.policy import Policy
from fastrag.pipeline.step import PipelineStep, SkipItem, item_label

__all__ = ["CachePlan", "DocumentStep", "cache_key"]

_KEY_NAMESPACE = "fastrag-step-cache/1"
_MESSAGE_LIMIT = 500


@dataclass(frozen=True, slots=True)
class CachePlan:
    """Where one item's output is cached and under whose configuration."""

    store: CacheStore
    identity: str
    """The ``config_hash`` of the step whose configuration decides the output."""
    needs_content: bool
    """Read full documents in the window lookup instead of header projections."""


def cache_key(identity: str, item: Document) -> str:
    """The cache key of ``item`` under a step configuration: its id and its fingerprint."""
    return sha256_parts(_KEY_NAMESPACE, identity, item.id, item_fingerprint(item))


@dataclass(slots=True)
class _Job:
    """The mutable state of one item inside one evaluation (never shared or returned)."""

    item: Any
    item_id: str
    policy: Policy
    rejection: Exception | None = None
    plan: CachePlan | None = None
    key: str | None = None
    cached: tuple[Document | DocumentHeader, ...] | None = None
    outputs: tuple[Document, ...] = ()
    failed: bool = False


class DocumentStep(PipelineStep[Document], ABC):
    """A step that turns each input document into zero or more documents via ``transform``."""

    produced_event: ClassVar[type[ItemProduced]] = ItemProduced
    """The event class announcing each produced item (a family sets its own)."""

    replay_needs_content: bool = False
    """Set by a step whose cached replay reads the full documents anyway (e.g. to
    re-validate them): its cache reads then skip the header-only projection rather than
    fetching every entry twice."""

    _policy_memo: tuple[Policy, Policy] | None = None

    @abstractmethod
    def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        """Produce the output of one item; runs only on a cache miss."""

    def keeps_output(self, item: Document, outputs: Sequence[Document]) -> bool:
        """Whether freshly produced, validated ``outputs`` of ``item`` may enter the cache.

        A cached output is replayed on every later run without calling ``transform``, so
        a step whose output fell back after a *transient* failure (a model that timed
        out) returns False: the next run tries again instead of replaying the fallback
        forever. Called after ``validate_output``; the default keeps everything.
        """
        del item, outputs
        return True

    def validate_input(self, item: Document) -> None:
        """Reject an item that is not a ``Document`` before any work or cache lookup."""
        if not isinstance(item, Document):
            raise PipelineError(
                f"{self.name} expects fastrag.models.Document items "
                f"(got {type(item).__name__}: {item!r:.60}); parse raw input first"
            )

    def effective_policy(self, context: ExecutionContext) -> Policy:
        """This step's explicit policy fields over the context's (memoized per context policy).

        Called for every item, so the overlay is computed once per inherited policy object.
        """
        memo = self._policy_memo
        if memo is not None and memo[0] is context.policy:
            return memo[1]
        resolved = super().effective_policy(context)
        self._policy_memo = (context.policy, resolved)
        return resolved

    async def evaluate(self, context: ExecutionContext) -> AsyncIterator[Document]:
        """Drive ``transform`` over each upstream item, cached per item."""
        upstream = self._require_upstream()
        async for document in self.evaluate_items(upstream.evaluate(context), context):
            yield document

    async def evaluate_items(
        self, items: Iterable[Document] | AsyncIterable[Document], context: ExecutionContext
    ) -> AsyncIterator[Document]:
        """Transform a bounded cache window independently of worker concurrency."""
        policy = self.effective_policy(context)
        position = 0
        async for window in _windows(items, policy.window):
            jobs = [
                self._admit(item, position + offset, context) for offset, item in enumerate(window)
            ]
            position += len(window)
            self._lookup(jobs)
            async for job in self._settle(jobs, policy.concurrency, context):
                for index, document in enumerate(job.outputs):
                    self._on_produced(job.item, document, index, context)
                    yield document
                if context.observed and not job.failed:
                    context.emit(
                        ItemCompleted(self.name, self.event_name, job.item_id, len(job.outputs))
                    )

    def _policy_for_item(self, item: Document, context: ExecutionContext) -> Policy:
        """The policy one item's attempts run under (routers resolve it per route)."""
        return self.effective_policy(context)

    def _cache_plan_for_item(self, item: Document, context: ExecutionContext) -> CachePlan | None:
        """Where one item's output is cached, or None (routers key it by the matched child)."""
        store = self.effective_cache(context)
        if store is None:
            return None
        return CachePlan(store, self.config_hash, self.replay_needs_content)

    def _on_produced(
        self, item: Document, produced: Document, index: int, context: ExecutionContext
    ) -> None:
        """Announce one produced item; called identically for fresh and replayed output."""
        if context.observed:
            context.emit(
                self.produced_event(self.name, self.event_name, item.id, produced.id, index)
            )

    def _admit(self, item: Any, position: int, context: ExecutionContext) -> _Job:
        item_id = item_label(item, position)
        if context.observed:
            context.emit(ItemStarted(self.name, self.event_name, item_id))
        try:
            self.validate_input(item)
            job = _Job(item, item_id, self._policy_for_item(item, context))
            job.plan = self._cache_plan_for_item(item, context)
            if job.plan is not None:
                job.key = cache_key(job.plan.identity, item)
        except CacheError as error:
            if not isinstance(error, UncacheableValueError):
                raise
            return _Job(item, item_id, self.effective_policy(context), rejection=error)
        except Exception as error:  # noqa: BLE001 - any rejection is reported per item
            return _Job(item, item_id, self.effective_policy(context), rejection=error)
        return job

    def _lookup(self, jobs: list[_Job]) -> None:
        """One batched read per (store, projection) among the window's cacheable items."""
        groups: dict[tuple[int, bool], tuple[CacheStore, dict[str, list[_Job]]]] = {}
        for job in jobs:
            if job.plan is not None and job.key is not None:
                group_key = (id(job.plan.store), job.plan.needs_content)
                _, by_key = groups.setdefault(group_key, (job.plan.store, {}))
                by_key.setdefault(job.key, []).append(job)
        for (_, full), (store, by_key) in groups.items():
            keys = list(by_key)
            found: dict[str, tuple[Document, ...]] | dict[str, tuple[DocumentHeader, ...]] = (
                store.get_documents(keys) if full else store.get_headers(keys)
            )
            for key, entry in found.items():
                for job in by_key[key]:
                    job.cached = entry

    async def _settle(
        self, jobs: list[_Job], concurrency: int, context: ExecutionContext
    ) -> AsyncIterator[_Job]:
        """Process a window's jobs, yielding each when done (completion order)."""
        if concurrency == 1 or len(jobs) == 1:
            for job in jobs:
                await self._process(job, context)
                yield job
            return
        semaphore = asyncio.Semaphore(concurrency)

        async def guarded(job: _Job) -> _Job:
            async with semaphore:
                await self._process(job, context)
            return job

        tasks = [asyncio.ensure_future(guarded(job)) for job in jobs]
        try:
            for finished in asyncio.as_completed(tasks):
                yield await finished
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _process(self, job: _Job, context: ExecutionContext) -> None:
        if job.rejection is not None:
            skip = isinstance(job.rejection, SkipItem)
            self._fail(job, job.rejection, 0, context, force_skip=skip)
        elif job.cached is None or not await self._replay(job, context):
            await self._produce(job, context)

    async def _replay(self, job: _Job, context: ExecutionContext) -> bool:
        """Serve ``job`` from its cached entry; False if the entry vanished meanwhile."""
        plan, key, cached = job.plan, job.key, job.cached
        if plan is None or key is None or cached is None:
            return False
        if not all(isinstance(entry, Document) for entry in cached):
            hydrated = plan.store.get_documents((key,)).get(key)
            if hydrated is None:
                return False
            cached = hydrated
        documents = tuple(entry for entry in cached if isinstance(entry, Document))
        if context.observed:
            context.emit(CacheHit(self.name, self.event_name, job.item_id, len(documents)))
        try:
            await self.validate_output(job.item, documents, context)
        except CacheError:
            raise
        except Exception as error:  # noqa: BLE001 - a failed re-validation fails the item
            self._fail(job, error, 0, context)
            return True
        job.outputs = documents
        return True

    async def _produce(self, job: _Job, context: ExecutionContext) -> None:
        policy = job.policy
        attempt = 0
        while True:
            attempt += 1
            try:
                outputs = await self._attempt(job, context)
                await self.validate_output(job.item, outputs, context)
                keep = self.keeps_output(job.item, outputs)
                if keep and job.plan is not None and job.key is not None:
                    job.plan.store.put(job.key, outputs)
            except SkipItem as error:
                self._fail(job, error, 0, context, force_skip=True)
                return
            except CacheError as error:
                if not isinstance(error, UncacheableValueError):
                    raise
                self._fail(job, error, attempt, context)
                return
            except Exception as error:  # noqa: BLE001 - the policy decides what a failure means
                if attempt > policy.retries or not isinstance(error, policy.retry_on):
                    self._fail(job, error, attempt, context)
                    return
                delay = policy.delay_for(attempt, job.item_id)
                if context.observed:
                    context.emit(
                        ItemRetried(
                            self.name,
                            self.event_name,
                            job.item_id,
                            attempt,
                            delay,
                            type(error).__name__,
                            _message(error),
                        )
                    )
                await asyncio.sleep(delay)
                continue
            job.outputs = outputs
            return

    async def _attempt(self, job: _Job, context: ExecutionContext) -> tuple[Document, ...]:
        timeout = job.policy.timeout
        if timeout is None:
            return await self._collect(job.item, context)
        scope = asyncio.timeout(timeout)
        try:
            async with scope:
                return await self._collect(job.item, context)
        except TimeoutError as error:
            if not scope.expired():
                raise
            raise PipelineError(
                f"{self.name} exceeded its {timeout} s timeout on item {job.item_id!r}; raise "
                "Policy(timeout=...) or allow retries with Policy(retries=...)"
            ) from error

    async def _collect(self, item: Document, context: ExecutionContext) -> tuple[Document, ...]:
        outputs = [produced async for produced in self.transform(item, context)]
        for produced in outputs:
            if not isinstance(produced, Document):
                raise PipelineError(
                    f"{self.name}.transform must yield fastrag.models.Document items "
                    f"(got {type(produced).__name__} for item {item.id!r})"
                )
        return tuple(outputs)

    def _fail(
        self,
        job: _Job,
        error: Exception,
        attempts: int,
        context: ExecutionContext,
        *,
        force_skip: bool = False,
    ) -> None:
        job.failed = True
        job.outputs = ()
        if context.observed:
            context.emit(
                ItemFailed(
                    self.name,
                    self.event_name,
                    job.item_id,
                    type(error).__name__,
                    _message(error),
                    attempts,
                )
            )
        if not force_skip and job.policy.on_failure == "raise":
            raise error


def _message(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text if len(text) <= _MESSAGE_LIMIT else f"{text[:_MESSAGE_LIMIT]}…"


async def _windows(
    items: Iterable[Any] | AsyncIterable[Any], size: int
) -> AsyncIterator[list[Any]]:
    window: list[Any] = []
    if isinstance(items, AsyncIterable):
        async for item in items:
            window.append(item)
            if len(window) == size:
                yield window
                window = []
    else:
        for item in items:
            window.append(item)
            if len(window) == size:
                yield window
                window = []
    if window:
        yield window
