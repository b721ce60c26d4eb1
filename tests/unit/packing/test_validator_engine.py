"""The validator accepts the real engine's output on real documents and rejects it mutated."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError
from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry
from fastrag.packing import PackingConfig, pack
from fastrag.packing.contract import build_embedding_text
from fastrag.packing.validator import validate_structure_chunks
from fastrag.tokenization import TiktokenTokenizer, Utf8ByteTokenizer
from tests._paths import CORPUS

WEB = CORPUS / "web"
DOCUMENTS = {
    "mixed.md": ("mixed.md", "markdown"),
    "wiki.md": ("wiki.md", "markdown"),
    "wiki.md as text": ("wiki.md", "text"),
    "wiki_duck.html": ("wiki_duck.html", "html"),
}
TOKENIZERS = {"utf8": Utf8ByteTokenizer, "cl100k": lambda: TiktokenTokenizer("cl100k_base")}
CONFIGS = {
    "tight with overlap": PackingConfig(
        target_tokens=200, max_tokens=300, min_preferred_tokens=40, overlap_tokens=30
    ),
    "default-like, flagged": PackingConfig(
        target_tokens=400,
        max_tokens=512,
        oversized_block_policy="preserve_and_flag",
        include_heading_path_in_embedding=False,
    ),
}

Pieces = list[tuple[str, dict[str, Any]]]


@cache
def normalized_of(name: str) -> NormalizedDocument:
    file_name, format_name = DOCUMENTS[name]
    text = (WEB / file_name).read_bytes().decode("utf-8")
    parent = Document(f"{name}:{format_name}", "corpus", text, {"content_format": format_name})
    return NormalizerRegistry().get(format_name).normalize(parent)


@cache
def tokenizer_of(name: str) -> Any:
    return TOKENIZERS[name]()


def engine_pieces(document: str, tokenizer: str, config: str) -> Pieces:
    normalized = normalized_of(document)
    produced = pack(normalized, tokenizer_of(tokenizer), CONFIGS[config])
    # Plain dicts all the way down, so tests can mutate a copy (the engine's values are
    # read-only mapping proxies, which neither deepcopy nor json handle).
    return [(content, _thaw(metadata)) for content, metadata in produced]


def _thaw(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {k: dict(v) if isinstance(v, Mapping) else v for k, v in metadata.items()}


def check(pieces: Any, document: str, tokenizer: str, config: str) -> Any:
    options = CONFIGS[config]
    return validate_structure_chunks(
        normalized_of(document),
        pieces,
        tokenizer_of(tokenizer),
        options.max_tokens,
        options.max_overlap_tokens,
        options.min_preferred_tokens,
    )


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("tokenizer", sorted(TOKENIZERS))
@pytest.mark.parametrize("document", sorted(DOCUMENTS))
def test_the_engine_output_on_real_documents_is_valid(
    document: str, tokenizer: str, config: str
) -> None:
    pieces = engine_pieces(document, tokenizer, config)
    report = check(pieces, document, tokenizer, config)
    normalized = normalized_of(document)
    assert report.classification == "chunked"
    assert report.chunk_count == len(pieces) > 0
    assert report.retained_characters == normalized.retained_characters
    assert report.excluded_characters == normalized.excluded_characters
    assert report.token_counts == tuple(m["embedding_token_count"] for _, m in pieces)
    count = tokenizer_of(tokenizer).count
    assert all(count(build_embedding_text(c, m)) == m["embedding_token_count"] for c, m in pieces)


def test_persisted_engine_chunks_replay_valid_after_json() -> None:
    pieces = engine_pieces("wiki_duck.html", "cl100k", "tight with overlap")
    normalized = normalized_of("wiki_duck.html")
    documents = [
        Document(
            f"chunk-{index}",
            "corpus",
            content,
            {
                **json.loads(json.dumps(metadata)),
                "chunk_index": index,
                "parent_id": normalized.document.id,
            },
        )
        for index, (content, metadata) in enumerate(pieces)
    ]
    fresh = check(pieces, "wiki_duck.html", "cl100k", "tight with overlap")
    replayed = check(documents, "wiki_duck.html", "cl100k", "tight with overlap")
    assert replayed.token_counts == fresh.token_counts
    assert replayed.chunk_count == fresh.chunk_count


# -- the same mutations, on real output ------------------------------------------------


def _with_overlap(pieces: Pieces) -> int:
    """Index of the first chunk that repeats overlap (the config guarantees one)."""
    return next(i for i, (_, m) in enumerate(pieces) if m["overlap_intervals"])


def _drop(pieces: Pieces) -> Pieces:
    return pieces[: len(pieces) // 2] + pieces[len(pieces) // 2 + 1 :]


def _shift(pieces: Pieces) -> Pieces:
    middle = len(pieces) // 2
    _, metadata = pieces[middle]
    metadata["retained_intervals"] = tuple(
        (a + 1, b + 1) for a, b in metadata["retained_intervals"]
    )
    metadata["char_start"] += 1
    metadata["char_end"] += 1
    return pieces


def _overlap_as_coverage(pieces: Pieces) -> Pieces:
    index = _with_overlap(pieces)
    _, metadata = pieces[index]
    merged = sorted([*metadata["overlap_intervals"], *metadata["retained_intervals"]])
    metadata["retained_intervals"] = tuple(merged)
    metadata["char_start"] = merged[0][0]
    return pieces


def _tamper(pieces: Pieces) -> Pieces:
    _, metadata = pieces[len(pieces) // 2]
    metadata["embedding_token_count"] += 1
    return pieces


def _reorder(pieces: Pieces) -> Pieces:
    pieces[1], pieces[2] = pieces[2], pieces[1]
    return pieces


def _wrong_path(pieces: Pieces) -> Pieces:
    index = next(i for i, (_, m) in enumerate(pieces) if m["heading_path"])
    _, metadata = pieces[index]
    metadata["heading_path"] = ("Elsewhere", *metadata["heading_path"][1:])
    return pieces


def _broken_run(pieces: Pieces) -> Pieces:
    _, metadata = pieces[0]
    d0, d1, s0, s1, kind = metadata["serialization_map"][0]
    metadata["serialization_map"] = (
        (d0, d1 - 1, s0, s1, kind),
        *metadata["serialization_map"][1:],
    )
    return pieces


MUTATIONS = {
    # The next chunk's overlap or the coverage sweep notices, whichever comes first.
    "dropped chunk": (_drop, r"covered by no chunk|is not retained by the previous chunk"),
    "shifted span": (_shift, r"chunk \d+: "),
    "overlap counted as coverage": (_overlap_as_coverage, r"overlap counted as coverage"),
    "tampered token count": (_tamper, r"token count: .* counts \d+ tokens but"),
    "reordered chunks": (_reorder, r"chunk 2: ordering"),
    "wrong heading path": (
        _wrong_path,
        r"lineage \(heading path\): heading_path\[0\] is 'Elsewhere'",
    ),
    "broken map run": (_broken_run, r"chunk 0: serialization map"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutated_engine_output_is_rejected(name: str) -> None:
    pieces = engine_pieces("wiki.md", "utf8", "tight with overlap")
    check(pieces, "wiki.md", "utf8", "tight with overlap")
    mutate, match = MUTATIONS[name]
    with pytest.raises(ChunkingError, match=match):
        check(mutate(copy.deepcopy(pieces)), "wiki.md", "utf8", "tight with overlap")


def test_budget_violation_without_overflow_flag_is_rejected() -> None:
    pieces = engine_pieces("wiki.md", "utf8", "tight with overlap")
    largest = max(m["embedding_token_count"] for _, m in pieces)
    normalized = normalized_of("wiki.md")
    with pytest.raises(ChunkingError, match=rf"budget: .* {largest} tokens > max_tokens"):
        validate_structure_chunks(normalized, pieces, tokenizer_of("utf8"), largest - 1)
