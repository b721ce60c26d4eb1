"""Chunk a labelled corpus with one configuration, keeping each chunk's source ranges.

Scoring is character arithmetic on source offsets, so every chunk must say exactly which
characters of which document it shows. fastrag's structural chunks record that
(``serialization_map``: the source ranges of their verbatim, rendered, overlap and
context runs); the reproduction baselines track offsets while splitting. Nothing is
located by searching for the chunk's text, except on purpose: ``spans="first"`` moves a
chunk to the first occurrence of its source text, as Chroma's harness does
(``str.find``), so a chunk of a repeated passage gets the credit that references placed
at the first occurrence give (see ``fastrag.benchmarking.chroma``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from fastrag.benchmarking._assisted import (
    EvalEmbeddingModel,
    build_refiner,
    collect,
    embedding_semantic_ranges,
    special_token_tokenizer,
)
from fastrag.benchmarking._recursive_tokens import (
    CHROMA_SEPARATORS,
    LANGCHAIN_SEPARATORS,
    recursive_token_spans,
)
from fastrag.benchmarking.configs import ChunkerConfig
from fastrag.benchmarking.metrics import Span, union
from fastrag.exceptions import ConfigurationError

if TYPE_CHECKING:
    from fastrag.benchmarking._embedding import CachedEmbedder
    from fastrag.tokenization import Tokenizer

__all__ = [
    "CorpusChunks",
    "IndexedChunk",
    "SpanMode",
    "chunk_corpus",
    "move_to_first_occurrence",
]

SpanMode = Literal["exact", "first"]

_SOURCE_KINDS: Final = frozenset({"source", "rendered", "overlap", "context"})


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """One chunk in the evaluation index.

    ``spans`` are the source ranges it shows (sorted, disjoint); ``text`` what a reader
    gets; ``embedding_text`` what the model embeds; ``heading_path`` its section (empty
    for chunkers without structure).
    """

    document: str
    spans: tuple[Span, ...]
    text: str
    embedding_text: str
    heading_path: tuple[str, ...] = ()

    @property
    def length(self) -> int:
        """Source characters shown (the unit of precision)."""
        return sum(end - start for start, end in self.spans)


def _structure_chunks(
    config: ChunkerConfig,
    documents: Mapping[str, str],
    model_tokenizer: Callable[[], Tokenizer],
    notes: dict[str, Any],
) -> list[IndexedChunk]:
    from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
    from fastrag.models import Document
    from fastrag.packing.contract import build_embedding_text

    params = dict(config.params)
    tokenizer_name = params.pop("tokenizer", "model")
    fmt = params.pop("format", "text")
    tokenizer = model_tokenizer() if tokenizer_name == "model" else _tokenizer(str(tokenizer_name))
    max_tokens = int(params.get("max_tokens", 600))
    params.setdefault("target_tokens", max(1, (max_tokens * 2) // 3))
    params.setdefault("min_preferred_tokens", min(100, int(params["target_tokens"]) // 2))
    refiner = build_refiner(params) if params.get("semantic_mode") == "llm" else None
    chunker = StructureAwareChunker(tokenizer=tokenizer, semantic_refiner=refiner, **params)

    def document(name: str) -> Document:
        return Document(name, name, documents[name], {"content_format": fmt})

    if refiner is None:
        pieces = {name: list(chunker.split(document(name))) for name in documents}
    else:  # a chat model is asked: only the asynchronous path may do that
        pieces = collect(list(documents), lambda name: chunker.asplit(document(name)))
        notes["refinement"] = refiner.tally.as_dict()
    chunks = []
    for name in documents:
        for piece in pieces[name]:
            if isinstance(piece, str):  # the engine always yields (content, metadata)
                continue
            content, metadata = piece
            if not content.strip():
                continue
            spans = union(
                (entry[2], entry[3])
                for entry in metadata.get("serialization_map", ())
                if entry[4] in _SOURCE_KINDS and entry[2] >= 0 and entry[3] > entry[2]
            )
            if not spans:
                spans = [(int(metadata["char_start"]), int(metadata["char_end"]))]
            chunks.append(
                IndexedChunk(
                    name,
                    tuple(spans),
                    content,
                    build_embedding_text(content, metadata),
                    tuple(metadata.get("heading_path", ())),
                )
            )
    return chunks


def _tokenizer(value: str) -> Tokenizer:
    """A tokenizer by name: a tiktoken encoding, ``utf8-bytes``, or a tokenizer.json path."""
    from pathlib import Path

    from fastrag.tokenization import HuggingFaceTokenizer, TiktokenTokenizer, Utf8ByteTokenizer

    if value == "utf8-bytes":
        return Utf8ByteTokenizer()
    path = Path(value)
    if path.is_dir():
        return HuggingFaceTokenizer.from_pretrained_dir(path)
    if path.suffix == ".json" or path.is_file():
        return HuggingFaceTokenizer(path)
    return TiktokenTokenizer(value)


def _separators(value: object) -> Sequence[str]:
    if value is None or value == "chroma":
        return CHROMA_SEPARATORS
    if value == "langchain":
        return LANGCHAIN_SEPARATORS
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise ConfigurationError(
        f"separators must be 'chroma', 'langchain' or a list of strings (got {value!r})"
    )


def _recursive_token_chunks(
    config: ChunkerConfig, documents: Mapping[str, str], counter: Tokenizer
) -> list[IndexedChunk]:
    size = int(config.params.get("chunk_size", 250))
    overlap = int(config.params.get("chunk_overlap", 0))
    separators = _separators(config.params.get("separators"))
    chunks = []
    for name, text in documents.items():
        for start, end in recursive_token_spans(
            text, chunk_size=size, chunk_overlap=overlap, count=counter.count, separators=separators
        ):
            piece = text[start:end]
            chunks.append(IndexedChunk(name, ((start, end),), piece, piece))
    return chunks


def _recursive_character_chunks(
    config: ChunkerConfig, documents: Mapping[str, str]
) -> list[IndexedChunk]:
    from fastrag.ingestion.steps.chunking.recursive import RecursiveCharacterTextSplitter
    from fastrag.models import Document

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=int(config.params.get("chunk_size", 1000)),
        chunk_overlap=int(config.params.get("chunk_overlap", 200)),
    )
    chunks = []
    for name, text in documents.items():
        for piece in splitter.split(Document(name, name, text, {"content_format": "text"})):
            if isinstance(piece, str):  # this splitter always yields metadata; be safe
                continue
            content, metadata = piece
            start = int(metadata["start_index"])
            chunks.append(IndexedChunk(name, ((start, start + len(content)),), content, content))
    return chunks


def _embedding_semantic_chunks(
    config: ChunkerConfig,
    documents: Mapping[str, str],
    embedder: CachedEmbedder | None,
    max_seq_length: int,
    notes: dict[str, Any],
) -> list[IndexedChunk]:
    """Exact source slices; the embedded text is the chunk itself (no heading path)."""
    if embedder is None:
        raise ConfigurationError(
            f"configuration {config.name!r}: embedding_semantic needs the evaluation's "
            f"embedder (pass embedder= to chunk_corpus)"
        )
    model = EvalEmbeddingModel(embedder, special_token_tokenizer(embedder), max_seq_length)
    ranges = embedding_semantic_ranges(config.params, documents, model, notes)
    chunks = []
    for name, text in documents.items():
        for start, end in ranges[name]:
            piece = text[start:end]
            if piece.strip():
                chunks.append(IndexedChunk(name, ((start, end),), piece, piece))
    return chunks


def move_to_first_occurrence(chunk: IndexedChunk, text: str) -> IndexedChunk:
    """The chunk moved to where its source text (hull of its spans) first occurs."""
    low, high = chunk.spans[0][0], chunk.spans[-1][1]
    first = text.find(text[low:high])
    if first in (-1, low):
        return chunk
    delta = first - low
    spans = tuple((start + delta, end + delta) for start, end in chunk.spans)
    return IndexedChunk(chunk.document, spans, chunk.text, chunk.embedding_text, chunk.heading_path)


class CorpusChunks(NamedTuple):
    """The chunks of a corpus, and counts of what any model did while making them."""

    chunks: list[IndexedChunk]
    notes: dict[str, Any]
    """``refinement`` (chat calls, fallbacks by reason) or ``window_fitting`` counts."""


def chunk_corpus(
    config: ChunkerConfig,
    documents: Mapping[str, str],
    *,
    cl100k: Tokenizer,
    model_tokenizer: Callable[[], Tokenizer],
    spans: SpanMode = "exact",
    embedder: CachedEmbedder | None = None,
    max_seq_length: int = 256,
) -> CorpusChunks:
    """All chunks of all documents under ``config``, in document then source order.

    ``embedder`` (with the model's ``max_seq_length``) is what ``embedding_semantic``
    embeds sentence windows with: the evaluation's own model and cache.
    """
    chunks: list[IndexedChunk]
    notes: dict[str, Any] = {}
    if config.kind == "structure":
        chunks = _structure_chunks(config, documents, model_tokenizer, notes)
    elif config.kind == "recursive_tokens":
        chunks = _recursive_token_chunks(config, documents, cl100k)
    elif config.kind == "embedding_semantic":
        chunks = _embedding_semantic_chunks(config, documents, embedder, max_seq_length, notes)
    else:
        chunks = _recursive_character_chunks(config, documents)
    if spans == "first":
        chunks = [move_to_first_occurrence(chunk, documents[chunk.document]) for chunk in chunks]
    return CorpusChunks(chunks, notes)


def describe_chunks(chunks: Sequence[IndexedChunk]) -> dict[str, Any]:
    """Counts for a report: chunks per document."""
    per: dict[str, int] = {}
    for chunk in chunks:
        per[chunk.document] = per.get(chunk.document, 0) + 1
    return {"chunks": len(chunks), "per_document": per}
