"""One chunk's contract metadata, held compactly and read as the plain mapping it is.

The metadata of a chunk is mostly interval bookkeeping: ``retained_intervals`` (a pair
per coverage unit) and ``serialization_map`` (a 5-tuple per run), plus the
``structure_metadata`` projection. As tuples of tuples of ints these weighed more than
the chunk texts themselves: about 1.2x the input for a 10 MB Markdown document, alive
beside the tree until the last chunk is out. ``ChunkMetadata`` keeps the offsets as
int32 in one ``bytes`` (int64 past 2**31) and builds those values when they are read,
so every reader (``build_embedding_text``, the validator, JSONL records, ``Document``)
sees exactly the keys and the tuple values the contract (``fastrag.packing.contract``)
names, in the same order, and an equal mapping compares equal. Each read of a built
value is a new tuple: nothing read is cached, so reading does not grow the chunk back.

Everything is held in one plain tuple of immutable values. Why: the cyclic collector
walks every tracked container on each full collection, touching each reference it
holds; a tuple of strings, numbers and bytes is untracked after its first collection,
so a chunk costs it one object and one reference (with a slot per field, the chunks'
held half the references a full collection visited on a 50 MB document).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, Final

from fastrag.packing._id_numbers import id_numbers
from fastrag.packing.contract import STRUCTURE_VERSION

__all__ = ["ChunkMetadata"]

# Positions in ChunkMetadata._fields.
(
    _DOCUMENT_ID,
    _SECTION_IDS,
    _HEADING_IDS,
    _HEADING_PATH,
    _DISPLAYED,
    _EMBED,
    _OFFSETS,
    _RUN_KINDS,
    _CONTEXT,
    _OVERLAP,
    _COUNT,
    _OVERFLOW,
    _LOSS,
    _KIND,
    _NODE_IDS,
    _NODE_KINDS,
    _IDENTITY,
) = range(17)


class ChunkMetadata(Mapping[str, Any]):
    """Read-only metadata of one structural chunk (see ``fastrag.packing.contract``)."""

    __slots__ = ("_fields",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        """Take the values of a metadata mapping with exactly the contract's keys.

        ``retained_intervals`` must be nonempty (a chunk retains source), and
        ``char_start``/``char_end`` its first start and last end: they are read back
        from it rather than stored.
        """
        if tuple(values) != KEYS:
            raise ValueError(
                f"chunk metadata needs exactly the keys {KEYS} in that order (got {tuple(values)})"
            )
        retained = values["retained_intervals"]
        if (
            not retained
            or retained[0][0] != values["char_start"]
            or retained[-1][1] != values["char_end"]
        ):
            raise ValueError(
                f"char_start/char_end ({values['char_start']}, {values['char_end']}) must be "
                f"the first start and last end of the retained intervals ({retained!r:.80})"
            )
        if values["structure_version"] != STRUCTURE_VERSION:
            raise ValueError(
                f"structure_version must be {STRUCTURE_VERSION!r} "
                f"(got {values['structure_version']!r})"
            )
        runs = values["serialization_map"]
        projection = values["structure_metadata"]
        document_id: str = values["document_id"]
        node_ids: tuple[str, ...] = projection["node_ids"]
        node_kinds: tuple[str, ...] = projection["kinds"]
        positions = id_numbers(document_id, node_ids, node_kinds)
        # Every offset in one array: retained pairs, then the map runs column by column
        # (every display start, every display end, every source start, every source
        # end: a transposition in C, where interleaving took a Python loop over the runs
        # of an HTML chunk, hundreds of them), then node numbers. Int32 bytes, half the
        # size of int64 (a tenth of the input at 10 MB of Markdown); an offset or number
        # past 2**31 keeps the whole int64 array instead.
        columns: tuple[tuple[Any, ...], ...] = tuple(zip(*runs, strict=True)) or _NO_RUNS
        stored: bytes | array[int]
        try:
            stored = _offsets("i", retained, columns, positions).tobytes()
        except OverflowError:
            stored = _offsets("q", retained, columns, positions)
        self._fields = (
            document_id,
            values["section_ids"],
            values["heading_ids"],
            values["heading_path"],
            values["displayed_heading_ids"],
            values["embed_heading_path"],
            stored,
            columns[4],
            values["repeated_context"],
            values["overlap_intervals"],
            values["embedding_token_count"],
            values["overflow"],
            values["atomic_structure_loss"],
            values["chunk_kind"],
            None if positions is not None else node_ids,
            node_kinds,
            values["engine_identity"],
        )

    def __getitem__(self, key: str) -> Any:
        try:
            read = _READERS[key]
        except (KeyError, TypeError):
            raise KeyError(key) from None
        return read(self._fields)

    def __contains__(self, key: object) -> bool:
        return key in _READERS  # without building the value, as Mapping's default would

    def __iter__(self) -> Iterator[str]:
        return iter(KEYS)

    def __len__(self) -> int:
        return len(KEYS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)!r})"

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], ChunkMetadata], tuple[Any, ...]]:
        # Chunks cross process pools; the rebuilt mapping is equal to this one.
        return (ChunkMetadata, (dict(self),))


def _offsets(
    code: str,
    retained: Sequence[tuple[int, int]],
    columns: tuple[tuple[Any, ...], ...],
    positions: Sequence[int] | None,
) -> array[int]:
    offsets = array(code, chain.from_iterable(retained))
    for column in columns[:4]:
        offsets.extend(column)
    if positions is not None:
        offsets.extend(iter(positions))  # an int64 array: extended item by item
    return offsets


def _stored_offsets(fields: tuple[Any, ...]) -> Sequence[int]:
    stored = fields[_OFFSETS]
    return memoryview(stored).cast("i") if type(stored) is bytes else stored


def _parts(fields: tuple[Any, ...]) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
    """The offsets' three parts: retained pairs, map runs, node numbers."""
    offsets = _stored_offsets(fields)
    numbers = 0 if fields[_NODE_IDS] is not None else len(fields[_NODE_KINDS])
    runs = len(offsets) - numbers
    retained = runs - 4 * len(fields[_RUN_KINDS])
    return offsets[:retained], offsets[retained:runs], offsets[runs:]


def _char_start(fields: tuple[Any, ...]) -> int:
    return int(_stored_offsets(fields)[0])


def _char_end(fields: tuple[Any, ...]) -> int:
    return int(_parts(fields)[0][-1])


def _retained_intervals(fields: tuple[Any, ...]) -> tuple[tuple[int, int], ...]:
    offsets = iter(_parts(fields)[0])
    return tuple(zip(offsets, offsets, strict=True))


def _serialization_map(fields: tuple[Any, ...]) -> tuple[tuple[int, int, int, int, str], ...]:
    runs = _parts(fields)[1]
    kinds = fields[_RUN_KINDS]
    count = len(kinds)
    return tuple(
        zip(
            runs[:count],
            runs[count : 2 * count],
            runs[2 * count : 3 * count],
            runs[3 * count :],
            kinds,
            strict=True,
        )
    )


def _structure_metadata(fields: tuple[Any, ...]) -> dict[str, tuple[str, ...]]:
    # A plain dict, as the engine always gave: chunk metadata stays JSON-serializable.
    kinds, node_ids = fields[_NODE_KINDS], fields[_NODE_IDS]
    if node_ids is None:
        prefix = fields[_DOCUMENT_ID]
        node_ids = tuple(
            f"{prefix}:{kind}:{number}"
            for kind, number in zip(kinds, _parts(fields)[2], strict=True)
        )
    return {"node_ids": node_ids, "kinds": kinds}


_NO_RUNS: Final[tuple[tuple[Any, ...], ...]] = ((),) * 5
"""The five columns of an empty serialization map."""


def _constant(value: Any) -> Callable[[tuple[Any, ...]], Any]:
    return lambda _fields: value


_READERS: Final[dict[str, Callable[[tuple[Any, ...]], Any]]] = {
    "structure_version": _constant(STRUCTURE_VERSION),
    "document_id": itemgetter(_DOCUMENT_ID),
    "section_ids": itemgetter(_SECTION_IDS),
    "heading_ids": itemgetter(_HEADING_IDS),
    "heading_path": itemgetter(_HEADING_PATH),
    "displayed_heading_ids": itemgetter(_DISPLAYED),
    "embed_heading_path": itemgetter(_EMBED),
    "char_start": _char_start,
    "char_end": _char_end,
    "retained_intervals": _retained_intervals,
    "serialization_map": _serialization_map,
    "repeated_context": itemgetter(_CONTEXT),
    "overlap_intervals": itemgetter(_OVERLAP),
    "embedding_token_count": itemgetter(_COUNT),
    "overflow": itemgetter(_OVERFLOW),
    "atomic_structure_loss": itemgetter(_LOSS),
    "chunk_kind": itemgetter(_KIND),
    "structure_metadata": _structure_metadata,
    "engine_identity": itemgetter(_IDENTITY),
}
"""How each key is read from the fields, in the order the engine has always written them."""

KEYS: Final[tuple[str, ...]] = tuple(_READERS)
