"""``fastrag ingest INPUT_DIR -o OUTPUT.jsonl``: a folder of documents to JSONL chunk records.

A thin shell over ``fastrag.ingestion.job.run_ingest``: it turns options into an
``IngestConfig``, shows progress (a rich progress bar on a terminal; otherwise one plain
log line per file on stderr — file names, states and counts, never document text), then
prints the report table and a one-line summary.

``INPUT_DIR`` and ``-o`` default to the environment variables ``RAG_INPUT_DIR`` and
``RAG_OUTPUT_FILE`` (seed 002). Caller metadata: ``--metadata key=value`` (repeatable)
is put on every document; a file's sidecar ``<file>.meta.json`` wins per key.

Exit status: 0 when every file was chunked, empty or deliberately skipped; 3 when a file
failed or was quarantined (``--fail-on failed|quarantined|any|never`` chooses which states
count; default ``any``); 1 on an error that stopped the run (bad configuration, unusable
cache or manifest); 2 on usage errors.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fastrag._optional import require
from fastrag.cli._options import TOKENIZER_HELP, tokenizer_from_option
from fastrag.exceptions import ConfigurationError
from fastrag.ingestion._job_config import DEFAULT_MAX_TOKENS, SEMANTIC_MODES
from fastrag.ingestion.job import (
    CHUNKERS,
    ENGINES,
    FAIL_ON,
    DocumentIndexed,
    DocumentRejected,
    FileIngested,
    IngestConfig,
    IngestResult,
    run_ingest,
)
from fastrag.pipeline import Event, EventListener

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = [
    "EXIT_INCOMPLETE",
    "EXIT_OK",
    "HELP",
    "NAME",
    "config_from_arguments",
    "configure",
    "run",
    "summary_line",
]

NAME: Final = "ingest"
HELP: Final = "parse and chunk a folder of documents into validated JSONL chunk records"

EXIT_OK: Final = 0
EXIT_INCOMPLETE: Final = 3
"""Some file failed or was quarantined (as ``--fail-on`` counts them)."""

_LOGGER: Final = logging.getLogger("fastrag.cli.ingest")
_PLAIN_WIDTH: Final = 150


def _positive(value: str) -> int:
    return _at_least(value, 1)


def _non_negative(value: str) -> int:
    return _at_least(value, 0)


def _at_least(value: str, minimum: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise argparse.ArgumentTypeError(f"must be an integer >= {minimum} (got {value!r})")
    return number


def _key_value(value: str) -> tuple[str, str]:
    key, separator, item = value.partition("=")
    if not separator or not key.strip():
        raise argparse.ArgumentTypeError(f"must be key=value such as tenant=acme (got {value!r})")
    return key.strip(), item


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's arguments."""
    parser.add_argument(
        "input_dir",
        nargs="?",
        default=os.environ.get("RAG_INPUT_DIR"),
        metavar="INPUT_DIR",
        help="the folder of documents (default: $RAG_INPUT_DIR)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=os.environ.get("RAG_OUTPUT_FILE"),
        metavar="OUTPUT.jsonl",
        help="the JSONL file to write (default: $RAG_OUTPUT_FILE)",
    )
    selection = parser.add_argument_group("selection")
    selection.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="ingest only paths matching a glob (repeatable), e.g. '**/*.md'",
    )
    selection.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip paths matching a glob (repeatable), e.g. 'drafts/'",
    )
    selection.add_argument(
        "--format",
        action="append",
        default=[],
        dest="formats",
        metavar="[GLOB=]FORMAT",
        help="force a format (text, markdown, rst, html) for every file or "
        "for files matching GLOB, e.g. 'docs/*.txt=rst' (repeatable, first "
        "match wins)",
    )
    selection.add_argument(
        "--max-file-bytes",
        type=_positive,
        default=None,
        metavar="N",
        help="skip files larger than N bytes (default 50 MiB)",
    )
    selection.add_argument(
        "--max-files",
        type=_positive,
        default=None,
        metavar="N",
        help="examine at most N files (default 100000)",
    )
    documents = parser.add_argument_group("PDF and office documents")
    documents.add_argument(
        "--pdf-password",
        default=os.environ.get("FASTRAG_PDF_PASSWORD"),
        metavar="PASSWORD",
        help="open encrypted PDFs with this password (default: $FASTRAG_PDF_PASSWORD, "
        "which keeps it out of the process list); never logged or stored",
    )
    documents.add_argument(
        "--max-pages",
        type=_positive,
        default=None,
        metavar="N",
        help="refuse PDFs of more than N pages (default 2000)",
    )
    chunking = parser.add_argument_group("chunking")
    chunking.add_argument(
        "--chunker",
        choices=CHUNKERS,
        default="structure",
        help="structure-aware (default; exact token budget), recursive "
        "(characters: 4 x max-tokens), heading (whole Markdown sections) or "
        "embedding-semantic (Markdown/text cut between sentences where the local "
        "MiniLM embeddings change most, or --embedding-model's; no size cap)",
    )
    chunking.add_argument(
        "--semantic",
        choices=SEMANTIC_MODES,
        default="heuristic",
        help="structure chunker's prose cuts: sentence ends (heuristic, default), none "
        "(disabled), or sentence starts chosen by the chat model of --llm-base-url and "
        "--llm-model (llm: passing it permits sending plain Markdown/RST paragraphs, "
        "never code or tables, to that endpoint; failures fall back to heuristic)",
    )
    chunking.add_argument(
        "--llm-base-url",
        default=None,
        metavar="URL",
        help="with --semantic llm: an OpenAI-compatible endpoint, e.g. "
        "http://127.0.0.1:8000/v1 (vLLM, Ollama, llama.cpp) or https://api.openai.com/v1",
    )
    chunking.add_argument(
        "--llm-model", default=None, metavar="NAME", help="with --semantic llm: the model name"
    )
    chunking.add_argument(
        "--llm-api-key",
        default=None,
        metavar="KEY",
        help="with --semantic llm: the endpoint's API key (default: $FASTRAG_LLM_API_KEY, "
        "which keeps it out of the process list); never logged or stored",
    )
    chunking.add_argument(
        "--max-tokens",
        type=_positive,
        default=None,
        metavar="N",
        help="hard budget of every chunk's embedding text (default 600; with --store "
        "the embedding model's input limit, 256 for all-MiniLM-L6-v2)",
    )
    chunking.add_argument(
        "--target-tokens",
        type=_positive,
        default=None,
        metavar="N",
        help="preferred chunk size (default: two thirds of --max-tokens)",
    )
    chunking.add_argument(
        "--min-preferred-tokens",
        type=_non_negative,
        default=None,
        metavar="N",
        help="chunks under N tokens are merged with a neighbour when the budget allows "
        "(default: the smaller of 100 and the target)",
    )
    chunking.add_argument(
        "--merge-top-level",
        action="store_true",
        help="let small top-level sections merge with each other toward the target (for "
        "documents without one title heading: READMEs, changelogs); default: never across "
        "top-level sections",
    )
    chunking.add_argument(
        "--overlap-tokens",
        type=_non_negative,
        default=0,
        metavar="N",
        help="prose overlap between consecutive chunks (default 0)",
    )
    chunking.add_argument(
        "--tokenizer",
        default=None,
        help=TOKENIZER_HELP + "; with --store the default is the embedding model's own",
    )
    indexing = parser.add_argument_group("vector store")
    indexing.add_argument(
        "--store",
        default=None,
        metavar="milvus:PATH.db|milvus:URI",
        help="also embed (locally, in this process) and index every chunked document in "
        "Milvus: a Milvus Lite file or a server URI (a secured server's token is read "
        "from $FASTRAG_MILVUS_TOKEN, never from an option); unchanged documents are "
        "skipped, changed ones replaced (see docs/scale.md)",
    )
    indexing.add_argument(
        "--retrieval",
        choices=("dense", "hybrid"),
        default="dense",
        help="with --store: dense (default) stores each chunk's own vector; hybrid also "
        "stores a context window per chunk (its neighbouring chunks' text, to the model's "
        "limit) with a BM25 index, a fused vector and the vectors of the chunk's sentences, "
        "so 'fastrag search' fuses a dense ranking (chunk, window, best sentence) with BM25 "
        "and drops near-duplicates (the best retrieval measured in docs/benchmarking.md; "
        "embeds each chunk's text about four times). One collection holds one mode: "
        "switching needs a new store file",
    )
    indexing.add_argument(
        "--prune",
        action="store_true",
        help="with --store: remove the chunks of files that are no longer in INPUT_DIR",
    )
    indexing.add_argument(
        "--embed-batch",
        type=_positive,
        default=32,
        metavar="N",
        help="with --store: texts per embedding forward pass (default 32)",
    )
    indexing.add_argument(
        "--embedding-model",
        default=None,
        metavar="DIR",
        help="with --store or --chunker embedding-semantic: a local sentence-transformers "
        "model directory (default: the bundled all-MiniLM-L6-v2; nothing is downloaded)",
    )
    run_group = parser.add_argument_group("run")
    run_group.add_argument(
        "--workers",
        type=_positive,
        default=1,
        metavar="N",
        help="worker processes (default 1); the output is identical for any N "
        "(with --engine dask: the local cluster's workers)",
    )
    run_group.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local (default): this machine's processes; dask: Dask distributed "
        "workers (pip install 'fastrag-ai[dask]'), a local cluster of --workers "
        "processes on 127.0.0.1 unless --scheduler is given; same output either way",
    )
    run_group.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="with --engine dask: the address of a running Dask scheduler whose "
        "workers see INPUT_DIR at the same path (see docs/scale.md)",
    )
    run_group.add_argument(
        "--metadata",
        action="append",
        type=_key_value,
        default=[],
        metavar="KEY=VALUE",
        help="metadata for every document, e.g. tenant=acme (repeatable); "
        "a file's <file>.meta.json sidecar wins per key",
    )
    run_group.add_argument(
        "--require-metadata",
        action="append",
        default=[],
        metavar="KEY[,KEY...]",
        help="quarantine documents lacking any of these keys, e.g. tenant,acl",
    )
    run_group.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="PATH",
        help="SQLite step cache: unchanged files with an unchanged "
        "configuration are replayed, not re-parsed or re-chunked",
    )
    run_group.add_argument(
        "--quarantine",
        type=Path,
        default=None,
        metavar="DIR",
        help="copy quarantined files here, each with a .reason.txt",
    )
    run_group.add_argument(
        "--report", type=Path, default=None, metavar="PATH", help="write the run report as JSON"
    )
    run_group.add_argument(
        "--manifest",
        type=Path,
        default=None,
        metavar="PATH",
        help="the SQLite manifest (default: <output>.manifest.sqlite)",
    )
    run_group.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="any",
        help=f"which files make the exit status {EXIT_INCOMPLETE}: failed, "
        "quarantined, any (default: failed or quarantined) or never",
    )


def _overrides(values: list[str]) -> tuple[tuple[str, str], ...]:
    """``FORMAT`` applies to every file (glob ``*``); ``GLOB=FORMAT`` to matching paths."""
    pairs = []
    for value in values:
        glob, separator, name = value.rpartition("=")
        pairs.append((glob if separator else "*", name))
    return tuple(pairs)


def _chunk_budget(arguments: argparse.Namespace) -> tuple[Tokenizer, int]:
    """The chunker's tokenizer and budget: as given, else fitted to the embedding model.

    With ``--store`` every chunk is embedded, and a text over the model's limit is refused
    (never truncated), so by default chunks are measured in the model's own tokens and
    capped at its input limit: no chunk can be refused.
    """
    if arguments.store is None or (arguments.tokenizer and arguments.max_tokens):
        return (
            tokenizer_from_option(arguments.tokenizer or "cl100k_base"),
            arguments.max_tokens or DEFAULT_MAX_TOKENS,
        )
    from fastrag.llm import SentenceTransformerModel

    model = SentenceTransformerModel(arguments.embedding_model)
    tokenizer = (
        tokenizer_from_option(arguments.tokenizer) if arguments.tokenizer else model.tokenizer
    )
    return tokenizer, arguments.max_tokens or model.max_input_tokens


def config_from_arguments(arguments: argparse.Namespace) -> IngestConfig:
    """The ``IngestConfig`` the parsed options describe."""
    if not arguments.input_dir:
        raise ConfigurationError(
            "no input folder: pass INPUT_DIR or set the environment variable RAG_INPUT_DIR"
        )
    if not arguments.output:
        raise ConfigurationError(
            "no output file: pass -o OUTPUT.jsonl or set the environment variable RAG_OUTPUT_FILE"
        )
    required = tuple(
        key.strip() for value in arguments.require_metadata for key in value.split(",")
    )
    optional: dict[str, Any] = {}
    if arguments.max_file_bytes is not None:
        optional["max_file_bytes"] = arguments.max_file_bytes
    if arguments.max_files is not None:
        optional["max_files"] = arguments.max_files
    if arguments.max_pages is not None:
        optional["max_pages"] = arguments.max_pages
    if arguments.pdf_password:
        optional["pdf_password"] = arguments.pdf_password
    # The environment's key is read only for --semantic llm (it may be set for other
    # tools); an explicit --llm-api-key without it is refused by IngestConfig.
    llm_key = arguments.llm_api_key
    if not llm_key and arguments.semantic == "llm":
        llm_key = os.environ.get("FASTRAG_LLM_API_KEY")
    if llm_key:
        optional["llm_api_key"] = llm_key
    tokenizer, max_tokens = _chunk_budget(arguments)
    return IngestConfig(
        input_dir=Path(arguments.input_dir),
        output=Path(arguments.output),
        manifest=arguments.manifest,
        report=arguments.report,
        quarantine=arguments.quarantine,
        cache=arguments.cache,
        include=tuple(arguments.include),
        exclude=tuple(arguments.exclude),
        format_overrides=_overrides(arguments.formats),
        chunker=arguments.chunker,
        tokenizer=tokenizer,
        max_tokens=max_tokens,
        target_tokens=arguments.target_tokens,
        min_preferred_tokens=arguments.min_preferred_tokens,
        merge_top_level=arguments.merge_top_level,
        overlap_tokens=arguments.overlap_tokens,
        workers=arguments.workers,
        engine=arguments.engine,
        scheduler=arguments.scheduler,
        store=arguments.store,
        prune=arguments.prune,
        retrieval=arguments.retrieval,
        embed_batch=arguments.embed_batch,
        embedder=arguments.embedding_model,
        semantic=arguments.semantic,
        llm_base_url=arguments.llm_base_url,
        llm_model=arguments.llm_model,
        metadata=tuple(arguments.metadata),
        require_metadata=tuple(key for key in required if key),
        **optional,
    )


def _log_file(event: Event) -> None:
    """The plain progress line of one finished file (never its text)."""
    if not isinstance(event, FileIngested):
        return
    detail = f"{event.chunks} chunks" if event.state == "chunked" else event.reason
    _LOGGER.info("[%d/%d] %s %s (%s)", event.done, event.total, event.state, event.item_id, detail)


def _plain_logging() -> None:
    """Send progress lines to stderr, once (a second run reuses the handler)."""
    if not any(isinstance(handler, _StderrHandler) for handler in _LOGGER.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("fastrag ingest: %(message)s"))
        _LOGGER.addHandler(handler)
        _LOGGER.setLevel(logging.INFO)
        _LOGGER.propagate = False


class _StderrHandler(logging.Handler):
    """Write to whatever ``sys.stderr`` is now, not the stream it was when created."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging's own contract: never raise from emit
            self.handleError(record)


def _run_with_progress(
    config: IngestConfig, console: Any, extra: Sequence[EventListener] = ()
) -> IngestResult:
    """Run under a rich progress bar on a terminal, else with plain log lines."""
    if not console.is_terminal:
        _plain_logging()
        return run_ingest(config, listeners=[_log_file, *extra])
    progress_module = require("rich.progress", extra="cli", feature="the ingest progress bar")
    with progress_module.Progress(
        *progress_module.Progress.get_default_columns(),
        progress_module.TextColumn("{task.fields[current]}"),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("Ingesting", total=None, current="")

        def advance(event: Event) -> None:
            if isinstance(event, FileIngested):
                progress.update(
                    task, total=event.total, completed=event.done, current=event.item_id
                )

        return run_ingest(config, listeners=[advance, *extra])


class _IndexCounter:
    """Counts the ``--store`` outcome: documents re-indexed, chunks embedded, unchanged,
    refused by the store."""

    def __init__(self) -> None:
        self.indexed = self.embedded = self.unchanged = self.deleted = self.rejected = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, DocumentRejected):
            self.rejected += 1
            self.embedded += event.embedded
        elif isinstance(event, DocumentIndexed):
            if event.embedded:
                self.indexed += 1
                self.embedded += event.embedded
                self.deleted += event.deleted
            else:
                self.unchanged += 1

    def line(self, store: str) -> str:
        return (
            f"fastrag ingest: store {store}: {self.indexed} documents indexed "
            f"({self.embedded} chunks embedded, {self.deleted} old chunks removed), "
            f"{self.unchanged} unchanged, {self.rejected} refused by the store"
        )


def summary_line(result: IngestResult) -> str:
    """One line: files per state, records, where they went, what the cache replayed."""
    states = ", ".join(f"{count} {state}" for state, count in result.states.items())
    line = (
        f"fastrag ingest: {len(result.entries)} files ({states}) -> {result.records} records "
        f"in {result.output}; manifest {result.manifest}"
    )
    if result.config.report is not None:
        line += f"; report {result.config.report}"
    if result.config.cache is not None:
        line += (
            f"; cache: {result.parse_cache_hits} parses and {result.chunk_cache_hits} "
            f"chunkings replayed, {result.fresh_parses} files parsed"
        )
    return line


def run(arguments: argparse.Namespace) -> int:
    """Ingest, show progress, print the report table and a summary; see the exit statuses."""
    config = config_from_arguments(arguments)
    console_module = require("rich.console", extra="cli", feature="fastrag ingest output")
    progress_console = console_module.Console(stderr=True)
    indexed = _IndexCounter()
    result = _run_with_progress(config, progress_console, [indexed])
    console = console_module.Console()
    if not console.is_terminal:
        # A log file or pipe has no width; 80 columns would truncate the report's figures.
        console = console_module.Console(width=_PLAIN_WIDTH)
    result.report.render_table(console)
    console.print(summary_line(result), markup=False, highlight=False, soft_wrap=True)
    if config.store is not None:
        console.print(indexed.line(config.store), markup=False, highlight=False, soft_wrap=True)
    return EXIT_INCOMPLETE if result.incomplete(arguments.fail_on) else EXIT_OK
