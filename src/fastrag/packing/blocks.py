"""How each kind of block behaves when packed: one table, no ``if`` chains in the hot loop.

A *block* is a node directly under a section (or the document root) that owns retained
units, together with everything beneath it: a paragraph, a heading, a code block, a
table with its rows, a list with its items. The packer never looks at a kind string
again after this table has been consulted once per block: it reads the block's
``Behaviour`` — which splitter cuts it when it is too large, whether it attaches to what
follows (headings; also, decided per block, a short lead-in paragraph ending with ":",
see ``lead_in.py``), whether its trailing sentences may be repeated as overlap.

Boundary strength is an ordered scale shared by every splitter: when a chunk can end
at several places, the packer prefers the strongest boundary (a block boundary over a
row boundary over a sentence boundary over a word …). ``NEVER`` marks the boundary
after an attach-forward block, where a chunk ends only if nothing else fits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType
from typing import Final

__all__ = [
    "DEFAULT_BEHAVIOUR",
    "Behaviour",
    "Splitter",
    "Strength",
    "behaviour_for",
    "item_strength",
]


class Strength(IntEnum):
    """Ordered boundary strength; larger values are better places to end a chunk."""

    NEVER = -1
    CHARACTER = 0
    WORD = 10
    LINE = 20
    SENTENCE = 30
    CODE_BLANK = 40
    CODE_DEFINITION = 50
    UNIT = 60
    ROW = 70
    ITEM = 80
    BLOCK = 100
    SECTION = 200


def item_strength(depth: int) -> int:
    """Boundary strength before a list item: top-level items are the strongest."""
    return int(Strength.ITEM) - min(max(depth, 1) - 1, 9)


class Splitter(IntEnum):
    """Which splitter cuts an oversized block (``split/`` holds one module each)."""

    PROSE = 0
    CODE = 1
    TABLE = 2
    LIST = 3
    LINES = 4


@dataclass(frozen=True, slots=True)
class Behaviour:
    """What the packer needs to know about a block kind.

    ``splitter``: how an oversized block is cut. ``attach_forward``: the block opens what
    follows (a heading, or a lead-in paragraph such as "Improvements:") and never ends a
    chunk when more follows. ``overlap``: its
    trailing sentences may be repeated at the start of the next chunk (prose only, never
    code or tables).
    """

    splitter: Splitter
    attach_forward: bool = False
    overlap: bool = False


DEFAULT_BEHAVIOUR: Final = Behaviour(Splitter.PROSE)
_PROSE_WITH_OVERLAP: Final = Behaviour(Splitter.PROSE, overlap=True)
_LINES: Final = Behaviour(Splitter.LINES)

_TABLE: Mapping[str, Behaviour] = MappingProxyType(
    {
        "heading": Behaviour(Splitter.PROSE, attach_forward=True),
        "paragraph": _PROSE_WITH_OVERLAP,
        "blockquote": _PROSE_WITH_OVERLAP,
        "footnote": _PROSE_WITH_OVERLAP,
        "definition": _PROSE_WITH_OVERLAP,
        "caption": _PROSE_WITH_OVERLAP,
        "code": Behaviour(Splitter.CODE),
        "table": Behaviour(Splitter.TABLE),
        "list": Behaviour(Splitter.LIST),
        "html_block": _LINES,
        "math": _LINES,
        "line_block": _LINES,
        "front_matter": _LINES,
    }
)

# A structure whose preservation flag is off is cut like plain lines (code, tables) or
# prose (lists): coverage is kept, the structural preferences and context are dropped.
_RELAXED: Mapping[Splitter, Behaviour] = MappingProxyType(
    {
        Splitter.CODE: _LINES,
        Splitter.TABLE: _LINES,
        Splitter.LIST: _PROSE_WITH_OVERLAP,
    }
)


def behaviour_for(kind: str, *, code: bool, table: bool, lists: bool) -> Behaviour:
    """The behaviour of a block kind under the configuration's preservation flags."""
    behaviour = _TABLE.get(kind, DEFAULT_BEHAVIOUR)
    preserved = {Splitter.CODE: code, Splitter.TABLE: table, Splitter.LIST: lists}
    if not preserved.get(behaviour.splitter, True):
        return _RELAXED[behaviour.splitter]
    return behaviour
