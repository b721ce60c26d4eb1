"""Reading one chunk's metadata into typed values, or failing with the chunk and the key.

Persisted chunks come back from JSON stores with lists where the engine wrote tuples, so
every sequence accepts either; nothing else is coerced. ``bool`` is never accepted where
an offset or count is expected (``True`` is an ``int`` to Python, not to the contract).

Every chunk of every ingest run is read here, so the per-entry sequences (intervals and
map runs) take a fast path: one flat loop that accepts exactly the entries the careful
reader accepts, and hands any failure to that reader, which raises naming the key and
the first bad entry. The fast path checks a whole sequence with C-level ``map``/``set``
passes (the set of entry types, of lengths, of value types), not a Python loop per
entry. Map runs stay plain tuples: no object per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, Final, NamedTuple

from fastrag.exceptions import ChunkingError
from fastrag.models import Document
from fastrag.packing._validator_intervals import Interval
from fastrag.packing.contract import CONTEXT_KINDS, MAP_KINDS, STRUCTURE_VERSION

__all__ = [
    "CHUNK_KINDS",
    "DISPLAY_END",
    "DISPLAY_START",
    "KIND",
    "SOURCE_END",
    "SOURCE_START",
    "ChunkRecord",
    "MapRun",
    "read_piece",
]

CHUNK_KINDS: Final = frozenset({"section", "merged", "split", "empty"})

_EXCERPT: Final = 40
_SEQUENCES: Final = frozenset({tuple, list})
_INTS: Final = frozenset({int})
_STRS: Final = frozenset({str})
_FROM_KEY: Final = object()  # sentinel: read the value from metadata[key]


def excerpt(value: object) -> str:
    """A short ``repr`` for messages: never more than ~40 characters of document text."""
    text = repr(value)
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


MapRun = tuple[int, int, int, int, str]
"""One serialization-map run as stored: ``(display_start, display_end, source_start,
source_end, kind)``: display ``[d0, d1)`` shows source ``[s0, s1)``."""

DISPLAY_START: Final = 0
DISPLAY_END: Final = 1
SOURCE_START: Final = 2
SOURCE_END: Final = 3
KIND: Final = 4


class ChunkRecord(NamedTuple):
    """One chunk's content and its metadata, type-checked and converted to tuples.

    ``metadata`` is the original mapping, kept because the embedding text must be rebuilt
    from exactly what was stored, not from this parsed copy. A ``NamedTuple`` rather than
    a frozen dataclass: immutable all the same, and built without one ``__setattr__``
    call per field for every chunk.
    """

    number: int  # the chunk's position, as messages name it ("chunk 3: …")
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
        try:
            return self.metadata[key]
        except KeyError:
            raise fail(self.index, f"metadata[{key!r}]", "required key is missing") from None

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


def _exact_records(items: Sequence[Any], width: int) -> bool:
    """Whether every entry is a tuple or list of ``width`` exact ints.

    Three C-level passes (entry types, lengths, value types) instead of a Python loop
    per entry; anything unusual, including subclasses the careful reader may accept,
    fails here and goes to that reader.
    """
    return (
        set(map(type, items)) <= _SEQUENCES
        and set(map(len, items)) == {width}
        and set(map(type, chain.from_iterable(items))) <= _INTS
    )


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
    """Every entry's shape first, then every kind, each named on failure."""
    runs = []
    for d0, d1, s0, s1, kind in reader.records("serialization_map", (int, int, int, int, str)):
        if kind not in MAP_KINDS:
            raise reader._bad("serialization_map", f"a kind in {sorted(MAP_KINDS)}", kind)
        runs.append((d0, d1, s0, s1, kind))
    return tuple(runs)


def _context(reader: _Reader) -> tuple[tuple[int, int, str], ...]:
    entries = reader.records("repeated_context", (int, int, str))
    for entry in entries:
        if entry[2] not in CONTEXT_KINDS:
            raise reader._bad("repeated_context", f"a kind in {sorted(CONTEXT_KINDS)}", entry[2])
    return entries


def read_piece(index: int, piece: object, parent_id: str) -> ChunkRecord:
    """Type-check one piece's metadata against ``contract.py``; ``ChunkingError`` if not.

    ``_read_fast`` reads well-formed metadata (every chunk of a healthy run) in a few
    C-level passes; anything it does not recognise is read again by ``_read_carefully``,
    which either accepts it (a subclass, say) or raises naming the key and the value.
    """
    content, metadata = _split_piece(index, piece, parent_id)
    record = _read_fast(index, content, metadata)
    return record if record is not None else _read_carefully(index, content, metadata)


def _read_carefully(index: int, content: str, metadata: Mapping[str, Any]) -> ChunkRecord:
    """The reference reader: one key at a time, in a fixed order, naming the first fault."""
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
        number=index,
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


_KEYS: Final = (
    "structure_version",
    "heading_ids",
    "heading_path",
    "chunk_kind",
    "structure_metadata",
    "engine_identity",
    "document_id",
    "section_ids",
    "displayed_heading_ids",
    "embed_heading_path",
    "char_start",
    "char_end",
    "retained_intervals",
    "serialization_map",
    "repeated_context",
    "overlap_intervals",
    "embedding_token_count",
    "overflow",
    "atomic_structure_loss",
)
_ALL_KEYS: Final = itemgetter(*_KEYS)
_PROJECTION: Final = itemgetter("node_ids", "kinds")


def _strs(*values: Any) -> list[tuple[str, ...]] | None:
    """Each value, a tuple or list of exact ``str``, as a tuple; else None.

    Two C-level passes over all the string lists of a chunk together (container
    types, then element types) rather than two per list: a chunk carries six.
    """
    if set(map(type, values)) <= _SEQUENCES and (
        set(map(type, chain.from_iterable(values))) <= _STRS
    ):
        return list(map(tuple, values))
    return None


def _pairs(value: object) -> tuple[Interval, ...] | None:
    """A tuple or list of ``(int, int)`` entries as tuples, else None."""
    if (type(value) is tuple or type(value) is list) and (not value or _exact_records(value, 2)):
        return tuple(map(tuple, value))
    return None


def _fast_runs(value: object) -> tuple[MapRun, ...] | None:
    """Serialization-map entries of four exact ints and a known kind, else None."""
    if type(value) is not tuple and type(value) is not list:
        return None
    if not value:
        return ()
    if set(map(type, value)) <= _SEQUENCES and set(map(len, value)) == {5}:
        d0, d1, s0, s1, kinds = zip(*value, strict=True)  # columns, built in C
        if (
            set(map(type, chain(d0, d1, s0, s1))) <= _INTS
            and set(map(type, kinds)) <= _STRS
            and set(kinds) <= MAP_KINDS
        ):
            return tuple(map(tuple, value))
    return None


def _fast_context(value: object) -> tuple[tuple[int, int, str], ...] | None:
    """Repeated-context entries of two exact ints and a known kind, else None."""
    if type(value) is not tuple and type(value) is not list:
        return None
    if not value:
        return ()
    if set(map(type, value)) <= _SEQUENCES and set(map(len, value)) == {3}:
        starts, ends, kinds = zip(*value, strict=True)
        if (
            set(map(type, chain(starts, ends))) <= _INTS
            and set(map(type, kinds)) <= _STRS
            and set(kinds) <= CONTEXT_KINDS
        ):
            return tuple(map(tuple, value))
    return None


def _read_fast(index: int, content: str, metadata: Mapping[str, Any]) -> ChunkRecord | None:
    """The record of well-formed metadata, or None to let ``_read_carefully`` decide.

    Accepts a strict subset of what the careful reader accepts (exact types only) and
    builds the same record; ``test_validator_fast_paths`` holds the two readers to that.
    """
    try:
        (
            version,
            heading_ids,
            heading_path,
            chunk_kind,
            projection,
            engine_identity,
            document_id,
            section_ids,
            displayed,
            embed,
            char_start,
            char_end,
            retained,
            runs,
            context,
            overlap,
            token_count,
            overflow,
            atomic,
        ) = _ALL_KEYS(metadata)
    except KeyError:
        return None
    if not isinstance(projection, Mapping):
        return None
    try:
        node_ids, node_kinds = _PROJECTION(projection)
    except KeyError:
        return None
    strings = _strs(heading_ids, heading_path, section_ids, displayed, node_ids, node_kinds)
    if strings is None:
        return None
    ids, path, sections, shown, nodes, kinds = strings
    intervals, map_runs = _pairs(retained), _fast_runs(runs)
    entries, repeated = _fast_context(context), _pairs(overlap)
    if (
        intervals is None
        or map_runs is None
        or entries is None
        or repeated is None
        or version != STRUCTURE_VERSION
        or len(ids) != len(path)
        or len(nodes) != len(kinds)
        or type(chunk_kind) is not str
        or chunk_kind not in CHUNK_KINDS
        or type(engine_identity) is not str
        or not engine_identity
        or type(document_id) is not str
        or not (type(embed) is type(overflow) is type(atomic) is bool)
        or not (type(char_start) is type(char_end) is type(token_count) is int)
        or min(char_start, char_end, token_count) < 0
    ):
        return None
    return ChunkRecord(
        index,
        content,
        metadata,
        document_id,
        sections,
        ids,
        path,
        shown,
        embed,
        char_start,
        char_end,
        intervals,
        map_runs,
        entries,
        repeated,
        token_count,
        overflow,
        atomic,
        chunk_kind,
        nodes,
        kinds,
        engine_identity,
    )
