"""``validate_structure_chunks``: an independent proof that chunks honour the contract.

The validator trusts nothing the engine computed. From the normalized parent and the
chunks alone it recomputes coverage (every retained unit owned by exactly one chunk's
retained intervals, overlap excluded), the serialization maps (runs tile the content and
round-trip to the source), lineage (sections, heading path, displayed headings), token
counts of the complete embedding text, the budget, overlap ceilings and ordering.

It imports only the contract, the normalized model, ``models`` and ``exceptions`` — no
packer module — so a bug in the engine cannot hide behind a shared helper; a test
enforces that by parsing this package's imports. It works on fresh ``(content,
metadata)`` tuples and on persisted chunk ``Document`` values (JSON lists accepted).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, islice, pairwise
from operator import le
from time import perf_counter
from typing import Any, Protocol

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.models import Document
from fastrag.normalization.model import NormalizedDocument
from fastrag.packing._validator_intervals import (
    Interval,
    contains,
    first_difference,
    first_missing,
    gap_columns,
    merge,
    subtract,
)
from fastrag.packing._validator_lineage import HEADING, SourceIndex, check_lineage, coalesce
from fastrag.packing._validator_metadata import (
    KIND,
    SOURCE_END,
    SOURCE_START,
    ChunkRecord,
    MapRun,
    excerpt,
    fail,
    read_piece,
)
from fastrag.packing.contract import build_embedding_text
from fastrag.packing.validation import CHUNKED, EMPTY, HIERARCHY_ONLY, ChunkValidation

__all__ = ["TokenCounter", "validate_structure_chunks"]

Piece = tuple[str, Mapping[str, Any]] | Document


class TokenCounter(Protocol):
    """The one tokenizer capability the validator needs: count a complete text."""

    def count(self, text: str) -> int: ...


def _check_arguments(max_tokens: int, max_overlap_tokens: int, min_preferred: int) -> None:
    for name, value, lowest in (
        ("max_tokens", max_tokens, 1),
        ("max_overlap_tokens", max_overlap_tokens, 0),
        ("min_preferred_tokens", min_preferred, 0),
    ):
        if type(value) is not int or value < lowest:
            raise ConfigurationError(
                f"{name!r} must be an int >= {lowest} (got {value!r}); pass the budget the "
                "chunks were produced with"
            )


def _check_intervals(record: ChunkRecord, length: int, previous: ChunkRecord | None) -> None:
    """Retained intervals sorted, disjoint, coalesced, in bounds; char range; order."""
    if not record.retained:
        raise fail(record.number, "retained_intervals", "a chunk must retain source (got none)")
    previous_end = -1
    for start, end in record.retained:
        if not 0 <= start < end <= length:
            raise fail(
                record.number,
                "retained_intervals",
                f"[{start}, {end}) must be nonempty and within the source [0, {length})",
            )
        if start <= previous_end:
            raise fail(
                record.number,
                "retained_intervals",
                f"[{start}, {end}) must start after the previous interval's end "
                f"{previous_end} (sorted, disjoint, adjacent runs coalesced)",
            )
        previous_end = end
    expected = (record.retained[0][0], record.retained[-1][1])
    if (record.char_start, record.char_end) != expected:
        raise fail(
            record.number,
            "char_start/char_end",
            f"retained intervals span [{expected[0]}, {expected[1]}) but the chunk records "
            f"[{record.char_start}, {record.char_end})",
        )
    if previous is not None and record.char_start <= previous.char_start:
        raise fail(
            record.number,
            "ordering",
            f"char_start {record.char_start} must be greater than chunk "
            f"{previous.number}'s char_start {previous.char_start} (chunks in source order)",
        )


def _shows_retained(
    source: SourceIndex, starts: Sequence[int], ends: Sequence[int], start: int, end: int
) -> bool:
    """Whether a run's source is this chunk's retained source, bar excluded whitespace.

    A separator equal to the source gap it replaces may be coalesced into the
    neighbouring verbatim runs ("\\n\\n" between two paragraphs), so a verbatim run can
    span whitespace the normalizer excluded. That shows no text the chunk does not own;
    anything else outside the retained intervals (markup, scripts, another chunk's text)
    does. ``starts``/``ends`` are the retained intervals' columns. ``_check_map`` first
    tries the usual HTML case inline (the run lies inside one retained interval); this
    is the general case, checking the run's gaps column-wise.
    """
    return source.all_whitespace(*gap_columns(starts, ends, start, end))


def _where(number: int, run: MapRun) -> str:
    """How a message names a map run; built only when a check fails."""
    d0, d1, s0, s1, kind = run
    return f"serialization_map[{number}] ({kind} {d0}-{d1} -> {s0}-{s1})"


def _check_map(record: ChunkRecord, source: SourceIndex) -> None:
    """Runs tile the content; verbatim runs round-trip; retained == displayed source.

    One pass over the runs, the hottest loop of the validator on HTML (hundreds of
    rendered runs per chunk): each run is unpacked once and checked with bisects.
    """
    content, text, length = record.content, source.content, len(source.content)
    retained = record.retained  # already checked nonempty, sorted, disjoint, coalesced
    starts, ends = zip(*retained, strict=True)
    count = len(starts)
    displayed: list[Interval] = []
    position = 0
    for number, run in enumerate(record.runs):
        d0, d1, s0, s1, kind = run
        if d0 != position or d1 < d0:
            raise fail(
                record.number,
                "serialization map",
                f"{_where(number, run)} must start at display offset {position} and not run "
                "backwards (runs tile the content without gaps)",
            )
        position = d1
        if kind == "separator":
            if s0 != -1 or s1 != -1:
                raise fail(
                    record.number,
                    "serialization map",
                    f"{_where(number, run)}: separators map to (-1, -1)",
                )
            continue
        if not 0 <= s0 <= s1 <= length:
            raise fail(
                record.number,
                "serialization map",
                f"{_where(number, run)}: the source range must lie within [0, {length})",
            )
        if kind == "rendered":
            if s0 == s1:
                raise fail(
                    record.number, "serialization map", f"{_where(number, run)}: renders no source"
                )
        elif content[d0:d1] != text[s0:s1]:
            raise fail(
                record.number,
                "serialization map",
                f"{_where(number, run)} must round-trip: display {excerpt(content[d0:d1])} != "
                f"source {excerpt(text[s0:s1])}",
            )
        if kind == "source" or kind == "rendered":
            inside = bisect_right(ends, s0)  # the one retained interval it may lie in
            if not (
                inside < count and starts[inside] <= s0 and s1 <= ends[inside]
            ) and not _shows_retained(source, starts, ends, s0, s1):
                raise fail(
                    record.number,
                    "serialization map",
                    f"{_where(number, run)} shows source outside this chunk's retained "
                    "intervals (only whitespace the normalizer excluded may sit between "
                    "retained blocks)",
                )
            displayed.append((s0, s1))
        elif kind == "context" and not source.in_units(s0, s1):
            raise fail(
                record.number,
                "serialization map",
                f"{_where(number, run)}: repeated context must be copied from retained source",
            )
    if position != len(content):
        raise fail(
            record.number,
            "serialization map",
            f"runs end at display offset {position} but the content has {len(content)} characters",
        )
    missing = first_missing(list(retained), merge(displayed))
    if missing is not None:
        raise fail(
            record.number,
            "serialization map",
            f"retained source [{missing[0]}, {missing[1]}) is shown by no source/rendered run",
        )


def _check_context(record: ChunkRecord) -> None:
    """Repeated-context entries point at display ranges shown by ``context`` runs."""
    if not record.repeated_context:
        return
    shown = merge((run[0], run[1]) for run in record.runs if run[KIND] == "context")
    starts = [start for start, _ in shown]
    for start, end, kind in record.repeated_context:
        if start >= end or not contains(shown, starts, start, end):
            raise fail(
                record.number,
                "repeated_context",
                f"{kind} [{start}, {end}) must be a nonempty display range made of "
                "'context' map runs",
            )


def _check_overlap(
    record: ChunkRecord,
    previous: ChunkRecord | None,
    source: SourceIndex,
    tokenizer: TokenCounter,
    max_overlap_tokens: int,
) -> None:
    """Overlap repeats the previous chunk's retained source, in section, within budget."""
    overlap_runs = [
        (run[SOURCE_START], run[SOURCE_END]) for run in record.runs if run[KIND] == "overlap"
    ]
    if not record.overlap and not overlap_runs:
        return  # most chunks: nothing recorded, nothing shown
    overlap = merge(record.overlap)
    if tuple(overlap) != record.overlap:
        raise fail(
            record.number,
            "overlap_intervals",
            f"{excerpt(record.overlap)} must be nonempty, sorted, disjoint and coalesced",
        )
    runs = merge(overlap_runs)
    if runs != overlap:
        raise fail(
            record.number,
            "overlap_intervals",
            f"recorded {excerpt(overlap)} but the 'overlap' map runs show {excerpt(runs)}",
        )
    if not overlap:
        return
    retained = merge(record.retained)
    shared = subtract(overlap, subtract(overlap, retained))
    if shared:
        raise fail(
            record.number,
            "overlap counted as coverage",
            f"source [{shared[0][0]}, {shared[0][1]}) is listed both in overlap_intervals "
            "and in retained_intervals",
        )
    if previous is None:
        raise fail(record.number, "overlap_intervals", "the first chunk has no previous chunk")
    outside, _ = first_difference(overlap, merge(previous.retained))
    if outside is not None:
        raise fail(
            record.number,
            "overlap_intervals",
            f"overlap [{outside[0]}, {outside[1]}) is not retained by the previous chunk "
            f"{previous.number}",
        )
    own_section = source.section_at(record.char_start)
    for start, end in overlap:
        for section in source.sections_between(start, end):
            if section != own_section:
                raise fail(
                    record.number,
                    "overlap_intervals",
                    f"overlap [{start}, {end}) comes from section "
                    f"{excerpt(section)} but the chunk starts in "
                    f"{excerpt(own_section)}; overlap never crosses sections",
                )
    overlap_text = "".join(
        record.content[run[0] : run[1]] for run in record.runs if run[KIND] == "overlap"
    )
    tokens = tokenizer.count(overlap_text)
    if tokens > max_overlap_tokens:
        raise fail(
            record.number,
            "overlap budget",
            f"overlap text has {tokens} tokens > max_overlap_tokens {max_overlap_tokens}",
        )


def _check_count(record: ChunkRecord, tokenizer: TokenCounter, max_tokens: int) -> int:
    """Recount the complete embedding text; budget unless flagged as overflow."""
    tokens = tokenizer.count(build_embedding_text(record.content, record.metadata))
    if type(tokens) is not int or tokens < 0:
        raise ConfigurationError(
            f"tokenizer.count returned {tokens!r} for chunk {record.number}; a tokenizer "
            "must return a nonnegative int"
        )
    if tokens != record.embedding_token_count:
        raise fail(
            record.number,
            "token count",
            f"the embedding text counts {tokens} tokens but embedding_token_count records "
            f"{record.embedding_token_count} (was it produced with another tokenizer?)",
        )
    if tokens > max_tokens and not record.overflow:
        raise fail(
            record.number,
            "budget",
            f"the embedding text has {tokens} tokens > max_tokens {max_tokens} and the "
            "chunk carries no overflow flag",
        )
    if record.overflow and tokens <= max_tokens:
        raise fail(
            record.number,
            "overflow flag",
            f"the chunk is flagged as overflow but has {tokens} tokens <= max_tokens {max_tokens}",
        )
    return tokens


def _classify(source: SourceIndex) -> str:
    normalized = source.normalized
    content = normalized.content

    units = source.units
    rows = list(zip(units.starts, units.ends, units.node_ids, strict=True))

    def blank(start: int, end: int, node_id: str) -> bool:
        owner = normalized.node(node_id)
        rendered_blank = bool(owner.serialization) and not owner.text.strip()
        return rendered_blank or not content[start:end].strip()

    # Units that show only whitespace embed nothing: such a document is empty too (the
    # Chunker base drops whitespace-only pieces, so no chunk could carry them).
    if all(blank(*row) for row in rows):
        return EMPTY
    # Headings with nothing but whitespace beside them (an empty ``<pre>``) are a
    # hierarchy without a body, as the engine plans them.
    heading_units = all(blank(*row) or normalized.node(row[2]).kind == HEADING for row in rows)
    return HIERARCHY_ONLY if heading_units else CHUNKED


def _check_coverage(records: list[ChunkRecord], source: SourceIndex, classification: str) -> None:
    """Retained intervals of all chunks partition the union of the units exactly once.

    Chunks almost always claim their intervals in source order, so one column-wise pass
    in chunk order checks that and coalesces them, and a single comparison with the
    units' union settles coverage.
    Anything else (interleaved chunks, which are valid, an overlap, a difference) goes to
    ``_check_sorted_coverage``, which sorts every claim and names the first fault.
    """
    if classification in (HIERARCHY_ONLY, EMPTY) and not records:
        return  # headings alone, or only whitespace, need no body chunk
    claims = list(chain.from_iterable(record.retained for record in records))
    if claims:
        # Column-wise, in C: every claim ends at or before the next one starts (sorted
        # and disjoint), then touching claims are joined as ``coalesce`` joins units.
        starts, ends = map(list, zip(*claims, strict=True))
        if all(map(le, ends, islice(starts, 1, None))):
            union_starts, union_ends = coalesce(starts, ends)
            if list(zip(union_starts, union_ends, strict=True)) == source.unit_union:
                return
    _check_sorted_coverage(records, source)


def _check_sorted_coverage(records: list[ChunkRecord], source: SourceIndex) -> None:
    """The general check: sort every claim; name a doubly retained range, a gap, an extra."""
    claims = sorted(
        (start, end, record.number) for record in records for start, end in record.retained
    )
    for (_, end, index), (next_start, next_end, next_index) in pairwise(claims):
        if next_start < end:
            raise fail(
                next_index,
                "coverage",
                f"source [{next_start}, {min(end, next_end)}) is retained by both chunk "
                f"{index} and chunk {next_index}; every unit must be covered exactly once",
            )
    covered = merge((start, end) for start, end, _ in claims)
    missing, extra = first_difference(source.unit_union, covered)
    if missing is not None:
        before = [index for start, _, index in claims if start < missing[0]]
        after = [index for start, _, index in claims if start >= missing[1]]
        if before and after:
            neighbours = f"between chunk {before[-1]} and chunk {after[0]}"
        elif before or after:
            neighbours = f"after chunk {before[-1]}" if before else f"before chunk {after[0]}"
        else:
            neighbours = "no chunk at all"
        raise ChunkingError(
            f"chunks of document {excerpt(source.document_id)}: coverage: retained source "
            f"[{missing[0]}, {missing[1]}) is covered by no chunk ({neighbours}; "
            f"{len(records)} chunks); re-chunk the document (discard stale persisted chunks)"
        )
    if extra is not None:
        owner = next(index for start, end, index in claims if start < extra[1] and extra[0] < end)
        raise fail(
            owner,
            "coverage",
            f"retained source [{extra[0]}, {extra[1]}) is not a coverage unit of the "
            "document (excluded or out of range)",
        )


def validate_structure_chunks(
    normalized: NormalizedDocument,
    pieces: Iterable[Piece],
    tokenizer: TokenCounter,
    max_tokens: int,
    max_overlap_tokens: int = 50,
    min_preferred_tokens: int = 100,
) -> ChunkValidation:
    """Validate split tuples or cached Documents against authoritative source.

    Raises ``ChunkingError`` for invalid persisted metadata or any broken rule, naming the
    chunk index, the rule and the numbers. Counts are recomputed; neither recorded budgets
    nor node IDs substitute for interval coverage. Fields only a chunking step can know
    (cache hits, model calls, operation time) are left at their defaults.
    """
    started = perf_counter()
    _check_arguments(max_tokens, max_overlap_tokens, min_preferred_tokens)
    normalized.validate()
    source = SourceIndex(normalized)
    length = len(source.content)
    records: list[ChunkRecord] = []
    token_counts: list[int] = []
    previous: ChunkRecord | None = None
    for index, piece in enumerate(pieces):
        record = read_piece(index, piece, source.document_id)
        _check_intervals(record, length, previous)
        _check_overlap(record, previous, source, tokenizer, max_overlap_tokens)
        _check_map(record, source)
        _check_context(record)
        check_lineage(record, source)
        token_counts.append(_check_count(record, tokenizer, max_tokens))
        records.append(record)
        previous = record
    classification = _classify(source)
    _check_coverage(records, source, classification)
    kinds = [record.chunk_kind for record in records]
    return ChunkValidation(
        chunk_count=len(records),
        # Coverage passed: the chunks' retained intervals partition the units exactly.
        retained_characters=source.retained_characters if records else 0,
        embedding_tokens=sum(token_counts),
        classification=classification,
        validation_seconds=perf_counter() - started,
        token_counts=tuple(token_counts),
        merged_chunks=kinds.count("merged"),
        split_chunks=kinds.count("split"),
        oversized_chunks=sum(1 for record in records if record.overflow),
        excluded_characters=source.excluded_characters,
        normalization_diagnostics=tuple(normalized.diagnostics),
        small_chunks=sum(1 for tokens in token_counts if tokens < min_preferred_tokens),
    )
