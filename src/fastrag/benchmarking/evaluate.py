"""Run configurations over a labelled corpus: chunk, embed (cached), retrieve, score.

One index holds every chunk of every document (Chroma's protocol), so a question can
retrieve chunks of another document: they cost precision and help nothing. Questions are
embedded once per model; chunks per configuration, through the embedding cache.

Retrieval settings (``fastrag.benchmarking.retrieval.RetrievalSettings``: BM25 fusion,
context windows, de-duplication) change only the order of candidates; what is returned
and scored is always the chunk. Windows are cut around a chunk's exact source range,
before ``spans="first"`` moves the chunk for scoring.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from fastrag.benchmarking.chunking import (
    IndexedChunk,
    SpanMode,
    chunk_corpus,
    move_to_first_occurrence,
)
from fastrag.benchmarking.configs import ChunkerConfig
from fastrag.benchmarking.fusion import Deduplicator
from fastrag.benchmarking.metrics import MeanStd, QuestionScore, aggregate, mean_std, score_question
from fastrag.benchmarking.ranking import IndexTexts, candidate_rankings
from fastrag.benchmarking.retrieval import Protocol, select
from fastrag.benchmarking.retrieval_settings import RetrievalSettings
from fastrag.exceptions import ConfigurationError
from fastrag.retrieval.sentences import SentenceIndex

if TYPE_CHECKING:
    from fastrag.benchmarking._embedding import CachedEmbedder
    from fastrag.benchmarking.corpus import LabelledCorpus, Question
    from fastrag.tokenization import Tokenizer

__all__ = ["ConfigResult", "EvalSettings", "evaluate"]

_RANK_DEPTH: Final = 256
"""Ranked candidates kept per question for the token-budget protocol."""
_SPECIAL_TOKENS: Final = 2
"""[CLS] and [SEP]: what a BERT-style model adds to every text it reads."""


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """How to retrieve and score (the same for every configuration of a run)."""

    protocol: Protocol = "k"
    k: int = 5
    token_budget: int = 1000
    spans: SpanMode = "exact"
    max_seq_length: int = 256
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    """For configurations that set none of their own."""


@dataclass(slots=True)
class ConfigResult:
    """Everything measured for one configuration."""

    config: ChunkerConfig
    overall: dict[str, MeanStd]
    per_corpus: dict[str, dict[str, MeanStd]]
    cost: dict[str, Any]
    scores: list[QuestionScore]
    chunk_tokens: dict[str, list[int]] = field(default_factory=dict)
    """cl100k tokens of each chunk, by source type (for histograms)."""
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    """The settings used (``window_tokens`` resolved when windows were read)."""

    @property
    def label(self) -> str:
        """The configuration's name, with its retrieval settings unless they are the default."""
        settings = self.retrieval.label()
        return f"{self.config.name} [{settings}]" if settings else self.config.name

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no document text)."""
        return {
            "config": self.config.describe(),
            "retrieval": self.retrieval.describe(),
            "overall": {name: value.as_dict() for name, value in self.overall.items()},
            "per_corpus": {
                corpus: {name: value.as_dict() for name, value in metrics.items()}
                for corpus, metrics in self.per_corpus.items()
            },
            "cost": self.cost,
        }


Progress = Callable[[str], object]


def _source_type(document: str, many: bool) -> str:
    return (PurePosixPath(document).suffix or "(none)") if many else document


def _evidence_index(
    chunks: Sequence[IndexedChunk],
) -> dict[str, tuple[np.ndarray, np.ndarray, list[int]]]:
    """Per document: hull starts, hull ends and chunk indices, to find overlaps fast."""
    grouped: dict[str, list[int]] = {}
    for index, chunk in enumerate(chunks):
        grouped.setdefault(chunk.document, []).append(index)
    return {
        document: (
            np.array([chunks[i].spans[0][0] for i in indices]),
            np.array([chunks[i].spans[-1][1] for i in indices]),
            indices,
        )
        for document, indices in grouped.items()
    }


def _evidence(
    question: Question, index: dict[str, tuple[np.ndarray, np.ndarray, list[int]]]
) -> set[int]:
    found: set[int] = set()
    for reference in question.references:
        entry = index.get(reference.document)
        if entry is None:
            continue
        starts, ends, indices = entry
        mask = (starts < reference.end) & (ends > reference.start)
        found.update(indices[i] for i in np.flatnonzero(mask))
    return found


def _windows(
    corpus: LabelledCorpus,
    chunks: Sequence[IndexedChunk],
    retrieval: RetrievalSettings,
    settings: EvalSettings,
    model_tokenizer: Callable[[], Tokenizer],
    tokenizer_file: str | os.PathLike[str] | None,
) -> tuple[RetrievalSettings, list[str] | None]:
    """Each chunk's context window when the settings read windows (and their budget)."""
    if not retrieval.uses_windows:
        return retrieval, None
    if tokenizer_file is None:
        raise ConfigurationError(
            "retrieval settings with windows (embed = window/fuse or bm25_over = window) "
            "need the embedding model's tokenizer.json: pass model_tokenizer_file"
        )
    from fastrag.benchmarking.windows import WindowMaker

    budget = retrieval.window_tokens or settings.max_seq_length - _SPECIAL_TOKENS
    maker = WindowMaker(corpus.documents, tokenizer_file, model_tokenizer().count, budget)
    resolved = RetrievalSettings(
        retrieval.retrieval, retrieval.bm25_over, retrieval.embed, retrieval.dedupe, budget
    )
    return resolved, [maker.window(chunk) for chunk in chunks]


def _evaluate_one(
    corpus: LabelledCorpus,
    config: ChunkerConfig,
    question_vectors: np.ndarray,
    embedder: CachedEmbedder,
    settings: EvalSettings,
    cl100k: Tokenizer,
    model_tokenizer: Callable[[], Tokenizer],
    tokenizer_file: str | os.PathLike[str] | None,
    progress: Progress | None,
) -> ConfigResult:
    started = time.perf_counter()
    before_chunking = embedder.embedded
    chunks, notes = chunk_corpus(
        config,
        corpus.documents,
        cl100k=cl100k,
        model_tokenizer=model_tokenizer,
        spans="exact",
        embedder=embedder,
        max_seq_length=settings.max_seq_length,
    )
    retrieval, windows = _windows(
        corpus,
        chunks,
        config.retrieval or settings.retrieval,
        settings,
        model_tokenizer,
        tokenizer_file,
    )
    if settings.spans == "first":
        chunks = [move_to_first_occurrence(c, corpus.documents[c.document]) for c in chunks]
    chunked = time.perf_counter()
    tokens = _count(cl100k, [chunk.text for chunk in chunks])
    pieces = [
        count + _SPECIAL_TOKENS
        for count in _count(model_tokenizer(), [c.embedding_text for c in chunks])
    ]
    before = embedder.embedded

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(f"{config.name}: embedded {done}/{total} new texts")

    ranked = candidate_rankings(
        question_vectors,
        [question.text for question in corpus.questions],
        IndexTexts(
            [chunk.text for chunk in chunks],
            [chunk.embedding_text for chunk in chunks],
            windows,
        ),
        retrieval,
        embedder,
        depth=max(settings.k, _RANK_DEPTH),
        progress=report,
    )
    embedded = time.perf_counter()
    deduplicator = Deduplicator([chunk.text for chunk in chunks]) if retrieval.dedupe else None
    evidence_index = _evidence_index(chunks)
    scores = []
    retrieved_tokens = []
    for row, question in enumerate(corpus.questions):
        candidates: Iterable[int] = ranked[row]
        if deduplicator is not None:
            candidates = deduplicator.filter(candidates)
        chosen = select(
            candidates,
            settings.protocol,
            k=settings.k,
            token_budget=settings.token_budget,
            tokens=tokens,
        )
        retrieved_tokens.append(float(sum(tokens[i] for i in chosen)))
        evidence = sorted(_evidence(question, evidence_index))
        scores.append(
            score_question(
                [(ref.document, ref.span) for ref in question.references],
                [(chunks[i].document, chunks[i].spans) for i in chosen],
                [(chunks[i].document, chunks[i].spans) for i in evidence],
                sections=[ref.section for ref in question.references],
                first_heading_path=chunks[chosen[0]].heading_path if chosen else None,
            )
        )
    overall, per_corpus = aggregate(scores, [question.document for question in corpus.questions])
    many = len(corpus.documents) > 8
    histogram: dict[str, list[int]] = {}
    for chunk, count in zip(chunks, tokens, strict=True):
        histogram.setdefault(_source_type(chunk.document, many), []).append(count)
    truncated = sum(count > settings.max_seq_length for count in pieces)
    window_pieces = (
        [count + _SPECIAL_TOKENS for count in _count(model_tokenizer(), windows)]
        if windows is not None and retrieval.embed != "chunk"
        else []
    )
    embeds_chunks = retrieval.retrieval != "bm25" and retrieval.embed != "window"
    sentence_pieces = (
        [
            count + _SPECIAL_TOKENS
            for count in _count(model_tokenizer(), SentenceIndex([c.text for c in chunks]).texts)
        ]
        if retrieval.retrieval != "bm25" and retrieval.embed == "fuse_sentences"
        else []
    )
    cost = {
        "chunks": len(chunks),
        "tokens_indexed": int(sum(tokens)),
        "model_tokens_embedded": int(
            sum(min(count, settings.max_seq_length) for count in pieces) * embeds_chunks
            + sum(min(count, settings.max_seq_length) for count in window_pieces)
            + sum(min(count, settings.max_seq_length) for count in sentence_pieces)
        ),
        "sentences_embedded": len(sentence_pieces),
        "truncated_chunks": truncated,
        "truncated_fraction": truncated / len(chunks) if chunks else 0.0,
        "max_model_tokens": max(pieces, default=0),
        "max_window_model_tokens": max(window_pieces, default=0),
        "retrieved_tokens": mean_std(retrieved_tokens).as_dict(),
        "dedupe_skipped_per_question": (
            deduplicator.skipped / len(corpus.questions)
            if deduplicator is not None and corpus.questions
            else 0.0
        ),
        "newly_embedded": embedder.embedded - before,
        "newly_embedded_while_chunking": before - before_chunking,
        **notes,
        "seconds": {
            "chunking": round(chunked - started, 2),
            "embedding": round(embedded - chunked, 2),
            "scoring": round(time.perf_counter() - embedded, 2),
        },
    }
    return ConfigResult(config, overall, per_corpus, cost, scores, histogram, retrieval)


def _count(tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
    count_many = getattr(tokenizer, "count_many", None)
    if callable(count_many):
        return list(count_many(texts))
    return [tokenizer.count(text) for text in texts]


def evaluate(
    corpus: LabelledCorpus,
    configs: Sequence[ChunkerConfig],
    embedder: CachedEmbedder,
    *,
    settings: EvalSettings | None = None,
    model_tokenizer: Callable[[], Tokenizer],
    cl100k: Tokenizer | None = None,
    progress: Progress | None = None,
    model_tokenizer_file: str | os.PathLike[str] | None = None,
) -> list[ConfigResult]:
    """Measure every configuration under one protocol and one embedding model.

    ``model_tokenizer_file`` (the model's ``tokenizer.json``) is needed by retrieval
    settings that read context windows, to cut them at the model's word pieces.
    """
    from fastrag.tokenization import TiktokenTokenizer

    chosen = settings or EvalSettings()
    counter = cl100k if cl100k is not None else TiktokenTokenizer("cl100k_base")
    question_vectors = embedder.embed([question.text for question in corpus.questions])
    results = []
    for config in configs:
        if progress is not None:
            progress(f"{config.name}: chunking")
        results.append(
            _evaluate_one(
                corpus,
                config,
                question_vectors,
                embedder,
                chosen,
                counter,
                model_tokenizer,
                model_tokenizer_file,
                progress,
            )
        )
    return results
