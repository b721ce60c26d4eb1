"""``segments``: runs cut where the covering chunks change, on hand-built spans."""

from __future__ import annotations

from typing import Any

from fastrag.inspection._segments import ChunkSpans, Segment, chunk_spans, segments


def _record(start: int | None, end: int | None, **metadata: Any) -> dict[str, Any]:
    return {"char_start": start, "char_end": end, "metadata": metadata}


def test_adjacent_chunks_and_uncovered_ends() -> None:
    spans = [ChunkSpans(((2, 5),), (), (2, 5)), ChunkSpans(((5, 8),), (), (5, 8))]
    assert segments(10, spans) == [
        Segment(0, 2, (), (), (), ()),
        Segment(2, 5, (0,), (), (0,), (0,)),
        Segment(5, 8, (1,), (), (1,), (1,)),
        Segment(8, 10, (), (), (), ()),
    ]


def test_a_gap_inside_a_chunk_is_its_gap_not_uncovered_text() -> None:
    # Retained text at [0, 3) and [6, 9); [3, 6) is markup the chunk spans but drops.
    spans = [ChunkSpans(((0, 3), (6, 9)), (), (0, 9))]
    assert segments(9, spans) == [
        Segment(0, 3, (0,), (), (0,), (0,)),
        Segment(3, 6, (), (), (0,), ()),
        Segment(6, 9, (0,), (), (0,), ()),
    ]


def test_overlap_intervals_mark_the_previous_chunks_text() -> None:
    spans = [ChunkSpans(((0, 10),), (), (0, 10)), ChunkSpans(((10, 20),), ((6, 10),), (10, 20))]
    assert segments(20, spans) == [
        Segment(0, 6, (0,), (), (0,), (0,)),
        Segment(6, 10, (0,), (1,), (0,), ()),
        Segment(10, 20, (1,), (), (1,), (1,)),
    ]


def test_text_two_chunks_own_is_overlap_of_the_second() -> None:
    # The recursive splitter records no intervals: its chunks' spans simply overlap.
    spans = [ChunkSpans(((0, 10),), (), (0, 10)), ChunkSpans(((7, 15),), (), (7, 15))]
    assert segments(15, spans) == [
        Segment(0, 7, (0,), (), (0,), (0,)),
        Segment(7, 10, (0, 1), (1,), (0, 1), (1,)),
        Segment(10, 15, (1,), (), (1,), ()),
    ]


def test_unlocated_chunks_and_out_of_range_offsets_are_tolerated() -> None:
    spans = [ChunkSpans((), (), None), ChunkSpans(((-3, 4), (4, 99)), (), (-3, 99))]
    assert segments(6, spans) == [Segment(0, 6, (1,), (), (1,), (1,))]
    assert segments(0, spans) == []


def test_chunk_spans_reads_the_record_by_offset_mode() -> None:
    mapped = _record(0, 9, offset_mode="map", retained_intervals=[[0, 3], [6, 9]])
    assert chunk_spans(mapped) == ChunkSpans(((0, 3), (6, 9)), (), (0, 9))
    verbatim = _record(4, 8, offset_mode="verbatim", overlap_intervals=[[1, 4], "bad"])
    assert chunk_spans(verbatim) == ChunkSpans(((4, 8),), ((1, 4),), (4, 8))
    assert chunk_spans(_record(None, None, offset_mode="none")) == ChunkSpans((), (), None)
