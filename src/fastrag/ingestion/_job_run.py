"""Run the step graph over a share of raw documents; one ``DocumentOutcome`` per file.

The graph is the one a user composes — ``chunker(parser(source))`` — with a pass-through
tap between parser and chunker that keeps each parsed parent until its chunks are in: a
record needs the parent (its id, its content for offsets, its parser facts), and the
chunker's stream carries only chunks. The tap is not cached and changes no item.

Which file an event is about: a parser event's ``item_id`` is the raw document's id, the
relative path; a chunker event's is the parsed document's id, a content hash, which two
identical files share. ``DocumentStep`` completes items in admission order (the run's
policy keeps ``concurrency=1``), so a chunker event belongs to the oldest unfinished
parent with that id — exactly, even for duplicates. An item's outputs are all yielded
before its ``ItemCompleted``, so when the event arrives the file's chunks are complete.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import FastragError, NeedsOcrError
from fastrag.ingestion._job_config import Plan
from fastrag.ingestion.manifest import CHUNKED, EMPTY, FAILED, QUARANTINED, ManifestEntry
from fastrag.ingestion.records import build_records
from fastrag.models import Document
from fastrag.pipeline import (
    Event,
    EventListener,
    ExecutionContext,
    ItemCompleted,
    ItemFailed,
    IterableSource,
    Pipeline,
    PipelineStep,
    Policy,
)

if TYPE_CHECKING:
    from fastrag.retrieval._sections import DocumentSections

__all__ = ["DocumentOutcome", "run_share"]

_SHOWN_NORMALIZATION_NOTES: Final = 5
"""Normalization diagnostics named in a chunked file's reason; the rest are counted."""

_LOSSY_NOTES: Final = ("undecodable", "encoding:")
"""Parse diagnostics that mean the text differs from the bytes, or may (an assumed legacy
encoding): a chunked file's reason lists them (every diagnostic is in each record's
``metadata.parse_diagnostics``)."""

_RUN_POLICY: Final = Policy(on_failure="skip", concurrency=1)
"""Skip a bad file (``ItemFailed``) and go on; one item at a time keeps events in order."""


@dataclass(frozen=True, slots=True)
class DocumentOutcome:
    """What became of one accepted file: its manifest entry and its records (maybe none).

    ``sections``: a chunked document's exact sections, computed only when the run
    indexes into a store with the structure chunker (``Plan.trees``), for the section
    store the parent writes (``fastrag.retrieval.section_store``).
    """

    entry: ManifestEntry
    records: tuple[dict[str, Any], ...] = ()
    sections: DocumentSections | None = None


class _ParentTap(PipelineStep[Document]):
    """Yield parsed documents unchanged, handing each to ``sink`` first."""

    def __init__(self, sink: Callable[[Document], None]) -> None:
        super().__init__(cache=False)
        self._sink = sink
        self.name = "ParsedParents"

    def config(self) -> Mapping[str, Any]:
        """Changes no item, so it has no identity of its own."""
        return {}

    async def evaluate(self, context: ExecutionContext) -> AsyncIterator[Document]:
        """Pass every upstream item through, after remembering it."""
        async for item in self._require_upstream().evaluate(context):
            self._sink(item)
            yield item


def _normalization_notes(diagnostics: Sequence[str]) -> str:
    """What the normalizer could not represent or refused (an RST include, a stray end
    tag), for the manifest: a chunked file is not silently less than its source.
    Diagnostics name offsets and constructs, never document text."""
    shown = "; ".join(diagnostics[:_SHOWN_NORMALIZATION_NOTES])
    more = len(diagnostics) - _SHOWN_NORMALIZATION_NOTES
    return f"normalization: {shown}" + (f"; {more} more" if more > 0 else "")


def _named(source: str, message: str) -> str:
    """A reason that names its file, whatever the underlying error said."""
    return message if source in message else f"{source}: {message}"


class _Share:
    """The bookkeeping of one share: parents awaiting chunks, chunks awaiting completion."""

    def __init__(self, plan: Plan, raws: Sequence[Document]) -> None:
        self.plan = plan
        self.raws: dict[str, Document] = {raw.source_id: raw for raw in raws}
        self.parents: OrderedDict[str, Document] = OrderedDict()
        self.chunks: dict[str, list[Document]] = {}
        self.finished: deque[tuple[str, Document | None, ItemCompleted | ItemFailed]] = deque()
        self.reported: set[str] = set()

    def remember(self, parent: Document) -> None:
        self.parents[parent.source_id] = parent

    def listen(self, event: Event) -> None:
        """Note which file each terminal event of the parser or chunker is about."""
        if not isinstance(event, ItemCompleted | ItemFailed):
            return
        if event.step_name == self.plan.chunker.name:
            for source, parent in self.parents.items():
                if parent.id == event.item_id:
                    del self.parents[source]
                    self.finished.append((source, parent, event))
                    return
        elif event.step_name == self.plan.parsers.name and isinstance(event, ItemFailed):
            self.finished.append((event.item_id, None, event))

    def drain(self) -> Iterable[DocumentOutcome]:
        while self.finished:
            source, parent, event = self.finished.popleft()
            if source in self.raws and source not in self.reported:
                self.reported.add(source)
                yield self._outcome(source, parent, event)

    def leftovers(self) -> Iterable[DocumentOutcome]:
        """Files without a terminal event: never expected, but never silently lost."""
        for source in self.raws:
            if source not in self.reported:
                self.reported.add(source)
                yield DocumentOutcome(
                    self._entry(
                        source,
                        self.parents.get(source),
                        FAILED,
                        f"{source}: the pipeline ended without an outcome for this file; "
                        "re-run, and report it as a fastrag bug if it persists",
                    )
                )

    def _outcome(
        self, source: str, parent: Document | None, event: ItemCompleted | ItemFailed
    ) -> DocumentOutcome:
        chunks = self.chunks.pop(source, [])
        if isinstance(event, ItemFailed) or parent is None:
            message = event.message if isinstance(event, ItemFailed) else "no parsed document"
            error = _error_type(event)
            if error in _NEEDS_A_HUMAN:
                reason = _named(source, message)
                return DocumentOutcome(
                    self._entry(source, parent, QUARANTINED, reason, error=error)
                )
            stage = "parsing" if parent is None else "chunking"
            reason = _named(source, f"{stage} failed ({error}): {message}")
            return DocumentOutcome(self._entry(source, parent, FAILED, reason, error=error))
        notes = "; ".join(
            str(note)
            for note in parent.metadata.get("parse_diagnostics", ())
            if str(note).startswith(_LOSSY_NOTES)
        )
        plan = self.plan
        if not chunks:
            what = "is empty" if not parent.content.strip() else "has nothing to chunk"
            remarks = [notes] if notes else []
            # Why, when the normalizer says (an HTML page that only redirects), and the
            # kept tree released either way.
            tree = None if plan.trees is None else plan.trees.take(parent)
            if tree is not None and tree.diagnostics:
                remarks.append(_normalization_notes(tree.diagnostics))
            reason = f"{source}: the parsed text {what}"
            reason += f" ({'; '.join(remarks)})" if remarks else ""
            return DocumentOutcome(self._entry(source, parent, EMPTY, reason))
        try:
            records = build_records(
                parent,
                chunks,
                tokenizer=plan.tokenizer,
                ingestion_version=plan.ingestion_version,
                counted_by=plan.counted_by,
                max_tokens=plan.max_tokens,
            )
        except FastragError as error:
            reason = _named(source, f"building its records failed: {error}")
            return DocumentOutcome(self._entry(source, parent, FAILED, reason))
        tree = None if plan.trees is None else plan.trees.take(parent)
        remarks = [notes] if notes else []
        if tree is not None and tree.diagnostics:
            remarks.append(_normalization_notes(tree.diagnostics))
        reason = f"{source}: {'; '.join(remarks)}" if remarks else ""
        entry = self._entry(source, parent, CHUNKED, reason, len(records))
        sections = None
        if plan.index_sections and tree is not None:
            from fastrag.retrieval._sections import document_sections

            sections = document_sections(tree)
        return DocumentOutcome(entry, tuple(records), sections)

    def _entry(
        self,
        source: str,
        parent: Document | None,
        state: str,
        reason: str,
        count: int = 0,
        *,
        error: str | None = None,
    ) -> ManifestEntry:
        raw = self.raws[source].metadata
        size, sha256, source_type = raw.get("size"), raw.get("sha256"), raw.get("source_type")
        parser_version = None if parent is None else parent.metadata.get("parser_version")
        pages, with_text = (None, None) if parent is None else _page_counts(parent.metadata)
        return ManifestEntry(
            path=source,
            sha256=sha256 if isinstance(sha256, str) else None,
            size=size if type(size) is int else None,
            source_type=None if source_type is None else str(source_type),
            state=state,
            reason=reason,
            chunk_count=count,
            parser_version=None if parser_version is None else str(parser_version),
            ingestion_version=self.plan.ingestion_version,
            document_id=None if parent is None else parent.id,
            pages=pages,
            pages_with_text=with_text,
            error=error,
        )


def _page_counts(metadata: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """``(pages, pages with text)`` a paginated parser recorded, else ``(None, None)``."""
    pages = metadata.get("page_count")
    if type(pages) is not int or pages < 0:
        return None, None
    blank = metadata.get("pages_without_text", ())
    blank_count = len(blank) if isinstance(blank, list | tuple) else 0
    return pages, max(0, pages - blank_count)


_NEEDS_A_HUMAN: Final = frozenset({NeedsOcrError.__name__})
"""Failures no retry fixes but a person (or an OCR pass) can: the file is quarantined."""


def _error_type(event: ItemCompleted | ItemFailed) -> str:
    return event.error_type if isinstance(event, ItemFailed) else "no output"


async def run_share(
    plan: Plan, raws: Sequence[Document], listeners: Iterable[EventListener] = ()
) -> AsyncIterator[DocumentOutcome]:
    """Parse and chunk ``raws``; yield each file's outcome as soon as it is complete.

    ``listeners`` receive every pipeline event of the run, in order.
    """
    share = _Share(plan, raws)
    graph = plan.chunker(_ParentTap(share.remember)(plan.parsers(IterableSource(list(raws)))))
    pipeline = Pipeline(
        graph, policy=_RUN_POLICY, cache=plan.cache, listeners=[share.listen, *listeners]
    )
    async for chunk in pipeline.stream():
        share.chunks.setdefault(chunk.source_id, []).append(chunk)
        for outcome in share.drain():
            yield outcome
    for outcome in share.drain():
        yield outcome
    for outcome in share.leftovers():
        yield outcome
