"""PdfParser pages per second on the PDF corpus, beside bare pypdfium2 text extraction (by hand).

    .venv/bin/python bench/pdf_parse.py [PDF_DIR] [--rounds N] [--backend NAME ...]

PDF_DIR defaults to the shared corpus (``shared/corpus/pdf``). For every PDF with text,
each round times with ``time.process_time`` (one core, CPU only), alternating:

* ``bare``: pypdfium2 opening the file and calling ``get_text_range()`` on every page —
  text without structure, the floor any pypdfium2-based parser stands on;
* ``parser``: ``PdfParser(backend=...).parse`` — extraction, furniture, reading order,
  headings, blocks and the Markdown rendering with page maps, structure included — once
  per ``--backend`` (default: ``pypdfium2``, plus ``pymupdf`` when PyMuPDF is installed).

It prints the median pages/s of each per file and each parser's ratio to ``bare``; the
target is
``PdfParser`` at >= 100 pages/s on bashref.pdf (196 pages) on one core. Absolute
figures move with the machine's load: compare the ratio, measured in the same run.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import pypdfium2

from fastrag.exceptions import ParsingError
from fastrag.ingestion.steps.parsing.pdf import PdfBackend, PdfParser
from fastrag.models import Document

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "pdf"


def bare_seconds(data: bytes) -> tuple[float, int]:
    """CPU seconds for pypdfium2's plain text of every page, and the page count."""
    start = time.process_time()
    document = pypdfium2.PdfDocument(data)
    try:
        count = len(document)
        for index in range(count):
            page = document[index]
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
    finally:
        document.close()
    return time.process_time() - start, count


def parser_seconds(parser: PdfParser, data: bytes, name: str) -> float:
    """CPU seconds for one ``PdfParser.parse`` of ``data``."""
    raw = Document("bench", name, "", {})
    start = time.process_time()
    parser.parse(data, raw)
    return time.process_time() - start


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    arguments.add_argument("--rounds", type=int, default=5)
    arguments.add_argument(
        "--backend",
        action="append",
        choices=["pypdfium2", "pymupdf"],
        help="text backend(s) to time; repeat for several (default: all installed)",
    )
    options = arguments.parse_args()
    backends: list[PdfBackend] = options.backend or (
        ["pypdfium2", "pymupdf"] if importlib.util.find_spec("pymupdf") else ["pypdfium2"]
    )
    parsers = {backend: PdfParser(backend=backend) for backend in backends}
    files = sorted(options.directory.glob("*.pdf"))
    header = "".join(f" {backend + ' p/s':>14} {'ratio':>6}" for backend in backends)
    print(f"{'file':40} {'pages':>5} {'bare p/s':>9}{header}")
    for path in files:
        data = path.read_bytes()
        try:
            for parser in parsers.values():  # warm up; skips unparsable files
                parser_seconds(parser, data, path.name)
        except ParsingError as error:
            print(f"{path.name:40} skipped: {type(error).__name__}")
            continue
        bare: list[float] = []
        parsed: dict[str, list[float]] = {backend: [] for backend in backends}
        pages = 0
        for _ in range(options.rounds):
            seconds, pages = bare_seconds(data)
            bare.append(seconds)
            for backend, parser in parsers.items():
                parsed[backend].append(parser_seconds(parser, data, path.name))
        bare_rate = pages / max(statistics.median(bare), 1e-9)
        line = f"{path.name:40} {pages:5d} {bare_rate:9.0f}"
        for backend in backends:
            rate = pages / max(statistics.median(parsed[backend]), 1e-9)
            line += f" {rate:14.0f} {rate / bare_rate:6.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
