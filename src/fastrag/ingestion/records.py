"""The JSONL chunk record: seed 002's contract, every field filled, one writer of a line.

A record is built by exactly one function (``build_record``) and serialized by exactly
one function (``record_line``), so the fixed key order, the JSON-native conversion of
metadata and the schema/ingestion versions cannot drift between callers. The file-level
concerns (ordering, atomic replacement) live in ``fastrag.ingestion.jsonl``.

Fields, in this order (``RECORD_KEYS``):

``chunk_id``
    hex sha256 over (``document_id``, ``source``, the chunker's chunk id), 32 characters:
    stable for unchanged source and configuration, distinct for one file at two paths.
``document_id``
    the parsed parent's id: a hash of its parsed content (content identity).
``source`` / ``source_type``
    the path relative to the input root (POSIX) and the detected type (``markdown``, …).
``page``
    for a paginated source (the parent carries ``fastrag.ingestion.pages``' maps: PDF,
    slides) the 1-based page of ``char_start``, with ``metadata["page_range"]`` (first,
    last) and ``metadata["boxes"]`` (per page ``[page, x0, y0, x1, y1]``, when the parser
    recorded a layout); else the chunk's own ``page``/``page_no`` metadata; else null.
``section``
    the heading path joined by ``" > "`` (``""`` before the first heading).
``text``
    the chunk's content, as chunked.
``char_start`` / ``char_end``
    half-open code-point offsets into the parsed parent's content; how ``text`` relates
    to that slice is ``metadata["offset_mode"]`` (``OFFSET_MODES``).
``token_estimate``
    the exact count of ``build_embedding_text(text, metadata)`` under the record's
    tokenizer (``metadata["tokenizer"]``) — despite the seed's name, never an estimate.
``metadata``
    the chunk's metadata made JSON-native (tuples → lists, mappings → dicts with sorted
    keys), the parent's format (``content_format``), the chunk's own (``text_format``),
    ``heading_path``, ``ingestion_version``, ``parser_version``, ``schema_version``,
    ``tokenizer``, the ``overflow``/``atomic_structure_loss`` flags, the structural
    metadata of seed 000 and the caller's fields (tenant, ACL, …).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ValidationError
from fastrag.ingestion.pages import DOCUMENT_LEVEL_KEYS, PageMap
from fastrag.models import Document, content_format_of
from fastrag.packing.contract import STRUCTURE_VERSION, build_embedding_text
from fastrag.pipeline.hashing import sha256_parts

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = [
    "OFFSET_MODES",
    "RECORD_KEYS",
    "SCHEMA_VERSION",
    "build_record",
    "build_records",
    "ingestion_version",
    "jsonable",
    "record_chunk_id",
    "record_line",
]

SCHEMA_VERSION: Final = "fastrag-record:v1"
"""Version of the record layout; bumped when a field's meaning or the key order changes."""

RECORD_KEYS: Final = (
    "chunk_id",
    "document_id",
    "source",
    "source_type",
    "page",
    "section",
    "text",
    "char_start",
    "char_end",
    "token_estimate",
    "metadata",
)

OFFSET_MODES: Final = frozenset({"map", "verbatim", "suffix", "none"})
"""How ``text`` relates to ``content[char_start:char_end]``.

``map``: a structural chunk; its ``serialization_map`` relates display and source
exactly. ``verbatim``: ``text == content[char_start:char_end]``. ``suffix``: ``text`` ends
with that slice and starts with repeated context (a ``HeadingChunker`` section with its
ancestors' heading lines prepended). ``none``: the text was not found in the source;
the offsets are null.
"""

_ID_LENGTH: Final = 32
_DROPPED_KEYS: Final = frozenset({"path", "embedding"}) | DOCUMENT_LEVEL_KEYS
"""Chunk metadata never copied into a record: the absolute path differs per machine, a
whole-document page map would be repeated in every record (see ``_page``), and a vector
belongs in the vector store — the JSONL stays independent of any embedding (seed 002)."""


def ingestion_version(
    parser_versions: Iterable[str], chunker_config_hash: str, tokenizer_identity: str
) -> str:
    """The generation of a run's output: changes when any parser, the chunker or tokenizer does.

    Parser versions are sorted and de-duplicated first, so the set of parsers — not the
    order they were registered in — decides the value. Seed 002: a changed parser version,
    normalization rule or maximum size must produce a new ingestion version.
    """
    versions = sorted(set(parser_versions))
    for name, value in (
        ("chunker_config_hash", chunker_config_hash),
        ("tokenizer_identity", tokenizer_identity),
    ):
        if not isinstance(value, str) or not value:
            raise ValidationError(
                f"ingestion_version needs a nonempty str {name} (got {value!r}); pass the "
                "chunker's config_hash and the tokenizer's identity"
            )
    digest = sha256_parts(
        SCHEMA_VERSION, *versions, "\x1e", chunker_config_hash, tokenizer_identity
    )
    return digest[:_ID_LENGTH]


def record_chunk_id(document_id: str, source: str, chunk_id: str) -> str:
    """The record id: the same content at two paths gives two ids, a re-run the same one."""
    return sha256_parts(document_id, source, chunk_id)[:_ID_LENGTH]


def jsonable(value: Any, where: str = "metadata") -> Any:
    """``value`` as JSON-native data: tuples → lists, mappings → key-sorted dicts, enums → values.

    Keys are sorted at every level so that two equal metadata mappings built in different
    insertion orders serialize to the same bytes. Anything without an exact JSON form
    (a set, a NaN, bytes, an object) is an error naming where it sits.

    Every record's metadata passes through here (a few hundred values per chunk), so the
    common shapes take ``_native``'s fast path; ``_jsonable`` is the reference
    conversion, used for anything unusual and, after a failure, to name the culprit's
    place (``_native`` does not track it, which is most of its speed).
    """
    try:
        return _native(value)
    except ValidationError:
        return _jsonable(value, where)  # raises again, now naming where the value sits


_PLAIN: Final = frozenset({str, int, bool, type(None)})
"""Exact types that are already JSON-native (subclasses, e.g. an ``IntEnum``, are not)."""


def _native(value: Any) -> Any:
    """``_jsonable`` without the location bookkeeping, on exact container types."""
    kind = type(value)
    if kind is tuple or kind is list:
        return [item if type(item) in _PLAIN else _native(item) for item in value]
    if kind is dict or isinstance(value, Mapping):
        keys = list(value)
        for key in keys:
            if type(key) is not str:
                return _jsonable(value)
        keys.sort()
        converted: dict[str, Any] = {}
        for key in keys:
            item = value[key]
            converted[key] = item if type(item) in _PLAIN else _native(item)
        return converted
    if kind in _PLAIN or (kind is float and math.isfinite(value)):
        return value
    return _jsonable(value)


def _jsonable(value: Any, where: str = "metadata") -> Any:
    """The reference conversion behind ``jsonable``: every value checked, every place named."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, Enum):
        return _jsonable(value.value, where)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(
                f"{where} is {value!r}, which JSON cannot represent; store a finite number "
                "or a string"
            )
        return value
    if isinstance(value, Mapping):
        converted: dict[str, Any] = {}
        for key in sorted(value, key=_key_text):
            if not isinstance(key, str):
                raise ValidationError(
                    f"{where} has the key {key!r} of type {type(key).__name__}; record "
                    "metadata keys must be str"
                )
            converted[key] = _jsonable(value[key], f"{where}[{key!r}]")
        return converted
    if isinstance(value, list | tuple):
        return [_jsonable(item, f"{where}[{index}]") for index, item in enumerate(value)]
    raise ValidationError(
        f"{where} is a {type(value).__name__} ({value!r:.60}), which has no exact JSON form; "
        "store str, int, float, bool, None, lists/tuples or str-keyed mappings of those"
    )


def _key_text(key: object) -> str:
    return key if isinstance(key, str) else repr(key)


def _heading_path(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """Structural chunks carry ``heading_path``; ``HeadingChunker`` chunks ``headings``."""
    path = metadata.get("heading_path", metadata.get("headings", ()))
    if isinstance(path, str) or not isinstance(path, Sequence):
        return ()
    return tuple(str(title) for title in path)


def _offsets(content: str, chunk: Document, search_from: int) -> tuple[int | None, int | None, str]:
    """Exact offsets of the chunk in the parent, and how the text relates to them."""
    metadata = chunk.metadata
    text = chunk.content
    if metadata.get("structure_version") == STRUCTURE_VERSION:
        return int(metadata["char_start"]), int(metadata["char_end"]), "map"
    start = metadata.get("start_index")
    if type(start) is int and content[start : start + len(text)] == text:
        return start, start + len(text), "verbatim"
    found = content.find(text, search_from)
    if found >= 0:
        return found, found + len(text), "verbatim"
    # A section with its ancestors' heading lines prepended (HeadingChunker): drop
    # leading blank-line-separated blocks until the rest is a verbatim source slice.
    rest = text
    while "\n\n" in rest:
        rest = rest.split("\n\n", 1)[1].lstrip("\n")
        if rest.strip():
            found = content.find(rest, search_from)
            if found >= 0:
                return found, found + len(rest), "suffix"
    return None, None, "none"


def _token_estimate(chunk: Document, tokenizer: Tokenizer, counted_by: str | None) -> int:
    recorded = chunk.metadata.get("embedding_token_count")
    if counted_by == tokenizer.identity and type(recorded) is int:
        return recorded
    return tokenizer.count(build_embedding_text(chunk.content, chunk.metadata))


def build_record(
    parent: Document,
    chunk: Document,
    *,
    tokenizer: Tokenizer,
    ingestion_version: str,
    counted_by: str | None = None,
    max_tokens: int | None = None,
    search_from: int = 0,
    page_map: PageMap | None = None,
) -> dict[str, Any]:
    """The record of ``chunk`` of the parsed document ``parent``, keys in ``RECORD_KEYS`` order.

    ``tokenizer`` is the run's configured tokenizer; ``counted_by`` is the identity of the
    tokenizer that computed the chunk's ``embedding_token_count`` (the chunker's): when it
    matches, that exact count is reused instead of tokenizing again. ``max_tokens`` is the
    chunker's budget, stored so ``validate`` can re-check it without being told.
    ``search_from`` is where to look for a chunk that carries no offsets of its own
    (``build_records`` passes the previous chunk's start, so repeated text resolves in
    order). ``page_map`` is the parent's ``PageMap`` when the caller built it once for
    many chunks (``build_records`` does); else it is built here.
    """
    source = str(parent.metadata.get("source", parent.source_id))
    source_type = str(parent.metadata.get("source_type", content_format_of(parent.metadata)))
    char_start, char_end, mode = _offsets(parent.content, chunk, search_from)
    path = _heading_path(chunk.metadata)
    metadata: dict[str, Any] = {
        key: value for key, value in chunk.metadata.items() if key not in _DROPPED_KEYS
    }
    pages = page_map if page_map is not None else PageMap.of(parent.metadata)
    page = _page(pages, chunk, char_start, char_end, metadata)
    metadata.update(
        {
            "atomic_structure_loss": bool(chunk.metadata.get("atomic_structure_loss", False)),
            "content_format": content_format_of(parent.metadata),
            "heading_path": path,
            "ingestion_version": ingestion_version,
            "offset_mode": mode,
            "overflow": bool(chunk.metadata.get("overflow", False)),
            "parser_version": parent.metadata.get("parser_version"),
            "schema_version": SCHEMA_VERSION,
            "text_format": content_format_of(chunk.metadata),
            "tokenizer": tokenizer.identity,
        }
    )
    if max_tokens is not None:
        metadata["max_tokens"] = max_tokens
    values = (
        record_chunk_id(parent.id, source, chunk.id),
        parent.id,
        source,
        source_type,
        page,
        " > ".join(path),
        chunk.content,
        char_start,
        char_end,
        _token_estimate(chunk, tokenizer, counted_by),
        jsonable(metadata, f"metadata of chunk {chunk.id!r} of {source!r}"),
    )
    return dict(zip(RECORD_KEYS, values, strict=True))


def _page(
    pages: PageMap | None,
    chunk: Document,
    char_start: int | None,
    char_end: int | None,
    metadata: dict[str, Any],
) -> int | None:
    """The record's page; adds ``page_range``/``boxes`` to ``metadata`` from the page map."""
    if pages is not None and char_start is not None and char_end is not None:
        page, page_range, boxes = pages.locate(char_start, char_end)
        metadata["page_range"] = list(page_range)
        if boxes:
            metadata["boxes"] = [[int(box[0]), *box[1:]] for box in boxes]
        return page
    for key in ("page", "page_no"):
        value = chunk.metadata.get(key)
        if type(value) is int:
            return value
    return None


def build_records(
    parent: Document,
    chunks: Iterable[Document],
    *,
    tokenizer: Tokenizer,
    ingestion_version: str,
    counted_by: str | None = None,
    max_tokens: int | None = None,
) -> list[dict[str, Any]]:
    """Every record of one document, in ``chunk_index`` order (see ``build_record``)."""
    ordered = sorted(chunks, key=lambda chunk: _index_of(chunk.metadata))
    records: list[dict[str, Any]] = []
    cursor = 0
    page_map = PageMap.of(parent.metadata)
    for chunk in ordered:
        record = build_record(
            parent,
            chunk,
            tokenizer=tokenizer,
            ingestion_version=ingestion_version,
            counted_by=counted_by,
            max_tokens=max_tokens,
            search_from=cursor,
            page_map=page_map,
        )
        if record["char_start"] is not None:
            cursor = record["char_start"] + 1
        records.append(record)
    return records


def _index_of(metadata: Mapping[str, Any]) -> int:
    index = metadata.get("chunk_index", 0)
    return index if type(index) is int else 0


def record_line(record: Mapping[str, Any]) -> str:
    """One JSONL line (with its newline): fixed key order, UTF-8 text, no NaN.

    Refuses a record whose keys are not exactly ``RECORD_KEYS`` in order, so a caller that
    assembled one by hand cannot write a line ``validate`` would reject.
    """
    keys = tuple(record)
    if keys != RECORD_KEYS:
        raise ValidationError(
            f"a record must have exactly the keys {list(RECORD_KEYS)} in that order (got "
            f"{list(keys)}); build it with fastrag.ingestion.records.build_record"
        )
    try:
        line = json.dumps(record, ensure_ascii=False, allow_nan=False, sort_keys=False)
        line.encode("utf-8")
    except (TypeError, ValueError) as error:  # UnicodeEncodeError is a ValueError
        raise ValidationError(
            f"record {record.get('chunk_id')!r} of {record.get('source')!r} is not "
            f"JSON-serializable as UTF-8 ({error}); convert metadata with jsonable()"
        ) from error
    return line + "\n"
