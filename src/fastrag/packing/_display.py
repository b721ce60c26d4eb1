"""A block's display text and the runs that tie every character of it to its source.

A block's units are grouped by the node that owns them. An owner without a
``serialization`` (text, Markdown, reStructuredText) is shown as its exact source: its
units and the whitespace between them. An owner with one (HTML) is shown as its readable
``text``; its map segments become runs. Segments are checked rather than trusted:

* a segment of equal lengths is verbatim only where the characters really are equal
  (collapsed whitespace keeps the length but not the text): differing characters become
  small ``RENDERED`` runs, the rest stays ``SOURCE`` and can be cut anywhere;
* unit source that no segment shows (inline tags inside a paragraph's unit) is absorbed
  by the neighbouring run, which then renders it — so every retained character is shown
  by exactly one run, as the contract requires;
* anything inconsistent (a segment outside the owner's units, overlapping segments)
  falls back to the source display, which is always correct.

Between owners, whitespace source is copied verbatim (``GAP``); anything else (markup)
is replaced by an inserted line break.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import groupby
from operator import itemgetter
from typing import Final

__all__ = ["RETAINED", "Display", "Owner", "Run", "RunKind", "block_display"]


class RunKind:
    """Where the characters of one display run come from: plain ``int`` constants.

    Not an ``IntEnum``: an enum member is an object the cyclic garbage collector tracks,
    so every run tuple holding one stayed tracked for good and every full collection
    walked all of a document's runs (hundreds of thousands on HTML). A tuple of plain
    ints is untracked at the first collection it survives. Looking a constant up is
    also several times cheaper than an enum member. The renderer indexes a table by
    these values and treats ``<= RENDERED`` as retained: keep the retained kinds first
    and the values dense.
    """

    SOURCE: Final = 0
    """Retained source, shown verbatim."""
    RENDERED: Final = 1
    """Retained source shown differently (an entity decoded, whitespace collapsed)."""
    GAP: Final = 2
    """Whitespace-only excluded source between two units, copied verbatim."""
    INSERTED: Final = 3
    """Whitespace the display adds (no source)."""
    LABEL: Final = 4
    """Non-whitespace the display adds, e.g. an HTML list bullet (no source)."""

    ALL: Final = (0, 1, 2, 3, 4)
    """Every kind, in value order."""


Run = tuple[int, int, int, int, int]
"""``(display_start, display_end, source_start, source_end, RunKind)``; -1 sources for
inserted runs."""

Slot = tuple[int, int, str]
Unit = tuple[int, int, str]
"""A coverage unit as ``(start, end, owner node id)``, read from the tree's ``Units``."""
Display = tuple[str, tuple[Run, ...], tuple[Slot, ...]]
Segment = tuple[int, int, int, int]
"""A map segment as ``(display_start, display_end, source_start, source_end)``."""


class Owner:
    """What a block's display needs of a node owning some of its units.

    Not the ``NormalizedNode``: a columnar tree (``Nodes``) would build one, spans,
    children and attributes included, for each owner of every block, and its map
    segments one object per run; here a map is plain ``Segment`` tuples, read from the
    tree's flat offsets (``Nodes.map_offsets``) or from the node's segments.
    """

    __slots__ = ("kind", "node_id", "segments", "text")

    def __init__(self, node_id: str, kind: str, text: str, segments: list[Segment]) -> None:
        self.node_id = node_id
        self.kind = kind
        self.text = text
        """The node's text: what it shows when it has a map."""
        self.segments = segments
        """Its serialization map; empty when it has none (shown as its source)."""


RETAINED: Final = (RunKind.SOURCE, RunKind.RENDERED)
_SPACE: Final = re.compile(r"\s")
_TIGHT_KINDS: Final = frozenset({"table", "list"})
_TABLE_ROW: Final = "table_row"
_DISPLAY_START: Final = itemgetter(0)
_OWNER: Final = itemgetter(2)
_SPAN_END: Final = itemgetter(1)


def block_display(
    content: str,
    owner_of: Callable[[str], Owner],
    serialized: frozenset[str],
    units: Sequence[Unit],
    kind: str,
    *,
    shared_texts: bool = True,
) -> Display:
    """Display text, runs and unit slots of one block's units (in source order).

    ``serialized`` holds the ids of the nodes that carry a serialization map; when no
    unit of the block is owned by one, the block is shown as its source, in one pass.
    ``shared_texts``: a node's text may be the very string to show, kept by the tree
    (not so for ``Nodes``, which cut a leaf's text anew on each access).
    """
    first = units[0]
    joiner = "\n" if kind in _TIGHT_KINDS else "\n\n"
    if not serialized or serialized.isdisjoint(map(_OWNER, units)):
        if len(units) == 1:
            start, end, owner = first
            length = end - start
            # A leaf node's text is usually this very slice: share it, don't copy it
            # (memory: block texts are the layout's largest part on Markdown).
            own = owner_of(owner).text if shared_texts else ""
            if len(own) != length or not content.startswith(own, start):
                own = content[start:end]
            return (
                own,
                ((0, length, start, end, RunKind.SOURCE),),
                ((0, length, owner),),
            )
        return _verbatim(units, content, joiner)
    parts: list[str] = []
    runs: list[Run] = []
    slots: list[Slot] = []
    position = 0
    previous_end = -1
    previous_kind = ""
    for owner_id, grouped in groupby(units, key=_OWNER):
        group = list(grouped)
        node = owner_of(owner_id)
        shown = _serialized(node, group, content) if node.segments else None
        text, local_runs, local_slots = shown or _verbatim(group, content, joiner)
        start = group[0][0]
        if previous_end >= 0 and start > previous_end:
            gap = content[previous_end:start]
            if gap.isspace():
                runs.append((position, position + len(gap), previous_end, start, RunKind.GAP))
            else:
                # Rows of a table nested in another block (a definition, a list item)
                # stay one table: a blank line between rows would end it.
                gap = "\n" if previous_kind == node.kind == _TABLE_ROW else joiner
                runs.append((position, position + len(gap), -1, -1, RunKind.INSERTED))
            parts.append(gap)
            position += len(gap)
        parts.append(text)
        if position:
            runs.extend(
                (d0 + position, d1 + position, s0, s1, k) for d0, d1, s0, s1, k in local_runs
            )
            slots.extend((d0 + position, d1 + position, owner) for d0, d1, owner in local_slots)
        else:  # the first owner's runs need no shift (usually the only owner)
            runs.extend(local_runs)
            slots.extend(local_slots)
        position += len(text)
        previous_end = group[-1][1]
        previous_kind = node.kind
    return "".join(parts), tuple(runs), tuple(slots)


def _verbatim(units: Sequence[Unit], content: str, joiner: str) -> Display:
    """Units joined by the whitespace between them, as the source has them."""
    parts: list[str] = []
    runs: list[Run] = []
    slots: list[Slot] = []
    position = 0
    previous_end = -1
    # Locals: this loop runs once per unit of every list and table of a document.
    source, gap_kind, inserted = RunKind.SOURCE, RunKind.GAP, RunKind.INSERTED
    for start, end, owner in units:
        if start > previous_end >= 0:
            gap = content[previous_end:start]
            if gap.isspace():
                runs.append((position, position + len(gap), previous_end, start, gap_kind))
            else:
                gap = joiner
                runs.append((position, position + len(gap), -1, -1, inserted))
            parts.append(gap)
            position += len(gap)
        stop = position + end - start
        parts.append(content[start:end])
        runs.append((position, stop, start, end, source))
        slots.append((position, stop, owner))
        position = stop
        previous_end = end
    return "".join(parts), tuple(runs), tuple(slots)


def _serialized(node: Owner, units: Sequence[Unit], content: str) -> Display | None:
    """The node's readable text with checked runs; None when its map cannot be trusted."""
    if len(units) == 1:
        shown = _single(node, units[0][0], units[0][1], content)
        if shown is not None:
            return shown
    return _general(node, units, content)


def _single(node: Owner, low: int, high: int, content: str) -> Display | None:
    """``_general`` for a node of one unit ``[low, high)`` whose map is in source order.

    The common HTML case (a paragraph is one unit; its map segments are the text between
    inline tags, in source order; each tag is a hole in the unit's source between two
    runs). This builds the runs and fills the holes in one pass, exactly as ``_absorb``
    would: a hole goes to the retained run ending where it starts (a verbatim run gives
    up its last character to a rendered run that takes the hole); only a hole at the
    unit's start goes to the run starting where it ends, after all the others. No sort,
    no dictionary, no second walk. ``None`` hands anything else to the general path:
    a retained run that is empty, outside the unit or before the previous one; no
    retained run at all; a segment ``_general`` would reject.
    """
    text = node.text
    size = len(text)
    segments = node.segments
    starts = list(map(_DISPLAY_START, segments))
    if starts != sorted(starts):
        return None
    spans = ((low, high),)
    out: list[Run] = []
    position = 0
    covered = low
    # Indices in ``out`` of the last retained run (a hole after it may still reach it)
    # and of the first one.
    held = first = -1
    source, startswith = RunKind.SOURCE, content.startswith
    for d0, d1, s0, s1 in segments:
        if d0 < position or d1 > size or s0 < low or s1 > high:
            return None
        if d0 > position:
            out.append(_inserted(text, position, d0))
        position = d1
        if d1 - d0 == s1 - s0 and startswith(text[d0:d1], s0):
            # the common case, inlined: one verbatim run
            if d1 == d0 or s0 < covered:
                return None
            if held < 0:
                first = len(out)
            elif s0 > covered:
                _fill(out, held, s0)
            held = len(out)
            out.append((d0, d1, s0, s1, source))
            covered = s1
            continue
        for run in _single_segment_runs(text, content, d0, d1, s0, s1, spans):
            r0, r1, r2, r3, kind = run
            if kind != source and kind != RunKind.RENDERED:
                out.append(run)
                continue
            if r1 <= r0 or r3 <= r2 or r2 < covered or r3 > high:
                return None
            if held < 0:
                first = len(out)
            elif r2 > covered:
                _fill(out, held, r2)
            held = len(out)
            out.append(run)
            covered = r3
    if position < size:
        out.append(_inserted(text, position, size))
    if held < 0:
        return None
    slot = (out[first][0], out[held][1], node.node_id)
    if covered < high:
        _fill(out, held, high)
    if out[first][2] > low:
        _fill_start(out, first, low)
    return text, tuple(out), (slot,)


def _single_segment_runs(
    text: str, content: str, d0: int, d1: int, s0: int, s1: int, spans: Sequence[tuple[int, int]]
) -> list[Run]:
    """``_segment_runs`` for a segment inside a node's only unit (no clipping to do).

    Its two common cases directly: collapsed spaces (lengths differ: one rendered run)
    and line breaks shown as spaces (same length: verbatim stretches between rendered
    runs of the breaks, found with ``str.find`` instead of two regex scans and a sort).
    """
    if d1 - d0 != s1 - s0:
        if d1 > d0 and s1 > s0:
            return [(d0, d1, s0, s1, RunKind.RENDERED)]
        return _segment_runs(text, content, d0, d1, s0, s1, spans)
    original = content[s0:s1]
    if text[d0:d1] != original.replace("\n", " "):
        return _segment_runs(text, content, d0, d1, s0, s1, spans)
    runs: list[Run] = []
    cursor = 0
    find = original.find
    found = find("\n")
    while found >= 0:
        last = found + 1
        while last < len(original) and original[last] == "\n":
            last += 1
        if found > cursor:
            runs.append((d0 + cursor, d0 + found, s0 + cursor, s0 + found, RunKind.SOURCE))
        runs.append((d0 + found, d0 + last, s0 + found, s0 + last, RunKind.RENDERED))
        cursor = last
        found = find("\n", last)
    if cursor < len(original):
        runs.append((d0 + cursor, d1, s0 + cursor, s1, RunKind.SOURCE))
    return runs


def _fill(out: list[Run], index: int, hole_end: int) -> None:
    """Give the hole from the end of retained run ``out[index]`` to ``hole_end`` to it."""
    d0, d1, s0, s1, kind = out[index]
    if kind == RunKind.RENDERED:
        out[index] = (d0, d1, s0, hole_end, kind)
    elif d1 - 1 > d0:
        out[index : index + 1] = [
            (d0, d1 - 1, s0, s1 - 1, kind),
            (d1 - 1, d1, s1 - 1, hole_end, RunKind.RENDERED),
        ]
    else:
        out[index] = (d0, d1, s0, hole_end, RunKind.RENDERED)


def _fill_start(out: list[Run], index: int, low: int) -> None:
    """Give the hole from ``low`` to the start of retained run ``out[index]`` to it."""
    d0, d1, s0, s1, kind = out[index]
    if kind == RunKind.RENDERED:
        out[index] = (d0, d1, low, s1, kind)
    elif d1 > d0 + 1:
        out[index : index + 1] = [
            (d0, d0 + 1, low, s0 + 1, RunKind.RENDERED),
            (d0 + 1, d1, s0 + 1, s1, kind),
        ]
    else:
        out[index] = (d0, d1, low, s1, RunKind.RENDERED)


def _general(node: Owner, units: Sequence[Unit], content: str) -> Display | None:
    """Any node: runs per segment (clipped to the units), holes filled by ``_absorb``."""
    text = node.text
    size = len(text)
    spans = [(start, end) for start, end, _ in units]
    low, high = spans[0][0], spans[-1][1]
    runs: list[Run] = []
    position = 0
    # One unit spanning every segment: verbatim segments need no clipping.
    single = len(spans) == 1
    segments = node.segments
    starts = list(map(_DISPLAY_START, segments))
    if starts != sorted(starts):  # C-level check; maps are almost always in order
        segments = sorted(segments, key=_DISPLAY_START)
    for d0, d1, s0, s1 in segments:
        if d0 < position or d1 > size or s0 < low or s1 > high:
            return None
        if d0 > position:
            runs.append(_inserted(text, position, d0))
        # the common case, inlined: an exact copy of one unit's source
        if single and d1 - d0 == s1 - s0 and content.startswith(text[d0:d1], s0):
            runs.append((d0, d1, s0, s1, RunKind.SOURCE))
        else:
            runs.extend(_segment_runs(text, content, d0, d1, s0, s1, spans))
        position = d1
    if position < size:
        runs.append(_inserted(text, position, size))
    if single:
        tiled = _tiled(runs, low, high)
        if tiled is not None:
            return text, tuple(runs), ((*tiled, node.node_id),)
    absorbed = _absorb(runs, spans)
    if absorbed is None:
        return None
    slots: list[Slot] = []
    retained = sorted((run[2], run[0], run[1]) for run in absorbed if run[4] in RETAINED)
    cursor = 0
    for start, end in spans:
        while cursor < len(retained) and retained[cursor][0] < start:
            cursor += 1
        first = cursor
        while cursor < len(retained) and retained[cursor][0] < end:
            cursor += 1
        if first == cursor:
            return None
        inside = retained[first:cursor]
        slots.append((min(d0 for _, d0, _ in inside), max(d1 for _, _, d1 in inside), node.node_id))
    return text, tuple(absorbed), tuple(slots)


def _tiled(runs: list[Run], low: int, high: int) -> tuple[int, int] | None:
    """The slot of one unit ``[low, high)`` whose retained runs tile it in display order.

    The common case: then ``_absorb`` has no hole to fill and the slot is the display
    range of those runs, found in one pass instead of a sort and a search. ``None``
    when the runs do anything else (the general path decides).
    """
    covered, first, last = low, -1, -1
    for d0, d1, s0, s1, kind in runs:
        if kind == RunKind.SOURCE or kind == RunKind.RENDERED:
            if s0 != covered:
                return None
            covered = s1
            if s0 < high:  # an empty run at the unit's end is outside its slot
                if first < 0:
                    first = d0
                last = d1
    if covered != high or first < 0:
        return None
    return first, last


def _inserted(text: str, start: int, end: int) -> Run:
    kind = RunKind.INSERTED if text[start:end].isspace() else RunKind.LABEL
    return (start, end, -1, -1, kind)


def _segment_runs(
    text: str,
    content: str,
    d0: int,
    d1: int,
    s0: int,
    s1: int,
    spans: Sequence[tuple[int, int]],
) -> list[Run]:
    """Runs of one map segment: verbatim where equal, rendered elsewhere, clipped to units."""
    shown, original = text[d0:d1], content[s0:s1]
    if len(shown) != len(original):
        return [_rendered(d0, d1, s0, s1, spans, shown)]
    if shown == original:
        return _clip_verbatim(d0, d1, s0, content, spans)
    # Equal length, different text: collapsed or translated whitespace. Only positions
    # where either side is whitespace can differ; anything else is not a copy at all.
    suspects = sorted(
        {m.start() for m in _SPACE.finditer(shown)} | {m.start() for m in _SPACE.finditer(original)}
    )
    differing = [index for index in suspects if shown[index] != original[index]]
    runs: list[Run] = []
    cursor = 0
    for index, group in groupby(enumerate(differing), key=lambda pair: pair[1] - pair[0]):
        del index
        members = [position for _, position in group]
        first, last = members[0], members[-1] + 1
        if first > cursor:
            if shown[cursor:first] != original[cursor:first]:
                return [_rendered(d0, d1, s0, s1, spans, shown)]
            runs.extend(_clip_verbatim(d0 + cursor, d0 + first, s0 + cursor, content, spans))
        runs.append(_rendered(d0 + first, d0 + last, s0 + first, s0 + last, spans, shown))
        cursor = last
    if cursor < len(shown):
        if shown[cursor:] != original[cursor:]:
            return [_rendered(d0, d1, s0, s1, spans, shown)]
        runs.extend(_clip_verbatim(d0 + cursor, d1, s0 + cursor, content, spans))
    return runs


def _rendered(
    d0: int, d1: int, s0: int, s1: int, spans: Sequence[tuple[int, int]], shown: str
) -> Run:
    """A rendered run whose source is clipped to the first unit it touches."""
    index = bisect_right(spans, s0, key=_SPAN_END)  # the first unit ending after s0
    if index < len(spans):
        start, end = spans[index]
        if start < s1 and s0 < end:
            return (d0, d1, max(s0, start), min(s1, end), RunKind.RENDERED)
    del shown
    return (d0, d1, -1, -1, RunKind.LABEL)


def _clip_verbatim(
    d0: int, d1: int, s0: int, content: str, spans: Sequence[tuple[int, int]]
) -> list[Run]:
    """A verbatim range cut into retained pieces and (whitespace or shown) excluded ones."""
    runs: list[Run] = []
    s1 = s0 + (d1 - d0)
    position = s0
    # Units are sorted and disjoint: start at the first one ending after s0 (a node of
    # thousands of units — a table read from a Markdown HTML block — stays linear).
    for index in range(bisect_right(spans, s0, key=_SPAN_END), len(spans)):
        start, end = spans[index]
        if start >= s1:
            break
        if start > position:
            runs.append(_outside(d0 + position - s0, d0 + start - s0, position, start, content))
        low, high = max(position, start), min(s1, end)
        runs.append((d0 + low - s0, d0 + high - s0, low, high, RunKind.SOURCE))
        position = high
    if position < s1:
        runs.append(_outside(d0 + position - s0, d1, position, s1, content))
    return runs


def _outside(d0: int, d1: int, s0: int, s1: int, content: str) -> Run:
    if content[s0:s1].isspace():
        return (d0, d1, s0, s1, RunKind.GAP)
    return (d0, d1, -1, -1, RunKind.LABEL)


def _absorb(runs: list[Run], spans: Sequence[tuple[int, int]]) -> list[Run] | None:
    """Give unit source no run shows (inline tags …) to a neighbouring run to render.

    A hole goes to the retained run that ends where it starts, else to the one that
    starts where it ends; a verbatim run gives up one character to a rendered run that
    takes the hole. Two linear passes; None when a hole has no neighbour.
    """
    shown = sorted((run[2], run[3]) for run in runs if run[4] in RETAINED)
    holes: dict[int, int] = {}
    cursor = 0
    for start, end in spans:
        position = start
        while cursor < len(shown) and shown[cursor][1] <= position:
            cursor += 1
        probe = cursor
        while probe < len(shown) and shown[probe][0] < end:
            low, high = shown[probe]
            if low > position:
                holes[position] = low
            position = max(position, high)
            probe += 1
        if position < end:
            holes[position] = end
    if not holes:
        return runs
    after: list[Run] = []
    for run in runs:
        d0, d1, s0, s1, kind = run
        hole_end = holes.pop(s1) if kind in RETAINED and s1 in holes else None
        if hole_end is None:
            after.append(run)
        elif kind == RunKind.RENDERED:
            after.append((d0, d1, s0, hole_end, kind))
        else:
            if d1 - 1 > d0:
                after.append((d0, d1 - 1, s0, s1 - 1, kind))
            after.append((d1 - 1, d1, s1 - 1, hole_end, RunKind.RENDERED))
    if not holes:
        return after
    ends = {high: low for low, high in holes.items()}
    before: list[Run] = []
    for run in after:
        d0, d1, s0, s1, kind = run
        hole_start = ends.pop(s0) if kind in RETAINED and s0 in ends else None
        if hole_start is None:
            before.append(run)
        elif kind == RunKind.RENDERED:
            before.append((d0, d1, hole_start, s1, kind))
        else:
            before.append((d0, d0 + 1, hole_start, s0 + 1, RunKind.RENDERED))
            if d1 > d0 + 1:
                before.append((d0 + 1, d1, s0 + 1, s1, kind))
    return None if ends else before
