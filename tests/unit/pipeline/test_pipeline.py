"""``Pipeline``: one context for the graph, listeners observing every event, streaming."""

from __future__ import annotations

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline import (
    DocumentChunked,
    Event,
    EventRecorder,
    ExecutionContext,
    InMemoryCacheStore,
    ItemCompleted,
    ItemProduced,
    Pipeline,
    Policy,
)
from tests.unit.pipeline._steps import FlakyStep, WordStep, doc


def test_listeners_see_every_steps_events_in_order() -> None:
    first, second = WordStep(), WordStep(suffix="!")
    second.name = "second"
    seen: list[Event] = []
    progress: list[str] = []
    pipeline = Pipeline(second(first([doc("a", "x y")])), listeners=[seen.append])
    pipeline.subscribe(lambda event: progress.append(type(event).__name__))
    assert [d.content for d in pipeline.run_sync()] == ["x!", "y!"]
    # The downstream step reads a window of upstream items before working on them.
    assert [(e.step_name, type(e).__name__, e.item_id) for e in seen] == [
        ("WordStep", "ItemStarted", "a"),
        ("WordStep", "ItemProduced", "a"),
        ("WordStep", "ItemProduced", "a"),
        ("WordStep", "ItemCompleted", "a"),
        ("second", "ItemStarted", "a/0"),
        ("second", "ItemStarted", "a/1"),
        ("second", "ItemProduced", "a/0"),
        ("second", "ItemCompleted", "a/0"),
        ("second", "ItemProduced", "a/1"),
        ("second", "ItemCompleted", "a/1"),
    ]
    assert progress == [type(e).__name__ for e in seen]
    completed = [e for e in seen if isinstance(e, ItemCompleted) and e.step_name == "WordStep"]
    assert [e.outputs for e in completed] == [2]


async def test_stream_yields_items_as_produced() -> None:
    pipeline = Pipeline(WordStep()([doc("a", "x y"), doc("b", "z")]))
    seen = []
    async for item in pipeline.stream():
        seen.append(item.content)
        if len(seen) == 1:
            break
    assert seen == ["x"]
    assert [d.content for d in await pipeline.run()] == ["x", "y", "z"]


def test_pipeline_policy_and_cache_reach_steps_without_their_own() -> None:
    store = InMemoryCacheStore()
    step = FlakyStep(failures=1)
    pipeline = Pipeline(step([doc("a")]), policy=Policy(retries=1, backoff=0.0), cache=store)
    assert len(pipeline.run_sync()) == 2
    assert len(store) == 1
    assert isinstance(pipeline.context(), ExecutionContext)
    assert pipeline.context().policy.retries == 1


def test_an_unbound_step_is_rejected_when_the_pipeline_is_built() -> None:
    with pytest.raises(ConfigurationError, match="WordStep in this pipeline has no upstream"):
        Pipeline(WordStep()(WordStep()))


def test_bad_pipeline_arguments_are_rejected() -> None:
    with pytest.raises(ConfigurationError, match="needs a PipelineStep as its root"):
        Pipeline([doc("a")])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="listener must be callable"):
        Pipeline(WordStep()([doc("a")]), listeners=["print"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="'cache' must be a CacheStore or None"):
        Pipeline(WordStep()([doc("a")]), cache="cache.sqlite")  # type: ignore[arg-type]


def test_produced_event_class_is_chosen_by_the_step() -> None:
    class Chunky(WordStep):
        produced_event = DocumentChunked

    recorder = EventRecorder()
    Pipeline(Chunky()([doc("a", "x")]), listeners=[recorder]).run_sync()
    produced = recorder.of_type(ItemProduced)
    assert [type(e) for e in produced] == [DocumentChunked]
