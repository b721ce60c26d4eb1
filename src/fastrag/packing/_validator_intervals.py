"""Half-open interval arithmetic for the validator: merge, subtract, contain.

Every function takes and returns plain ``(start, end)`` pairs so the validator can compare
coverage claims without trusting any structure the engine built. Inputs to ``subtract``
and ``contains`` must already be merged (sorted, disjoint, adjacent runs coalesced); all
functions are linear or logarithmic, so validating a large document stays cheap.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

__all__ = ["Interval", "contains", "first_difference", "merge", "subtract"]

Interval = tuple[int, int]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sort, drop empty intervals and coalesce overlapping or adjacent ones."""
    merged: list[Interval] = []
    for start, end in sorted(interval for interval in intervals if interval[0] < interval[1]):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def subtract(minuend: Sequence[Interval], subtrahend: Sequence[Interval]) -> list[Interval]:
    """The parts of ``minuend`` not inside ``subtrahend`` (both merged), in order."""
    result: list[Interval] = []
    position = 0
    for start, end in minuend:
        cursor = start
        while position < len(subtrahend) and subtrahend[position][1] <= cursor:
            position += 1
        probe = position
        while probe < len(subtrahend) and subtrahend[probe][0] < end:
            hole_start, hole_end = subtrahend[probe]
            if hole_start > cursor:
                result.append((cursor, hole_start))
            cursor = max(cursor, hole_end)
            if cursor >= end:
                break
            probe += 1
        if cursor < end:
            result.append((cursor, end))
    return result


def contains(merged: Sequence[Interval], starts: Sequence[int], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies inside one interval of ``merged``.

    ``starts`` is ``[s for s, _ in merged]``, passed in so repeated lookups share it.
    An empty range is contained when it touches a merged interval.
    """
    position = bisect_right(starts, start) - 1
    if position < 0:
        return False
    outer_start, outer_end = merged[position]
    return outer_start <= start and end <= outer_end


def first_difference(
    expected: Sequence[Interval], actual: Sequence[Interval]
) -> tuple[Interval | None, Interval | None]:
    """The first range ``expected`` has and ``actual`` lacks, and the reverse."""
    missing = subtract(expected, actual)
    extra = subtract(actual, expected)
    return (missing[0] if missing else None, extra[0] if extra else None)
