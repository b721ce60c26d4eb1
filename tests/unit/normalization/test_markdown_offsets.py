"""``ByteToChar`` (byte offsets to code points, both ways) and the HTML blocks' exclusions."""

from __future__ import annotations

from array import array
from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.normalization.formats._markdown_html import _insert_sorted, _splice
from fastrag.normalization.formats._markdown_offsets import _BLOCK, _SLICE, ByteToChar

TEXT = st.lists(
    st.sampled_from(["a", " ", "\n", "é", "→", "中", "😀", "z" * 40, "y" * 1500]), max_size=60
).map("".join)
"""Mostly ASCII with every UTF-8 length, long enough to cross 4 KiB blocks."""


def boundaries(text: str) -> tuple[bytes, list[int], list[int]]:
    """The UTF-8 bytes, each character boundary's byte offset and its code-point offset."""
    data = text.encode("utf-8")
    byte_offsets = [0, *accumulate(len(character.encode("utf-8")) for character in text)]
    return data, byte_offsets, list(range(len(text) + 1))


@settings(max_examples=200, deadline=None)
@given(TEXT, st.integers(0, 5))
def test_sparse_and_dense_maps_agree_with_decoding(text: str, base: int) -> None:
    data, offsets, expected = boundaries(text)
    shifted = [offset + base for offset in expected]
    sparse = ByteToChar.sparse(data, base, most=len(data) + 1)
    assert sparse is not None
    assert list(sparse.many(offsets)) == shifted
    assert list(ByteToChar.dense(data, list(offsets), base).many(offsets)) == shifted
    if offsets:
        assert sparse(offsets[-1]) == shifted[-1]


def test_runs_across_a_block_boundary_and_the_run_limit() -> None:
    # A multi-byte character straddling a 4 KiB block edge is counted once.
    for before in range(_BLOCK - 4, _BLOCK + 1):
        text = "a" * before + "😀" + "b" * 10 + "é"
        data, offsets, expected = boundaries(text)
        sparse = ByteToChar.sparse(data, 0, most=10)
        assert sparse is not None and list(sparse.many(offsets)) == expected, before
    # Inside a non-ASCII block, one straddling a 64-byte slice edge is counted once too.
    for before in range(_SLICE - 4, 3 * _SLICE + 1):
        text = "é" + "a" * before + "😀" + "b" * (_BLOCK // 2) + "→"
        data, offsets, expected = boundaries(text)
        sparse = ByteToChar.sparse(data, 0, most=10)
        assert sparse is not None and list(sparse.many(offsets)) == expected, before
    assert ByteToChar.sparse("é".encode() * 20, 0, most=10) is None  # dense is cheaper
    assert list(ByteToChar(3).many([0, 5])) == [3, 8]  # ASCII: the identity, shifted


def test_a_dense_list_of_offsets_is_consumed_and_the_table_closed() -> None:
    data, offsets, expected = boundaries("é中x")
    scratch = list(offsets)
    mapper = ByteToChar.dense(data, scratch, 0)
    assert scratch == [] and list(mapper.many(offsets)) == expected
    mapper.close()
    try:
        mapper.many(offsets)
    except KeyError:
        pass
    else:
        raise AssertionError("a closed table must not answer")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.sampled_from("ab"))),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.sampled_from("ab"))),
)
def test_exclusions_from_html_blocks_go_where_sorting_all_would_put_them(
    existing: list[tuple[int, int, str]], added: list[tuple[int, int, str]]
) -> None:
    existing.sort()  # the draft's, in source order
    exclusions = (
        array("q", [item[0] for item in existing]),
        array("q", [item[1] for item in existing]),
        [item[2] for item in existing],
    )
    _insert_sorted(exclusions, sorted(added))
    expected = sorted([*existing, *added])
    assert list(zip(*exclusions, strict=True)) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=30), st.data())
def test_a_splice_of_parallel_columns_equals_editing_them_one_by_one(
    values: list[int], data: st.DataObject
) -> None:
    chosen = data.draw(st.sets(st.integers(0, max(len(values) - 1, 0)), max_size=len(values)))
    edits = [
        (index, int(index < len(values)), ([index * 100] * (index % 3), ["x"] * (index % 3)))
        for index in sorted(chosen)
    ]
    numbers, labels = array("q", values), [str(value) for value in values]
    expected_numbers, expected_labels = list(values), list(labels)
    for index, removed, (new_numbers, new_labels) in reversed(edits):
        expected_numbers[index : index + removed] = new_numbers
        expected_labels[index : index + removed] = new_labels
    _splice((numbers, labels), edits)
    assert list(numbers) == expected_numbers and labels == expected_labels
