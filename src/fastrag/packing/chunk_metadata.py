"""One chunk's contract metadata, held compactly and read as the plain mapping it is.

The metadata of a chunk is mostly interval bookkeeping: ``retained_intervals`` (a pair
per coverage unit) and ``serialization_map`` (a 5-tuple per run), plus the
``structure_metadata`` projection. As tuples of tuples of ints these weighed more than
the chunk texts themselves: about 1.2x the input for a 10 MB Markdown document, alive
beside the tree until the last chunk is out. ``ChunkMetadata`` keeps the offsets in
``array("q")`` columns and builds those values when they are read, so every reader
(``build_embedding_text``, the validator, JSONL records, ``Document``) sees exactly the
keys and the tuple values the contract (``fastrag.packing.contract``) names, in the same
order, and an equal mapping compares equal. Each read of a built value is a new tuple:
nothing read is cached, so reading does not grow the chunk back.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from operator import attrgetter
from typing import Any, Final

from fastrag.packing.contract import STRUCTURE_VERSION

__all__ = ["ChunkMetadata"]


class ChunkMetadata(Mapping[str, Any]):
    """Read-only metadata of one structural chunk (see ``fastrag.packing.contract``)."""

    __slots__ = (
        "_atomic_structure_loss",
        "_chunk_kind",
        "_displayed_heading_ids",
        "_document_id",
        "_embed_heading_path",
        "_embedding_token_count",
        "_engine_identity",
        "_heading_ids",
        "_heading_path",
        "_node_ids",
        "_node_kinds",
        "_node_positions",
        "_overflow",
        "_overlap_intervals",
        "_repeated_context",
        "_retained",
        "_run_kinds",
        "_runs",
        "_section_ids",
    )

    def __init__(self, values: Mapping[str, Any]) -> None:
        """Take the values of a metadata mapping with exactly the contract's keys.

        ``retained_intervals`` must be nonempty (a chunk retains source), and
        ``char_start``/``char_end`` its first start and last end: they are read back
        from it rather than stored.
        """
        if list(values) != list(KEYS):
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
        self._document_id: str = values["document_id"]
        self._section_ids: tuple[str, ...] = values["section_ids"]
        self._heading_ids: tuple[str, ...] = values["heading_ids"]
        self._heading_path: tuple[str, ...] = values["heading_path"]
        self._displayed_heading_ids: tuple[str, ...] = values["displayed_heading_ids"]
        self._embed_heading_path: bool = values["embed_heading_path"]
        self._retained = array("q", chain.from_iterable(retained))
        self._runs = array("q", [offset for run in runs for offset in run[:4]])
        self._run_kinds: tuple[str, ...] = tuple(run[4] for run in runs)
        self._repeated_context: tuple[tuple[int, int, str], ...] = values["repeated_context"]
        self._overlap_intervals: tuple[tuple[int, int], ...] = values["overlap_intervals"]
        self._embedding_token_count: int = values["embedding_token_count"]
        self._overflow: bool = values["overflow"]
        self._atomic_structure_loss: bool = values["atomic_structure_loss"]
        self._chunk_kind: str = values["chunk_kind"]
        node_ids: tuple[str, ...] = projection["node_ids"]
        self._node_kinds: tuple[str, ...] = projection["kinds"]
        self._node_positions = _positions(self._document_id, node_ids, self._node_kinds)
        self._node_ids = () if self._node_positions is not None else node_ids
        self._engine_identity: str = values["engine_identity"]

    def __getitem__(self, key: str) -> Any:
        try:
            read = _READERS[key]
        except (KeyError, TypeError):
            raise KeyError(key) from None
        return read(self)

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

    def _retained_intervals(self) -> tuple[tuple[int, int], ...]:
        offsets = iter(self._retained)
        return tuple(zip(offsets, offsets, strict=True))

    def _serialization_map(self) -> tuple[tuple[int, int, int, int, str], ...]:
        runs = self._runs
        return tuple(
            zip(runs[0::4], runs[1::4], runs[2::4], runs[3::4], self._run_kinds, strict=True)
        )

    def _structure_metadata(self) -> dict[str, tuple[str, ...]]:
        # A plain dict, as the engine always gave: chunk metadata stays JSON-serializable.
        kinds, positions = self._node_kinds, self._node_positions
        node_ids = self._node_ids
        if positions is not None:
            prefix = self._document_id
            node_ids = tuple(
                f"{prefix}:{kind}:{position}"
                for kind, position in zip(kinds, positions, strict=True)
            )
        return {"node_ids": node_ids, "kinds": kinds}


def _positions(
    document_id: str, node_ids: tuple[str, ...], kinds: tuple[str, ...]
) -> array[int] | None:
    """The numbers of ids of the form ``f"{document_id}:{kind}:{number}"``, or ``None``.

    Trees that number their nodes by position (``Nodes``, HTML, RST) give ids of that form:
    kept as numbers they are a tenth of their strings' memory. Any other id (an adapter
    naming nodes its own way, a number written ``01``) keeps every id as given.
    """
    if len(node_ids) != len(kinds):
        return None
    numbers = array("q")
    for node_id, kind in zip(node_ids, kinds, strict=True):
        head = f"{document_id}:{kind}:"
        number = node_id[len(head) :]
        if (
            not node_id.startswith(head)
            or not (number.isascii() and number.isdigit())
            or (number[0] == "0" and len(number) > 1)
        ):
            return None
        numbers.append(int(number))
    return numbers


def _constant(value: Any) -> Callable[[ChunkMetadata], Any]:
    return lambda _metadata: value


_READERS: Final[dict[str, Callable[[ChunkMetadata], Any]]] = {
    "structure_version": _constant(STRUCTURE_VERSION),
    "document_id": attrgetter("_document_id"),
    "section_ids": attrgetter("_section_ids"),
    "heading_ids": attrgetter("_heading_ids"),
    "heading_path": attrgetter("_heading_path"),
    "displayed_heading_ids": attrgetter("_displayed_heading_ids"),
    "embed_heading_path": attrgetter("_embed_heading_path"),
    "char_start": lambda metadata: metadata._retained[0],
    "char_end": lambda metadata: metadata._retained[-1],
    "retained_intervals": ChunkMetadata._retained_intervals,
    "serialization_map": ChunkMetadata._serialization_map,
    "repeated_context": attrgetter("_repeated_context"),
    "overlap_intervals": attrgetter("_overlap_intervals"),
    "embedding_token_count": attrgetter("_embedding_token_count"),
    "overflow": attrgetter("_overflow"),
    "atomic_structure_loss": attrgetter("_atomic_structure_loss"),
    "chunk_kind": attrgetter("_chunk_kind"),
    "structure_metadata": ChunkMetadata._structure_metadata,
    "engine_identity": attrgetter("_engine_identity"),
}
"""How each key is read, in the order the engine has always written them."""

KEYS: Final[tuple[str, ...]] = tuple(_READERS)
