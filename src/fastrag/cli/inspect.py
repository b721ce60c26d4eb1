"""``fastrag inspect FILE [--html OUT.html]``: see where one document's chunks fall.

A thin shell over ``fastrag.inspection``: the file is parsed and chunked with the steps
and chunking options of ``fastrag ingest`` (same defaults), then either written as one
self-contained HTML page (``--html``; no script, no external asset) or printed as a
summary table and one row per chunk.

Exit status: 0 when the document was inspected (an empty document too: it has no
chunks, and the output says so); 1 when it could not be (not a file, not a format
``fastrag ingest`` reads, a parse error — the message says which); 2 on usage errors.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Final

from fastrag._optional import require
from fastrag.cli._options import TOKENIZER_HELP, tokenizer_from_option
from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.job import CHUNKERS

__all__ = ["EXIT_OK", "HELP", "NAME", "configure", "run"]

NAME: Final = "inspect"
HELP: Final = "show how one document is chunked: a terminal summary or a self-contained HTML page"

EXIT_OK: Final = 0
_PLAIN_WIDTH: Final = 150


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type`` accepting integers >= ``minimum``, saying so otherwise."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = minimum - 1
        if number < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum} (got {value!r})")
        return number

    return parse


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's arguments (the chunking ones mirror ``fastrag ingest``'s)."""
    parser.add_argument("file", metavar="FILE", type=Path, help="the document to inspect")
    parser.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="OUT.html",
        help="write a self-contained HTML page (coloured chunk spans, details on hover "
        "or click, summary and token histogram) instead of printing tables",
    )
    parser.add_argument(
        "--format",
        default=None,
        dest="source_format",
        metavar="FORMAT",
        help="force a format (text, markdown, rst, html) instead of detecting it",
    )
    parser.add_argument(
        "--max-file-bytes",
        type=_at_least(1),
        default=None,
        metavar="N",
        help="refuse files larger than N bytes (default 50 MiB)",
    )
    chunking = parser.add_argument_group("chunking (as fastrag ingest)")
    chunking.add_argument("--chunker", choices=CHUNKERS, default="structure")
    chunking.add_argument(
        "--max-tokens",
        type=_at_least(1),
        default=600,
        metavar="N",
        help="hard budget of every chunk's embedding text (default 600)",
    )
    chunking.add_argument(
        "--target-tokens",
        type=_at_least(1),
        default=None,
        metavar="N",
        help="preferred chunk size (default: two thirds of --max-tokens)",
    )
    chunking.add_argument(
        "--overlap-tokens",
        type=_at_least(0),
        default=0,
        metavar="N",
        help="prose overlap between consecutive chunks (default 0)",
    )
    chunking.add_argument("--tokenizer", default="cl100k_base", help=TOKENIZER_HELP)


def run(arguments: argparse.Namespace) -> int:
    """Inspect the file; write the page or print the tables (see the exit statuses)."""
    from fastrag.inspection import inspect_file, render_html, render_table
    from fastrag.inspection.terminal import printable

    optional: dict[str, int] = {}
    if arguments.max_file_bytes is not None:
        optional["max_file_bytes"] = arguments.max_file_bytes
    inspection = inspect_file(
        arguments.file,
        chunker=arguments.chunker,
        tokenizer=tokenizer_from_option(arguments.tokenizer),
        max_tokens=arguments.max_tokens,
        target_tokens=arguments.target_tokens,
        overlap_tokens=arguments.overlap_tokens,
        source_format=arguments.source_format,
        **optional,
    )
    if arguments.html is not None:
        page = render_html(inspection)
        try:
            arguments.html.write_text(page, encoding="utf-8")
        except OSError as error:
            raise ConfigurationError(
                f"cannot write {str(arguments.html)!r}: {error.strerror or error}; choose a "
                "writable --html path"
            ) from error
        print(
            f"fastrag inspect: {printable(inspection.source)}: "
            f"{len(inspection.records)} chunks -> {printable(arguments.html)}"
        )
        return EXIT_OK
    console_module = require("rich.console", extra="cli", feature="fastrag inspect output")
    console = console_module.Console()
    if not console.is_terminal:
        console = console_module.Console(width=_PLAIN_WIDTH)
    render_table(inspection, console)
    return EXIT_OK
