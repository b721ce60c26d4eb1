"""Indexing a run's documents into the vector store (``fastrag ingest --store``).

Runs in the parent process, one document at a time as each reaches its final state
(``_Run.finish``), whichever engine chunked it: embedding there is simple and
deterministic, and the store has one writer.

Generations. A document's *generation* is a digest of its exact JSONL records (chunk
ids, text, metadata — tenant and ACL included), the embedding model's identity and the
collection. The manifest's ``fastrag_manifest_index`` table holds the generation each
file has in the store. A document whose generation matches, and whose chunks the store still
holds, is skipped (no embedding, no store write); any other is replaced:

1. embed its records' ``build_embedding_text`` (batched);
2. ``upsert`` the new chunks (by chunk id: idempotent);
3. ``delete_where(source=..., keep_chunk_ids=new ids)``: the previous generation goes;
4. replace its sections in the section file (see "Sections" below);
5. only then record the new generation in the manifest.

A crash between 2 and 3 leaves a superset (old and new chunks of that one source) while
the manifest still names the old generation, so the next run re-indexes the document
and step 3 removes the old chunks; a crash before 2 leaves the old generation intact.
So once a run completes, every document holds exactly one generation.

A record the store rejects (say metadata over Milvus's 64 KiB JSON limit) makes its
document ``failed`` with the rejection (chunk id and field): the document is removed
from the store and from the JSONL, so index, JSONL and manifest agree; the other
documents are indexed. The rejection is remembered with the generation
(``Manifest.set_rejected``): the store's limits are fixed, so an unchanged document is
failed again with the same reason without being embedded again, and a changed one is
retried. A file that is no longer chunked (failed, empty, skipped…) loses its chunks;
with ``prune`` so does a file that is gone.

Sections. With ``sections`` (a ``SectionStore``), each indexed document's exact
sections — computed by the worker from the tree the chunker built
(``fastrag.retrieval._kept_trees``) and handed to ``settle`` — are written with its
generation; an unchanged document whose sections are missing or of another generation
(a new or rebuilt section file) gets them written without being embedded again.

Hybrid collections (``--retrieval hybrid``). Step 1 also cuts each chunk's context
window from the document's own chunks (``fastrag.retrieval.model_windows``), embeds
it, and stores the fused vector ``(v_chunk + v_window) / 2`` with the window text, which
Milvus indexes for BM25 (``MilvusStore``), and embeds each chunk's sentences
(``fastrag.retrieval.sentences``) for the store's sentence collection, so a search can
score a chunk by its best sentence. The generation then also names the mode, so
a document indexed one way is never taken as current the other way. The store is
opened before the run starts, so a collection of the other mode is refused before any
document is chunked.

A Milvus server's token comes from ``$FASTRAG_MILVUS_TOKEN`` (``open_store``): never
from a command-line value, never into the configuration, the manifest or a message.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from fastrag.exceptions import ConfigurationError, FastragError
from fastrag.ingestion.manifest import CHUNKED, FAILED, Manifest, ManifestEntry
from fastrag.ingestion.records import record_line
from fastrag.llm.errors import EmbeddingError
from fastrag.pipeline import Event

if TYPE_CHECKING:
    from fastrag.ingestion._job_config import IngestConfig, StoreRetrieval
    from fastrag.ingestion.steps.embedding import Embedder, SentenceTransformerEmbedder
    from fastrag.ingestion.steps.storing import MilvusStore
    from fastrag.llm import Vector
    from fastrag.retrieval._sections import DocumentSections
    from fastrag.retrieval.model_windows import ModelWindows
    from fastrag.retrieval.section_store import SectionStore

__all__ = [
    "STORE_SCHEMES",
    "TOKEN_ENV",
    "DocumentIndexed",
    "DocumentRejected",
    "StoreIndex",
    "build_embedder",
    "open_index",
    "open_store",
    "store_uri",
]

STORE_SCHEMES: Final = ("milvus:",)
"""How ``--store`` names a store: ``milvus:PATH.db`` (Milvus Lite) or ``milvus:http://…``."""

TOKEN_ENV: Final = "FASTRAG_MILVUS_TOKEN"  # noqa: S105 - a variable name, not a secret
"""The environment variable holding a Milvus server's token (``user:password`` or an API
key). An environment variable, not an option: a value on the command line lands in the
shell history and the process list."""

_T = TypeVar("_T")


def store_uri(value: object) -> str:
    """The Milvus URI of a ``--store`` value; a ``ConfigurationError`` naming the fix."""
    if not isinstance(value, str) or not value.startswith(STORE_SCHEMES):
        raise ConfigurationError(
            f"store must be milvus:PATH.db (a Milvus Lite file) or milvus:http://HOST:19530 "
            f"(got {value!r:.80})"
        )
    uri = value.removeprefix("milvus:")
    if not uri:
        raise ConfigurationError("store 'milvus:' names no file or URI; e.g. milvus:out/index.db")
    if "://" not in uri and not uri.endswith(".db"):
        raise ConfigurationError(
            f"store {value!r:.80}: a Milvus Lite file must end in '.db' (e.g. milvus:out/index.db)"
        )
    return uri


def open_store(value: str, retrieval: StoreRetrieval | None = None) -> MilvusStore:
    """The ``MilvusStore`` a ``--store`` value names (a Lite file's folder is created).

    ``retrieval``: the collection mode required (``fastrag ingest``), or None to take
    the existing collection's (``fastrag search``). A server URI gets the token in
    ``$FASTRAG_MILVUS_TOKEN`` when it is set; a Milvus Lite file has no authentication
    and never receives it.
    """
    from fastrag.ingestion.steps.storing import MilvusStore

    uri = store_uri(value)
    if "://" not in uri:
        Path(uri).expanduser().parent.mkdir(parents=True, exist_ok=True)
        return MilvusStore(uri, retrieval=retrieval)
    return MilvusStore(uri, retrieval=retrieval, token=os.environ.get(TOKEN_ENV) or None)


def build_embedder(model_path: str | None, batch_size: int) -> SentenceTransformerEmbedder:
    """The local sentence-transformers embedder (``None``: bundled all-MiniLM-L6-v2)."""
    from fastrag.ingestion.steps.embedding import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model_path, batch_size=batch_size)


@dataclass(frozen=True, slots=True)
class DocumentIndexed(Event):
    """A chunked document's generation is in the store (``item_id``: its relative path).

    ``embedded`` is how many chunk texts were embedded for it in this run: 0 when the
    stored generation was already current (nothing was written).
    """

    chunks: int
    embedded: int
    deleted: int
    """Chunks of the previous generation removed."""


@dataclass(frozen=True, slots=True)
class DocumentRejected(Event):
    """The store refused a record of a chunked document, which ends ``failed``.

    ``embedded`` is how many chunk texts were embedded for it in this run: 0 when the
    same generation was refused before (the manifest remembers it), so it was not
    embedded again.
    """

    embedded: int


class _Loop:
    """A private event loop on a thread: the parent may already be inside a running loop
    (the local engine finishes documents from its own), where ``asyncio.run`` fails."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="fastrag-index", daemon=True
        )
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


class StoreIndex:
    """The parent's indexer for one run (see the module docstring)."""

    def __init__(
        self,
        store: MilvusStore,
        embedder: Embedder,
        manifest: Manifest,
        sections: SectionStore | None,
        emit: Callable[[Event], None],
        windows: ModelWindows | None = None,
    ) -> None:
        """``windows``: the context-window cutter of a hybrid store (None: dense)."""
        self.store = store
        self.windows = windows
        self.embedder = embedder
        self.manifest = manifest
        self.sections = sections
        self.emit = emit
        self.previous = manifest.indexed()
        """Generations in the store before this run (read before anything changes)."""
        self.rejections = manifest.rejections()
        """Generations the store refused, with the reason and error type."""
        self._loop: _Loop | None = None
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        """The embedding model's identity (computed once: it digests the model files)."""
        if self._identity is None:
            self._identity = self.embedder.identity
        return self._identity

    def close(self) -> None:
        """Stop the embedding loop, release the store and the section file."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None
        self.store.close()
        if self.sections is not None:
            self.sections.close()

    def generation(self, records: Sequence[Mapping[str, Any]]) -> str:
        """The digest of exactly what would be stored for these records."""
        digest = hashlib.sha256()
        for part in (self.identity, self.store.collection):
            digest.update(part.encode() + b"\n")
        if self.windows is not None:  # dense generations keep their earlier digests
            digest.update(f"retrieval=hybrid:{self.windows.budget}:sentences\n".encode())
        for record in records:
            digest.update(record_line(record).encode("utf-8", "surrogatepass"))
        return digest.hexdigest()[:32]

    def settle(
        self,
        entry: ManifestEntry,
        records: Sequence[Mapping[str, Any]],
        sections: DocumentSections | None = None,
    ) -> tuple[ManifestEntry, Sequence[Mapping[str, Any]]]:
        """Bring ``entry.path``'s chunks in the store to this run's outcome; returns the
        entry (``failed`` when the store refused the document) and the records to write.

        ``sections``: the document's sections (structural chunkers, when indexing), for
        the section store.
        """
        path = entry.path
        if entry.state != CHUNKED or not records:
            if path in self.previous:
                self._forget(path)
            return entry, records
        generation = self.generation(records)
        refused = self.rejections.get(path)
        if refused is not None and refused[0] == generation:
            _, reason, error_type = refused
            self.emit(DocumentRejected("index", "Indexing", path, 0))
            return replace(entry, state=FAILED, reason=reason, chunk_count=0, error=error_type), ()
        if self.previous.get(path) == generation and self._still_stored(records):
            self._refresh_sections(path, sections, generation)
            self.emit(DocumentIndexed("index", "Indexing", path, len(records), 0, 0))
            return entry, records
        try:
            deleted = self._replace(path, records)
        except (_RejectedError, EmbeddingError) as error:
            # The document's fault, not the store's: it fails, the run goes on. A store
            # failure (StoreError) stops the run instead — every later write would fail.
            self._forget(path)
            reason = f"{path}: not indexed: {error}"
            error_type = type(error).__name__
            if isinstance(error, _RejectedError):
                # The store's limits are fixed: the same generation would be refused again.
                error_type = error.kind
                self.manifest.set_rejected(path, generation, reason, error_type)
                self.rejections[path] = (generation, reason, error_type)
                self.emit(DocumentRejected("index", "Indexing", path, len(records)))
            failed = replace(entry, state=FAILED, reason=reason, chunk_count=0, error=error_type)
            return failed, ()
        self._write_sections(path, sections, generation)
        self.manifest.set_indexed(path, generation)
        self.rejections.pop(path, None)
        self.emit(DocumentIndexed("index", "Indexing", path, len(records), len(records), deleted))
        return entry, records

    def _write_sections(
        self, path: str, sections: DocumentSections | None, generation: str
    ) -> None:
        """Store the new generation's sections; without them, drop the old ones (their
        ranges describe the previous text)."""
        if self.sections is None:
            return
        if sections is None:
            self.sections.remove(path)
        else:
            self.sections.replace(path, sections, generation)

    def _refresh_sections(
        self, path: str, sections: DocumentSections | None, generation: str
    ) -> None:
        """Write an unchanged document's sections when the section file lacks them."""
        if (
            self.sections is not None
            and sections is not None
            and self.sections.generation(path) != generation
        ):
            self.sections.replace(path, sections, generation)

    def _still_stored(self, records: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the store still holds every chunk the manifest says it does (a store
        file deleted or replaced behind the manifest's back is re-filled, not trusted)."""
        wanted = {str(record["chunk_id"]) for record in records}
        return wanted <= self.store.chunk_ids(str(records[0]["document_id"]))

    def _replace(self, path: str, records: Sequence[Mapping[str, Any]]) -> int:
        from fastrag.ingestion.steps.embedding import EMBEDDING_MODEL_KEY, build_embedding_text
        from fastrag.ingestion.steps.storing import VectorRecord

        texts = [build_embedding_text(r["text"], r["metadata"]) for r in records]
        if self._loop is None:
            self._loop = _Loop()
        vectors = self._loop.run(self.embedder.aembed_texts(texts))
        windows: list[str | None] = [None] * len(records)
        sentences: list[list[Vector] | None] = [None] * len(records)
        if self.windows is not None:
            cut = self.windows.windows([str(r["text"]) for r in records])
            vectors = _fused(vectors, self._loop.run(self.embedder.aembed_texts(cut)))
            windows = list(cut)
            sentences = list(self._sentence_vectors(records))
        identity = self.identity
        items = [
            VectorRecord(
                {**r, "metadata": {**r["metadata"], EMBEDDING_MODEL_KEY: identity}}, v, w, s
            )
            for r, v, w, s in zip(records, vectors, windows, sentences, strict=True)
        ]
        result = self.store.upsert(items)
        if result.rejected:
            others = len(result.rejected) - 1
            more = f" (and {others} more rejected chunks)" if others else ""
            first = result.rejected[0]
            raise _RejectedError(f"{first}{more}", type(first).__name__)
        return self.store.delete_where(source=path, keep_chunk_ids=result.stored)

    def _forget(self, path: str) -> None:
        self.store.delete_where(source=path)
        if self.sections is not None:
            self.sections.remove(path)
        self.manifest.set_indexed(path, None)
        self.previous.pop(path, None)
        self.rejections.pop(path, None)

    def _sentence_vectors(self, records: Sequence[Mapping[str, Any]]) -> list[list[Vector]]:
        """Each record's sentence vectors (``fastrag.retrieval.sentences``), embedded in
        one batch call for the whole document."""
        from fastrag.retrieval.sentences import SentenceIndex

        assert self._loop is not None  # _replace started it
        index = SentenceIndex([str(record["text"]) for record in records])
        flat = self._loop.run(self.embedder.aembed_texts(index.texts))
        ends = [*index.starts[1:], len(index.texts)]
        return [list(flat[start:end]) for start, end in zip(index.starts, ends, strict=True)]

    def prune(self, discovered: Iterable[str]) -> list[str]:
        """Remove the chunks (and remembered rejections) of every file not in
        ``discovered``; returns those files."""
        present = set(discovered)
        known = {*self.manifest.indexed(), *self.manifest.rejections()}
        gone = sorted(path for path in known if path not in present)
        for path in gone:
            self._forget(path)
        return gone


def _fused(chunks: Sequence[Vector], windows: Sequence[Vector]) -> list[Vector]:
    """``(v_chunk + v_window) / 2`` per chunk: under inner product, a query's score is
    the mean of its cosines with the chunk and with the window (``embed = "fuse"``)."""
    return [
        tuple((a + b) / 2.0 for a, b in zip(chunk, window, strict=True))
        for chunk, window in zip(chunks, windows, strict=True)
    ]


class _RejectedError(FastragError):
    """The store refused a record of the document (the message names chunk and field);
    ``kind`` is the store's error type (e.g. ``RecordTooLargeError``)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def open_index(
    config: IngestConfig, manifest: Manifest, emit: Callable[[Event], None]
) -> StoreIndex | None:
    """The run's indexer when ``config.store`` is set (sections go beside the manifest)."""
    if config.store is None:
        return None
    from fastrag.retrieval.section_store import SectionStore, default_section_store_path

    embedder = build_embedder(config.embedder, config.embed_batch)
    windows = None
    if config.retrieval == "hybrid":
        from fastrag.retrieval.model_windows import ModelWindows

        windows = ModelWindows(embedder.tokenizer_file, embedder.model.max_input_tokens or 0)
    # Opened now: a collection of the other mode (or not fastrag's) fails the run at once.
    store = open_store(config.store, config.retrieval).open()
    # The section file is derived data: one of an older schema is rebuilt, not refused.
    sections = SectionStore(default_section_store_path(config.manifest_path), rebuild=True)
    return StoreIndex(store, embedder, manifest, sections, emit, windows)
