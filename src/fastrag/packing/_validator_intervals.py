"""Half-open interval arithmetic for the validator: merge, subtract, contain, find gaps.

Every function takes and returns plain ``(start, end)`` pairs so the validator can compare
coverage claims without trusting any structure the engine built. Inputs to ``subtract``,
``contains`` and ``gap_columns`` must already be merged (sorted, disjoint, adjacent runs
coalesced); every function is linear or logarithmic, so validating a large document stays
linear: the validator sorts once and sweeps, or bisects, never rescans from the start.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

__all__ = [
    "Interval",
    "contains",
    "first_difference",
    "first_missing",
    "gap_columns",
    "merge",
    "subtract",
]

Interval = tuple[int, int]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sort, drop empty intervals and coalesce overlapping or adjacent ones."""
    merged: list[Interval] = []
    append = merged.append
    # One tuple per merged result, not per input: the open interval lives in two locals.
    # Sorting an already sorted list (the usual case: runs and units in source order)
    # is a linear Timsort pass.
    ordered = iter(sorted(intervals))
    for current_start, current_end in ordered:
        if current_start < current_end:
            break
    else:
        return merged
    for start, end in ordered:
        if start >= end:
            continue
        if start <= current_end:
            if end > current_end:
                current_end = end
        else:
            append((current_start, current_end))
            current_start, current_end = start, end
    append((current_start, current_end))
    return merged


def subtract(minuend: Sequence[Interval], subtrahend: Sequence[Interval]) -> list[Interval]:
    """The parts of ``minuend`` not inside ``subtrahend`` (both merged), in order."""
    result: list[Interval] = []
    position = 0
    count = len(subtrahend)
    for start, end in minuend:
        cursor = start
        while position < count and subtrahend[position][1] <= cursor:
            position += 1
        probe = position
        while probe < count and subtrahend[probe][0] < end:
            hole_start, hole_end = subtrahend[probe]
            if hole_start > cursor:
                result.append((cursor, hole_start))
            if hole_end > cursor:
                cursor = hole_end
            if cursor >= end:
                break
            probe += 1
        if cursor < end:
            result.append((cursor, end))
    return result


def first_missing(expected: Sequence[Interval], actual: Sequence[Interval]) -> Interval | None:
    """The first range of ``expected`` outside ``actual`` (both merged), or None.

    ``subtract(expected, actual)[0]`` without building the rest: equal lists, the usual
    case for valid chunks, are settled by one C-level comparison.
    """
    if expected == actual:
        return None
    if (
        len(actual) == 1
        and expected
        and actual[0][0] <= expected[0][0]
        and expected[-1][1] <= actual[0][1]
    ):
        return None  # one interval spanning all of expected, as a Markdown chunk's run
    missing = subtract(expected, actual)
    return missing[0] if missing else None


def gap_columns(
    starts: Sequence[int], ends: Sequence[int], start: int, end: int
) -> tuple[list[int], list[int]]:
    """``subtract([(start, end)], merged)`` as columns of gap starts and gap ends.

    ``merged`` is given as its columns ``starts`` and ``ends`` (sorted, disjoint, not
    adjacent). Two bisects find the intervals that meet ``[start, end)``; the gaps
    between them are two slices, so a run spanning a whole chunk costs no Python loop
    over its blocks (a Markdown chunk is one run over every block and the whitespace
    between them).
    """
    low = bisect_right(ends, start)  # first interval ending after start
    high = bisect_left(starts, end)  # first interval starting at or after end
    if low >= high:
        return ([start], [end]) if start < end else ([], [])
    gap_starts = list(ends[low : high - 1])
    gap_ends = list(starts[low + 1 : high])
    if starts[low] > start:
        gap_starts.insert(0, start)
        gap_ends.insert(0, starts[low])
    if ends[high - 1] < end:
        gap_starts.append(ends[high - 1])
        gap_ends.append(end)
    return gap_starts, gap_ends


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
    if expected == actual:
        return (None, None)
    missing = subtract(expected, actual)
    extra = subtract(actual, expected)
    return (missing[0] if missing else None, extra[0] if extra else None)
