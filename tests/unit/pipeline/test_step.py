"""``PipelineStep``: lazy binding, read-only upstream, entry points, ``event_name`` rule."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.models import Document
from fastrag.pipeline import (
    DocumentStep,
    EventRecorder,
    ExecutionContext,
    IterableSource,
    Pipeline,
    Policy,
    current_context,
    use_context,
)
from tests.unit.pipeline._steps import WordStep, doc


class CountingSource:
    """An iterable that counts how often it is iterated and how many items it hands out."""

    def __init__(self, items: list[Document]) -> None:
        self.items = items
        self.iterations = 0
        self.pulled = 0

    def __iter__(self) -> Iterator[Document]:
        self.iterations += 1
        for item in self.items:
            self.pulled += 1
            yield item


def test_constructing_and_binding_a_graph_performs_no_work() -> None:
    source = CountingSource([doc("a"), doc("b")])
    first, second = WordStep(), WordStep(suffix="!")
    graph = second(first(source))
    pipeline = Pipeline(graph)
    assert graph is second
    assert (source.iterations, source.pulled, first.calls, second.calls) == (0, 0, [], [])
    assert [step.name for step in pipeline.steps] == ["IterableSource", "WordStep", "WordStep"]
    items = pipeline.run_sync()
    assert [item.content for item in items] == ["alpha!", "beta!", "alpha!", "beta!"]
    assert (source.iterations, source.pulled, first.calls) == (1, 2, ["a", "b"])


async def test_consuming_pulls_items_lazily() -> None:
    source = CountingSource([doc("a"), doc("b"), doc("c")])
    step = WordStep(policy=Policy(window=1))(source)
    stream = step.evaluate(ExecutionContext(policy=Policy(window=1)))
    first = await anext(stream)
    assert first.content == "alpha"
    assert source.pulled == 1
    await stream.aclose()  # type: ignore[attr-defined]


def test_upstream_is_read_only_and_reflects_binding() -> None:
    upstream, step = WordStep(), WordStep()
    assert step.upstream is None
    assert step(upstream).upstream is upstream
    with pytest.raises(AttributeError):
        step.upstream = None  # type: ignore[misc]


async def test_plain_and_async_iterables_are_wrapped_in_a_source() -> None:
    async def produce() -> AsyncIterator[Document]:
        yield doc("x", "one two")

    step = WordStep()(produce())
    assert isinstance(step.upstream, IterableSource)
    assert [item.content for item in await step.run()] == ["one", "two"]
    listed = WordStep()([doc("y", "three")])
    assert [item.content for item in await listed.run()] == ["three"]
    assert [item.content for item in await listed.run()] == ["three"]  # a list re-iterates


@pytest.mark.parametrize("bad", ["some text", b"bytes", {"a": 1}, doc("single"), 3])
def test_binding_a_non_iterable_or_text_is_rejected(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="an upstream must be a PipelineStep"):
        WordStep()(bad)  # type: ignore[arg-type]


def test_cycles_and_sources_with_upstreams_are_rejected() -> None:
    first, second = WordStep(), WordStep()
    second(first)
    with pytest.raises(ConfigurationError, match="would create a cycle"):
        first(second)
    with pytest.raises(ConfigurationError, match="is a source step and takes no upstream"):
        IterableSource([doc("a")])([doc("b")])


async def test_evaluating_without_upstream_names_the_step_and_the_fix() -> None:
    with pytest.raises(ConfigurationError, match=r"WordStep has no upstream bound; call step\("):
        await WordStep().run()


def test_bad_cache_and_policy_arguments_are_rejected() -> None:
    with pytest.raises(ConfigurationError, match="'cache' must be a CacheStore, False"):
        WordStep(cache=True)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="'policy' must be a Policy or None"):
        WordStep(policy={"retries": 1})  # type: ignore[arg-type]


def test_config_is_abstract() -> None:
    class NoConfig(DocumentStep):
        async def transform(
            self, item: Document, context: ExecutionContext
        ) -> AsyncIterator[Document]:
            yield item

    with pytest.raises(TypeError, match="config"):
        NoConfig()  # type: ignore[abstract]


def test_config_must_be_a_mapping() -> None:
    class ListConfig(WordStep):
        def config(self) -> Mapping[str, Any]:
            return ["not", "a", "mapping"]  # type: ignore[return-value]

    with pytest.raises(ConfigurationError, match=r"config\(\) must return a mapping"):
        _ = ListConfig().config_hash


async def test_run_uses_the_installed_context_else_a_default() -> None:
    recorder = EventRecorder()
    step = WordStep()([doc("a")])
    assert current_context() is None
    assert len(await step.run()) == 2
    with use_context(ExecutionContext(listeners=(recorder,))) as context:
        assert current_context() is context
        assert len(await step.run()) == 2
        assert [item.content async for item in step] == ["alpha", "beta"]
    assert current_context() is None
    assert len(recorder.events) == 2 * 4  # started, 2 produced, completed; twice


# --- event_name resolution -------------------------------------------------------------


class Family(WordStep):
    event_name = "Family work"


class Member(Family):
    pass


class OptOut(Family):
    event_name = "OptOut work"


class Undeclared(WordStep):
    pass


class UndeclaredChild(Undeclared):
    pass


class Labelled:
    event_name = "From a mixin"


class MixinFirst(Labelled, WordStep):
    pass


class MixinLast(WordStep, Labelled):  # type: ignore[override]
    pass


@pytest.mark.parametrize(
    ("step_class", "expected"),
    [
        (Family, "Family work"),
        (Member, "Family work"),
        (OptOut, "OptOut work"),
        (Undeclared, "Undeclared"),
        (UndeclaredChild, "UndeclaredChild"),
        (WordStep, "WordStep"),
        (MixinFirst, "From a mixin"),
        (MixinLast, "From a mixin"),
    ],
)
def test_event_name_resolution(step_class: type[WordStep], expected: str) -> None:
    assert step_class().event_name == expected


def test_fallback_event_name_is_never_assigned_onto_the_class() -> None:
    assert Undeclared().event_name == "Undeclared"
    assert "event_name" not in vars(Undeclared)
    assert UndeclaredChild().event_name == "UndeclaredChild"


def test_a_non_str_event_name_is_rejected_at_class_creation() -> None:
    with pytest.raises(ConfigurationError, match="event_name must be a str"):

        class Broken(WordStep):
            event_name = 42  # type: ignore[assignment]
