"""``IngestConfig``: everything one ingestion run depends on, validated once, picklable.

The configuration is the single input of a run: the parent process and every worker of a
process pool rebuild the same parsers, chunker and tokenizer from it (``build_plan``), so
the output cannot depend on which process chunked a file. It is a frozen value of plain
data — paths, strings, ints, tuples — plus a ``Tokenizer`` (the built-in tokenizers
pickle as their identity and reload in a worker).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion._glob import compile_globs
from fastrag.ingestion._sidecar import check_caller_metadata
from fastrag.ingestion.manifest import default_manifest_path
from fastrag.ingestion.pages import DEFAULT_MAX_PAGES
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES

if TYPE_CHECKING:
    from fastrag.ingestion.steps.chunking import ChatBoundaryRefiner, Chunker
    from fastrag.ingestion.steps.parsing import ParserRouter
    from fastrag.llm import OpenAIChatModel
    from fastrag.pipeline import CacheStore
    from fastrag.retrieval._kept_trees import KeptTrees
    from fastrag.tokenization import Tokenizer

__all__ = [
    "CHUNKERS",
    "DEFAULT_MAX_TOKENS",
    "ENGINES",
    "FAIL_ON",
    "SEMANTIC_MODES",
    "STORE_RETRIEVALS",
    "ChunkerName",
    "EngineName",
    "FailOn",
    "IngestConfig",
    "Plan",
    "SemanticMode",
    "StoreRetrieval",
    "build_plan",
]

ChunkerName = Literal["structure", "recursive", "heading", "embedding-semantic"]
SemanticMode = Literal["heuristic", "disabled", "llm"]
FailOn = Literal["failed", "quarantined", "any", "never"]
EngineName = Literal["local", "dask"]
StoreRetrieval = Literal["dense", "hybrid"]
STORE_RETRIEVALS: Final[tuple[StoreRetrieval, ...]] = ("dense", "hybrid")
"""``--retrieval``: how a vector store indexes chunks (``MilvusStore`` modes)."""

CHUNKERS: Final[tuple[ChunkerName, ...]] = (
    "structure",
    "recursive",
    "heading",
    "embedding-semantic",
)
"""``structure`` (default): ``StructureAwareChunker``, exact token budget; ``recursive``:
``RecursiveCharacterTextSplitter`` with ``4 × max_tokens`` characters (no token promise);
``heading``: ``HeadingChunker``, whole Markdown/text sections (no size cap);
``embedding-semantic``: ``EmbeddingSemanticChunker`` cutting Markdown/text between
sentences where the local MiniLM embeddings change most (no size cap)."""

BLOCK_SENTENCES: Final = r"(?<=[.?!])\s+|\n\s*\n"
"""The ``embedding-semantic`` sentence boundaries: LangChain's sentence ends, plus blank
lines. Markdown headings, list items and table rows end without a full stop, so with
sentence ends alone a whole section becomes one "sentence" whose window exceeds MiniLM's
256-token input (the file then fails, since windows are never truncated)."""

SEMANTIC_MODES: Final[tuple[SemanticMode, ...]] = ("heuristic", "disabled", "llm")
"""The ``structure`` chunker's prose boundaries: sentence ends (``heuristic``, default),
none (``disabled``), or sentence starts chosen by a chat model (``llm``)."""

ENGINES: Final[tuple[EngineName, ...]] = ("local", "dask")
"""``local`` (default): this process, or a spawn process pool for ``workers > 1``;
``dask``: Dask distributed workers (``scheduler``, else a loopback ``LocalCluster``)."""

SCHEDULER_SCHEMES: Final = ("tcp://", "tls://")

FAIL_ON: Final[tuple[FailOn, ...]] = ("failed", "quarantined", "any", "never")
"""Which final states make a run "incomplete" (``any``: failed or quarantined)."""

DEFAULT_MAX_TOKENS: Final = 600
CHARS_PER_TOKEN: Final = 4
"""The character proxy of the ``recursive`` chunker, which measures in characters."""


def _int_at_least(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(
            f"IngestConfig {name!r} must be an int >= {minimum} (got {value!r:.40})"
        )
    return value


def _strings(name: str, values: object) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ConfigurationError(
            f"IngestConfig {name!r} must be a list of strings (got {values!r:.60}); wrap a "
            "single value in a list"
        )
    for value in values:
        if not isinstance(value, str) or not value:
            raise ConfigurationError(
                f"IngestConfig {name!r} holds {value!r:.40}; every entry must be a nonempty str"
            )
    return tuple(values)


def _optional_path(name: str, value: object) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike):
        raise ConfigurationError(
            f"IngestConfig {name!r} must be a path or None (got {type(value).__name__})"
        )
    return Path(value)


@dataclass(frozen=True, slots=True)
class IngestConfig:
    """One ``fastrag ingest`` run: where from, where to, and how to parse and chunk.

    ``metadata`` is the caller's metadata put on every document (``--metadata k=v``); a
    file's sidecar ``<file>.meta.json`` wins per key over it. ``require_metadata`` keys must
    be present and non-empty (not None, ``""`` or an empty list) after that merge, else the
    file is quarantined. ``format_overrides`` are ``(glob, format)`` pairs, first match wins
    (``("*", "rst")`` forces every file). ``target_tokens`` defaults to two thirds of
    ``max_tokens``, ``min_preferred_tokens`` (below it a chunk is merged with a neighbour
    when the budget allows) to ``min(100, target)``; ``merge_top_level`` lets small top-level
    sections merge with each other (``allow_cross_top_level_merge``: READMEs without a
    title, changelogs with one top-level heading per release). ``max_pages`` caps a PDF's pages;
    ``pdf_password`` opens encrypted PDFs (``--pdf-password``). ``workers > 1`` runs a
    spawn-context process pool; the output is byte-identical for any value. ``batch_size``
    is how many files a worker takes at a time (None: chosen from the file count).
    ``engine="dask"`` runs the batches on Dask distributed workers instead — of the cluster
    at ``scheduler`` (``tcp://host:port``), else of a ``LocalCluster`` of ``workers``
    processes on 127.0.0.1 started for the run; the output is the same bytes as a local
    run's.

    ``store`` (``milvus:PATH.db`` or ``milvus:http://HOST:19530``) also indexes every
    chunked document there, embedded in this process by the local sentence-transformers
    model at ``embedder`` (None: all-MiniLM-L6-v2), ``embed_batch`` texts per forward
    pass; unchanged documents are skipped and ``prune`` removes files that are gone
    (``fastrag.ingestion._job_index``). ``retrieval="hybrid"`` builds a hybrid
    collection instead of a dense one: each chunk also gets a context window (its
    neighbouring chunks' text, to the model's limit) indexed for BM25, and a fused
    vector, so ``fastrag search`` fuses dense and BM25 rankings (see
    ``fastrag.ingestion.steps.storing.milvus``).

    ``semantic`` is the ``structure`` chunker's ``semantic_mode``. ``"llm"`` sends
    eligible plain Markdown/RST paragraphs to the OpenAI-compatible chat endpoint at
    ``llm_base_url`` (model ``llm_model``, key ``llm_api_key``) to choose cut points
    among sentence starts; choosing it is the caller's permission to transmit that text
    (``allow_external_transmission=True``). ``chunker="embedding-semantic"`` embeds
    sentences with the local model at ``embedder`` (None: all-MiniLM-L6-v2).
    """

    input_dir: Path
    output: Path
    manifest: Path | None = None
    report: Path | None = None
    quarantine: Path | None = None
    cache: Path | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    format_overrides: tuple[tuple[str, str], ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_files: int = DEFAULT_MAX_FILES
    chunker: ChunkerName = "structure"
    tokenizer: Tokenizer | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    target_tokens: int | None = None
    min_preferred_tokens: int | None = None
    merge_top_level: bool = False
    overlap_tokens: int = 0
    workers: int = 1
    batch_size: int | None = None
    metadata: tuple[tuple[str, Any], ...] = field(default=())
    require_metadata: tuple[str, ...] = ()
    max_pages: int = DEFAULT_MAX_PAGES
    pdf_password: str | None = field(default=None, repr=False)
    """A secret: passed to the PDF parser only, never into identities, logs or output."""
    engine: EngineName = "local"
    scheduler: str | None = None
    store: str | None = None
    embedder: str | None = None
    embed_batch: int = 32
    prune: bool = False
    retrieval: StoreRetrieval = "dense"
    semantic: SemanticMode = "heuristic"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    """A secret: sent only in the chat endpoint's ``Authorization`` header, never into
    identities, logs, the manifest or errors."""

    def __post_init__(self) -> None:
        for name in ("input_dir", "output"):
            path = _optional_path(name, getattr(self, name))
            if path is None:
                raise ConfigurationError(f"IngestConfig {name!r} is required (got None)")
            object.__setattr__(self, name, path)
        for name in ("manifest", "report", "quarantine", "cache"):
            object.__setattr__(self, name, _optional_path(name, getattr(self, name)))
        object.__setattr__(self, "include", _strings("include", self.include))
        object.__setattr__(self, "exclude", _strings("exclude", self.exclude))
        object.__setattr__(
            self, "require_metadata", _strings("require_metadata", self.require_metadata)
        )
        object.__setattr__(self, "format_overrides", _pairs(self.format_overrides))
        if self.chunker not in CHUNKERS:
            raise ConfigurationError(
                f"IngestConfig 'chunker' must be one of {list(CHUNKERS)} (got {self.chunker!r})"
            )
        _int_at_least("max_file_bytes", self.max_file_bytes, 1)
        _int_at_least("max_files", self.max_files, 1)
        _int_at_least("max_pages", self.max_pages, 1)
        if self.pdf_password is not None and not isinstance(self.pdf_password, str):
            raise ConfigurationError(
                f"IngestConfig 'pdf_password' must be a str or None (got "
                f"{type(self.pdf_password).__name__})"
            )
        _int_at_least("max_tokens", self.max_tokens, 1)
        _int_at_least("overlap_tokens", self.overlap_tokens, 0)
        _int_at_least("workers", self.workers, 1)
        if self.target_tokens is not None:
            _int_at_least("target_tokens", self.target_tokens, 1)
        if self.min_preferred_tokens is not None:
            _int_at_least("min_preferred_tokens", self.min_preferred_tokens, 0)
            if self.min_preferred_tokens > self.max_tokens:
                raise ConfigurationError(
                    f"IngestConfig 'min_preferred_tokens' ({self.min_preferred_tokens}) must "
                    f"not exceed 'max_tokens' ({self.max_tokens}); lower it"
                )
        if self.batch_size is not None:
            _int_at_least("batch_size", self.batch_size, 1)
        if self.overlap_tokens and self.overlap_tokens >= self.max_tokens:
            raise ConfigurationError(
                f"IngestConfig 'overlap_tokens' ({self.overlap_tokens}) must be below "
                f"'max_tokens' ({self.max_tokens}); lower the overlap"
            )
        _check_engine(self.engine, self.scheduler)
        _check_semantic(self)
        _check_store(self)
        if (self.workers > 1 or self.engine == "dask") and self.tokenizer is not None:
            _check_picklable(self.tokenizer)
        pairs = self.metadata.items() if isinstance(self.metadata, Mapping) else self.metadata
        checked = check_caller_metadata(dict(pairs), origin="caller metadata (--metadata)")
        object.__setattr__(self, "metadata", tuple(sorted(checked.items())))
        _check_output_outside_input(self)

    @property
    def manifest_path(self) -> Path:
        """The manifest file: ``manifest``, else ``<output>.manifest.sqlite``."""
        return self.manifest if self.manifest is not None else default_manifest_path(self.output)

    @property
    def effective_target_tokens(self) -> int:
        """``target_tokens``, else two thirds of ``max_tokens`` (at least 1)."""
        if self.target_tokens is not None:
            return self.target_tokens
        return max(1, self.max_tokens * 2 // 3)

    def caller_metadata(self) -> dict[str, Any]:
        """The caller's metadata as a dict (put under each file's sidecar metadata)."""
        return dict(self.metadata)


def _check_engine(engine: object, scheduler: object) -> None:
    if engine not in ENGINES:
        raise ConfigurationError(
            f"IngestConfig 'engine' must be one of {list(ENGINES)} (got {engine!r:.40})"
        )
    if scheduler is None:
        return
    if engine != "dask":
        raise ConfigurationError(
            "IngestConfig 'scheduler' is the address of a Dask scheduler; it needs "
            "engine='dask' (--engine dask)"
        )
    if not isinstance(scheduler, str) or not scheduler.startswith(SCHEDULER_SCHEMES):
        raise ConfigurationError(
            f"IngestConfig 'scheduler' must be a Dask scheduler address such as "
            f"tcp://10.0.0.5:8786 (got {scheduler!r:.60})"
        )


def _check_semantic(config: IngestConfig) -> None:
    """``semantic`` and the ``llm_*`` options, checked now rather than in every worker."""
    if config.semantic not in SEMANTIC_MODES:
        raise ConfigurationError(
            f"IngestConfig 'semantic' must be one of {list(SEMANTIC_MODES)} "
            f"(got {config.semantic!r:.40})"
        )
    if config.semantic != "heuristic" and config.chunker != "structure":
        raise ConfigurationError(
            f"IngestConfig 'semantic' ({config.semantic!r}) applies to the structure chunker "
            f"only (got chunker={config.chunker!r}); use --chunker structure or drop --semantic"
        )
    given = [
        name
        for name in ("llm_base_url", "llm_model", "llm_api_key")
        if getattr(config, name) is not None
    ]
    if config.semantic != "llm":
        if given:
            raise ConfigurationError(
                f"IngestConfig {given} apply to semantic='llm' only; pass --semantic llm "
                "or drop them"
            )
        return
    for name, example in (("llm_base_url", "http://127.0.0.1:8000/v1"), ("llm_model", "gpt-4o")):
        value = getattr(config, name)
        if not isinstance(value, str) or not value.strip():
            raise ConfigurationError(
                f"IngestConfig semantic='llm' needs {name!r}, a nonempty str such as "
                f"{example!r} (--{name.replace('_', '-')})"
            )
    if config.llm_api_key is not None and not isinstance(config.llm_api_key, str):
        raise ConfigurationError(
            f"IngestConfig 'llm_api_key' must be a str or None (got "
            f"{type(config.llm_api_key).__name__})"
        )
    try:
        _chat_model(config)  # the client checks the endpoint URL and the model name
    except ConfigurationError as error:
        raise ConfigurationError(
            f"IngestConfig 'llm_base_url'/'llm_model' (--llm-base-url, --llm-model): {error}"
        ) from None


def _check_store(config: IngestConfig) -> None:
    """``store``/``embedder``/``embed_batch``/``prune``/``retrieval`` (the vector store
    options).

    ``embedder`` is also the sentence model of ``chunker="embedding-semantic"``.
    """
    _int_at_least("embed_batch", config.embed_batch, 1)
    if config.retrieval not in STORE_RETRIEVALS:
        raise ConfigurationError(
            f"IngestConfig 'retrieval' must be one of {list(STORE_RETRIEVALS)} "
            f"(got {config.retrieval!r})"
        )
    if config.embedder is not None and not isinstance(config.embedder, str):
        raise ConfigurationError(
            f"IngestConfig 'embedder' must be the path of a local sentence-transformers model "
            f"directory or None (got {type(config.embedder).__name__})"
        )
    if config.store is None:
        embedder_unused = config.embedder is not None and config.chunker != "embedding-semantic"
        if config.prune or embedder_unused:
            raise ConfigurationError(
                "IngestConfig 'prune' and 'embedder' apply to the vector store; set 'store' "
                "(--store milvus:PATH.db) or drop them"
            )
        if config.retrieval != "dense":
            raise ConfigurationError(
                f"IngestConfig 'retrieval' ({config.retrieval!r}) is how the vector store "
                "indexes chunks; set 'store' (--store milvus:PATH.db) or drop it"
            )
        return
    from fastrag.ingestion._job_index import store_uri

    store_uri(config.store)


def _check_picklable(tokenizer: object) -> None:
    """Workers receive the config by pickle; say so now rather than from a dead pool."""
    try:
        pickle.dumps(tokenizer)
    except Exception as error:  # any pickling failure means the same to the caller
        raise ConfigurationError(
            f"IngestConfig 'tokenizer' ({type(tokenizer).__name__}) cannot be sent to worker "
            f"processes ({error}); use workers=1 with the local engine, or give the tokenizer "
            "a __reduce__ that rebuilds it (as the built-in tokenizers do)"
        ) from error


def _check_output_outside_input(config: IngestConfig) -> None:
    """Refuse an output a later run would ingest as a document, unless it is excluded."""
    root = config.input_dir.resolve()
    output = config.output.resolve()
    if not output.is_relative_to(root):
        return
    relative = output.relative_to(root).as_posix()
    if any(pattern.matches(relative) for pattern in compile_globs("exclude", config.exclude)):
        return
    raise ConfigurationError(
        f"the output {str(config.output)!r} is inside the input folder "
        f"{str(config.input_dir)!r}, so a later run would ingest it as a document; write it "
        f"elsewhere or exclude it (--exclude {relative!r})"
    )


def _pairs(values: object) -> tuple[tuple[str, str], ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ConfigurationError(
            f"IngestConfig 'format_overrides' must be (glob, format) pairs such as "
            f"[('docs/*.txt', 'rst')] (got {values!r:.60})"
        )
    pairs: list[tuple[str, str]] = []
    for value in values:
        if not (
            isinstance(value, tuple)
            and len(value) == 2
            and all(isinstance(part, str) and part for part in value)
        ):
            raise ConfigurationError(
                f"IngestConfig 'format_overrides' holds {value!r:.60}; each entry must be a "
                "(glob, format) pair of nonempty strings"
            )
        pairs.append(value)
    return tuple(pairs)


@dataclass(frozen=True, slots=True)
class Plan:
    """The steps a run (or one worker) builds from its config, and the run's version."""

    parsers: ParserRouter
    chunker: Chunker
    tokenizer: Tokenizer
    ingestion_version: str
    max_tokens: int | None
    """The budget records carry for ``validate``; None when the chunker promises none."""
    counted_by: str | None
    """The tokenizer identity behind the chunks' own ``embedding_token_count``, if any."""
    cache: CacheStore | None
    """The step cache (``--cache``), opened lazily by this process."""
    trees: KeptTrees | None = None
    """With the structure-aware chunker: its normalizers, keeping each tree so the run
    reads the tree's diagnostics and, when it indexes, the document's sections, without
    normalizing twice."""
    index_sections: bool = False
    """Whether each document's sections travel with its outcome (a run with a store)."""


def build_plan(config: IngestConfig) -> Plan:
    """Build fresh parsers, chunker and tokenizer for ``config`` (one set per process)."""
    from fastrag.ingestion.records import ingestion_version
    from fastrag.ingestion.steps.parsing import Parser, default_parsers
    from fastrag.pipeline import SqliteCacheStore

    tokenizer = _tokenizer(config)
    parsers = default_parsers(
        max_bytes=config.max_file_bytes,
        max_pages=config.max_pages,
        pdf_password=config.pdf_password,
    )
    trees = None
    if config.chunker == "structure":
        from fastrag.retrieval._kept_trees import KeptTrees

        trees = KeptTrees()
    chunker, max_tokens = _chunker(config, tokenizer, trees)
    versions = [step.parser_version for _, step in parsers.routes if isinstance(step, Parser)]
    version = ingestion_version(versions, chunker.config_hash, tokenizer.identity)
    counted_by = tokenizer.identity if config.chunker == "structure" else None
    cache = None if config.cache is None else SqliteCacheStore(config.cache)
    index_sections = trees is not None and config.store is not None
    return Plan(
        parsers, chunker, tokenizer, version, max_tokens, counted_by, cache, trees, index_sections
    )


def _tokenizer(config: IngestConfig) -> Tokenizer:
    if config.tokenizer is not None:
        return config.tokenizer
    from fastrag.tokenization import TiktokenTokenizer

    return TiktokenTokenizer("cl100k_base")


def _chunker(
    config: IngestConfig, tokenizer: Tokenizer, trees: KeptTrees | None = None
) -> tuple[Chunker, int | None]:
    from fastrag.ingestion.steps.chunking import (
        HeadingChunker,
        RecursiveCharacterTextSplitter,
        StructureAwareChunker,
    )

    if config.chunker == "recursive":
        recursive = RecursiveCharacterTextSplitter(
            chunk_size=config.max_tokens * CHARS_PER_TOKEN,
            chunk_overlap=config.overlap_tokens * CHARS_PER_TOKEN,
        )
        return recursive, None
    if config.chunker == "heading":
        return HeadingChunker(), None
    if config.chunker == "embedding-semantic":
        return _embedding_semantic(config), None
    target = config.effective_target_tokens
    structure = StructureAwareChunker(
        tokenizer=tokenizer,
        normalizers=trees,
        max_tokens=config.max_tokens,
        target_tokens=target,
        min_preferred_tokens=(
            min(100, target) if config.min_preferred_tokens is None else config.min_preferred_tokens
        ),
        allow_cross_top_level_merge=config.merge_top_level,
        overlap_tokens=config.overlap_tokens,
        max_overlap_tokens=max(50, config.overlap_tokens),
        semantic_mode=config.semantic,
        semantic_refiner=_refiner(config) if config.semantic == "llm" else None,
    )
    return structure, config.max_tokens


def _embedding_semantic(config: IngestConfig) -> Chunker:
    """Sentence cuts by the local embedder; ``start_index`` gives records exact offsets."""
    from fastrag.ingestion.steps.chunking import EmbeddingSemanticChunker
    from fastrag.ingestion.steps.embedding import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder(config.embedder)
    return EmbeddingSemanticChunker(
        embeddings=embedder, sentence_split_regex=BLOCK_SENTENCES, add_start_index=True
    )


def _chat_model(config: IngestConfig) -> OpenAIChatModel:
    """The chat client of ``semantic="llm"``; it holds the key as a ``Secret``."""
    from fastrag.llm import OpenAIChatModel

    model, base_url = config.llm_model, config.llm_base_url
    if model is None or base_url is None:
        raise ConfigurationError(
            "IngestConfig semantic='llm' needs 'llm_base_url' and 'llm_model' "
            "(--llm-base-url, --llm-model)"
        )
    return OpenAIChatModel(model, api_key=config.llm_api_key, base_url=base_url)


def _refiner(config: IngestConfig) -> ChatBoundaryRefiner:
    """One refiner per process (workers rebuild it from the pickled config).

    Its identity is the client's — endpoint, model and generation settings, never the
    key — so it enters the chunker's ``config_hash`` and thus the ingestion version:
    changing model or endpoint re-chunks. ``allow_external_transmission`` is True
    because the caller asked for ``semantic="llm"`` (``--semantic llm``).
    """
    from fastrag.ingestion.steps.chunking import ChatBoundaryRefiner

    model = _chat_model(config)
    return ChatBoundaryRefiner(llm=model, identity=model.identity, allow_external_transmission=True)
