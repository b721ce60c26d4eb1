"""Cut a document's text into runs that every chunk covers in the same way.

The page colours a run by the chunk that owns it, so the text must first be split at
every place where the set of covering chunks changes. A chunk covers source text in three
ways, taken from its record:

- ``primary``: the text it newly retains — a structural chunk's ``retained_intervals``
  (exact; HTML markup between them is not retained), else ``[char_start, char_end)``;
- ``overlap``: text repeated from its predecessor (``overlap_intervals``); for chunkers
  that record no intervals (the recursive splitter), text two chunks' primary spans
  share is overlap too;
- ``extent``: ``[char_start, char_end)``, so markup or whitespace the normalizer left out
  *inside* a chunk shows as a gap of that chunk rather than as uncovered text.

One sweep over the sorted interval ends (a boundary list, not a per-character loop),
then adjacent runs with the same covering sets are merged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

__all__ = ["ChunkSpans", "Segment", "chunk_spans", "segments"]

Interval = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ChunkSpans:
    """Where one chunk sits in the parent's text; all empty when it was not located."""

    primary: tuple[Interval, ...]
    overlap: tuple[Interval, ...]
    extent: Interval | None


@dataclass(frozen=True, slots=True)
class Segment:
    """A run ``[start, end)`` of the text and the chunks (by position) that cover it."""

    start: int
    end: int
    owners: tuple[int, ...]
    """Chunks whose primary content holds this run, in chunk order."""
    overlaps: tuple[int, ...]
    """Chunks that repeat this run as overlap."""
    inside: tuple[int, ...]
    """Chunks whose ``[char_start, char_end)`` spans this run (owned or not)."""
    starts: tuple[int, ...]
    """Chunks whose ``char_start`` is this run's ``start``: a boundary marker goes here."""


def _pairs(value: object) -> tuple[Interval, ...]:
    """``[[start, end], …]`` from record metadata; anything malformed counts as absent."""
    if not isinstance(value, list | tuple):
        return ()
    return tuple(
        (item[0], item[1])
        for item in value
        if isinstance(item, list | tuple)
        and len(item) == 2
        and all(type(number) is int for number in item)
    )


def chunk_spans(record: Mapping[str, Any]) -> ChunkSpans:
    """The intervals of one record (see the module docstring)."""
    start, end = record.get("char_start"), record.get("char_end")
    if type(start) is not int or type(end) is not int:
        return ChunkSpans((), (), None)
    metadata = record.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    retained = _pairs(metadata.get("retained_intervals"))
    primary = retained if metadata.get("offset_mode") == "map" and retained else ((start, end),)
    return ChunkSpans(primary, _pairs(metadata.get("overlap_intervals")), (start, end))


def segments(length: int, spans: Sequence[ChunkSpans]) -> list[Segment]:
    """Runs covering ``[0, length)`` exactly, in order; intervals are clipped to the text."""
    events: dict[int, list[tuple[str, int, int]]] = {0: [], length: []}
    starts: dict[int, list[int]] = {}

    def add(kind: str, position: int, intervals: Iterable[Interval]) -> None:
        for low, high in intervals:
            low, high = max(0, low), min(length, high)
            if low < high:
                events.setdefault(low, []).append((kind, position, 1))
                events.setdefault(high, []).append((kind, position, -1))

    for position, span in enumerate(spans):
        add("primary", position, span.primary)
        add("overlap", position, span.overlap)
        if span.extent is not None:
            add("extent", position, (span.extent,))
            at = min(max(0, span.extent[0]), length)
            starts.setdefault(at, []).append(position)
            events.setdefault(at, [])
    active: dict[str, Counter[int]] = {kind: Counter() for kind in ("primary", "overlap", "extent")}
    points = sorted(events)
    runs: list[Segment] = []
    for low, high in pairwise(points):
        for kind, position, delta in events[low]:
            active[kind][position] += delta
        owners = _members(active["primary"])
        run = Segment(
            low,
            high,
            owners,
            # A second owner of the same text is overlap too (recursive splitter).
            tuple(sorted(set(_members(active["overlap"])) | set(owners[1:]))),
            _members(active["extent"]),
            tuple(starts.get(low, ())),
        )
        previous = runs[-1] if runs else None
        if previous is not None and not run.starts and _same_cover(previous, run):
            runs[-1] = Segment(
                previous.start, high, run.owners, run.overlaps, run.inside, previous.starts
            )
        else:
            runs.append(run)
    return runs


def _members(counter: Counter[int]) -> tuple[int, ...]:
    return tuple(sorted(position for position, count in counter.items() if count > 0))


def _same_cover(left: Segment, right: Segment) -> bool:
    return (left.owners, left.overlaps, left.inside) == (right.owners, right.overlaps, right.inside)
