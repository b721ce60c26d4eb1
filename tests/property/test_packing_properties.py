"""The packing engine's contract over generated documents, budgets and tokenizers.

For Markdown, reStructuredText, HTML and text documents from the shared strategies,
random budgets and options, and four tokenizers — UTF-8 bytes, tiktoken cl100k, a real
Hugging Face WordPiece ``tokenizer.json`` and a deliberately non-additive one with
coarse boundaries — every result either satisfies the contract (budget on the complete
embedding text, exact partition of the retained units, round-tripping maps, accepted by
the independent validator) or, under ``split_with_context`` only, is a ``ChunkingError``
naming the node that cannot fit. Output is byte-identical in another process.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError
from fastrag.packing import PackingConfig, pack
from tests.strategies import html, markdown, rst, text
from tests.unit.packing._engine_support import (
    TOKENIZER_NAMES,
    NonAdditiveTokenizer,
    check_pieces,
    normalize,
    tokenizer_named,
)

STRATEGIES = {"markdown": markdown, "rst": rst, "html": html, "text": text}
ROOT = Path(__file__).resolve().parents[2]


@st.composite
def configs(draw: st.DrawFn) -> PackingConfig:
    maximum = draw(st.integers(24, 400))
    target = draw(st.integers(max(1, maximum // 3), maximum))
    overlap = draw(st.sampled_from([0, 0, min(12, maximum // 4)]))
    return PackingConfig(
        target_tokens=target,
        max_tokens=maximum,
        min_preferred_tokens=draw(st.integers(0, target)),
        overlap_tokens=overlap,
        max_overlap_tokens=min(overlap + draw(st.integers(0, 8)), maximum - 1),
        merge_small_sections=draw(st.booleans()),
        allow_cross_top_level_merge=draw(st.booleans()),
        preserve_heading_hierarchy=draw(st.booleans()),
        preserve_code_blocks=draw(st.booleans()),
        preserve_table_rows=draw(st.booleans()),
        preserve_list_hierarchy=draw(st.booleans()),
        include_heading_path_in_embedding=draw(st.booleans()),
        semantic_mode=draw(st.sampled_from(["heuristic", "disabled"])),
        oversized_block_policy=draw(st.sampled_from(["split_with_context", "preserve_and_flag"])),
    )


@pytest.mark.parametrize("content_format", sorted(STRATEGIES))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_result_keeps_the_contract_or_names_the_node(
    content_format: str, data: st.DataObject
) -> None:
    source = data.draw(STRATEGIES[content_format].documents(), label="document")
    name = data.draw(st.sampled_from(TOKENIZER_NAMES), label="tokenizer")
    config = data.draw(configs(), label="config")
    normalized = normalize(source, content_format)
    try:
        pieces = pack(normalized, tokenizer_named(name), config)
    except ChunkingError as error:
        assert config.oversized_block_policy == "split_with_context"
        message = str(error)
        assert any(repr(node.node_id) in message for node in normalized.nodes), message
        assert f"max_tokens={config.max_tokens}" in message
        return
    report = check_pieces(normalized, pieces, tokenizer_named(name), config)
    assert report is None or report.chunk_count == len(pieces)
    indices = [metadata["char_start"] for _, metadata in pieces]
    assert indices == sorted(indices)


def _heading_run(content_format: str, count: int) -> str:
    """Headings with no body under any, to end a document with (rustdoc's Implementors)."""
    if content_format == "markdown":
        return "".join(f"\n\n## Heading number {n}\n\n### Sub {n}" for n in range(count))
    if content_format == "html":
        return "".join(f"<h2>Heading number {n}</h2><h3>Sub {n}</h3>" for n in range(count))
    if content_format == "rst":
        return "".join(
            f"\n\nHeading number {n}\n{'=' * 20}\n\nSub {n}\n{'-' * 10}\n" for n in range(count)
        )
    return ""


@pytest.mark.parametrize("content_format", sorted(STRATEGIES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_without_mandatory_context_nothing_is_refused(
    content_format: str, data: st.DataObject
) -> None:
    # With no heading path in the embedding and no row, code or list structure to repeat,
    # every piece can be cut down to a few characters: ChunkingError would be a bug. Runs
    # of headings with nothing between them were one (refused whole, then refused by the
    # finisher when a tokenizer counted them over the plan's estimate).
    source = data.draw(STRATEGIES[content_format].documents(), label="document")
    if data.draw(st.booleans(), label="ends in headings"):
        source += _heading_run(content_format, data.draw(st.integers(0, 40), label="headings"))
    name = data.draw(st.sampled_from(TOKENIZER_NAMES), label="tokenizer")
    maximum = data.draw(st.integers(40, 300), label="max_tokens")
    config = PackingConfig(
        target_tokens=maximum * 2 // 3,
        max_tokens=maximum,
        min_preferred_tokens=0,
        max_overlap_tokens=0,
        include_heading_path_in_embedding=False,
        preserve_table_rows=False,
        preserve_code_blocks=False,
        preserve_list_hierarchy=False,
    )
    normalized = normalize(source, content_format)
    pieces = pack(normalized, tokenizer_named(name), config)
    check_pieces(normalized, pieces, tokenizer_named(name), config)


@settings(max_examples=60, deadline=None)
@given(source=markdown.documents(), maximum=st.integers(40, 300))
def test_flagging_never_raises_and_flags_only_what_is_over(source: str, maximum: int) -> None:
    config = PackingConfig(
        target_tokens=maximum // 2,
        max_tokens=maximum,
        min_preferred_tokens=0,
        max_overlap_tokens=0,
        oversized_block_policy="preserve_and_flag",
    )
    normalized = normalize(source, "markdown")
    pieces = pack(normalized, NonAdditiveTokenizer(), config)
    check_pieces(normalized, pieces, NonAdditiveTokenizer(), config)


_DIGEST_SCRIPT = """
import asyncio, hashlib, json, sys
from pathlib import Path
from fastrag.ingestion.steps.chunking import StructureAwareChunker, Utf8ByteTokenizer
from fastrag.models import Document
from fastrag.pipeline import IterableSource
FORMATS = {".md": "markdown", ".rst": "rst", ".html": "html", ".txt": "text"}
documents = [
    Document(path.name, "examples", path.read_bytes().decode("utf-8"),
             {"content_format": FORMATS[path.suffix]})
    for path in sorted(Path(sys.argv[1]).iterdir()) if path.suffix in FORMATS
]
digest = hashlib.sha256()
for options in ({}, {"tokenizer": Utf8ByteTokenizer(), "target_tokens": 150,
                     "max_tokens": 200, "min_preferred_tokens": 20, "overlap_tokens": 20,
                     "oversized_block_policy": "preserve_and_flag"}):
    chunker = StructureAwareChunker(cache=False, **options)
    for chunk in asyncio.run(chunker(IterableSource(documents)).run()):
        record = [chunk.id, chunk.content, sorted(chunk.metadata.items())]
        digest.update(json.dumps(record, default=repr, ensure_ascii=False).encode())
print(digest.hexdigest())
"""


def _digest(seed: str) -> str:
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    completed = subprocess.run(
        [sys.executable, "-c", _DIGEST_SCRIPT, str(ROOT / "examples" / "documents")],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
        cwd=ROOT,
    )
    return completed.stdout.strip()


def test_output_and_ids_are_byte_identical_across_processes() -> None:
    first, second = _digest("1"), _digest("4242")
    assert first == second
    assert len(first) == 64 and first != hashlib.sha256(b"").hexdigest()
    assert json.loads(json.dumps(first)) == first
