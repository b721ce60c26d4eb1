"""``Nodes``: a tree's nodes as columns, equal to the node values they stand for.

The Markdown adapter builds its trees as ``Nodes``; everything that reads a tree — the
packer, the validators, ``SectionIndex`` — must see the same nodes as from a tuple.
"""

from __future__ import annotations

import gc
import pickle
from collections.abc import Mapping
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import NormalizationError
from fastrag.models import Document
from fastrag.normalization import (
    MapSegment,
    NodeIds,
    Nodes,
    NormalizedDocument,
    NormalizedNode,
    NormalizerRegistry,
    SourceSpan,
    Units,
)
from fastrag.normalization._pairs import PairsKey
from fastrag.normalization.formats.markdown import MarkdownNormalizer

CONTENT = "# Title\n\nFirst paragraph.\n\n- one\n- two\n\n## Sub\n\nLast.\n"
NONE: MappingProxyType[str, object] = MappingProxyType({})


def _markdown(content: str = CONTENT, doc_id: str = "doc") -> NormalizedDocument:
    document = Document(doc_id, "src", content, {"content_format": "markdown"})
    return MarkdownNormalizer().normalize(document)


def _as_tuple(tree: NormalizedDocument) -> NormalizedDocument:
    """The same tree with its nodes as a tuple of values."""
    return NormalizedDocument(
        tree.document, tree.format, tuple(tree.nodes), tree.units, tree.exclusions
    )


def _small(**changes: object) -> Nodes:
    columns: dict[str, object] = {
        "content": "Hello world",
        "id_prefix": "d",
        "kinds": ("document", "paragraph"),
        "texts": ("", None),
        "spans": ((0, 0), (11, 11)),  # (starts, ends)
        "parents": (-1, 0),
    }
    columns.update(changes)
    return Nodes(**columns)  # type: ignore[arg-type]


def test_markdown_trees_are_columns_equal_to_their_node_values() -> None:
    tree = _markdown()
    assert isinstance(tree.nodes, Nodes)
    nodes = tuple(tree.nodes)
    assert tree.nodes == nodes and nodes == tree.nodes
    assert tree.nodes[1:3] == nodes[1:3] and tree.nodes[-1] == nodes[-1]
    assert [node.node_id for node in nodes] == [
        f"doc:{node.kind}:{position}" for position, node in enumerate(nodes)
    ]
    # A leaf's text is its source slice; a container's is empty, a section's its title.
    paragraph = next(node for node in nodes if node.kind == "paragraph")
    assert paragraph.text == "First paragraph."
    assert tree.node(paragraph.node_id) == paragraph
    assert _as_tuple(tree) == tree


def test_node_index_reads_positions_off_the_ids() -> None:
    tree = _markdown()
    index = tree.node_index
    assert len(index) == len(tree.nodes)
    assert list(index) == [node.node_id for node in tree.nodes]
    assert all(index[node.node_id] == position for position, node in enumerate(tree.nodes))
    section = tree.nodes[1].node_id  # "doc:section:1"
    for missing in (
        "doc:section:+1",
        "doc:section:01",
        "doc:heading:1",
        "other:section:1",
        "doc:section:1:",
        "doc:section:99",
        "doc:section:-1",
        "doc",
        "",
        "doc:section: 1",
    ):
        assert missing not in index and missing not in tree
        assert index.get(missing) is None
        with pytest.raises(KeyError):
            index[missing]
        with pytest.raises(KeyError, match="no node"):
            tree.node(missing)
    assert section in index and section in tree
    assert 1 not in index  # type: ignore[comparison-overlap]


def test_lineage_of_columns_and_of_node_values_agree() -> None:
    content = (
        "---\ntitle: Front\n---\n"
        + CONTENT
        + "\n> quote\n>\n> - a\n>   - b\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
        + "\n<div><p>An <b>HTML</b> block</p></div>\n"
    )
    tree = _markdown(content)
    values = _as_tuple(tree)
    assert isinstance(tree.nodes, Nodes) and isinstance(values.nodes, tuple)
    for position, node in enumerate(values.nodes):
        for lineage in (tree.lineage, values.lineage):
            assert lineage.node_id(position) == node.node_id
            assert lineage.position(node.node_id) == position
            assert lineage.kinds[position] == node.kind
            parent = lineage.parents[position]
            assert (None if parent < 0 else lineage.node_id(parent)) == node.parent_id
            assert tuple(map(lineage.node_id, lineage.children(position))) == node.children
            assert lineage.text(position) == node.text
    serialized = list(tree.lineage.serialized())
    assert serialized and serialized == list(values.lineage.serialized())
    assert tree.lineage.position("doc:nothing:0") is None
    assert values.lineage.position("doc:nothing:0") is None


def test_validate_and_the_partition_accept_column_trees() -> None:
    tree = _markdown()
    assert tree.validate() is tree
    assert _as_tuple(tree).validate().nodes == tree.nodes


def test_a_node_without_span_and_a_serialization_map() -> None:
    segment = MapSegment(0, 5, 0, 5)
    nodes = _small(
        spans=((-1, 0), (-1, 5)),
        texts=("", None),
        serialization={1: (segment,)},
    )
    root, paragraph = nodes
    assert root.spans == () and root.start == root.end == 0
    assert paragraph == NormalizedNode(
        "d:paragraph:1",
        "paragraph",
        "Hello",
        (SourceSpan(0, 5),),
        "d:document:0",
        serialization=(segment,),
    )
    assert root.children == ("d:paragraph:1",)
    assert root.level is None and root.attributes == {}  # none given: none
    assert list(nodes.serialized()) == ["d:paragraph:1"]


def test_a_map_given_packed_equals_the_same_map_given_as_segments() -> None:
    segments = (MapSegment(0, 3, 0, 3), MapSegment(3, 4, 4, 9), MapSegment(4, 5, 10, 11))
    given = _small(serialization={1: segments})
    packed = _small(packed_serialization={1: [0, 3, 0, 3, 3, 4, 4, 9, 4, 5, 10, 11]})
    assert given == packed and packed[1].serialization == segments
    offsets = packed.map_offsets(1)
    assert offsets is not None and list(offsets) == [0, 3, 0, 3, 3, 4, 4, 9, 4, 5, 10, 11]
    assert offsets.readonly and packed.map_offsets(0) is None
    assert list(packed.serialized()) == ["d:paragraph:1"]


def test_html_trees_are_columns_equal_to_their_node_values() -> None:
    page = "<h1>Pears</h1><p>Water <b>pears</b> &amp; apples weekly.</p><ul><li>one</li></ul>"
    document = Document("p", "src", page, {"content_format": "html"})
    tree = NormalizerRegistry().normalize(document)
    assert isinstance(tree.nodes, Nodes)
    assert _as_tuple(tree).validate().nodes == tree.nodes
    paragraph = next(node for node in tree.nodes if node.kind == "paragraph")
    assert paragraph.text == "Water pears & apples weekly."
    assert [page[s.source_start : s.source_end] for s in paragraph.serialization] == [
        "Water ",
        "pears",
        " ",
        "&amp;",
        " apples weekly.",
    ]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kinds": ("document",)}, "one text, span, parent"),
        ({"kinds": ("document", "")}, "kind must be a nonempty str"),
        ({"parents": (0, 0)}, "root .* must have no parent"),
        ({"parents": (-1, 1)}, "parent must be an earlier node"),
        ({"parents": (-1, -1)}, "parent must be an earlier node"),
        ({"spans": ((0, 5), (11, 4))}, "0 <= start <= end"),
        ({"spans": ((0, -1), (0, 5))}, "0 <= start <= end, or both -1"),
        ({"spans": ((0, -1), (11, 5))}, "'d:paragraph:1': span must satisfy"),
        ({"spans": ((0, -2), (11, -2))}, "'d:paragraph:1': span must satisfy"),
        ({"spans": ((0, -1), (11, -1)), "texts": ("t", None)}, "paragraph:1'.* needs a text"),
        ({"kinds": ("document", 7)}, "node 1: kind must be a nonempty str"),
        ({"spans": ((0, 0), (0, 12))}, "past the content length 11"),
        ({"spans": ((-1, 0), (-1, 5)), "texts": (None, None)}, "without a span needs a text"),
        ({"attributes": (NONE, {"a": 1})}, "read-only mappings"),
        ({"packed_attributes": (None,)}, "one text, span, parent, level and attributes"),
        ({"serialization": {2: ()}}, "does not exist"),
        ({"packed_serialization": {2: []}}, "does not exist"),
        ({"serialization": {1: ((0, 5, 0, 5),)}}, "must be MapSegment values"),
        ({"packed_serialization": {1: [0, 5, 0]}}, "quadruples, ordered and nonnegative"),
        ({"packed_serialization": {1: [5, 0, 0, 5]}}, "quadruples, ordered and nonnegative"),
        ({"packed_serialization": {1: [0, 5, -1, 5]}}, "quadruples, ordered and nonnegative"),
        ({"packed_serialization": {1: [0, 5, "0", 5]}}, "must be ints"),
        (
            {"serialization": {1: ()}, "packed_serialization": {1: [0, 5, 0, 5]}},
            "segments or packed offsets, not both",
        ),
        ({"id_prefix": 7}, "id_prefix must be a str"),
        ({"parents": (-1, "0")}, "must be ints"),
    ],
)
def test_bad_columns_are_refused_naming_the_fault(changes: dict[str, object], message: str) -> None:
    with pytest.raises(NormalizationError, match=message):
        _small(**changes)


def _two_paragraphs(first: Mapping[str, object], second: Mapping[str, object]) -> Nodes:
    return _small(
        kinds=("document", "paragraph", "paragraph"),
        texts=("", None, None),
        spans=((0, 0, 6), (11, 5, 11)),
        parents=(-1, 0, 0),
        attributes=(NONE, first, second),
    )


def test_attributes_are_kept_packed_and_read_back_as_mappings() -> None:
    link = MappingProxyType({"label": "-", "links": (("x", "u"),)})
    given = _small(attributes=(NONE, link))
    packed = _small(packed_attributes=(None, (("label", "links"), ("-", (("x", "u"),)))))
    assert given == packed
    assert packed[1].attributes == link and packed.attributes(0) == {}
    mapping = packed.attributes(1)
    assert isinstance(mapping, MappingProxyType)
    assert mapping is not packed.attributes(1)  # built on each read, never shared state
    # One mapping given for several nodes is packed once.
    shared = _two_paragraphs(link, link)
    assert shared._attributes[1] is shared._attributes[2]


def test_tuples_of_pairs_are_kept_flat_and_read_back_as_pairs() -> None:
    # A leaf's links: one flat tuple under a marked key instead of a tuple per pair.
    links = (("x", "u"), ("y", "v"))
    odd = (("a", "b", "c"),)  # not pairs: kept as given
    mapping = MappingProxyType({"links": links, "odd": odd, "words": ("p", "q"), "none": ()})
    plain = MappingProxyType({"links": ("x", "u")})  # the same key, not pairs
    nodes = _two_paragraphs(mapping, plain)
    keys, values = nodes._attributes[1]
    assert [type(key) for key in keys] == [PairsKey, str, str, str]
    assert values == (("x", "u", "y", "v"), odd, ("p", "q"), ())
    assert nodes._attributes[2] == (("links",), (("x", "u"),))
    assert type(nodes._attributes[2][0][0]) is str  # not marked: not shared with node 1's
    assert nodes.attributes(1) == mapping and nodes[1].attributes["links"] == links
    assert nodes.attributes(2) == plain
    assert all(type(key) is str for key in nodes.attributes(1))
    # The flat tuple holds strings only: the collector stops tracking it.
    gc.collect()
    assert not gc.is_tracked(values[0])
    # The mark is the key's class: a pickled tree reads back the same pairs.
    assert pickle.loads(pickle.dumps(nodes)).attributes(1) == mapping


def test_columns_belong_to_their_document() -> None:
    nodes = _small()
    document = Document("d", "src", "Hello there", {"content_format": "text"})
    with pytest.raises(NormalizationError, match="built over another content"):
        NormalizedDocument(document, "text", nodes, ())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "# A",
                "## B",
                "### C",
                "text",
                "- item",
                "  - nested",
                "1. one",
                "> quote",
                "```\ncode\n```",
                "| a |\n|---|\n| 1 |",
                "",
                "***",
                "<div>x</div>",
                "Term\n: def",
            ]
        ),
        max_size=14,
    )
)
def test_generated_markdown_nodes_equal_their_values(lines: list[str]) -> None:
    tree = _markdown("\n".join(lines))
    values = _as_tuple(tree)
    assert tree.nodes == values.nodes
    for position, node in enumerate(values.nodes):
        assert tree.lineage.parents[position] == values.lineage.parents[position]
        assert list(tree.lineage.children(position)) == values.lineage.children(position)
        assert tree.node_index[node.node_id] == position


def test_units_name_their_owners_by_position() -> None:
    tree = _markdown()
    owners = tree.units.node_ids  # type: ignore[attr-defined]
    assert isinstance(owners, NodeIds) and owners.nodes is tree.nodes
    assert list(owners.positions) == [tree.node_index[owner] for owner in owners]
    assert owners == tuple(owners) and tuple(owners) == owners
    assert owners[1:2] == (owners[1],) and owners[-1] == tuple(owners)[-1]
    spelled = Units.from_offsets(
        tree.units.starts,  # type: ignore[attr-defined]
        tree.units.ends,  # type: ignore[attr-defined]
        tuple(owners),
        id_prefix="doc:u",
    )
    assert spelled == tree.units and tree.units == spelled
    assert pickle.loads(pickle.dumps(tree.units)) == tree.units
    assert _as_tuple(tree).validate().units == tree.units


def test_owner_positions_must_name_nodes() -> None:
    nodes = _small()
    with pytest.raises(NormalizationError, match=r"must name nodes 0\.\.1"):
        NodeIds(nodes, [0, 2])
    with pytest.raises(NormalizationError, match="must name nodes"):
        NodeIds(nodes, [-1])
    with pytest.raises(NormalizationError, match="must be ints"):
        NodeIds(nodes, ["0"])  # type: ignore[list-item]
    assert list(NodeIds(nodes, [1, 1, 0])) == ["d:paragraph:1", "d:paragraph:1", "d:document:0"]


def test_owners_of_another_tree_are_checked_against_this_one() -> None:
    tree = _markdown()
    other = _markdown(CONTENT.replace("First", "Frist"))  # same shape, other content
    borrowed = Units.from_offsets(
        tree.units.starts,  # type: ignore[attr-defined]
        tree.units.ends,  # type: ignore[attr-defined]
        NodeIds(other.nodes, other.units.node_ids.positions),  # type: ignore[arg-type, attr-defined]
        id_prefix="doc:u",
    )
    assert NormalizedDocument(
        tree.document, "markdown", tree.nodes, borrowed, tree.exclusions
    ).validate()
    moved = Units.from_offsets(
        tree.units.starts,  # type: ignore[attr-defined]
        tree.units.ends,  # type: ignore[attr-defined]
        NodeIds(_markdown(doc_id="elsewhere").nodes, tree.units.node_ids.positions),  # type: ignore[attr-defined]
        id_prefix="doc:u",
    )
    with pytest.raises(NormalizationError, match="names a missing node 'elsewhere:"):
        NormalizedDocument(tree.document, "markdown", tree.nodes, moved, tree.exclusions).validate()


@pytest.mark.parametrize(("content_format", "text"), [("markdown", "# a\n\nb"), ("text", "a\n\nb")])
def test_a_document_with_an_empty_id_still_normalizes(content_format: str, text: str) -> None:
    document = Document("", "src", text, {"content_format": content_format})
    tree = NormalizerRegistry().normalize(document)
    assert tree.nodes[0].node_id == ":document:0"
    assert all(tree.node_index[node.node_id] == i for i, node in enumerate(tree.nodes))
    assert tree.validate() is tree
