"""A minimal real ingestion for tests of records, the writer and ``validate``.

Reads files by extension (discovery and parsers are tested elsewhere), chunks them with
the real ``StructureAwareChunker`` and writes records with the real writer, so the
validator is checked against genuine output, never hand-made records.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from fastrag.ingestion.jsonl import JsonlWriter
from fastrag.ingestion.records import build_records, ingestion_version
from fastrag.ingestion.steps.chunking import Chunker, StructureAwareChunker
from fastrag.models import Document
from fastrag.tokenization import Tokenizer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "documents"

SOURCE_TYPES = {".md": "markdown", ".rst": "rst", ".html": "html", ".txt": "text"}


def parse_file(root: Path, path: Path, **extra: Any) -> Document:
    """The parsed parent as the agreed design describes it (UTF-8 text formats)."""
    content = path.read_bytes().decode("utf-8-sig")
    relative = path.relative_to(root).as_posix()
    source_type = SOURCE_TYPES[path.suffix]
    return Document(
        hashlib.sha256(content.encode("utf-8")).hexdigest()[:32],
        relative,
        content,
        {
            "content_format": source_type,
            "source": relative,
            "source_type": source_type,
            "parser_version": f"{source_type}:test",
            **extra,
        },
    )


def chunk(chunker: Chunker, parent: Document) -> list[Document]:
    return asyncio.run(chunker([parent]).run())


def ingest(
    root: Path,
    output: Path,
    *,
    tokenizer: Tokenizer,
    max_tokens: int = 200,
    order: list[int] | None = None,
    chunker: Chunker | None = None,
) -> list[dict[str, Any]]:
    """Chunk every example under ``root`` and write ``output``; returns the records."""
    chunker = chunker or StructureAwareChunker(
        tokenizer=tokenizer, max_tokens=max_tokens, target_tokens=max_tokens * 3 // 4
    )
    paths = sorted(p for p in root.rglob("*") if p.suffix in SOURCE_TYPES)
    parents = [parse_file(root, path, tenant="acme", acl=("staff",)) for path in paths]
    version = ingestion_version(
        [str(p.metadata["parser_version"]) for p in parents],
        chunker.config_hash,
        tokenizer.identity,
    )
    documents = [(parent, chunk(chunker, parent)) for parent in parents]
    every: list[dict[str, Any]] = []
    with JsonlWriter(output) as writer:
        for position in order if order is not None else range(len(documents)):
            parent, chunks = documents[position]
            records = build_records(
                parent,
                chunks,
                tokenizer=tokenizer,
                ingestion_version=version,
                counted_by=tokenizer.identity,
                max_tokens=max_tokens,
            )
            writer.add(str(parent.metadata["source"]), records)
            every.extend(records)
    return every


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    from fastrag.ingestion.records import record_line

    path.write_text("".join(record_line(r) for r in records), encoding="utf-8")
