"""``ChunkMetadata``: compact storage, read as exactly the contract's plain mapping."""

from __future__ import annotations

import gc
import pickle
import sys
from array import array
from typing import Any

import pytest

from fastrag.ingestion.records import jsonable
from fastrag.models import Document
from fastrag.packing import PackingConfig, pack
from fastrag.packing._id_numbers import id_numbers
from fastrag.packing.chunk_metadata import KEYS, ChunkMetadata
from fastrag.packing.contract import STRUCTURE_VERSION
from fastrag.pipeline.cache._codec import decode_metadata, encode_metadata
from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.packing._engine_support import normalize


def metadata(**changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "structure_version": STRUCTURE_VERSION,
        "document_id": "doc",
        "section_ids": ("doc:section:1",),
        "heading_ids": ("doc:heading:2",),
        "heading_path": ("Intro",),
        "displayed_heading_ids": ("doc:heading:2",),
        "embed_heading_path": True,
        "char_start": 3,
        "char_end": 70_000,
        "retained_intervals": ((3, 10), (12, 300), (69_000, 70_000)),
        "serialization_map": (
            (0, 7, 3, 10, "source"),
            (7, 9, -1, -1, "separator"),
            (9, 297, 12, 300, "source"),
            (297, 299, -1, -1, "separator"),
            (299, 1299, 69_000, 70_000, "rendered"),
        ),
        "repeated_context": ((7, 9, "heading"),),
        "overlap_intervals": ((1, 3),),
        "embedding_token_count": 321,
        "overflow": False,
        "atomic_structure_loss": True,
        "chunk_kind": "split",
        "structure_metadata": {
            "node_ids": ("doc:heading:2", "doc:paragraph:3"),
            "kinds": ("heading", "paragraph"),
        },
        "engine_identity": "abc",
    }
    values.update(changes)
    return values


def test_it_reads_back_every_value_in_the_contracts_order() -> None:
    plain = metadata()
    compact = ChunkMetadata(plain)
    assert list(compact) == list(plain) == list(KEYS)
    assert len(compact) == len(plain)
    for key, value in plain.items():
        assert compact[key] == value, key
        assert type(compact[key]) is type(value), key
    assert dict(compact) == plain
    assert compact == plain and plain == compact
    assert compact == ChunkMetadata(plain)
    assert compact != ChunkMetadata(metadata(embedding_token_count=322))
    assert compact != ChunkMetadata(metadata(serialization_map=(plain["serialization_map"][:4])))


def test_unknown_keys_are_missing_without_building_anything() -> None:
    compact = ChunkMetadata(metadata())
    assert "retained_intervals" in compact
    assert "content_format" not in compact and 3 not in compact
    assert compact.get("content_format") is None
    with pytest.raises(KeyError, match="content_format"):
        compact["content_format"]
    with pytest.raises(KeyError):
        compact[["not", "hashable"]]  # type: ignore[index]


def test_each_read_is_a_fresh_value_so_mutating_one_changes_nothing() -> None:
    compact = ChunkMetadata(metadata())
    projection = compact["structure_metadata"]
    projection["node_ids"] = ()
    assert compact["structure_metadata"]["node_ids"] == ("doc:heading:2", "doc:paragraph:3")


def test_it_persists_and_travels_as_the_plain_mapping_would() -> None:
    plain = metadata()
    compact = ChunkMetadata(plain)
    assert jsonable(compact) == jsonable(plain)
    assert decode_metadata(encode_metadata(compact, "doc")) == decode_metadata(
        encode_metadata(plain, "doc")
    )
    assert Document("c", "s", "text", compact).metadata == plain
    restored = pickle.loads(pickle.dumps(compact))
    assert isinstance(restored, ChunkMetadata) and restored == plain
    assert repr(compact) == f"ChunkMetadata({plain!r})"


@pytest.mark.parametrize(
    ("changes", "fault"),
    [
        ({"char_start": 4}, "char_start/char_end"),
        ({"char_end": 69_999}, "char_start/char_end"),
        ({"retained_intervals": ()}, "char_start/char_end"),
        ({"structure_version": "fastrag-structure:v0"}, "structure_version"),
    ],
)
def test_inconsistent_values_are_refused(changes: dict[str, Any], fault: str) -> None:
    with pytest.raises(ValueError, match=fault):
        ChunkMetadata(metadata(**changes))


def test_other_keys_or_another_order_are_refused() -> None:
    plain = metadata()
    with pytest.raises(ValueError, match="exactly the keys"):
        ChunkMetadata({**plain, "extra": 1})
    reordered = dict(reversed(list(plain.items())))
    with pytest.raises(ValueError, match="exactly the keys"):
        ChunkMetadata(reordered)


def test_offsets_past_int32_are_kept_as_int64() -> None:
    big = 2**31
    plain = metadata()
    shifted = metadata(
        char_start=plain["char_start"] + big,
        char_end=plain["char_end"] + big,
        retained_intervals=tuple((a + big, b + big) for a, b in plain["retained_intervals"]),
        serialization_map=tuple(
            (d0, d1, s0 + big if s0 >= 0 else s0, s1 + big if s1 >= 0 else s1, kind)
            for d0, d1, s0, s1, kind in plain["serialization_map"]
        ),
        structure_metadata={
            "node_ids": ("doc:heading:2", f"doc:paragraph:{big}"),
            "kinds": ("heading", "paragraph"),
        },
    )
    for values, stored in ((plain, bytes), (shifted, array)):
        compact = ChunkMetadata(values)
        assert type(compact._fields[6]) is stored
        assert dict(compact) == values
        assert pickle.loads(pickle.dumps(compact)) == values
    assert len(ChunkMetadata(plain)._fields[6]) == 4 * (6 + 4 * 5 + 2)  # int32 each


def test_the_engine_emits_it_and_it_holds_far_less_than_the_tuples() -> None:
    text = "# Title\n\n" + "\n\n".join(f"Line {i} with [a link](u{i})." for i in range(400))
    pieces = pack(normalize(text, "markdown"), Utf8ByteTokenizer(), PackingConfig(max_tokens=600))
    assert len(pieces) > 1 and all(type(meta) is ChunkMetadata for _, meta in pieces)
    meta = pieces[1][1]
    retained = meta["retained_intervals"]
    assert len(retained) > 10
    as_tuples = sys.getsizeof(retained) + sum(
        sys.getsizeof(pair) + sum(map(sys.getsizeof, pair)) for pair in retained
    )
    offsets = meta._fields[6]  # every offset of the chunk, int32 in one bytes
    assert isinstance(offsets, bytes) and sys.getsizeof(offsets) * 4 < as_tuples
    gc.collect()
    gc.collect()  # a tuple is untracked once what it holds is (inner ones first)
    assert not gc.is_tracked(meta._fields)  # one untracked tuple: nothing to walk


@pytest.mark.parametrize(
    "node_ids",
    [
        ("doc:heading:2", "doc:paragraph:3"),  # numbered by position: kept as numbers
        ("doc:heading:2", "doc:paragraph:03"),  # not a canonical number
        ("doc:heading:2", "doc:paragraph:+3"),
        ("doc:heading:2", "doc:paragraph:３"),  # a digit, not an ASCII one
        ("doc:heading:2", "doc:list:3"),  # another kind than the projection's
        ("doc:heading:2", "other:paragraph:3"),  # another document
        ("doc:heading:2", "doc:paragraph:"),
        ("doc:heading:2", "intro"),  # an adapter's own names
        ("doc:heading:2", "doc:paragraph:" + "9" * 19),  # past an int64
        ("doc:heading:2", "doc:paragraph:" + "9" * 5000),  # past int()'s digit limit
    ],
)
def test_node_ids_read_back_whatever_their_shape(node_ids: tuple[str, ...]) -> None:
    projection = {"node_ids": node_ids, "kinds": ("heading", "paragraph")}
    compact = ChunkMetadata(metadata(structure_metadata=projection))
    assert compact["structure_metadata"] == projection
    positional = node_ids[1] == "doc:paragraph:3"
    assert compact._fields[14] == (None if positional else node_ids)


def test_a_document_id_with_colons_still_numbers_its_nodes() -> None:
    projection = {
        "node_ids": ("a:b:heading:0", "a:b:paragraph:12"),
        "kinds": ("heading", "paragraph"),
    }
    compact = ChunkMetadata(metadata(document_id="a:b", structure_metadata=projection))
    assert compact["structure_metadata"] == projection
    assert compact._fields[14] is None  # kept as the numbers 0 and 12


def test_node_ids_become_numbers_only_in_the_form_the_trees_build() -> None:
    # Compiled (``_id_numbers``) and typed loosely: replayed metadata may hold lists,
    # or anything at all; what is not ``f"{document}:{kind}:{number}"`` stays as given.
    assert list(id_numbers("d", ["d:paragraph:3", "d:list:10"], ["paragraph", "list"]) or []) == [
        3,
        10,
    ]
    assert id_numbers("d", ("d:paragraph:03",), ("paragraph",)) is None
    assert id_numbers("d", ("d:paragraph:x",), ("paragraph",)) is None
    assert id_numbers("d", ("e:paragraph:1",), ("paragraph",)) is None
    assert id_numbers("d", (None,), ("paragraph",)) is None
    assert id_numbers("d", ("d:paragraph:1",), ()) is None
    assert id_numbers("d", ("d:p:" + "9" * 19,), ("p",)) is None
