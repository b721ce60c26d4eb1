"""CPU cost of chunk validation as a ratio to the engine it checks (run by hand).

    .venv/bin/python bench/validate_profile.py [--formats md,txt] [--rounds 2]
        [--max-tokens 512] [--target-tokens 400] [--profile FORMAT]

Per document, as the structure-aware chunker step does in a one-worker run: normalize
and pack (the engine, timed), build the chunk ``Document`` values (untimed), then
``validate_structure_chunks`` over them (timed), one tree alive at a time. The recount
of embedding texts is timed apart by wrapping the tokenizer, so the report separates
what validation cannot avoid (one count per chunk) from its own checks. Issue 5 asks
the whole one-worker pipeline to add <= 20 % over the engine; validation's share of
that is the ``validate/engine`` ratio. ``--profile FORMAT`` runs one validation pass
of that format under cProfile and prints the top functions.

For an A/B against an older tree, run the same command with ``PYTHONPATH`` pointing at
a copy of the old ``src`` (the bench imports ``fastrag`` from whatever is first).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.models import Document
from fastrag.packing.engine import pack
from fastrag.packing.validator import validate_structure_chunks

CORPUS = Path("/work/bench-corpus")
FORMATS: dict[str, tuple[str, Callable[[Path], bool]]] = {
    "md": ("markdown", lambda path: path.suffix == ".md"),
    "txt": ("text", lambda path: True),
    "html": ("html", lambda path: path.suffix in (".html", ".htm")),
    "rst": ("rst", lambda path: path.suffix in (".rst", ".txt")),
}
clock = time.process_time


class _TimedCounter:
    """Forwards ``count`` to the chunker's tokenizer and sums the CPU time it takes."""

    def __init__(self, tokenizer: object) -> None:
        self._count = tokenizer.count  # type: ignore[attr-defined]
        self.seconds = 0.0

    def count(self, text: str) -> int:
        started = clock()
        tokens: int = self._count(text)
        self.seconds += clock() - started
        return tokens


def _load(name: str) -> Iterator[Document]:
    content_format, wanted = FORMATS[name]
    folder = CORPUS / name
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and wanted(p)):
        yield Document(
            str(path.relative_to(folder)),
            "bench",
            path.read_bytes().decode("utf-8", errors="replace"),
            {"content_format": content_format},
        )


def _round(
    name: str, chunker: StructureAwareChunker, profiler: cProfile.Profile | None = None
) -> tuple[float, float, float, int]:
    """(engine, validate, recount) CPU seconds and the chunk count over one format."""
    engine = validate = 0.0
    counter = _TimedCounter(chunker.tokenizer)
    packing = chunker.packing
    chunks = 0
    for document in _load(name):
        started = clock()
        normalized = chunker.normalizers.normalize(document)
        pieces = pack(
            normalized,
            chunker.tokenizer,
            packing,
            normalizer_identity=chunker.normalizers.get(normalized.format).identity,
        )
        engine += clock() - started
        produced = [
            chunker._build_chunk(document, text, metadata, index)
            for index, (text, metadata) in enumerate(pieces)
        ]
        chunks += len(produced)
        started = clock()
        if profiler is not None:
            profiler.enable()
        validate_structure_chunks(
            normalized,
            produced,
            counter,
            packing.max_tokens,
            packing.max_overlap_tokens,
            packing.min_preferred_tokens,
        )
        if profiler is not None:
            profiler.disable()
        validate += clock() - started
    return engine, validate, counter.seconds, chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formats", default="md,txt")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--target-tokens", type=int, default=400)
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()
    chunker = StructureAwareChunker(max_tokens=args.max_tokens, target_tokens=args.target_tokens)
    if args.profile:
        profiler = cProfile.Profile()
        _round(args.profile, chunker, profiler)
        stats = pstats.Stats(profiler).strip_dirs()
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(25)
        return
    for name in args.formats.split(","):
        rows = [_round(name, chunker) for _ in range(args.rounds)]
        engine = statistics.median(row[0] for row in rows)
        validate = statistics.median(row[1] for row in rows)
        recount = statistics.median(row[2] for row in rows)
        print(
            f"{name:5} {rows[0][3]:7} chunks | engine {engine:6.2f}s  validate {validate:5.2f}s "
            f"(recount {recount:5.2f}s, checks {validate - recount:5.2f}s) | "
            f"validate/engine {validate / engine:.3f}  checks/engine "
            f"{(validate - recount) / engine:.3f}"
        )


if __name__ == "__main__":
    main()
