"""Node ids kept as numbers in chunk metadata (``ChunkMetadata``).

A module of its own so that it can be compiled (``setup.py``): it reads every node id of
every chunk (36,000 ids for the Markdown corpus's 13,000 chunks), which took 1 % of
``split`` interpreted. ``chunk_metadata`` itself stays interpreted (see ``setup.py``).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

__all__ = ["id_numbers"]

_DIGITS: Final = 18
"""Longest number kept as one: any 18 digits fit in an int64 (an adapter's own ids may
carry longer ones, kept as strings)."""


def id_numbers(
    document_id: object, node_ids: Sequence[object], kinds: Sequence[object]
) -> array[int] | None:
    """The numbers of ids of the form ``f"{document_id}:{kind}:{number}"``, or ``None``.

    Trees that number their nodes by position (``Nodes``, HTML, RST) give ids of that form:
    kept as numbers they are a tenth of their strings' memory. Any other id (an adapter
    naming nodes its own way, a number written ``01``) keeps every id as given. Typed
    loosely: replayed metadata may hold lists, or values of any type (kept as given).
    """
    if len(node_ids) != len(kinds):
        return None
    numbers = array("q")
    for node_id, kind in zip(node_ids, kinds, strict=True):
        if not isinstance(node_id, str):
            return None
        head = f"{document_id}:{kind}:"
        number = node_id[len(head) :]
        if (
            not node_id.startswith(head)
            or not (number.isascii() and number.isdigit())
            or (number[0] == "0" and len(number) > 1)
            or len(number) > _DIGITS
        ):
            return None
        numbers.append(int(number))
    return numbers
