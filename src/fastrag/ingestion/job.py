"""``run_ingest``: a folder of documents in, a validated JSONL file, manifest and report out.

This is the library form of ``fastrag ingest`` (the command is a thin shell over it). One
run:

1. ``discover`` the input folder: each file is accepted or gets its verdict (skipped,
   quarantined, failed) with a reason naming it;
2. accepted files become raw documents carrying the caller's metadata (``--metadata``)
   under their sidecar's (``<file>.meta.json`` wins per key); a file lacking a
   ``require_metadata`` key is quarantined before anything reads it;
3. the rest flow through the graph a user would compose — ``chunker(parser(source))``
   with ``default_parsers()`` and the configured chunker, under ``Pipeline`` with
   ``Policy(on_failure="skip")`` and the SQLite step cache when configured — in this
   process, for ``workers > 1`` in a spawn-context process pool, or with
   ``engine="dask"`` on Dask distributed workers (same graph, a batch of files each);
4. every file ends in exactly one manifest state: ``chunked`` (≥ 1 record), ``empty``
   (parsed, nothing to chunk), ``skipped``, ``failed`` or ``quarantined``; records go to
   ``JsonlWriter`` (sorted, atomic: a killed run leaves the previous output intact), the
   entries to the SQLite manifest, both to the report; quarantined files are copied,
   with a ``.reason.txt``, into ``quarantine`` when configured.
5. with ``store`` set, each chunked document is embedded and indexed in the vector store
   as it finishes, in this process (``_job_index``: unchanged documents skipped, one
   generation per document, ``prune`` for files that are gone).

Listeners receive every pipeline event (``ItemStarted``, ``CacheHit``, ``ItemCompleted``,
``ItemFailed``, …; from workers, per finished batch) and one ``FileIngested`` per
discovered file, which is what a progress display counts.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ConfigurationError, PipelineError
from fastrag.ingestion._job_config import (
    CHUNKERS,
    ENGINES,
    FAIL_ON,
    ChunkerName,
    EngineName,
    FailOn,
    IngestConfig,
    Plan,
    build_plan,
)
from fastrag.ingestion._job_index import DocumentIndexed, DocumentRejected, StoreIndex, open_index
from fastrag.ingestion._job_run import DocumentOutcome, run_share
from fastrag.ingestion.jsonl import JsonlWriter
from fastrag.ingestion.manifest import FAILED, QUARANTINED, STATES, Manifest, ManifestEntry
from fastrag.ingestion.report import IngestionReport, ReportBuilder
from fastrag.ingestion.sources import SourceFile, discover
from fastrag.models import Document
from fastrag.pipeline import CacheHit, Event, EventListener, ItemStarted

if TYPE_CHECKING:
    from fastrag.retrieval._sections import DocumentSections

__all__ = [
    "CHUNKERS",
    "ENGINES",
    "FAIL_ON",
    "ChunkerName",
    "DocumentIndexed",
    "DocumentRejected",
    "EngineName",
    "FailOn",
    "FileIngested",
    "IngestConfig",
    "IngestResult",
    "run_ingest",
]

_MANIFEST_FLUSH: Final = 64
"""Manifest entries written per transaction: a commit per file would dominate small files."""


@dataclass(frozen=True, slots=True)
class FileIngested(Event):
    """One discovered file reached its final state (``item_id`` is its relative path)."""

    state: str
    chunks: int
    done: int
    """Files finished so far in this run, this one included."""
    total: int
    """Files discovered in this run."""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What a run produced; the files themselves are at ``output``/``manifest``/``report``.

    ``parse_cache_hits``/``chunk_cache_hits`` count files replayed from the step cache;
    ``fresh_parses``/``fresh_chunkings`` count files the parser/chunker actually ran on
    (a second run over an unchanged folder with the same cache and configuration has
    ``fresh_parses == 0``).
    """

    config: IngestConfig
    entries: tuple[ManifestEntry, ...]
    """One per discovered file, sorted by path."""
    records: int
    report: IngestionReport
    ingestion_version: str
    parse_cache_hits: int
    chunk_cache_hits: int
    fresh_parses: int
    fresh_chunkings: int

    @property
    def output(self) -> Path:
        """The JSONL file written."""
        return self.config.output

    @property
    def manifest(self) -> Path:
        """The SQLite manifest written."""
        return self.config.manifest_path

    @property
    def states(self) -> dict[str, int]:
        """How many files ended in each state (every state listed)."""
        counts = Counter(entry.state for entry in self.entries)
        return {state: counts.get(state, 0) for state in STATES}

    def incomplete(self, fail_on: FailOn = "any") -> bool:
        """Whether the run counts as failed under ``fail_on`` (see ``FAIL_ON``)."""
        if fail_on not in FAIL_ON:
            raise ConfigurationError(
                f"fail_on must be one of {list(FAIL_ON)} (got {fail_on!r}); choose which states "
                "make a run incomplete"
            )
        states = self.states
        failed, quarantined = states[FAILED] > 0, states[QUARANTINED] > 0
        return {
            "failed": failed,
            "quarantined": quarantined,
            "any": failed or quarantined,
            "never": False,
        }[fail_on]


class _CacheCounter:
    """Counts, per stage (``Parsing``/``Chunking``), items started and served from cache."""

    def __init__(self) -> None:
        self.started: Counter[str] = Counter()
        self.hits: Counter[str] = Counter()

    def __call__(self, event: Event) -> None:
        if isinstance(event, ItemStarted):
            self.started[event.event_name] += 1
        elif isinstance(event, CacheHit):
            self.hits[event.event_name] += 1


class _Run:
    """The parent's side of a run: manifest, writer, report, quarantine, progress."""

    def __init__(
        self,
        config: IngestConfig,
        manifest: Manifest,
        writer: JsonlWriter,
        listeners: Sequence[EventListener],
        total: int,
    ) -> None:
        self.config = config
        self.manifest = manifest
        self.writer = writer
        self.listeners = listeners
        self.total = total
        self.report = ReportBuilder()
        self.entries: dict[str, ManifestEntry] = {}
        self.pending: list[ManifestEntry] = []
        self.sources: dict[str, SourceFile] = {}
        """Accepted files by relative path, to quarantine one the graph gives up on."""
        self.index: StoreIndex | None = None
        """The vector store indexer (``config.store``): settles each file's chunks there."""

    def emit(self, event: Event) -> None:
        for listener in self.listeners:
            listener(event)

    def finish(
        self,
        entry: ManifestEntry,
        records: Sequence[Mapping[str, Any]] = (),
        sections: DocumentSections | None = None,
    ) -> None:
        """Record one file's final state (exactly once) and its records (and, for the
        store's section index, its ``sections``)."""
        self._check_new(entry)
        if self.index is not None:
            entry, records = self.index.settle(entry, records, sections)
        if records:
            self.writer.add(entry.path, records)
        self._settle(entry, records)

    def finish_serialized(
        self, entry: ManifestEntry, lines: bytes, rows: Sequence[Mapping[str, Any]]
    ) -> None:
        """``finish`` for a file whose records a worker sent as JSONL ``lines``, with the
        ``rows`` the report reads (``BatchResult.serialized``); only without a store,
        which needs whole records."""
        if self.index is not None:
            raise PipelineError(
                f"{entry.path!r}: records sent as text cannot be indexed; this is a fastrag "
                "bug, please report it"
            )
        self._check_new(entry)
        if lines or rows:
            self.writer.add_lines(entry.path, lines, len(rows))
        self._settle(entry, rows)

    def _check_new(self, entry: ManifestEntry) -> None:
        if entry.path in self.entries:
            raise PipelineError(
                f"{entry.path!r} reached a final state twice; this is a fastrag bug, please "
                "report it"
            )

    def _settle(self, entry: ManifestEntry, rows: Sequence[Mapping[str, Any]]) -> None:
        """The written file's entry, report figures and progress event."""
        self.entries[entry.path] = entry
        if rows:
            self.report.add_records(rows)
        self.pending.append(entry)
        if len(self.pending) >= _MANIFEST_FLUSH:
            self.flush()
        self.emit(
            FileIngested(
                "ingest",
                "Ingesting",
                entry.path,
                entry.state,
                entry.chunk_count,
                len(self.entries),
                self.total,
                entry.reason,
            )
        )

    def flush(self) -> None:
        self.manifest.record_many(self.pending)
        self.pending.clear()

    def quarantine(self, source: SourceFile, reason: str) -> None:
        """Copy a quarantined file (and its sidecar) with a reason file into the folder."""
        folder = self.config.quarantine
        if folder is None:
            return
        target = folder / source.relative_path
        target.parent.mkdir(parents=True, exist_ok=True)
        copies = [(source.path, target)]
        if source.sidecar is not None:
            copies.append((self.config.input_dir / source.sidecar, folder / source.sidecar))
        for origin, destination in copies:
            try:
                shutil.copyfile(origin, destination)
            except OSError as error:
                reason += f" (the file could not be copied here: {error.strerror or error})"
        _write_text(target.with_name(target.name + ".reason.txt"), reason + "\n")


def _missing(metadata: Mapping[str, Any], required: Iterable[str]) -> list[str]:
    """Required keys that are absent or empty (None, ``""``, an empty list)."""
    return [
        key
        for key in required
        if metadata.get(key) is None or metadata.get(key) in ("", (), [], {})
    ]


def _verdict(source: SourceFile, version: str) -> ManifestEntry:
    return ManifestEntry(
        path=source.relative_path,
        sha256=source.sha256,
        size=source.size,
        source_type=source.source_type,
        state=source.state,
        reason=source.reason or f"{source.relative_path}: {source.state} at discovery",
        ingestion_version=version,
    )


def _admit(run: _Run, files: Sequence[SourceFile], version: str) -> list[Document]:
    """Settle every file discovery or the metadata check decides; return the raw rest."""
    config = run.config
    caller = config.caller_metadata()
    accepted: list[Document] = []
    for source in files:
        if source.state != "accepted":
            entry = _verdict(source, version)
            if entry.state == QUARANTINED:
                run.quarantine(source, entry.reason)
            run.finish(entry)
            continue
        raw = source.to_document(caller)
        missing = _missing(raw.metadata, config.require_metadata)
        if not missing:
            run.sources[source.relative_path] = source
            accepted.append(raw)
            continue
        reason = (
            f"{source.relative_path}: missing required metadata {', '.join(missing)} "
            f"(required: {', '.join(config.require_metadata)}); pass it with --metadata "
            f"key=value or in {source.relative_path}.meta.json"
        )
        entry = ManifestEntry(
            source.relative_path,
            source.sha256,
            source.size,
            source.source_type,
            QUARANTINED,
            reason,
            ingestion_version=version,
        )
        run.quarantine(source, reason)
        run.finish(entry)
    return accepted


def _process(
    run: _Run, plan: Plan, raws: Sequence[Document], listeners: Sequence[EventListener]
) -> None:
    """Run the graph over ``raws`` here, on the pool or on Dask; finish each file as it
    completes."""

    def quarantine(entry: ManifestEntry) -> None:
        if entry.state == QUARANTINED and entry.path in run.sources:
            run.quarantine(run.sources[entry.path], entry.reason)

    def finish(outcome: DocumentOutcome) -> None:
        quarantine(outcome.entry)
        run.finish(outcome.entry, outcome.records, outcome.sections)

    if run.config.engine == "dask":
        from fastrag.ingestion._job_dask import run_dask

        results = run_dask(run.config, raws)
    elif run.config.workers == 1 or len(raws) <= 1:
        asyncio.run(_consume(plan, raws, listeners, finish))
        return
    else:
        from fastrag.ingestion._job_workers import run_pool

        results = run_pool(run.config, raws)
    for batch in results:
        for event in batch.events:
            for listener in listeners:
                listener(event)
        if run.index is not None:
            for outcome in batch.outcomes():
                finish(outcome)
            continue
        # Without a store the records are only written and counted: keep their text.
        for entry, lines, rows in batch.serialized():
            quarantine(entry)
            run.finish_serialized(entry, lines, rows)


async def _consume(
    plan: Plan,
    raws: Sequence[Document],
    listeners: Sequence[EventListener],
    finish: Callable[[DocumentOutcome], None],
) -> None:
    async for outcome in run_share(plan, raws, listeners):
        finish(outcome)


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same folder, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def run_ingest(config: IngestConfig, *, listeners: Iterable[EventListener] = ()) -> IngestResult:
    """Ingest ``config.input_dir`` into ``config.output``; see the module docstring.

    Synchronous (it runs its own event loop): call it from a thread, not from inside a
    running loop. Raises ``ConfigurationError`` for a bad configuration or input folder
    and ``CacheError`` for an unusable cache or manifest file; a bad *document* never
    raises — it ends in a manifest state with its reason.
    """
    plan = build_plan(config)
    files = discover(
        config.input_dir,
        include=config.include,
        exclude=config.exclude,
        max_file_bytes=config.max_file_bytes,
        max_files=config.max_files,
        format_overrides=config.format_overrides,
        parsable_types=plan.parsers.source_types,
    )
    counter = _CacheCounter()
    every: list[EventListener] = [counter, *listeners]
    with Manifest(config.manifest_path) as manifest:
        with JsonlWriter(config.output) as writer:
            run = _Run(config, manifest, writer, every, len(files))
            run.index = open_index(config, manifest, run.emit)
            try:
                raws = _admit(run, files, plan.ingestion_version)
                _process(run, plan, raws, every)
                record_count = writer.record_count
                discovered = [source.relative_path for source in files]
                if run.index is not None and config.prune:
                    run.index.prune(discovered)
            finally:
                if run.index is not None:
                    run.index.close()
        run.flush()
        manifest.prune(discovered)
        manifest.verify_complete(discovered)
    if plan.cache is not None:
        plan.cache.close()
    run.report.add_entries(run.entries[path] for path in sorted(run.entries))
    report = run.report.build()
    if config.report is not None:
        _write_text(config.report, report.to_json())
    return IngestResult(
        config=config,
        entries=tuple(run.entries[path] for path in sorted(run.entries)),
        records=record_count,
        report=report,
        ingestion_version=plan.ingestion_version,
        parse_cache_hits=counter.hits["Parsing"],
        chunk_cache_hits=counter.hits["Chunking"],
        fresh_parses=counter.started["Parsing"] - counter.hits["Parsing"],
        fresh_chunkings=counter.started["Chunking"] - counter.hits["Chunking"],
    )
