"""Seed 000's ("Structure-aware ingestion") code examples, verbatim, for reuse by tests.

``tests/unit/packing/test_seed_examples.py`` runs each example as written; other tests
reuse what an example builds instead of copying it: ``RecordNormalizer`` (the custom
adapter, verbatim apart from type hints) as a minimal whole-source normalizer, and the
provenance recipe's resolved sections for checks beyond the recipe's own. Each recipe
keeps its own imports and assertions exactly as the seed prints them.
"""

from __future__ import annotations

from fastrag.models import Document
from fastrag.normalization import CoverageUnit, NormalizedDocument, NormalizedNode, SourceSpan
from fastrag.retrieval import ResolvedSection

__all__ = [
    "RecordNormalizer",
    "extend_normalization",
    "keep_provenance_and_parents",
    "measure_the_actual_embedding_input",
]


def measure_the_actual_embedding_input() -> None:
    """Seed 000, "Measure the actual embedding input": the offline recipe."""
    from fastrag.ingestion.steps.chunking import (
        StructureAwareChunker,
        Utf8ByteTokenizer,
        build_embedding_text,
        validate_structure_chunks,
    )
    from fastrag.models import Document

    parent = Document(
        "orchard-guide",
        "local-guide",
        "# Orchard\n## Water\nWater pears weekly.\n## Soil\nTest soil each spring.\n",
        metadata={"content_format": "markdown"},
    )
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(),
        target_tokens=100,
        max_tokens=160,
        min_preferred_tokens=20,
        cache=False,
    )
    normalized = chunker.normalizers.normalize(parent)
    pieces = list(chunker.split_normalized(normalized))
    report = validate_structure_chunks(normalized, pieces, chunker.tokenizer, 160)
    assert report.chunk_count == len(pieces) > 0
    for content, metadata in pieces:
        embedding_text = build_embedding_text(content, metadata)
        assert chunker.tokenizer.count(embedding_text) <= 160
        assert metadata["embedding_token_count"] == chunker.tokenizer.count(embedding_text)


def keep_provenance_and_parents() -> list[ResolvedSection]:
    """Seed 000, "Keep provenance and parents": the standalone recipe; its sections."""
    from fastrag.ingestion.steps.chunking import StructureAwareChunker, Utf8ByteTokenizer
    from fastrag.models import Document
    from fastrag.retrieval import SectionIndex

    parent = Document(
        "orchard-guide",
        "local-guide",
        "# Orchard\n## Water\nWater pears weekly.\n",
        metadata={"content_format": "markdown"},
    )
    chunker = StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), cache=False)
    normalized = chunker.normalizers.normalize(parent)
    content, metadata = next(chunker.split_normalized(normalized))
    hit = Document("retrieved-hit", parent.source_id, content, metadata=metadata)
    index = SectionIndex([normalized])
    sections = index.resolve(hit, ancestors=True)
    assert sections and all(section.document_id == parent.id for section in sections)
    assert any("Water pears weekly." in section.content for section in sections)
    return list(sections)


class RecordNormalizer:
    """Seed 000, "Extend normalization": the custom adapter, verbatim apart from type hints."""

    identity = "records:whole-source:v1"

    def normalize(self, document: Document) -> NormalizedDocument:
        span = SourceSpan(0, len(document.content))
        root_id = f"{document.id}:root"
        root = NormalizedNode(root_id, "document", document.content, (span,))
        units = (CoverageUnit(f"{root_id}:unit", root_id, span),) if document.content else ()
        result = NormalizedDocument(document, "records", (root,), units)
        result.validate()
        return result


def extend_normalization() -> None:
    """Seed 000, "Extend normalization": registering ``RecordNormalizer`` and chunking."""
    from fastrag.ingestion.steps.chunking import StructureAwareChunker, Utf8ByteTokenizer
    from fastrag.models import Document
    from fastrag.normalization import NormalizerRegistry

    registry = NormalizerRegistry()
    registry.register("records", RecordNormalizer())
    chunker = StructureAwareChunker(
        normalizers=registry, tokenizer=Utf8ByteTokenizer(), cache=False
    )
    parent = Document(
        "record-1", "local", "Pear: water weekly.", metadata={"content_format": "records"}
    )
    pieces = list(chunker.split(parent))
    assert len(pieces) == 1 and pieces[0][0] == parent.content
    assert "records" in chunker.accepted_content_formats
