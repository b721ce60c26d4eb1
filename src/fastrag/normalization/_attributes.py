"""Node attributes packed as ``Nodes`` keeps them: ``(keys, values)``, repeats shared.

A module of its own so that it can be compiled (``setup.py``): the Markdown adapter packs
every node's attributes while it fills the node columns, in compiled code
(``_markdown_tree.node_columns``), and a call into an interpreted packer there cost more
than the packing. ``fastrag.normalization.model`` re-exports both names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["AttributePacker", "PackedAttributes"]

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
    """

    __slots__ = ("_equal", "_keys")

    def __init__(self) -> None:
        self._keys: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._equal: dict[tuple[tuple[str, Any], ...], PackedAttributes] = {}

    def own(self, mapping: Mapping[str, Any]) -> PackedAttributes:
        if not mapping:
            return None
        keys = tuple(mapping)
        return (self._keys.setdefault(keys, keys), tuple(mapping.values()))

    def shared(self, mapping: Mapping[str, Any]) -> PackedAttributes:
        items = tuple(mapping.items())
        found = self._equal.get(items)
        if found is None:
            found = self._equal[items] = self.own(mapping)
        return found
