"""``RoutedStep``: first-match dispatch, inheritance of cache and policy, no silent drops."""

from __future__ import annotations

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.models import Document
from fastrag.pipeline import (
    DocumentStep,
    EventRecorder,
    InMemoryCacheStore,
    NoRouteError,
    Pipeline,
    Policy,
    RoutedStep,
)
from tests.unit.pipeline._steps import FlakyStep, SpyStore, WordStep, doc


class DocRouter(RoutedStep[Document], DocumentStep):
    """The generic router over documents (``ChunkerRouter`` is the chunking one)."""


def is_short(item: Document) -> bool:
    return len(item.content) < 8


def _run(
    router: DocRouter, items: list[Document], **kwargs: object
) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    pipeline = Pipeline(router(items), listeners=[recorder], **kwargs)  # type: ignore[arg-type]
    return pipeline.run_sync(), recorder


def test_items_go_to_the_first_matching_route_then_the_default() -> None:
    short, fallback, never = WordStep(suffix="<"), WordStep(suffix="*"), WordStep(suffix="!")
    router = DocRouter().route(is_short, short).route(is_short, never).default(fallback)
    output, _ = _run(router, [doc("a", "tiny"), doc("b", "long words here")])
    assert [d.content for d in output] == ["tiny<", "long*", "words*", "here*"]
    assert (short.calls, fallback.calls, never.calls) == (["a"], ["b"], [])


def test_unmatched_item_is_reported_and_the_batch_continues() -> None:
    router = DocRouter().route(is_short, WordStep())
    # Even on_failure="raise" does not abort the batch: no route is a property of the item.
    output, events = _run(router, [doc("long", "long words here"), doc("a", "tiny")])
    assert [d.content for d in output] == ["tiny"]
    (failure,) = events.failures
    assert failure.item_id == "long"
    assert failure.error_type == NoRouteError.__name__
    assert "has no route for item 'long'" in failure.message
    assert "1 route filter(s)" in failure.message


def test_a_child_without_cache_or_policy_inherits_the_routers() -> None:
    store = InMemoryCacheStore()
    child = FlakyStep(failures=1)
    router = DocRouter(cache=store, policy=Policy(retries=1, backoff=0.0)).default(child)
    output, _ = _run(router, [doc("a")])
    assert len(output) == 2
    assert child.attempts == {"a": 2}  # retried under the router's policy
    assert len(store) == 1  # cached in the router's store

    again = FlakyStep(failures=1)
    _run(DocRouter(cache=store).default(again), [doc("a")])
    assert again.attempts == {}  # replayed: keyed by the child's config, not the router's


def test_a_child_with_its_own_policy_and_cache_keeps_them() -> None:
    router_store, child_store = InMemoryCacheStore(), InMemoryCacheStore()
    child = FlakyStep(failures=1, cache=child_store, policy=Policy(retries=0))
    router = DocRouter(cache=router_store, policy=Policy(retries=3, on_failure="skip"))
    _, events = _run(router.default(child), [doc("a")])
    assert child.attempts == {"a": 1}  # child's retries=0 wins over the router's 3
    assert events.failures[0].attempts == 1  # ...and the router's skip still applies
    _run(DocRouter().default(WordStep(cache=child_store)), [doc("b")])
    assert (len(router_store), len(child_store)) == (0, 1)


def test_a_child_with_cache_false_is_not_cached() -> None:
    spy = SpyStore(InMemoryCacheStore())
    _run(DocRouter(cache=spy).default(WordStep(cache=False)), [doc("a")])
    assert spy.calls == []


def test_the_router_inherits_the_pipeline_and_passes_it_on() -> None:
    store = InMemoryCacheStore()
    child = FlakyStep(failures=2)
    output, _ = _run(
        DocRouter().default(child), [doc("a")], cache=store, policy=Policy(retries=2, backoff=0.0)
    )
    assert len(output) == 2
    assert len(store) == 1


def test_nested_routers_resolve_to_the_leaf() -> None:
    store = InMemoryCacheStore()
    leaf = WordStep(suffix="#")
    inner = DocRouter(policy=Policy(retries=1)).route(is_short, leaf)
    outer = DocRouter(cache=store).route(lambda item: True, inner)
    output, _ = _run(outer, [doc("a", "tiny"), doc("b", "long words here")])
    assert [d.content for d in output] == ["tiny#"]
    assert outer._policy_for_item(doc("a", "tiny"), Pipeline(outer).context()).retries == 1
    again = WordStep(suffix="#")
    _run(DocRouter(cache=store).route(is_short, again), [doc("a", "tiny")])
    assert again.calls == []  # the leaf's config_hash keyed the nested route's entry


def test_child_input_validation_applies_before_routing_work() -> None:
    class TextOnly(WordStep):
        def validate_input(self, item: Document) -> None:
            super().validate_input(item)
            if item.content_format != "text":
                raise ValueError(f"{item.id} is not text")

    router = DocRouter(policy=Policy(on_failure="skip")).default(TextOnly())
    output, events = _run(router, [doc("m", content_format="markdown"), doc("t")])
    assert [d.content for d in output] == ["alpha", "beta"]
    assert events.failures[0].message == "m is not text"


def test_route_arguments_are_checked() -> None:
    router = DocRouter()
    with pytest.raises(ConfigurationError, match="needs a filter callable"):
        router.route("markdown", WordStep())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="needs a step with a per-item transform"):
        router.route(is_short, [WordStep()])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="cannot route to the router itself"):
        router.default(router)
    with pytest.raises(ConfigurationError, match="already has an upstream bound"):
        router.route(is_short, WordStep()([doc("a")]))
    router.default(WordStep())
    with pytest.raises(ConfigurationError, match="already has the default WordStep"):
        router.default(WordStep())


def test_router_has_no_config_of_its_own() -> None:
    assert DocRouter().config() == {}
    assert DocRouter().config_hash == DocRouter().route(is_short, WordStep()).config_hash
    assert DocRouter.routing_requires_content is True
