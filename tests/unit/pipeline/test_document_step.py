"""``DocumentStep``'s engine: policy (retries, timeout, failure), cache, windows, order."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import CacheError, PipelineError
from fastrag.models import Document
from fastrag.pipeline import (
    CacheHit,
    CacheStore,
    DocumentChunked,
    Event,
    EventRecorder,
    ExecutionContext,
    InMemoryCacheStore,
    ItemCompleted,
    ItemFailed,
    ItemProduced,
    ItemRetried,
    ItemStarted,
    Pipeline,
    Policy,
    SqliteCacheStore,
    cache_key,
)
from tests.unit.pipeline._steps import FlakyStep, SlowStep, SpyStore, WordStep, doc


def _run(
    step: WordStep, items: list[Document], **context: Any
) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    step(items)
    pipeline = Pipeline(step, listeners=[recorder], **context)
    return pipeline.run_sync(), recorder


def _kinds(events: list[Event]) -> list[str]:
    return [type(event).__name__ for event in events]


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> CacheStore:
    if request.param == "memory":
        return InMemoryCacheStore()
    return SqliteCacheStore(tmp_path / "cache.sqlite")


# --- cache replay ------------------------------------------------------------------------


def test_replay_yields_exactly_the_fresh_output_and_the_same_events(store: CacheStore) -> None:
    items = [doc("a", "one two three", tags=("x", ["y"])), doc("b", ""), doc("c", "four")]
    fresh_step = WordStep(cache=store)
    fresh, fresh_events = _run(fresh_step, items)
    replay_step = WordStep(cache=store)
    replayed, replay_events = _run(replay_step, items)

    assert replay_step.calls == []
    assert replayed == fresh
    assert [dict(d.metadata) for d in replayed] == [dict(d.metadata) for d in fresh]
    assert type(replayed[0].metadata["pair"]) is tuple
    assert type(replayed[0].metadata["pair"][1]) is list
    without_hits = [e for e in replay_events.events if not isinstance(e, CacheHit)]
    assert without_hits == fresh_events.events
    hits = replay_events.of_type(CacheHit)
    assert [(e.item_id, e.outputs) for e in hits] == [("a", 3), ("b", 0), ("c", 1)]  # type: ignore[attr-defined]
    # validate_output ran on the replayed output too.
    assert replay_step.validated == [("a", 3), ("b", 0), ("c", 1)]


def test_a_changed_document_misses_the_cache(store: CacheStore) -> None:
    _run(WordStep(cache=store), [doc("a", "one two")])
    step = WordStep(cache=store)
    _run(step, [doc("a", "one two", lang="en")])  # same id and text, new metadata
    _run(step, [doc("a", "one three")])  # same id, new text
    assert step.calls == ["a", "a"]


def test_a_differently_configured_step_misses_the_cache(store: CacheStore) -> None:
    _run(WordStep(cache=store), [doc("a")])
    other = WordStep(suffix="!", cache=store)
    output, _ = _run(other, [doc("a")])
    assert other.calls == ["a"]
    assert output[0].content == "alpha!"


def test_cache_false_disables_and_none_inherits_the_pipeline_cache() -> None:
    shared = InMemoryCacheStore()
    _run(WordStep(), [doc("a")], cache=shared)
    assert len(shared) == 1
    disabled = WordStep(cache=False)
    _run(disabled, [doc("a")], cache=shared)
    assert disabled.calls == ["a"]
    inheriting = WordStep()
    _run(inheriting, [doc("a")], cache=shared)
    assert inheriting.calls == []


def test_window_lookups_are_batched_and_hits_hydrated_per_item() -> None:
    spy = SpyStore(InMemoryCacheStore())
    items = [doc(f"d{i}") for i in range(5)]
    _run(WordStep(cache=spy, policy=Policy(window=2)), items)
    assert spy.calls == [
        ("headers", 2), ("put", 2), ("put", 2),
        ("headers", 2), ("put", 2), ("put", 2),
        ("headers", 1), ("put", 2),
    ]  # fmt: skip
    spy.calls.clear()
    _run(WordStep(cache=spy, policy=Policy(window=5)), items)
    assert spy.calls == [("headers", 5)] + [("documents", 1)] * 5


def test_replay_needs_content_reads_full_documents_once() -> None:
    class Revalidating(WordStep):
        replay_needs_content = True

    spy = SpyStore(InMemoryCacheStore())
    items = [doc(f"d{i}") for i in range(3)]
    _run(Revalidating(cache=spy), items)
    spy.calls.clear()
    replayed, _ = _run(Revalidating(cache=spy), items)
    assert spy.calls == [("documents", 3)]
    assert len(replayed) == 6


def test_uncacheable_metadata_fails_the_item_not_the_store() -> None:
    store = InMemoryCacheStore()
    items = [doc("odd", "x", when=object()), doc("fine", "y")]
    output, events = _run(WordStep(cache=store), items, policy=Policy(on_failure="skip"))
    assert [d.content for d in output] == ["y"]
    (failure,) = events.failures
    assert failure.item_id == "odd"
    assert failure.error_type == "UncacheableValueError"
    assert "metadata['when'] is a object" in failure.message


def test_a_broken_store_stops_the_run_even_when_skipping(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match=r"cache\.sqlite"):
        _run(WordStep(cache=SqliteCacheStore(path)), [doc("a")], policy=Policy(on_failure="skip"))


# --- policy ------------------------------------------------------------------------------


def test_retries_with_backoff_then_success() -> None:
    step = FlakyStep(failures=2, policy=Policy(retries=2, backoff=0.001, backoff_factor=3.0))
    output, events = _run(step, [doc("a")])
    assert [d.content for d in output] == ["alpha", "beta"]
    assert step.attempts == {"a": 3}
    retried = [e for e in events.events if isinstance(e, ItemRetried)]
    assert [(e.attempt, e.delay, e.error_type) for e in retried] == [
        (1, 0.001, "RuntimeError"),
        (2, 0.003, "RuntimeError"),
    ]
    assert retried[0].message == "transient failure 1 of a"
    assert events.failures == ()


def test_out_of_retries_raises_by_default_after_reporting() -> None:
    step = FlakyStep(failures=5, policy=Policy(retries=1, backoff=0.0))
    recorder = EventRecorder()
    with pytest.raises(RuntimeError, match="transient failure 2 of a"):
        Pipeline(step([doc("a"), doc("b")]), listeners=[recorder]).run_sync()
    (failure,) = recorder.failures
    assert (failure.item_id, failure.attempts, failure.error_type) == ("a", 2, "RuntimeError")
    assert step.attempts == {"a": 2}


def test_skip_reports_and_continues_with_the_next_item() -> None:
    step = FlakyStep(failures=1, policy=Policy(on_failure="skip"))
    output, events = _run(step, [doc("a"), doc("b")])
    assert output == []
    assert [f.item_id for f in events.failures] == ["a", "b"]
    assert _kinds(events.events) == ["ItemStarted", "ItemStarted", "ItemFailed", "ItemFailed"]


def test_only_retry_on_errors_are_retried() -> None:
    policy = Policy(retries=3, backoff=0.0, retry_on=(ConnectionError,), on_failure="skip")
    step = FlakyStep(failures=1, error=ValueError, policy=policy)
    _, events = _run(step, [doc("a")])
    assert step.attempts == {"a": 1}
    assert events.failures[0].attempts == 1


def test_timeout_becomes_item_failed_naming_the_item() -> None:
    step = SlowStep({"slow": 5.0}, policy=Policy(timeout=0.05, on_failure="skip"))
    output, events = _run(step, [doc("slow"), doc("quick")])
    assert [d.content for d in output] == ["alpha", "beta"]
    (failure,) = events.failures
    assert failure.item_id == "slow"
    assert failure.error_type == "PipelineError"
    assert "exceeded its 0.05 s timeout on item 'slow'" in failure.message


def test_timeout_with_raise_raises_a_pipeline_error() -> None:
    step = SlowStep({"slow": 5.0}, policy=Policy(timeout=0.05))
    with pytest.raises(PipelineError, match="timeout on item 'slow'"):
        _run(step, [doc("slow")])


def test_pipeline_policy_is_inherited_and_step_fields_win() -> None:
    step = FlakyStep(failures=1, policy=Policy(backoff=0.0))
    output, _ = _run(step, [doc("a")], policy=Policy(retries=1, backoff=10.0))
    assert len(output) == 2  # retried once (pipeline), without a 10 s wait (step)


def test_bad_input_items_fail_with_their_type_named() -> None:
    output, events = _run(WordStep(), ["raw text", doc("a")], policy=Policy(on_failure="skip"))  # type: ignore[list-item]
    assert len(output) == 2
    (failure,) = events.failures
    assert failure.item_id == "item #0 (str)"
    assert failure.attempts == 0
    assert "expects fastrag.models.Document items (got str" in failure.message
    with pytest.raises(PipelineError, match="got int"):
        _run(WordStep(), [7])  # type: ignore[list-item]


def test_transform_must_yield_documents() -> None:
    class Wrong(WordStep):
        async def transform(
            self, item: Document, context: ExecutionContext
        ) -> AsyncIterator[Document]:
            yield "text"  # type: ignore[misc]

    with pytest.raises(PipelineError, match=r"transform must yield .*Document items \(got str"):
        _run(Wrong(), [doc("a")])


def test_validate_output_failure_fails_the_item_and_is_not_cached() -> None:
    class Strict(WordStep):
        async def validate_output(
            self, item: Document, produced: Any, context: ExecutionContext
        ) -> None:
            raise PipelineError(f"output of {item.id} rejected")

    store = InMemoryCacheStore()
    output, events = _run(Strict(cache=store), [doc("a")], policy=Policy(on_failure="skip"))
    assert output == []
    assert events.failures[0].message == "output of a rejected"
    assert len(store) == 0


# --- events, concurrency, windows --------------------------------------------------------


def test_event_sequence_and_payload_for_one_item() -> None:
    class Chunky(WordStep):
        event_name = "Chunking"
        produced_event = DocumentChunked

    _, events = _run(Chunky(), [doc("a")])
    assert events.events == [
        ItemStarted("Chunky", "Chunking", "a"),
        DocumentChunked("Chunky", "Chunking", "a", "a/0", 0),
        DocumentChunked("Chunky", "Chunking", "a", "a/1", 1),
        ItemCompleted("Chunky", "Chunking", "a", 2),
    ]
    _, generic = _run(WordStep(), [doc("a")])
    assert isinstance(generic.events[1], ItemProduced)
    assert type(generic.events[1]) is ItemProduced


def test_concurrent_items_stay_contiguous_in_completion_order() -> None:
    step = SlowStep({"slow": 0.02, "fast": 0.001}, policy=Policy(concurrency=2))
    items = [doc("slow", "s1 s2 s3"), doc("fast", "f1 f2 f3")]
    output, _ = _run(step, items)
    assert [d.content for d in output] == ["f1", "f2", "f3", "s1", "s2", "s3"]
    # The two transforms really interleaved, yet each item's outputs stayed together.
    assert step.log.index("start fast") < step.log.index("end slow")


def test_concurrency_one_keeps_source_order() -> None:
    step = SlowStep({"slow": 0.01})
    output, _ = _run(step, [doc("slow", "s1 s2"), doc("fast", "f1")])
    assert [d.content for d in output] == ["s1", "s2", "f1"]


def test_raise_in_a_concurrent_window_cancels_the_rest() -> None:
    class Failing(SlowStep):
        async def transform(
            self, item: Document, context: ExecutionContext
        ) -> AsyncIterator[Document]:
            if item.id == "bad":
                raise ValueError("bad item")
            async for produced in super().transform(item, context):
                yield produced

    step = Failing({"slow": 5.0}, policy=Policy(concurrency=3))
    with pytest.raises(ValueError, match="bad item"):
        _run(step, [doc("slow"), doc("bad")])
    assert "end slow" not in step.log


async def test_evaluate_items_accepts_any_iterable() -> None:
    step = WordStep()
    context = ExecutionContext()
    plain = [d.content async for d in step.evaluate_items([doc("a", "x y")], context)]

    async def produce() -> AsyncIterator[Document]:
        yield doc("b", "z")

    streamed = [d.content async for d in step.evaluate_items(produce(), context)]
    assert (plain, streamed) == (["x", "y"], ["z"])


async def test_listeners_get_nothing_built_when_absent() -> None:
    # No listeners: the engine must still produce the same items (events are optional).
    step = WordStep()
    items = [d async for d in step.evaluate_items([doc("a")], ExecutionContext())]
    assert [d.content for d in items] == ["alpha", "beta"]


def test_cache_key_depends_on_identity_id_and_fingerprint() -> None:
    base = cache_key("cfg", doc("a", "x"))
    assert base == cache_key("cfg", doc("a", "x"))
    assert base != cache_key("cfg2", doc("a", "x"))
    assert base != cache_key("cfg", doc("b", "x"))
    assert base != cache_key("cfg", Document("a", "other-source", "x"))
    assert cache_key("cfg", doc("a", "x", t=(1,))) != cache_key("cfg", doc("a", "x", t=[1]))


def test_event_classes_are_frozen() -> None:
    event = ItemFailed("s", "e", "i", "T", "m", 0)
    with pytest.raises(AttributeError):
        event.message = "other"  # type: ignore[misc]
