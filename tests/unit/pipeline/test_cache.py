"""Cache stores: faithful JSON round trips, atomic entries, and loud failure on bad files."""

from __future__ import annotations

import pickle
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import CacheError
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import (
    SCHEMA_VERSION,
    CacheStore,
    DocumentHeader,
    InMemoryCacheStore,
    SqliteCacheStore,
)
from fastrag.pipeline.cache._codec import (
    UncacheableValueError,
    decode_metadata,
    encode_metadata,
)

REPO = Path(__file__).resolve().parents[3]


def _docs(key: str, count: int) -> list[Document]:
    return [
        Document(f"{key}-{i}", "src", f"text {i} of {key}", {"i": i, "span": (i, i + 1)})
        for i in range(count)
    ]


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> CacheStore:
    if request.param == "memory":
        return InMemoryCacheStore()
    return SqliteCacheStore(tmp_path / "cache.sqlite")


# --- the JSON codec ----------------------------------------------------------------------

leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.binary(max_size=8)
    | st.sampled_from(list(ContentFormat))
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def _shape(value: Any) -> Any:
    """Value with its container and leaf types spelled out, so == also compares types."""
    if isinstance(value, dict):
        return ("dict", {key: _shape(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_shape(item) for item in value])
    return (type(value).__name__, value)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), values, max_size=5))
def test_metadata_round_trips_with_types_and_key_order(metadata: dict[str, Any]) -> None:
    decoded = decode_metadata(encode_metadata(metadata, "doc"))
    assert _shape(decoded) == _shape(metadata)
    assert list(decoded) == list(metadata)


def test_user_keys_that_look_like_tags_survive() -> None:
    metadata = {"$tuple": [1], "$$x": 2, "nested": {"$bytes": "AA=="}}
    assert decode_metadata(encode_metadata(metadata, "doc")) == metadata


def test_unsupported_values_name_the_document_and_key() -> None:
    with pytest.raises(UncacheableValueError, match=r"'d7'.*metadata\['k'\]\[1\] is a set"):
        encode_metadata({"k": [1, {2}]}, "d7")
    with pytest.raises(UncacheableValueError, match="non-str key 1"):
        encode_metadata({"k": {1: "x"}}, "d7")


# --- both stores ------------------------------------------------------------------------


def test_entries_round_trip_in_order(store: CacheStore) -> None:
    store.put("k1", _docs("k1", 3))
    store.put("k2", [])
    assert store.get_documents(["k1", "k2", "missing"]) == {"k1": tuple(_docs("k1", 3)), "k2": ()}
    headers = store.get_headers(["k1"])["k1"]
    assert headers == tuple(DocumentHeader.of(d) for d in _docs("k1", 3))
    assert type(headers[0].metadata["span"]) is tuple
    assert store.get("missing") is None
    assert store.get("k2") == ()


def test_put_replaces_an_entry_whole(store: CacheStore) -> None:
    store.put("k", _docs("old", 4))
    store.put("k", _docs("new", 2))
    assert store.get("k") == tuple(_docs("new", 2))


def test_cached_values_are_isolated_from_the_caller(store: CacheStore) -> None:
    inner: list[int] = [1]
    store.put("k", [Document("d", "s", "t", {"list": inner})])
    inner.append(2)
    replayed = store.get("k")
    assert replayed is not None
    replayed[0].metadata["list"].append(3)
    assert store.get("k") == (Document("d", "s", "t", {"list": [1]}),)


def test_many_keys_are_read_in_batches(store: CacheStore) -> None:
    for i in range(1200):
        store.put(f"k{i}", _docs(f"k{i}", 1))
    keys = [f"k{i}" for i in range(1200)] + ["k5"]
    assert len(store.get_headers(keys)) == 1200


# --- SQLite specifics --------------------------------------------------------------------


def test_construction_touches_no_file(tmp_path: Path) -> None:
    path = tmp_path / "lazy.sqlite"
    store = SqliteCacheStore(path)
    assert not path.exists()
    store.put("k", [])
    assert path.exists()
    store.close()


def test_the_file_is_in_wal_mode_with_a_versioned_schema(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with SqliteCacheStore(path) as store:
        store.put("k", _docs("k", 1))
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        meta = dict(raw.execute("SELECT name, value FROM fastrag_cache_meta").fetchall())
    assert meta["schema_version"] == str(SCHEMA_VERSION)


def test_a_new_store_object_replays_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    writer = (
        "import sys\n"
        "from fastrag.models import Document\n"
        "from fastrag.pipeline import SqliteCacheStore\n"
        "store = SqliteCacheStore(sys.argv[1])\n"
        "store.put('k', [Document('d', 's', 'body', {'t': (1, 'x'), 'f': 0.1})])\n"
        "store.close()\n"
    )
    subprocess.run([sys.executable, "-c", writer, str(path)], check=True, cwd=REPO)
    reopened = SqliteCacheStore(path)
    assert reopened.get("k") == (Document("d", "s", "body", {"t": (1, "x"), "f": 0.1}),)
    reopened.close()


def test_a_store_pickles_as_its_path(tmp_path: Path) -> None:
    store = SqliteCacheStore(tmp_path / "c.sqlite")
    store.put("k", _docs("k", 1))
    clone = pickle.loads(pickle.dumps(store))
    assert clone.path == store.path
    assert clone.get("k") == tuple(_docs("k", 1))
    store.close()
    clone.close()


def test_a_corrupt_file_names_the_path_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.sqlite"
    path.write_bytes(b"\x00garbage, not SQLite\xff" * 200)
    store = SqliteCacheStore(path)
    with pytest.raises(CacheError) as caught:
        store.get_headers(["k"])
    message = str(caught.value)
    assert str(path) in message
    assert "delete it" in message
    assert "choose another cache path" in message


def test_a_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "foreign.sqlite"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(CacheError, match=r"without fastrag's cache tables \(it holds customers\)"):
        SqliteCacheStore(path).get("k")


def test_an_incompatible_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with SqliteCacheStore(path) as store:
        store.put("k", _docs("k", 1))
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE fastrag_cache_meta SET value = '999' WHERE name = 'schema_version'")
    with pytest.raises(CacheError) as caught:
        SqliteCacheStore(path).get("k")
    assert str(path) in str(caught.value)
    assert "version '999'" in str(caught.value)
    assert f"version {SCHEMA_VERSION}" in str(caught.value)


def test_a_damaged_row_is_never_replayed(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    with SqliteCacheStore(path) as store:
        store.put("k", _docs("k", 2))
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE fastrag_cache_documents SET content = 'tampered' WHERE position = 1")
    with pytest.raises(CacheError, match="checksum mismatch"):
        SqliteCacheStore(path).get("k")


def test_a_missing_row_is_never_replayed_as_a_shorter_entry(tmp_path: Path) -> None:
    path = tmp_path / "partial.sqlite"
    with SqliteCacheStore(path) as store:
        store.put("k", _docs("k", 3))
    with sqlite3.connect(path) as raw:
        raw.execute("DELETE FROM fastrag_cache_documents WHERE position = 2")
    with pytest.raises(CacheError, match="lists 3 documents but 2 are stored"):
        SqliteCacheStore(path).get_headers(["k"])


def test_an_unreachable_path_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "c.sqlite"
    with pytest.raises(CacheError, match=str(tmp_path)):
        SqliteCacheStore(path).get("k")


def test_readers_see_whole_entries_while_another_store_writes(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    writer, reader = SqliteCacheStore(path), SqliteCacheStore(path)
    writer.put("warmup", [])
    sizes = [1 + (i % 7) for i in range(150)]
    errors: list[BaseException] = []
    observed: list[int] = []
    done = threading.Event()

    def write() -> None:
        try:
            for i, size in enumerate(sizes):
                writer.put(f"k{i % 10}", _docs(f"v{i}", size))
        except BaseException as error:  # noqa: BLE001 - surfaced through `errors` below
            errors.append(error)
        finally:
            done.set()

    thread = threading.Thread(target=write)
    thread.start()
    while not done.is_set() or len(observed) < 50:
        for key, entry in reader.get_documents([f"k{i}" for i in range(10)]).items():
            # Every document of one entry comes from the same put: never a mixture.
            assert len({d.id.split("-")[0] for d in entry}) == 1, key
            assert len(entry) == int(entry[0].id.split("-")[0][1:]) % 7 + 1
            observed.append(len(entry))
    thread.join()
    assert errors == []
    assert observed
    writer.close()
    reader.close()
