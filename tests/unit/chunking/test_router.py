"""``ChunkerRouter`` and ``ContentFormatFilter``: format-based dispatch among chunkers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.filters import ContentFormatFilter, Filter
from fastrag.ingestion.steps.chunking import Chunker, ChunkerRouter
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import (
    CacheHit,
    DocumentChunked,
    EventRecorder,
    ExecutionContext,
    InMemoryCacheStore,
    NoRouteError,
    Pipeline,
    Policy,
)


class LineChunker(Chunker):
    """One chunk per line; records what it validated."""

    accepted_content_formats = frozenset({"markdown", "text"})

    def __init__(self, *, tag: str = "line", cache: Any = None, policy: Policy | None = None):
        super().__init__(cache=cache, policy=policy)
        self.tag = tag
        self.splits: list[str] = []
        self.validated: list[tuple[str, int]] = []

    def config(self) -> Mapping[str, Any]:
        return {"tag": self.tag}

    def split(self, document: Document) -> Iterator[tuple[str, Mapping[str, Any]]]:
        self.splits.append(document.id)
        for line in document.content.splitlines():
            yield line, {"by": self.tag}

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        self.validated.append((item.id, len(produced)))


def _doc(doc_id: str, content_format: ContentFormat | str | None = None) -> Document:
    metadata = {} if content_format is None else {"content_format": content_format}
    return Document(doc_id, f"{doc_id}.src", "first line\nsecond line", metadata)


def _run(
    router: ChunkerRouter, docs: list[Document], **kwargs: Any
) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    output = Pipeline(router(docs), listeners=[recorder], **kwargs).run_sync()
    return output, recorder


def test_routes_by_content_format_with_a_default() -> None:
    markdown, fallback = LineChunker(tag="md"), LineChunker(tag="other")
    router = (
        ChunkerRouter()
        .route(ContentFormatFilter(include_formats=[ContentFormat.MARKDOWN]), markdown)
        .default(fallback)
    )
    output, events = _run(router, [_doc("m", "markdown"), _doc("t")])
    assert [(c.metadata["parent_id"], c.metadata["by"]) for c in output] == [
        ("m", "md"),
        ("m", "md"),
        ("t", "other"),
        ("t", "other"),
    ]
    assert (markdown.splits, fallback.splits) == (["m"], ["t"])
    chunked = events.of_type(DocumentChunked)
    assert {(e.step_name, e.event_name) for e in chunked} == {("ChunkerRouter", "Chunking")}
    # Identity is the Chunker base's: chunks equal those of the child run directly.
    direct = asyncio.run(LineChunker(tag="md")([_doc("m", "markdown")]).run())
    assert output[:2] == direct


def test_no_matching_route_and_no_default_is_an_item_failed() -> None:
    only_markdown = ContentFormatFilter(include_formats=["markdown"])
    router = ChunkerRouter().route(only_markdown, LineChunker())
    output, events = _run(router, [_doc("a"), _doc("b", "markdown")])
    assert [c.metadata["parent_id"] for c in output] == ["b", "b"]
    (failure,) = events.failures
    assert (failure.item_id, failure.error_type, failure.attempts) == ("a", "NoRouteError", 0)
    assert "no route for item 'a'" in failure.message
    assert issubclass(NoRouteError, ChunkingError) is False  # a pipeline condition


def test_cache_is_keyed_by_the_matched_child_and_inherited() -> None:
    store = InMemoryCacheStore()
    router = ChunkerRouter(cache=store).default(LineChunker())
    fresh, _ = _run(router, [_doc("a")])
    replay_child = LineChunker()
    replayed, events = _run(ChunkerRouter(cache=store).default(replay_child), [_doc("a")])
    assert replayed == fresh
    assert replay_child.splits == []
    assert len(events.of_type(CacheHit)) == 1
    assert replay_child.validated == [("a", 2)]  # validate_output forwarded on replay
    other = LineChunker(tag="other")
    _run(ChunkerRouter(cache=store).default(other), [_doc("a")])
    assert other.splits == ["a"]  # another child config: a miss


def test_validate_output_is_forwarded_to_the_selected_child() -> None:
    first, second = LineChunker(tag="1"), LineChunker(tag="2")
    router = ChunkerRouter().route(ContentFormatFilter(["markdown"]), first).default(second)
    _run(router, [_doc("m", "markdown"), _doc("t")])
    assert (first.validated, second.validated) == ([("m", 2)], [("t", 2)])


def test_the_selected_childs_accepted_formats_are_enforced() -> None:
    router = ChunkerRouter().default(LineChunker())
    with pytest.raises(ChunkingError, match=r"'page'.*'html'.*\['markdown', 'text'\]"):
        _run(router, [_doc("page", ContentFormat.HTML)])


def test_a_non_document_is_rejected_by_the_router_itself() -> None:
    router = ChunkerRouter(policy=Policy(on_failure="skip")).default(LineChunker())
    _, events = _run(router, ["raw"])  # type: ignore[list-item]
    assert events.failures[0].error_type == "ChunkingError"
    assert (
        "ChunkerRouter chunks fastrag.models.Document items (got str" in events.failures[0].message
    )


def test_router_surface() -> None:
    router = ChunkerRouter()
    assert router.event_name == "Chunking"
    assert router.routing_requires_content is False
    assert router.config() == {}
    with pytest.raises(NotImplementedError, match="never called"):
        router.split(_doc("a"))

    class Labelled(ChunkerRouter):
        event_name = "ChunkerRouter"

    assert Labelled().event_name == "ChunkerRouter"
    assert Labelled.routing_requires_content is False


def test_rewriting_route_selection_requires_content_unless_declared() -> None:
    class ByLength(ChunkerRouter):
        def _select(self, item: Document) -> Any:
            return super()._select(item) if len(item.content) > 3 else None

    class ByLengthDeclared(ByLength):
        routing_requires_content = False

        def _select(self, item: Document) -> Any:
            return super()._select(item)

    assert ByLength.routing_requires_content is True
    assert ByLengthDeclared.routing_requires_content is False


# --- ContentFormatFilter -----------------------------------------------------------------


def test_content_format_filter_matches_include_and_exclude() -> None:
    markdown, text, custom = _doc("m", "markdown"), _doc("t"), _doc("c", "notebook")
    include = ContentFormatFilter(include_formats=[ContentFormat.MARKDOWN, "notebook"])
    assert [include(d) for d in (markdown, text, custom)] == [True, False, True]
    exclude = ContentFormatFilter(exclude_formats=["text"])
    assert [exclude(d) for d in (markdown, text, custom)] == [True, False, True]
    everything = ContentFormatFilter()
    assert all(everything(d) for d in (markdown, text, custom))
    assert everything("not a document") is False
    assert isinstance(include, Filter)
    assert include == ContentFormatFilter(include_formats=["notebook", "markdown"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"include_formats": "markdown"}, "must be a list of formats"),
        ({"exclude_formats": ["text", 3]}, "got int: 3"),
        ({"include_formats": [""]}, "non-empty strings"),
        ({"include_formats": ["text"], "exclude_formats": ["text"]}, r"\['text'\] in both"),
    ],
)
def test_content_format_filter_rejects_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        ContentFormatFilter(**kwargs)
