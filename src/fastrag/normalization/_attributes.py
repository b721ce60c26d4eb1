"""Node attributes packed as ``Nodes`` keeps them: ``(keys, values)``, repeats shared.

A module of its own so that it can be compiled (``setup.py``): the Markdown adapter packs
every node's attributes while it fills the node columns, in compiled code
(``_markdown_tree.node_columns``), and a call into an interpreted packer there cost more
than the packing. ``fastrag.normalization.model`` re-exports both names.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import Any

from fastrag.normalization._pairs import PairsKey

__all__ = ["AttributePacker", "PackedAttributes", "unpacked"]

PackedAttributes = tuple[tuple[str, ...], tuple[Any, ...]] | None
"""A node's attributes as ``Nodes`` keeps them: ``(keys, values)``, or ``None`` for none."""


class AttributePacker:
    """Packs attribute mappings as ``Nodes`` keeps them, ``(keys, values)``, sharing repeats.

    Why: a leaf with links has attributes of its own, and as a dict behind its proxy they
    cost about twice its (keys, values); packed, the tree of 10 MB of Markdown fell from
    3.2x to 2.8x the input (tracemalloc). Each distinct tuple of keys is kept once;
    ``shared`` also gives equal mappings one pair (a list item's label and depth, a
    fence's language: repeated thousands of times), ``own`` a pair of the mapping's own
    (a leaf's links: rarely repeated, not worth looking up). Values must be immutable.
    A tuple of pairs is kept flat under a ``PairsKey``; ``unpacked`` reads it back.
    ``flat`` names keys whose values arrive flat already (the Markdown draft's links).
    """

    __slots__ = ("_equal", "_flat", "_keys", "_marks")

    def __init__(self, flat: frozenset[str] = frozenset()) -> None:
        self._flat = flat
        self._keys: dict[tuple[tuple[str, ...], tuple[bool, ...]], tuple[str, ...]] = {}
        """Each distinct keys tuple, by its keys and which of them are marked (a
        ``PairsKey`` equals its plain key, so the marks must be part of the lookup)."""
        self._marks: dict[str, str] = {}
        self._equal: dict[tuple[tuple[str, Any], ...], PackedAttributes] = {}

    def own(self, mapping: Mapping[str, Any]) -> PackedAttributes:
        if not mapping:
            return None
        keys: list[str] = []
        marks: list[bool] = []
        values: list[Any] = []
        for key, value in mapping.items():
            if key in self._flat:
                flat, marked = value, True
            else:
                flat = _flat(value)
                marked = flat is not value
            if marked:
                mark = self._marks.get(key)
                if mark is None:
                    mark = self._marks[key] = PairsKey(key)
                key = mark
            keys.append(key)
            marks.append(marked)
            values.append(flat)
        shape = (tuple(keys), tuple(marks))
        found = self._keys.get(shape)
        if found is None:
            found = self._keys[shape] = shape[0]
        return (found, tuple(values))

    def shared(self, mapping: Mapping[str, Any]) -> PackedAttributes:
        items = tuple(mapping.items())
        found = self._equal.get(items)
        if found is None:
            found = self._equal[items] = self.own(mapping)
        return found


def _flat(value: Any) -> Any:
    """``value`` as one flat tuple if it is a nonempty tuple of pairs; else itself."""
    if type(value) is not tuple or not value:
        return value
    for item in value:
        if type(item) is not tuple or len(item) != 2:
            return value
    return tuple(chain.from_iterable(value))


def unpacked(keys: tuple[str, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    """The mapping ``AttributePacker`` packed as ``(keys, values)``: flat pairs paired."""
    mapping: dict[str, Any] = {}
    for key, value in zip(keys, values, strict=True):
        if type(key) is PairsKey:
            mapping[str(key)] = tuple(zip(value[0::2], value[1::2], strict=True))
        else:
            mapping[key] = value
    return mapping
