"""The normalized-tree values and ``NormalizedDocument.validate``."""

from __future__ import annotations

import pickle
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import NormalizationError
from fastrag.models import Document
from fastrag.normalization import (
    CoverageUnit,
    Exclusion,
    ExclusionColumns,
    Exclusions,
    MapSegment,
    NormalizedDocument,
    NormalizedNode,
    SourceSpan,
    UnitColumns,
    Units,
)
from fastrag.normalization.dump import dump_tree

CONTENT = "# T\n\nBody text.\n\n"  # 17 characters


def _document() -> Document:
    return Document("doc", "src", CONTENT, {"content_format": "markdown"})


def _tree(
    *,
    units: tuple[CoverageUnit, ...] | None = None,
    exclusions: tuple[Exclusion, ...] | None = None,
    nodes: tuple[NormalizedNode, ...] | None = None,
) -> NormalizedDocument:
    root = NormalizedNode("r", "document", "", (SourceSpan(0, 17),), children=("h", "p"))
    heading = NormalizedNode("h", "heading", "T", (SourceSpan(0, 3),), parent_id="r", level=1)
    paragraph = NormalizedNode("p", "paragraph", "Body text.", (SourceSpan(5, 15),), "r")
    default_units = (
        CoverageUnit("u1", "h", SourceSpan(0, 3)),
        CoverageUnit("u2", "p", SourceSpan(5, 15)),
    )
    default_exclusions = (
        Exclusion(SourceSpan(3, 5), "whitespace"),
        Exclusion(SourceSpan(15, 17), "whitespace"),
    )
    return NormalizedDocument(
        _document(),
        "markdown",
        nodes if nodes is not None else (root, heading, paragraph),
        units if units is not None else default_units,
        exclusions if exclusions is not None else default_exclusions,
    )


def test_a_valid_tree_validates_and_navigates() -> None:
    tree = _tree().validate()
    assert tree.root.node_id == "r"
    assert [child.node_id for child in tree.children(tree.root)] == ["h", "p"]
    assert [a.node_id for a in tree.ancestors(tree.node("p"))] == ["r"]
    assert "p" in tree and "x" not in tree
    assert tree.retained_characters == 13 and tree.excluded_characters == 4
    assert tree.node("p").text == CONTENT[5:15]
    with pytest.raises(KeyError, match="no node 'x'"):
        tree.node("x")


@pytest.mark.parametrize(
    ("units", "exclusions", "message"),
    [
        (
            (CoverageUnit("u1", "h", SourceSpan(0, 3)),),
            (Exclusion(SourceSpan(3, 5), "whitespace"), Exclusion(SourceSpan(15, 17), "w")),
            "gap at offset 5",
        ),
        (
            (CoverageUnit("u1", "h", SourceSpan(0, 4)), CoverageUnit("u2", "p", SourceSpan(5, 15))),
            (Exclusion(SourceSpan(3, 5), "whitespace"), Exclusion(SourceSpan(15, 17), "w")),
            "overlaps offset 4",
        ),
        (
            (CoverageUnit("u1", "h", SourceSpan(0, 3)), CoverageUnit("u2", "p", SourceSpan(5, 15))),
            (Exclusion(SourceSpan(3, 5), "whitespace"),),
            "coverage ends at 15",
        ),
        (
            (CoverageUnit("u1", "h", SourceSpan(0, 3)), CoverageUnit("u1", "p", SourceSpan(5, 15))),
            None,
            "duplicate unit id",
        ),
        (
            (
                CoverageUnit("u1", "zz", SourceSpan(0, 3)),
                CoverageUnit("u2", "p", SourceSpan(5, 15)),
            ),
            None,
            "missing node 'zz'",
        ),
        (
            (CoverageUnit("u2", "p", SourceSpan(5, 15)), CoverageUnit("u1", "h", SourceSpan(0, 3))),
            None,
            "source order",
        ),
    ],
)
def test_partition_faults_are_named(
    units: tuple[CoverageUnit, ...], exclusions: tuple[Exclusion, ...] | None, message: str
) -> None:
    with pytest.raises(NormalizationError, match=message):
        _tree(units=units, exclusions=exclusions).validate()


def test_lineage_faults_are_named() -> None:
    root = NormalizedNode("r", "document", "", (SourceSpan(0, 17),), children=("h",))
    orphan = NormalizedNode("h", "heading", "T", (SourceSpan(0, 3),), parent_id="r")
    stray = NormalizedNode("p", "paragraph", "Body text.", (SourceSpan(5, 15),), "r")
    with pytest.raises(NormalizationError, match="does not list child 'p'"):
        _tree(nodes=(root, orphan, stray)).validate()
    second_root = NormalizedNode("q", "document", "", ())
    with pytest.raises(NormalizationError, match="no parent but is not the root"):
        _tree(nodes=(root, orphan, second_root)).validate()
    late_parent = (
        NormalizedNode("h", "heading", "T", (SourceSpan(0, 3),), parent_id="r"),
        NormalizedNode("r", "document", "", (SourceSpan(0, 17),), children=("h",)),
    )
    with pytest.raises(NormalizationError, match="must come before its child 'h'"):
        _tree(nodes=late_parent).validate()
    missing_child = NormalizedNode("r", "document", "", (), children=("zz",))
    everything_excluded = (Exclusion(SourceSpan(0, 17), "w"),)
    with pytest.raises(NormalizationError, match="missing child 'zz'"):
        _tree(nodes=(missing_child,), units=(), exclusions=everything_excluded).validate()
    twice = NormalizedNode("r", "document", "", (SourceSpan(0, 17),), children=("h", "h"))
    with pytest.raises(NormalizationError, match="same child more than once"):
        _tree(nodes=(twice, orphan)).validate()
    duplicate = (root, orphan, NormalizedNode("h", "paragraph", "", ()))
    with pytest.raises(NormalizationError, match="duplicate node id 'h'"):
        _tree(nodes=duplicate).validate()


def test_spans_out_of_bounds_and_disorder_are_rejected() -> None:
    root = NormalizedNode("r", "document", "", (SourceSpan(0, 99),))
    everything_excluded = (Exclusion(SourceSpan(0, 17), "w"),)
    with pytest.raises(NormalizationError, match="past the content length 17"):
        _tree(nodes=(root,), units=(), exclusions=everything_excluded).validate()
    with pytest.raises(NormalizationError, match="ordered and disjoint"):
        NormalizedNode("n", "section", "", (SourceSpan(5, 9), SourceSpan(2, 4)))
    with pytest.raises(NormalizationError, match="0 <= start <= end"):
        SourceSpan(4, 2)
    with pytest.raises(NormalizationError, match="must be ints"):
        SourceSpan(0, 1.5)  # type: ignore[arg-type]
    with pytest.raises(NormalizationError, match="nonempty SourceSpan"):
        CoverageUnit("u", "n", SourceSpan(3, 3))
    with pytest.raises(NormalizationError, match="nonempty SourceSpan"):
        Exclusion(SourceSpan(3, 3), "whitespace")
    with pytest.raises(NormalizationError, match="reason"):
        Exclusion(SourceSpan(0, 3), "")
    with pytest.raises(NormalizationError, match="node_id"):
        NormalizedNode("", "paragraph", "", ())
    with pytest.raises(NormalizationError, match="SourceSpan values"):
        NormalizedNode("n", "paragraph", "", ((0, 1),))  # type: ignore[arg-type]
    with pytest.raises(NormalizationError, match="ordered and nonnegative"):
        MapSegment(3, 1, 0, 2)


def test_values_are_frozen_and_normalize_sequences_to_tuples() -> None:
    node = NormalizedNode(
        "n",
        "code",
        "x",
        [SourceSpan(0, 1)],
        children=["a"],
        attributes={"language": "py"},  # type: ignore[arg-type]
    )
    assert node.spans == (SourceSpan(0, 1),) and node.children == ("a",)
    assert node.start == 0 and node.end == 1
    with pytest.raises(TypeError):
        node.attributes["language"] = "c"  # type: ignore[index]
    with pytest.raises(AttributeError):
        node.text = "y"  # type: ignore[misc]
    assert len(SourceSpan(2, 7)) == 5 and SourceSpan(2, 7).slice("abcdefghi") == "cdefg"
    assert MapSegment(0, 3, 10, 13).verbatim and not MapSegment(0, 1, 10, 15).verbatim


def test_empty_document_is_valid_with_no_units() -> None:
    document = Document("empty", "s", "")
    tree = NormalizedDocument(document, "text", (NormalizedNode("r", "document", "", ()),), ())
    assert tree.validate() is tree
    assert (tree.root.start, tree.root.end) == (0, 0)
    empty = NormalizedDocument(document, "text", (), ())
    with pytest.raises(NormalizationError, match="has no nodes"):
        _ = empty.root


def test_dump_is_stable_and_readable() -> None:
    text = dump_tree(_tree())
    assert text.splitlines()[0] == "format markdown · 17 chars · 3 nodes · 2 units · 2 exclusions"
    assert "  heading L1 [0,3) 'T'" in text
    assert "    units [5,15)" in text
    assert text.endswith("exclude [15,17) whitespace\n")
    assert dump_tree(_tree()) == text


def test_validation_is_remembered_only_on_success() -> None:
    tree = _tree()
    assert tree.validate() is tree
    assert tree.validate() is tree  # second call: remembered, nothing recomputed
    broken = _tree(exclusions=(Exclusion(SourceSpan(3, 5), "whitespace"),))
    for _ in range(2):
        with pytest.raises(NormalizationError, match="coverage ends at 15"):
            broken.validate()


def test_exclusions_are_kept_as_offsets_and_read_as_values() -> None:
    given = (
        Exclusion(SourceSpan(3, 5), "whitespace"),
        Exclusion(SourceSpan(15, 17), "whitespace"),
    )
    tree = _tree(exclusions=given)
    table = tree.exclusions
    assert isinstance(table, Exclusions)
    assert table == given and given == tuple(table) and list(table) == list(given)
    assert len(table) == 2 and table[1] == given[1] and table[-1] == given[-1]
    assert table[1:] == given[1:] and isinstance(table[1:], Exclusions)
    assert (list(table.starts), list(table.ends), table.reasons) == (
        [3, 15],
        [5, 17],
        ("whitespace", "whitespace"),
    )
    with pytest.raises(TypeError):
        table.starts[0] = 4  # read-only views: the tree is immutable
    assert table != given[:1] and table != (*given[:1], Exclusion(SourceSpan(15, 17), "markup"))
    assert table != "not exclusions"
    assert Exclusions.of(table) is table
    assert Exclusions.from_offsets([3, 15], [5, 17], ["whitespace"] * 2) == table
    columns = ExclusionColumns()
    columns.add(3, 5, "whitespace")
    columns.add(15, 17, "whitespace")
    assert columns.build() == table
    assert hash(Exclusions(given)) == hash(table) == hash(given)  # equal, so hashed alike
    assert pickle.loads(pickle.dumps(table)) == table
    assert repr(table) == f"Exclusions({list(given)!r})"
    assert _tree(exclusions=given) == tree  # trees still compare by value


@pytest.mark.parametrize(
    ("starts", "ends", "reasons", "message"),
    [
        ([3], [3], ["whitespace"], r"nonempty range .*start=3, end=3"),
        ([-1], [2], ["whitespace"], r"nonempty range .*start=-1, end=2"),
        ([1, 4], [2, 3], ["a", "b"], r"\('b'\).*start=4, end=3"),
        ([1], [2], [""], "reason must be a nonempty str"),
        ([1], [2], [None], "reason must be a nonempty str"),
        ([1], [2, 3], ["a"], "as many ends and reasons as starts"),
        ([1.5], [2], ["a"], "offsets must be ints"),
    ],
)
def test_exclusions_refuse_what_an_exclusion_refuses(
    starts: list[object], ends: list[int], reasons: list[object], message: str
) -> None:
    with pytest.raises(NormalizationError, match=message):
        Exclusions.from_offsets(starts, ends, reasons)  # type: ignore[arg-type]


def test_exclusions_take_only_exclusion_values() -> None:
    with pytest.raises(NormalizationError, match="must be Exclusion values"):
        _tree(exclusions=(SourceSpan(3, 5),)).validate()  # type: ignore[arg-type]


def test_partition_check_reads_exclusion_offsets_out_of_order() -> None:
    swapped = (
        Exclusion(SourceSpan(15, 17), "whitespace"),
        Exclusion(SourceSpan(3, 5), "whitespace"),
    )
    with pytest.raises(NormalizationError, match=r"exclusions must be in source order \(at 3\)"):
        _tree(exclusions=swapped).validate()


def test_units_are_kept_as_columns_and_read_as_values() -> None:
    given = (
        CoverageUnit("u1", "h", SourceSpan(0, 3)),
        CoverageUnit("u2", "p", SourceSpan(5, 15)),
    )
    tree = _tree(units=given).validate()
    table = tree.units
    assert isinstance(table, Units) and not table.numbered
    assert table == given and given == tuple(table) and list(table) == list(given)
    assert len(table) == 2 and table[1] == given[1] and table[-1] == given[-1]
    assert table[1:] == given[1:] and isinstance(table[1:], Units)
    assert (list(table.starts), list(table.ends), table.node_ids, table.ids) == (
        [0, 5],
        [3, 15],
        ("h", "p"),
        ("u1", "u2"),
    )
    with pytest.raises(TypeError):
        table.ends[0] = 4  # read-only views: the tree is immutable
    assert table != given[:1] and table != (given[0], CoverageUnit("u2", "h", SourceSpan(5, 15)))
    assert table != "not units"
    assert Units.of(table) is table
    assert hash(Units(given)) == hash(table) == hash(given)  # equal, so hashed alike
    assert pickle.loads(pickle.dumps(table)) == table
    assert repr(table) == f"Units({list(given)!r})"
    assert _tree(units=given) == tree  # trees still compare by value
    assert tree.retained_characters == 13


def test_numbered_units_store_no_ids_and_number_them_on_demand() -> None:
    columns = UnitColumns("doc:u")
    columns.add(0, 3, "h")
    columns.add(5, 15, "p")
    assert len(columns) == 2
    table = columns.build()
    assert table.numbered and table.ids == ("doc:u0", "doc:u1")
    assert table.unit_id(-1) == "doc:u1" and table[1] == CoverageUnit(
        "doc:u1", "p", SourceSpan(5, 15)
    )
    assert table == Units.from_offsets([0, 5], [3, 15], ["h", "p"], id_prefix="doc:u")
    assert table != Units.from_offsets([0, 5], [3, 15], ["h", "p"], id_prefix="other:u")
    # A slice keeps each unit's own id (numbering restarts nowhere).
    assert table[1:].ids == ("doc:u1",) and not table[1:].numbered
    copy = pickle.loads(pickle.dumps(table))
    assert copy == table and copy.numbered
    assert _tree(units=table).validate().units is table
    with pytest.raises(IndexError):
        table.unit_id(2)


@pytest.mark.parametrize(
    ("starts", "ends", "node_ids", "message"),
    [
        ([3], [3], ["p"], r"unit 'd:u0': span must be a nonempty range .*start=3, end=3"),
        ([-1], [2], ["p"], r"nonempty range .*start=-1, end=2"),
        ([1, 4], [2, 3], ["p", "p"], r"'d:u1'.*start=4, end=3"),
        ([1], [2], [None], "node_id must be a str"),
        ([1], [2, 3], ["p"], "as many ends and node ids as starts"),
        ([1.5], [2], ["p"], "offsets must be ints"),
    ],
)
def test_units_refuse_what_a_unit_refuses(
    starts: list[object], ends: list[int], node_ids: list[object], message: str
) -> None:
    with pytest.raises(NormalizationError, match=message):
        Units.from_offsets(starts, ends, node_ids, id_prefix="d:u")  # type: ignore[arg-type]


def test_units_take_only_unit_values() -> None:
    with pytest.raises(NormalizationError, match="must be CoverageUnit values"):
        _tree(units=(SourceSpan(0, 3),)).validate()  # type: ignore[arg-type]


def test_partition_faults_of_numbered_units_name_the_unit() -> None:
    stray = Units.from_offsets([0, 5], [3, 15], ["h", "zz"], id_prefix="d:u")
    with pytest.raises(NormalizationError, match="unit 'd:u1' names a missing node 'zz'"):
        _tree(units=stray).validate()
    swapped = Units.from_offsets([5, 0], [15, 3], ["p", "h"], id_prefix="d:u")
    with pytest.raises(NormalizationError, match=r"source order \(unit 'd:u1' at 0\)"):
        _tree(units=swapped).validate()


def _striped(length: int, faults: dict[int, tuple[int, int]]) -> NormalizedDocument:
    """Units on even characters, exclusions on odd ones; ``faults`` moves ranges."""
    document = Document("striped", "s", "x" * length)
    root = NormalizedNode("r", "document", "", (SourceSpan(0, length),), children=("p",))
    leaf = NormalizedNode("p", "paragraph", "x" * length, (SourceSpan(0, length),), "r")
    bounds = [faults.get(start, (start, start + 1)) for start in range(length)]
    units = Units.from_offsets(
        [a for a, _ in bounds[0::2]],
        [b for _, b in bounds[0::2]],
        ["p"] * len(bounds[0::2]),
        id_prefix="u",
    )
    excluded = bounds[1::2]
    exclusions = Exclusions.from_offsets(
        [a for a, _ in excluded], [b for _, b in excluded], ["markup"] * len(excluded)
    )
    return NormalizedDocument(document, "text", (root, leaf), units, exclusions)


@pytest.mark.parametrize("window", [1, 2, 3, 7, 8192])
def test_the_partition_is_checked_across_windows_of_units(
    window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastrag.normalization import model

    monkeypatch.setattr(model, "_TILING_WINDOW", window)
    _striped(40, {}).validate()
    # An exclusion running one character into the next unit, wherever the window ends.
    for start in range(1, 38, 2):
        with pytest.raises(NormalizationError, match=f"overlaps offset {start + 2}"):
            _striped(40, {start: (start, start + 2)}).validate()
    with pytest.raises(NormalizationError, match="gap at offset 20"):
        _striped(40, {20: (21, 22)}).validate()  # a unit shrunk from the left
    with pytest.raises(NormalizationError, match="coverage ends at 41 but the content has 40"):
        _striped(40, {39: (39, 41)}).validate()


def _reference_tiling(ranges: list[tuple[int, int]], length: int) -> bool:
    """Whether ``ranges`` tile ``[0, length)`` exactly: the slow, obvious way."""
    owned = [0] * length
    for start, end in ranges:
        if not 0 <= start < end <= length:
            return False
        for position in range(start, end):
            owned[position] += 1
    return all(count == 1 for count in owned)


@settings(max_examples=400, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=59), max_size=30, unique=True),
    kinds=st.lists(st.booleans(), min_size=31, max_size=31),
    damage=st.one_of(
        st.none(),
        st.tuples(st.integers(0, 30), st.integers(-2, 2), st.integers(-2, 2)),
    ),
    window=st.integers(min_value=1, max_value=5),
)
def test_the_windowed_partition_check_agrees_with_a_reference(
    cuts: list[int],
    kinds: list[bool],
    damage: tuple[int, int, int] | None,
    window: int,
) -> None:
    from fastrag.normalization import model

    length = 60
    bounds = [0, *sorted(cuts), length]
    ranges = list(pairwise(bounds))
    if damage is not None:  # move one range's ends: a gap, an overlap, or nothing
        index, low, high = damage
        index %= len(ranges)
        start, end = ranges[index]
        ranges[index] = (start + low, end + high)
    ranges = [(start, end) for start, end in ranges if 0 <= start < end]
    units = [r for r, unit in zip(ranges, kinds, strict=False) if unit]
    excluded = [r for r, unit in zip(ranges, kinds, strict=False) if not unit]
    if sorted(units) != units or sorted(excluded) != excluded:
        return  # out of source order: a different check
    if any(b[0] <= a[0] for a, b in pairwise(units)) or any(
        b[0] <= a[0] for a, b in pairwise(excluded)
    ):
        return
    tree = NormalizedDocument(
        Document("w", "s", "x" * length),
        "text",
        (
            NormalizedNode("r", "document", "", (SourceSpan(0, length),), children=("p",)),
            NormalizedNode("p", "paragraph", "x", (SourceSpan(0, length),), "r"),
        ),
        Units.from_offsets(
            [a for a, _ in units], [b for _, b in units], ["p"] * len(units), id_prefix="u"
        ),
        Exclusions.from_offsets(
            [a for a, _ in excluded], [b for _, b in excluded], ["markup"] * len(excluded)
        ),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(model, "_TILING_WINDOW", window)
        try:
            tree.validate()
            accepted = True
        except NormalizationError:
            accepted = False
    assert accepted == _reference_tiling(units + excluded, length)
