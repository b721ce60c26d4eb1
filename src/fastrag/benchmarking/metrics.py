r"""Retrieval-quality metrics over character ranges: pure functions, no I/O.

Everything is measured in source characters. For one question let :math:`E` be the union
of its reference excerpts, and let the retriever return chunks :math:`C_1 \dots C_k`,
each showing a set of source ranges :math:`S_i` of some document (ranges of other
documents never intersect :math:`E`). Then, as in Chroma's report ("Evaluating Chunking
Strategies for Retrieval", Smith & Troynikov, 2024) and its harness:

- ``H = E ∩ (S_1 ∪ … ∪ S_k)`` — the excerpt characters retrieved;
- **recall** ``= |H| / |E|``;
- **precision** ``= |H| / Σ_i |S_i|`` — the denominator is the *sum* of the retrieved
  chunks' lengths, not the size of their union: text that overlapping chunks repeat is
  handed to the reader twice and is counted twice (Chroma's definition; it is also what
  a context window pays);
- **IoU** ``= |H| / (Σ_i |S_i| + |E \ H|)`` — intersection over the retrieved text plus
  the excerpt text that was missed;
- **precision-Ω** (a perfect retriever): with :math:`P` the union of *every* chunk of
  the index that overlaps :math:`E`, ``Ω = |E ∩ P| / |P ∪ E|``: the precision reached by
  retrieving exactly the chunks that hold evidence — the ceiling a configuration's chunk
  boundaries allow;
- **hit** — the fraction of excerpts that one retrieved chunk contains whole;
- **evidence split** — the fraction of excerpts that *no* chunk of the index contains
  whole (independent of retrieval: the boundaries cut them);
- **section accuracy** — when references carry a section path: 1 when the first
  retrieved chunk's heading path starts with some reference's path, else 0.

With no retrieved chunk, recall, precision and IoU are 0. A range "overlaps" another
only when they share at least one character. Aggregates are the mean and the population
standard deviation (``numpy.std``, as the report) over questions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "METRICS",
    "MeanStd",
    "QuestionScore",
    "RetrievedSpans",
    "Span",
    "aggregate",
    "covered",
    "intersect",
    "mean_std",
    "score_question",
    "union",
]

Span = tuple[int, int]
RetrievedSpans = tuple[str, Sequence[Span]]
"""A retrieved chunk: its document and its sorted, disjoint source ranges."""


def union(spans: Iterable[Span]) -> list[Span]:
    """Sorted, disjoint ranges covering the same characters (empty ranges dropped)."""
    merged: list[Span] = []
    for start, end in sorted(span for span in spans if span[1] > span[0]):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def covered(spans: Iterable[Span]) -> int:
    """Characters in the union of ``spans``."""
    return sum(end - start for start, end in union(spans))


def intersect(left: Iterable[Span], right: Iterable[Span]) -> list[Span]:
    """The union of the pairwise intersections: ``union(left) ∩ union(right)``."""
    a, b = union(left), union(right)
    result: list[Span] = []
    i = j = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            result.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return result


def _contains(spans: Sequence[Span], excerpt: Span) -> bool:
    return covered(intersect(spans, [excerpt])) == excerpt[1] - excerpt[0]


@dataclass(frozen=True, slots=True)
class QuestionScore:
    """Scores of one question (fractions in [0, 1]; ``section`` is None without labels)."""

    recall: float
    precision: float
    iou: float
    precision_omega: float
    hit: float
    split: float
    section: float | None
    retrieved: int


def _by_document(items: Iterable[tuple[str, Span]]) -> dict[str, list[Span]]:
    grouped: dict[str, list[Span]] = {}
    for document, span in items:
        grouped.setdefault(document, []).append(span)
    return grouped


def score_question(
    excerpts: Sequence[tuple[str, Span]],
    retrieved: Sequence[RetrievedSpans],
    evidence_chunks: Sequence[RetrievedSpans],
    *,
    sections: Sequence[tuple[str, ...] | None] = (),
    first_heading_path: tuple[str, ...] | None = None,
) -> QuestionScore:
    """Score one question.

    ``excerpts``: ``(document, (start, end))`` per reference. ``retrieved``: the chunks
    returned, in rank order. ``evidence_chunks``: every chunk of the index that overlaps
    an excerpt (for precision-Ω and the split rate; passing the whole index is correct,
    only slower). ``sections``: each reference's section path (None when unlabelled);
    ``first_heading_path``: the heading path of the first retrieved chunk, if any.
    """
    wanted = {document: union(spans) for document, spans in _by_document(excerpts).items()}
    excerpt_total = sum(covered(spans) for spans in wanted.values())
    got = _by_document((document, span) for document, spans in retrieved for span in spans)
    hit_chars = sum(
        covered(intersect(spans, got.get(document, []))) for document, spans in wanted.items()
    )
    shown = sum(end - start for _, spans in retrieved for start, end in spans)
    missed = excerpt_total - hit_chars
    recall = hit_chars / excerpt_total if excerpt_total else 0.0
    precision = hit_chars / shown if shown else 0.0
    iou_denominator = shown + missed
    iou = hit_chars / iou_denominator if iou_denominator else 0.0

    evidence = [
        (document, spans)
        for document, spans in evidence_chunks
        if intersect(spans, wanted.get(document, []))
    ]
    overlapping = _by_document((document, span) for document, spans in evidence for span in spans)
    omega_hit = sum(
        covered(intersect(spans, overlapping.get(document, [])))
        for document, spans in wanted.items()
    )
    omega_union = sum(
        covered([*overlapping.get(document, []), *wanted.get(document, [])])
        for document in set(wanted) | set(overlapping)
    )
    omega = omega_hit / omega_union if omega_union else 0.0

    whole = [
        any(doc == document and _contains(spans, span) for doc, spans in retrieved)
        for document, span in excerpts
    ]
    unsplit = [
        any(doc == document and _contains(spans, span) for doc, spans in evidence)
        for document, span in excerpts
    ]
    hit = sum(whole) / len(excerpts) if excerpts else 0.0
    split = 1.0 - sum(unsplit) / len(excerpts) if excerpts else 0.0
    section = _section(sections, first_heading_path)
    return QuestionScore(recall, precision, iou, omega, hit, split, section, len(retrieved))


def _section(
    sections: Sequence[tuple[str, ...] | None], heading_path: tuple[str, ...] | None
) -> float | None:
    labelled = [path for path in sections if path is not None]
    if not labelled:
        return None
    if heading_path is None:
        return 0.0
    return float(any(heading_path[: len(path)] == path for path in labelled))


@dataclass(frozen=True, slots=True)
class MeanStd:
    """Mean and population standard deviation of a list of values (``n`` values)."""

    mean: float
    std: float
    n: int

    def as_dict(self) -> dict[str, float | int]:
        """``{"mean", "std", "n"}``."""
        return {"mean": self.mean, "std": self.std, "n": self.n}


def mean_std(values: Sequence[float]) -> MeanStd:
    """Mean and population std (``ddof=0``); ``nan`` for an empty list."""
    if not values:
        return MeanStd(math.nan, math.nan, 0)
    mean = math.fsum(values) / len(values)
    variance = math.fsum((value - mean) ** 2 for value in values) / len(values)
    return MeanStd(mean, math.sqrt(variance), len(values))


METRICS = ("recall", "precision", "iou", "precision_omega", "hit", "split", "section")


def aggregate(
    scores: Sequence[QuestionScore], groups: Sequence[str]
) -> tuple[dict[str, MeanStd], dict[str, dict[str, MeanStd]]]:
    """Overall and per-group (e.g. per corpus) mean ± std of every metric."""

    def summarize(selected: Sequence[QuestionScore]) -> dict[str, MeanStd]:
        summary = {}
        for metric in METRICS:
            values = [getattr(score, metric) for score in selected]
            present = [float(value) for value in values if value is not None]
            if present:
                summary[metric] = mean_std(present)
        return summary

    per_group: dict[str, list[QuestionScore]] = {}
    for score, group in zip(scores, groups, strict=True):
        per_group.setdefault(group, []).append(score)
    return summarize(scores), {
        group: summarize(items) for group, items in sorted(per_group.items())
    }
