"""``MilvusStore``: chunk records and their vectors in Milvus — a Lite file or a server.

The same code runs against an embedded Milvus Lite file (``./fastrag.db``, the default)
and a Milvus server (``http://host:19530``); only the URI differs. The store enforces the
server's limits itself (``_limits``), so an index that works locally also loads into a
server. Every filter is built from escaped literals (``_expression``): tenant, ACL and
source strings are untrusted.

Writes are idempotent: ``upsert`` replaces a row by chunk id, so re-sending a document's
records is harmless, and generations are removed with ``delete_document`` /
``delete_version`` / ``delete_where``. The collection uses Strong consistency, so a read
after a write sees it (a re-ingestion diff must never see a stale generation).

Retrieval modes (``retrieval=``, recorded by the collection's schema, see ``_schema``):
a ``dense`` collection (the default) ranks by the chunk's own vector; a ``hybrid`` one
also holds each chunk's context window with a BM25 index over it, stores the fused
vector ``(v_chunk + v_window) / 2``, keeps the vectors of each chunk's sentences in a
sentence collection beside it (``_sentences``), and ``hybrid_search`` fuses a dense
ranking (chunk, window and best sentence) and the BM25 ranking by reciprocal rank
fusion, then drops near-duplicates — the retrieval
``fastrag eval`` measured best (docs/benchmarking.md). ``retrieval=None`` opens either
kind as it is found (a new collection is dense).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.storing import _expression as expr
from fastrag.ingestion.steps.storing._connection import (
    Endpoint,
    connect,
    disconnect,
    pymilvus,
    scrub,
)
from fastrag.ingestion.steps.storing._limits import MAX_DIMENSION
from fastrag.ingestion.steps.storing._query import (
    MAX_TOP_K,
    OUTPUT_FIELDS,
    WhereValue,
    hit_from,
    text_value,
    where_clauses,
)
from fastrag.ingestion.steps.storing._rows import Row, VectorRecord, record_from_row, to_row
from fastrag.ingestion.steps.storing._schema import (
    HYBRID_METRIC,
    METRICS,
    PRIMARY_KEY,
    RETRIEVAL_MODES,
    SPARSE_FIELD,
    VECTOR_FIELD,
    Retrieval,
    build_schema,
    check_schema,
    index_params,
    schema_retrieval,
)
from fastrag.ingestion.steps.storing._sentences import (
    best_sentences,
    build_sentence_schema,
    check_sentence_schema,
    sentence_collection,
    sentence_index_params,
    sentence_rows,
)
from fastrag.ingestion.steps.storing.errors import RecordRejectedError, StoreError
from fastrag.ingestion.steps.storing.results import SearchHit, UpsertError, UpsertResult
from fastrag.retrieval.fusion import (
    FUSION_DEPTH,
    Deduplicator,
    rrf_scores,
)

__all__ = ["MilvusStore"]

_SCAN_BATCH: Final = 4_096


class MilvusStore:
    """Chunk records with vectors in one Milvus collection, searchable per tenant and ACL.

    ``uri``: a Milvus Lite file ending in ``.db`` (its folder must exist) or a server URI.
    ``dimension``: the vectors' dimension; None takes it from the existing collection or
    the first vector upserted. ``metric``: ``COSINE`` (the default of a dense
    collection), ``IP`` or ``L2``; a hybrid collection is always ``IP``.
    ``retrieval``: ``"dense"`` or ``"hybrid"`` (see the module docstring); an existing
    collection of the other mode is refused (``SchemaMismatchError``). None (default)
    takes the mode of the existing collection, and creates a dense one.
    ``token``: the server's credential (``user:password`` or an API key); a secret, so it
    appears in no ``repr``, ``config()`` or error message. ``batch_size`` / ``batch_bytes``
    bound one write request. ``timeout`` (seconds) bounds each call to the server.

    The connection opens on first use (or ``open()``), when an existing collection's
    schema is checked; ``close()`` (or ``with``) releases it and, for the last store on
    a Lite file, stops the in-process Lite server so the file is flushed and unlocked.
    """

    def __init__(
        self,
        uri: str | Path = "./fastrag.db",
        collection: str = "fastrag_chunks",
        *,
        dimension: int | None = None,
        metric: str | None = None,
        retrieval: Retrieval | None = None,
        token: str | None = None,
        batch_size: int = 256,
        batch_bytes: int = 8 * 1024 * 1024,
        timeout: float | None = 60.0,
    ) -> None:
        self._endpoint = Endpoint(uri)
        if not isinstance(collection, str) or not collection.replace("_", "a").isalnum():
            raise ConfigurationError(
                f"MilvusStore collection must be letters, digits and '_' (got {collection!r})"
            )
        if dimension is not None and (
            type(dimension) is not int or not 1 <= dimension <= MAX_DIMENSION
        ):
            raise ConfigurationError(
                f"MilvusStore dimension must be an int in 1..{MAX_DIMENSION} or None "
                f"(got {dimension!r})"
            )
        if metric is not None and (not isinstance(metric, str) or metric.upper() not in METRICS):
            raise ConfigurationError(
                f"MilvusStore metric must be one of {sorted(METRICS)} (got {metric!r})"
            )
        if retrieval is not None and retrieval not in RETRIEVAL_MODES:
            raise ConfigurationError(
                f"MilvusStore retrieval must be one of {list(RETRIEVAL_MODES)} or None "
                f"(got {retrieval!r})"
            )
        if retrieval == "hybrid" and metric is not None and metric.upper() != HYBRID_METRIC:
            raise ConfigurationError(
                f"a hybrid MilvusStore ranks its fused vectors by inner product: pass "
                f"metric={HYBRID_METRIC!r} or None (got {metric!r})"
            )
        for name, value in (("batch_size", batch_size), ("batch_bytes", batch_bytes)):
            if type(value) is not int or value < 1:
                raise ConfigurationError(f"MilvusStore {name} must be an int >= 1 (got {value!r})")
        self.collection = collection
        self._metric = None if metric is None else metric.upper()
        self._requested_retrieval: Retrieval | None = retrieval
        self._retrieval: Retrieval | None = retrieval
        self.batch_size = batch_size
        self.batch_bytes = batch_bytes
        self._token = token
        self._timeout = timeout
        self._dimension = dimension
        self._requested_dimension = dimension
        self._client: Any = None
        self._exists = False

    # ----------------------------------------------------------------- lifecycle

    def __repr__(self) -> str:
        mode = "" if self._retrieval is None else f", retrieval={self._retrieval!r}"
        return (
            f"MilvusStore(uri={self._endpoint.display!r}, collection={self.collection!r}, "
            f"dimension={self._dimension!r}, metric={self.metric!r}{mode})"
        )

    def config(self) -> dict[str, Any]:
        """The store's identity as configured (stable before and after opening); no token."""
        requested = self._requested_retrieval or "dense"
        config: dict[str, Any] = {
            "uri": self._endpoint.display,
            "collection": self.collection,
            "dimension": self._requested_dimension,
            "metric": self._metric or _default_metric(requested),
        }
        if self._requested_retrieval is not None:
            config["retrieval"] = self._requested_retrieval
        return config

    @property
    def metric(self) -> str:
        """The vector metric: as given, else ``COSINE`` (dense) or ``IP`` (hybrid)."""
        return self._metric or _default_metric(self.retrieval)

    @property
    def retrieval(self) -> Retrieval:
        """The collection's retrieval mode: as asked, else as found on open, else dense
        (what the first upsert would create)."""
        return self._retrieval or "dense"

    @property
    def dimension(self) -> int | None:
        """The vectors' dimension, once known (given, found on open, or first upserted)."""
        return self._dimension

    def open(self) -> Self:
        """Connect and check an existing collection's schema; idempotent."""
        if self._client is not None:
            return self
        client = connect(self._endpoint, self._token, self._timeout)
        try:
            self._attach(client)
        except StoreError:
            disconnect(self._endpoint, client)
            raise
        except Exception as error:  # noqa: BLE001 - a server failure becomes a StoreError
            disconnect(self._endpoint, client)
            raise self._failure("open the collection", error) from None
        self._client = client
        return self

    def _attach(self, client: Any) -> None:
        """If the collection exists: check its schema, learn its dimension, load it."""
        if not client.has_collection(self.collection):
            return
        description = client.describe_collection(self.collection)
        index = (
            client.describe_index(self.collection, VECTOR_FIELD)
            if VECTOR_FIELD in client.list_indexes(self.collection)
            else None
        )
        retrieval = self._requested_retrieval or schema_retrieval(description)
        self._dimension = check_schema(
            self.collection,
            description,
            index,
            dimension=self._dimension,
            metric=self._metric or _default_metric(retrieval),
            retrieval=retrieval,
        )
        self._retrieval = retrieval
        client.load_collection(self.collection)
        if retrieval == "hybrid":
            self._attach_sentences(client, self._dimension)
        self._exists = True

    def _attach_sentences(self, client: Any, dimension: int) -> None:
        """Check and load a hybrid collection's sentence collection, creating it when
        missing (a hybrid store built before sentence vectors: its next ingest re-embeds
        every document, since the generation names them)."""
        name = sentence_collection(self.collection)
        if client.has_collection(name):
            check_sentence_schema(name, client.describe_collection(name), dimension)
        else:
            client.create_collection(
                name,
                schema=build_sentence_schema(pymilvus(), dimension),
                index_params=sentence_index_params(client),
                consistency_level="Strong",
            )
        client.load_collection(name)

    def _present(self) -> bool:
        """Whether the collection exists, re-checked while absent (another process may
        have created it since this store opened)."""
        self.open()
        if not self._exists:
            try:
                self._attach(self._client)
            except StoreError:
                raise
            except Exception as error:  # noqa: BLE001 - a server failure becomes a StoreError
                raise self._failure("open the collection", error) from None
        return self._exists

    def close(self) -> None:
        """Release the connection (and a Lite file's server when no other store uses it)."""
        client, self._client = self._client, None
        if client is not None:
            disconnect(self._endpoint, client)

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        # A connection never travels to another process (a Dask worker opens its own).
        state = {name: getattr(self, name) for name in _STATE}
        state.update(_client=None, _exists=False)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def _failure(self, action: str, error: Exception) -> StoreError:
        reason = scrub(str(error) or type(error).__name__, self._endpoint, self._token)
        return StoreError(
            f"Milvus at {self._endpoint.display} could not {action} on collection "
            f"{self.collection!r}: {reason}"
        )

    def _call(self, action: str, method: str, *args: Any, **kwargs: Any) -> Any:
        client = self.open()._client
        try:
            return getattr(client, method)(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - server failures become StoreErrors
            raise self._failure(action, error) from None

    def _create(self, dimension: int) -> None:
        """Create the collection for ``dimension``-d vectors (first upsert, none existing)."""
        module = pymilvus()
        self._call(
            "create the collection",
            "create_collection",
            self.collection,
            schema=build_schema(module, dimension, self.retrieval),
            index_params=index_params(self._client, self.metric, self.retrieval),
            consistency_level="Strong",
        )
        if self.retrieval == "hybrid":
            try:
                self._attach_sentences(self._client, dimension)
            except StoreError:
                raise
            except Exception as error:  # noqa: BLE001 - a server failure becomes a StoreError
                raise self._failure("create the sentence collection", error) from None
        self._dimension = dimension
        self._retrieval = self.retrieval
        self._exists = True

    # --------------------------------------------------------------------- writes

    def upsert(self, items: Iterable[VectorRecord]) -> UpsertResult:
        """Insert or replace each record by chunk id; reject bad records, store the rest.

        A record that breaks a limit or the record contract is not written and comes back
        in ``UpsertResult.rejected`` (a ``RecordRejectedError`` naming chunk and field);
        a chunk id seen twice in one call is rejected the second time. A failure of the
        store itself raises ``UpsertError`` carrying what was stored before it.
        """
        self._present()
        stored: list[str] = []
        rejected: list[RecordRejectedError] = []
        seen: set[str] = set()
        batch: list[Row] = []
        size = 0
        for item in items:
            try:
                row = self._row(item, seen)
            except RecordRejectedError as error:
                rejected.append(error)
                continue
            batch.append(row)
            size += row.size
            if len(batch) >= self.batch_size or size >= self.batch_bytes:
                self._write(batch, stored, rejected)
                batch, size = [], 0
        if batch:
            self._write(batch, stored, rejected)
        return UpsertResult(tuple(stored), tuple(rejected))

    def _row(self, item: VectorRecord, seen: set[str]) -> Row:
        if not isinstance(item, VectorRecord):
            raise RecordRejectedError(
                "?", "record", f"must be a VectorRecord (got {type(item).__name__})"
            )
        row = to_row(item, self._dimension, self.retrieval)
        if row.chunk_id in seen:
            raise RecordRejectedError(
                row.chunk_id, "chunk_id", "appears twice in one upsert; send each chunk once"
            )
        seen.add(row.chunk_id)
        if not self._exists:
            self._create(len(row.values[VECTOR_FIELD]))
        return row

    def _write(
        self, batch: list[Row], stored: list[str], rejected: list[RecordRejectedError]
    ) -> None:
        try:
            self._call(
                f"upsert {len(batch)} records", "upsert", self.collection, [r.values for r in batch]
            )
            self._write_sentences(batch)
        except StoreError as error:
            raise UpsertError(str(error), UpsertResult(tuple(stored), tuple(rejected))) from None
        stored.extend(row.chunk_id for row in batch)

    def _write_sentences(self, batch: Sequence[Row]) -> None:
        """Upsert the sentence rows of ``batch``'s chunks (after the chunks themselves)."""
        rows = [
            sentence
            for row in batch
            if row.sentences
            for sentence in sentence_rows(row.values, row.sentences)
        ]
        name = sentence_collection(self.collection)
        for start in range(0, len(rows), self.batch_size):
            part = rows[start : start + self.batch_size]
            self._call(f"upsert {len(part)} sentence vectors", "upsert", name, part)

    def delete_document(self, document_id: str) -> int:
        """Delete every chunk of ``document_id``; returns how many rows were deleted."""
        return self.delete_where(document_id=document_id)

    def delete_version(self, ingestion_version: str) -> int:
        """Delete every chunk written by the run generation ``ingestion_version``."""
        return self.delete_where(ingestion_version=ingestion_version)

    def delete_where(
        self,
        *,
        document_id: str | None = None,
        source: str | None = None,
        ingestion_version: str | None = None,
        tenant: str | None = None,
        keep_chunk_ids: Sequence[str] = (),
    ) -> int:
        """Delete the chunks matching every given field (at least one is required).

        ``keep_chunk_ids`` spares those chunks: replacing a document's generation is
        ``upsert(new)`` then ``delete_where(source=..., keep_chunk_ids=new_ids)``, so the
        old chunks go and the new ones, already written, stay.
        """
        given = {
            name: value
            for name, value in (
                ("document_id", document_id),
                ("source", source),
                ("ingestion_version", ingestion_version),
                ("tenant", tenant),
            )
            if value is not None
        }
        if not given:
            raise ConfigurationError(
                "delete_where needs at least one of document_id, source, ingestion_version or "
                "tenant; it never deletes a whole collection (drop() does that)"
            )
        clauses = [expr.equals(name, text_value(name, value)) for name, value in given.items()]
        if keep_chunk_ids:
            clauses.append(
                expr.not_in(PRIMARY_KEY, [text_value("keep_chunk_ids", c) for c in keep_chunk_ids])
            )
        if not self._present():
            return 0
        result = self._call("delete chunks", "delete", self.collection, filter=expr.all_of(clauses))
        if self.retrieval == "hybrid":  # the same columns exist on sentence rows
            self._call(
                "delete sentence vectors",
                "delete",
                sentence_collection(self.collection),
                filter=expr.all_of(clauses),
            )
        if isinstance(result, Mapping):
            return int(result.get("delete_count", 0))
        return len(result)

    def drop(self) -> None:
        """Drop the whole collection (every tenant's chunks); the next upsert recreates it."""
        if self._present():
            self._call("drop the collection", "drop_collection", self.collection)
            sentences = sentence_collection(self.collection)
            if self.retrieval == "hybrid" and self._call(
                "look for the sentence collection", "has_collection", sentences
            ):
                self._call("drop the sentence collection", "drop_collection", sentences)
        self._exists = False
        self._dimension = self._requested_dimension
        self._retrieval = self._requested_retrieval

    # ---------------------------------------------------------------------- reads

    def search(
        self,
        vector: Sequence[float],
        k: int = 5,
        *,
        tenant: str | None,
        acl: Sequence[str] | None = None,
        where: Mapping[str, WhereValue] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` chunks nearest ``vector`` that ``tenant`` and ``acl`` may see, best first.

        ``tenant`` is required: a str returns only that tenant's chunks (``""`` those
        stored without one); None searches every tenant and must be chosen explicitly.
        ``acl`` (the caller's groups) keeps only chunks whose ACL shares a group with it:
        an empty list sees nothing, a chunk with no ACL is visible only when ``acl`` is
        None. ``where`` adds equality (str/int) or membership (list) conditions on
        scalar columns. All of it is part of the Milvus query, so filtering happens before
        ranking and ``k`` results are returned whenever ``k`` visible chunks exist.
        """
        _check_k(k)
        visible = _visibility(tenant, acl, where)
        if visible is None or not self._present():
            return []
        results = self._call(
            "search",
            "search",
            self.collection,
            data=[self._query_vector(vector)],
            limit=k,
            filter=visible,
            output_fields=list(OUTPUT_FIELDS),
            search_params={"metric_type": self.metric},
        )
        return [hit_from(hit) for hit in results[0]] if results else []

    def hybrid_search(
        self,
        vector: Sequence[float],
        query_text: str,
        k: int = 5,
        *,
        tenant: str | None,
        acl: Sequence[str] | None = None,
        where: Mapping[str, WhereValue] | None = None,
        dedupe: bool = True,
        depth: int = FUSION_DEPTH,
    ) -> list[SearchHit]:
        """The ``k`` best chunks of a hybrid collection by dense and BM25 ranks fused.

        Two rankings of ``max(depth, k)`` candidates each are fused by reciprocal rank
        fusion (constant ``RRF_CONSTANT``, 60): a dense one, by the mean of the query
        embedding's (``vector``) cosines with the chunk, its context window (the two are
        one stored fused vector) and the chunk's best sentence (the sentence
        collection), and the BM25 ranking of the chunks' windows against
        ``query_text``. With
        ``dedupe`` a candidate whose word trigrams are at least 80 % (Jaccard) those of a
        better-ranked hit is skipped and the next one taken
        (``fastrag.retrieval.fusion.Deduplicator``), so copies of one passage do not
        fill the k slots. ``tenant``, ``acl`` and ``where`` are as in ``search`` and
        filter *inside every* ranking, so another tenant's chunk can never enter the
        fusion (``where`` conditions other than tenant and ACL are checked on the chunks;
        sentences only nominate them). ``SearchHit.score`` is the fused RRF score
        (higher is better).

        A dense collection has no windows to search: ``ConfigurationError`` (use
        ``search``, or build a hybrid collection). This is the ranking
        ``fastrag eval`` calls ``retrieval = "hybrid"``, ``bm25_over = "window"``,
        ``embed = "fuse_sentences"``, ``dedupe = true``.
        """
        _check_k(k)
        if type(depth) is not int or not 1 <= depth <= MAX_TOP_K:
            raise ConfigurationError(
                f"hybrid_search depth must be an int in 1..{MAX_TOP_K} (got {depth!r})"
            )
        if not isinstance(query_text, str) or not query_text.strip():
            raise ConfigurationError(
                "hybrid_search needs the query's words (query_text, a nonempty str) for BM25"
            )
        visible = _visibility(tenant, acl, where)
        if visible is None or not self._present():
            return []
        if self.retrieval != "hybrid":
            raise ConfigurationError(
                f"collection {self.collection!r} is a dense collection: it holds no context "
                f"windows for BM25; use search(), or ingest into a new collection with "
                f"--retrieval hybrid (MilvusStore(retrieval='hybrid'))"
            )
        query = self._query_vector(vector)
        candidates = max(depth, k)
        fused = self._nearest(VECTOR_FIELD, query, visible, candidates)
        ranked = self._dense_ranking(query, fused, _visibility(tenant, acl, None) or "", visible)
        lexical = self._nearest(SPARSE_FIELD, query_text, visible, candidates)
        hits = {hit.chunk_id: hit for hit in (*fused.values(), *lexical.values())}
        # Ties keep the first-seen candidate first (dense before lexical), as the
        # evaluation's fusion keeps the smaller index.
        order = {chunk_id: number for number, chunk_id in enumerate(hits)}
        score = rrf_scores([ranked[:candidates], lexical])
        best = sorted(score, key=lambda chunk_id: (-score[chunk_id], order[chunk_id]))
        chosen = [replace(hits[chunk_id], score=score[chunk_id]) for chunk_id in best[:candidates]]
        if not dedupe:
            return chosen[:k]
        kept = Deduplicator([hit.text for hit in chosen]).filter(range(len(chosen)))
        return [chosen[index] for _, index in zip(range(k), kept, strict=False)]

    def _nearest(
        self, field: str, query: Sequence[float] | str, visible: str, limit: int
    ) -> dict[str, SearchHit]:
        """The ``limit`` best visible chunks by ``field`` (fused vector or BM25), in order."""
        results = self._call(
            "search",
            "search",
            self.collection,
            data=[query],
            anns_field=field,
            limit=limit,
            filter=visible,
            output_fields=list(OUTPUT_FIELDS),
            search_params={"metric_type": "BM25" if field == SPARSE_FIELD else self.metric},
        )
        hits = [hit_from(hit) for hit in results[0]] if results else []
        return {hit.chunk_id: hit for hit in hits}

    def _dense_ranking(
        self,
        query: Sequence[float],
        fused: dict[str, SearchHit],
        seen_by: str,
        visible: str,
    ) -> list[str]:
        """Chunk ids by the mean of three cosines (chunk, window, best sentence), best first.

        The fused vector's inner product is the mean of the first two; the sentence
        collection gives the third. Candidates are the fused ranking's and the sentence
        ranking's; each gets the score it lacks by a search restricted to it, so every
        candidate is scored exactly. ``fused`` gains the chunks only sentences found
        (read through the full ``visible`` filter: a sentence only nominates its chunk).
        A chunk without sentence rows (none is written so) counts its fused score twice.
        """
        limit = len(fused) or 1
        name = sentence_collection(self.collection)
        sentence = best_sentences(self._call, name, query, seen_by, limit)
        unscored = [chunk_id for chunk_id in fused if chunk_id not in sentence]
        if unscored:
            sentence.update(
                best_sentences(self._call, name, query, seen_by, len(unscored), unscored)
            )
        nominated = [chunk_id for chunk_id in sentence if chunk_id not in fused]
        if nominated:
            restricted = expr.all_of([visible, expr.one_of(PRIMARY_KEY, nominated)])
            fused.update(self._nearest(VECTOR_FIELD, query, restricted, len(nominated)))
        score = {
            chunk_id: (2.0 * hit.score + sentence.get(chunk_id, hit.score)) / 3.0
            for chunk_id, hit in fused.items()
        }
        return sorted(score, key=lambda chunk_id: (-score[chunk_id], chunk_id))

    def _query_vector(self, vector: Sequence[float]) -> list[float]:
        query = [float(x) for x in vector]
        if len(query) != self._dimension:
            raise ConfigurationError(
                f"search vector has {len(query)} dimensions; collection {self.collection!r} "
                f"holds {self._dimension}-dimensional vectors (embed with the same model)"
            )
        return query

    def count(self, document_id: str | None = None, *, tenant: str | None = None) -> int:
        """How many chunks are stored (of one document and/or one tenant, when given)."""
        if not self._present():
            return 0
        clauses = [
            expr.equals(name, text_value(name, value))
            for name, value in (("document_id", document_id), ("tenant", tenant))
            if value is not None
        ]
        rows = self._call(
            "count chunks",
            "query",
            self.collection,
            filter=expr.all_of(clauses),
            output_fields=["count(*)"],
        )
        return int(rows[0]["count(*)"]) if rows else 0

    def chunk_ids(self, document_id: str) -> frozenset[str]:
        """The chunk ids stored for ``document_id`` (for a re-ingestion diff)."""
        clause = expr.equals("document_id", text_value("document_id", document_id))
        return frozenset(str(row[PRIMARY_KEY]) for row in self._scan(clause, (PRIMARY_KEY,)))

    def document_ids(self, *, source: str | None = None) -> frozenset[str]:
        """Every stored document id (of one source path, when given)."""
        clause = "" if source is None else expr.equals("source", text_value("source", source))
        return frozenset(str(row["document_id"]) for row in self._scan(clause, ("document_id",)))

    def get(self, chunk_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored records of ``chunk_ids`` (missing ids are absent), in the given order."""
        ids = [text_value("chunk_ids", c) for c in chunk_ids]
        if not ids or not self._present():
            return []
        rows = self._call(
            "read chunks",
            "query",
            self.collection,
            filter=expr.one_of(PRIMARY_KEY, ids),
            output_fields=list(OUTPUT_FIELDS),
        )
        by_id = {str(row[PRIMARY_KEY]): record_from_row(row) for row in rows}
        return [by_id[c] for c in ids if c in by_id]

    def _scan(self, clause: str, fields: Sequence[str]) -> Iterator[Mapping[str, Any]]:
        """Every row matching ``clause``, read with pymilvus's query iterator.

        A plain ``query`` is capped by the server's result window, and Milvus Lite does not
        order a limited query by primary key, so paging by hand would skip rows; the
        iterator pages correctly on both.
        """
        if not self._present():
            return
        filter_ = clause or f'{PRIMARY_KEY} != ""'
        if self._endpoint.lite_path is not None:
            # Milvus Lite has no result window: one query returns every match, without
            # the iterator's warning that Lite keeps no MVCC timestamp.
            yield from self._call(
                "scan chunks",
                "query",
                self.collection,
                filter=filter_,
                output_fields=list(fields),
            )
            return
        iterator = self._call(
            "scan chunks",
            "query_iterator",
            self.collection,
            batch_size=_SCAN_BATCH,
            filter=filter_,
            output_fields=list(fields),
        )
        try:
            while True:
                try:
                    rows = iterator.next()
                except Exception as error:  # noqa: BLE001 - a server failure mid-scan
                    raise self._failure("scan chunks", error) from None
                if not rows:
                    return
                yield from rows
        finally:
            iterator.close()


def _default_metric(retrieval: Retrieval) -> str:
    return HYBRID_METRIC if retrieval == "hybrid" else "COSINE"


def _check_k(k: object) -> None:
    if type(k) is not int or not 1 <= k <= MAX_TOP_K:
        raise ConfigurationError(f"search k must be an int in 1..{MAX_TOP_K} (got {k!r})")


def _visibility(
    tenant: str | None, acl: Sequence[str] | None, where: Mapping[str, WhereValue] | None
) -> str | None:
    """The filter expression of what the caller may see (``""``: everything), or None when
    nothing can match (an empty ACL, an empty ``where`` list)."""
    clauses: list[str] = []
    if tenant is not None:
        clauses.append(expr.equals("tenant", text_value("tenant", tenant)))
    if acl is not None:
        groups = [acl] if isinstance(acl, str) else list(acl)
        if not groups:
            return None
        clauses.append(expr.contains_any("acl", [text_value("acl", g) for g in groups]))
    extra = where_clauses(where or {})
    if extra is None:
        return None
    clauses.extend(extra)
    return expr.all_of(clauses)


_STATE: Final = (
    "_endpoint",
    "collection",
    "_metric",
    "_requested_retrieval",
    "_retrieval",
    "batch_size",
    "batch_bytes",
    "_token",
    "_timeout",
    "_dimension",
    "_requested_dimension",
)
