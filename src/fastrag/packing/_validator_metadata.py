"""Reading one chunk's metadata into typed values, or failing with the chunk and the key.

Persisted chunks come back from JSON stores with lists where the engine wrote tuples, so
every sequence accepts either; nothing else is coerced. ``bool`` is never accepted where
an offset or count is expected (``True`` is an ``int`` to Python, not to the contract).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from fastrag.exceptions import ChunkingError
from fastrag.models import Document
from fastrag.packing._validator_intervals import Interval
from fastrag.packing.contract import CONTEXT_KINDS, MAP_KINDS, STRUCTURE_VERSION

__all__ = ["CHUNK_KINDS", "ChunkRecord", "MapRun", "read_piece"]

CHUNK_KINDS: Final = frozenset({"section", "merged", "split", "empty"})

_EXCERPT: Final = 40
_FROM_KEY: Final = object()  # sentinel: read the value from metadata[key]


def excerpt(value: object) -> str:
    """A short ``repr`` for messages: never more than ~40 characters of document text."""
    text = repr(value)
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


@dataclass(frozen=True, slots=True)
class MapRun:
    """One serialization-map run: display ``[d0, d1)`` shows source ``[s0, s1)``."""

    display_start: int
    display_end: int
    source_start: int
    source_end: int
    kind: str


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """One chunk's content and its metadata, type-checked and converted to tuples.

    ``metadata`` is the original mapping, kept because the embedding text must be rebuilt
    from exactly what was stored, not from this parsed copy.
    """

    index: int
    content: str
    metadata: Mapping[str, Any]
    document_id: str
    section_ids: tuple[str, ...]
    heading_ids: tuple[str, ...]
    heading_path: tuple[str, ...]
    displayed_heading_ids: tuple[str, ...]
    embed_heading_path: bool
    char_start: int
    char_end: int
    retained: tuple[Interval, ...]
    runs: tuple[MapRun, ...]
    repeated_context: tuple[tuple[int, int, str], ...]
    overlap: tuple[Interval, ...]
    embedding_token_count: int
    overflow: bool
    atomic_structure_loss: bool
    chunk_kind: str
    node_ids: tuple[str, ...]
    node_kinds: tuple[str, ...]
    engine_identity: str


def fail(index: int, rule: str, detail: str) -> ChunkingError:
    """The one error shape: chunk index, the rule broken, the numbers, what to do."""
    return ChunkingError(
        f"chunk {index}: {rule}: {detail}; the chunks do not satisfy the structural "
        "contract — re-chunk the document (discard stale persisted chunks)"
    )


class _Reader:
    """Typed accessors over one chunk's metadata that name the key on failure."""

    __slots__ = ("index", "metadata")

    def __init__(self, index: int, metadata: Mapping[str, Any]) -> None:
        self.index = index
        self.metadata = metadata

    def _bad(self, key: str, expected: str, value: object) -> ChunkingError:
        return fail(
            self.index,
            f"metadata[{key!r}]",
            f"expected {expected} (got {type(value).__name__}: {excerpt(value)})",
        )

    def raw(self, key: str) -> Any:
        if key not in self.metadata:
            raise fail(self.index, f"metadata[{key!r}]", "required key is missing")
        return self.metadata[key]

    def integer(self, key: str, value: object = _FROM_KEY, *, nonnegative: bool = True) -> int:
        value = self.raw(key) if value is _FROM_KEY else value
        if type(value) is not int or (nonnegative and value < 0):
            raise self._bad(key, "a nonnegative int" if nonnegative else "an int", value)
        return value

    def string(self, key: str, value: object = _FROM_KEY) -> str:
        value = self.raw(key) if value is _FROM_KEY else value
        if not isinstance(value, str):
            raise self._bad(key, "a str", value)
        return value

    def flag(self, key: str) -> bool:
        value = self.raw(key)
        if type(value) is not bool:
            raise self._bad(key, "a bool", value)
        return value

    def sequence(self, key: str, value: object = _FROM_KEY) -> tuple[Any, ...]:
        value = self.raw(key) if value is _FROM_KEY else value
        if not isinstance(value, (tuple, list)):
            raise self._bad(key, "a tuple (or a JSON list)", value)
        return tuple(value)

    def strings(self, key: str, value: object = _FROM_KEY) -> tuple[str, ...]:
        items = self.sequence(key, value)
        for item in items:
            if not isinstance(item, str):
                raise self._bad(key, "a tuple of str", item)
        return items

    def records(self, key: str, shape: tuple[type, ...]) -> tuple[tuple[Any, ...], ...]:
        """A sequence of fixed-shape records such as ``(start, end)`` or map runs."""
        result: list[tuple[Any, ...]] = []
        for item in self.sequence(key):
            if not isinstance(item, (tuple, list)) or len(item) != len(shape):
                raise self._bad(key, f"entries of {len(shape)} values", item)
            for value, expected in zip(item, shape, strict=True):
                if type(value) is not expected:
                    raise self._bad(
                        key, f"entries of ({', '.join(t.__name__ for t in shape)})", item
                    )
            result.append(tuple(item))
        return tuple(result)


def _split_piece(index: int, piece: object, parent_id: str) -> tuple[str, Mapping[str, Any]]:
    """``(content, metadata)`` of a split tuple or a persisted chunk ``Document``."""
    if isinstance(piece, Document):
        metadata = piece.metadata
        chunk_index = metadata.get("chunk_index")
        if type(chunk_index) is not int or chunk_index != index:
            raise fail(
                index,
                "chunk_index",
                f"persisted chunks must carry chunk_index 0, 1, 2 … in order "
                f"(got {excerpt(chunk_index)} at position {index})",
            )
        if metadata.get("parent_id") != parent_id:
            raise fail(
                index,
                "parent_id",
                f"expected the normalized parent's id {excerpt(parent_id)} "
                f"(got {excerpt(metadata.get('parent_id'))})",
            )
        return piece.content, metadata
    if (
        isinstance(piece, tuple)
        and len(piece) == 2
        and isinstance(piece[0], str)
        and isinstance(piece[1], Mapping)
    ):
        return piece[0], piece[1]
    raise fail(
        index,
        "piece shape",
        f"expected a (content, metadata) tuple or a chunk Document (got {type(piece).__name__})",
    )


def _runs(reader: _Reader) -> tuple[MapRun, ...]:
    runs = []
    for d0, d1, s0, s1, kind in reader.records("serialization_map", (int, int, int, int, str)):
        if kind not in MAP_KINDS:
            raise reader._bad("serialization_map", f"a kind in {sorted(MAP_KINDS)}", kind)
        runs.append(MapRun(d0, d1, s0, s1, kind))
    return tuple(runs)


def _context(reader: _Reader) -> tuple[tuple[int, int, str], ...]:
    entries = reader.records("repeated_context", (int, int, str))
    for entry in entries:
        if entry[2] not in CONTEXT_KINDS:
            raise reader._bad("repeated_context", f"a kind in {sorted(CONTEXT_KINDS)}", entry[2])
    return entries


def read_piece(index: int, piece: object, parent_id: str) -> ChunkRecord:
    """Type-check one piece's metadata against ``contract.py``; ``ChunkingError`` if not."""
    content, metadata = _split_piece(index, piece, parent_id)
    reader = _Reader(index, metadata)
    version = reader.raw("structure_version")
    if version != STRUCTURE_VERSION:
        raise reader._bad("structure_version", repr(STRUCTURE_VERSION), version)
    heading_ids = reader.strings("heading_ids")
    heading_path = reader.strings("heading_path")
    if len(heading_ids) != len(heading_path):
        raise fail(
            index,
            "heading path",
            f"heading_ids has {len(heading_ids)} entries but heading_path has "
            f"{len(heading_path)}; they must pair up",
        )
    chunk_kind = reader.string("chunk_kind")
    if chunk_kind not in CHUNK_KINDS:
        raise reader._bad("chunk_kind", f"one of {sorted(CHUNK_KINDS)}", chunk_kind)
    projection = reader.raw("structure_metadata")
    if not isinstance(projection, Mapping):
        raise reader._bad("structure_metadata", 'a mapping {"node_ids", "kinds"}', projection)
    for field_name in ("node_ids", "kinds"):
        if field_name not in projection:
            raise fail(index, "structure_metadata", f"required field {field_name!r} is missing")
    node_ids = reader.strings("structure_metadata", projection["node_ids"])
    node_kinds = reader.strings("structure_metadata", projection["kinds"])
    if len(node_ids) != len(node_kinds):
        raise fail(
            index,
            "structure_metadata",
            f"{len(node_ids)} node_ids but {len(node_kinds)} kinds; they must pair up",
        )
    engine_identity = reader.string("engine_identity")
    if not engine_identity:
        raise reader._bad("engine_identity", "a nonempty str", engine_identity)
    return ChunkRecord(
        index=index,
        content=content,
        metadata=metadata,
        document_id=reader.string("document_id"),
        section_ids=reader.strings("section_ids"),
        heading_ids=heading_ids,
        heading_path=heading_path,
        displayed_heading_ids=reader.strings("displayed_heading_ids"),
        embed_heading_path=reader.flag("embed_heading_path"),
        char_start=reader.integer("char_start"),
        char_end=reader.integer("char_end"),
        retained=reader.records("retained_intervals", (int, int)),
        runs=_runs(reader),
        repeated_context=_context(reader),
        overlap=reader.records("overlap_intervals", (int, int)),
        embedding_token_count=reader.integer("embedding_token_count"),
        overflow=reader.flag("overflow"),
        atomic_structure_loss=reader.flag("atomic_structure_loss"),
        chunk_kind=chunk_kind,
        node_ids=node_ids,
        node_kinds=node_kinds,
        engine_identity=engine_identity,
    )
