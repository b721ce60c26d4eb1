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

from collections.abc import Iterable, Mapping
from itertools import pairwise
from time import perf_counter
from typing import Any, Protocol

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.models import Document
from fastrag.normalization.model import CoverageUnit, NormalizedDocument
from fastrag.packing._validator_intervals import (
    Interval,
    contains,
    first_difference,
    merge,
    subtract,
)
from fastrag.packing._validator_lineage import HEADING, SourceIndex, check_lineage
from fastrag.packing._validator_metadata import ChunkRecord, excerpt, fail, read_piece
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
        raise fail(record.index, "retained_intervals", "a chunk must retain source (got none)")
    previous_end = -1
    for start, end in record.retained:
        if not 0 <= start < end <= length:
            raise fail(
                record.index,
                "retained_intervals",
                f"[{start}, {end}) must be nonempty and within the source [0, {length})",
            )
        if start <= previous_end:
            raise fail(
                record.index,
                "retained_intervals",
                f"[{start}, {end}) must start after the previous interval's end "
                f"{previous_end} (sorted, disjoint, adjacent runs coalesced)",
            )
        previous_end = end
    expected = (record.retained[0][0], record.retained[-1][1])
    if (record.char_start, record.char_end) != expected:
        raise fail(
            record.index,
            "char_start/char_end",
            f"retained intervals span [{expected[0]}, {expected[1]}) but the chunk records "
            f"[{record.char_start}, {record.char_end})",
        )
    if previous is not None and record.char_start <= previous.char_start:
        raise fail(
            record.index,
            "ordering",
            f"char_start {record.char_start} must be greater than chunk "
            f"{previous.index}'s char_start {previous.char_start} (chunks in source order)",
        )


def _shows_retained(source: SourceIndex, retained: list[Interval], start: int, end: int) -> bool:
    """Whether a run's source is this chunk's retained source, bar excluded whitespace.

    A separator equal to the source gap it replaces may be coalesced into the
    neighbouring verbatim runs ("\\n\\n" between two paragraphs), so a verbatim run can
    span whitespace the normalizer excluded. That shows no text the chunk does not own;
    anything else outside the retained intervals (markup, scripts, another chunk's text)
    does.
    """
    return all(
        source.in_whitespace(gap_start, gap_end)
        for gap_start, gap_end in subtract([(start, end)], retained)
    )


def _check_map(record: ChunkRecord, source: SourceIndex) -> None:
    """Runs tile the content; verbatim runs round-trip; retained == displayed source."""
    content, text, length = record.content, source.content, len(source.content)
    retained = list(record.retained)
    position = 0
    for number, run in enumerate(record.runs):
        where = f"serialization_map[{number}] ({run.kind} {run.display_start}-{run.display_end}"
        where += f" -> {run.source_start}-{run.source_end})"
        if run.display_start != position or run.display_end < run.display_start:
            raise fail(
                record.index,
                "serialization map",
                f"{where} must start at display offset {position} and not run backwards "
                "(runs tile the content without gaps)",
            )
        position = run.display_end
        if run.kind == "separator":
            if (run.source_start, run.source_end) != (-1, -1):
                raise fail(
                    record.index, "serialization map", f"{where}: separators map to (-1, -1)"
                )
            continue
        if not 0 <= run.source_start <= run.source_end <= length:
            raise fail(
                record.index,
                "serialization map",
                f"{where}: the source range must lie within [0, {length})",
            )
        if run.kind == "rendered":
            if run.source_start == run.source_end:
                raise fail(record.index, "serialization map", f"{where}: renders no source")
        else:
            shown = content[run.display_start : run.display_end]
            original = text[run.source_start : run.source_end]
            if shown != original:
                raise fail(
                    record.index,
                    "serialization map",
                    f"{where} must round-trip: display {excerpt(shown)} != source "
                    f"{excerpt(original)}",
                )
        if run.kind in ("source", "rendered") and not _shows_retained(
            source, retained, run.source_start, run.source_end
        ):
            raise fail(
                record.index,
                "serialization map",
                f"{where} shows source outside this chunk's retained intervals (only "
                "whitespace the normalizer excluded may sit between retained blocks)",
            )
        if run.kind == "context" and not source.in_units(run.source_start, run.source_end):
            raise fail(
                record.index,
                "serialization map",
                f"{where}: repeated context must be copied from retained source",
            )
    if position != len(content):
        raise fail(
            record.index,
            "serialization map",
            f"runs end at display offset {position} but the content has {len(content)} characters",
        )
    displayed = merge(
        (run.source_start, run.source_end)
        for run in record.runs
        if run.kind in ("source", "rendered")
    )
    missing, _ = first_difference(merge(retained), displayed)
    if missing is not None:
        raise fail(
            record.index,
            "serialization map",
            f"retained source [{missing[0]}, {missing[1]}) is shown by no source/rendered run",
        )


def _check_context(record: ChunkRecord) -> None:
    """Repeated-context entries point at display ranges shown by ``context`` runs."""
    shown = merge(
        (run.display_start, run.display_end) for run in record.runs if run.kind == "context"
    )
    starts = [start for start, _ in shown]
    for start, end, kind in record.repeated_context:
        if start >= end or not contains(shown, starts, start, end):
            raise fail(
                record.index,
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
    overlap = merge(record.overlap)
    if tuple(overlap) != record.overlap:
        raise fail(
            record.index,
            "overlap_intervals",
            f"{excerpt(record.overlap)} must be nonempty, sorted, disjoint and coalesced",
        )
    runs = merge((run.source_start, run.source_end) for run in record.runs if run.kind == "overlap")
    if runs != overlap:
        raise fail(
            record.index,
            "overlap_intervals",
            f"recorded {excerpt(overlap)} but the 'overlap' map runs show {excerpt(runs)}",
        )
    if not overlap:
        return
    retained = merge(record.retained)
    shared = subtract(overlap, subtract(overlap, retained))
    if shared:
        raise fail(
            record.index,
            "overlap counted as coverage",
            f"source [{shared[0][0]}, {shared[0][1]}) is listed both in overlap_intervals "
            "and in retained_intervals",
        )
    if previous is None:
        raise fail(record.index, "overlap_intervals", "the first chunk has no previous chunk")
    outside, _ = first_difference(overlap, merge(previous.retained))
    if outside is not None:
        raise fail(
            record.index,
            "overlap_intervals",
            f"overlap [{outside[0]}, {outside[1]}) is not retained by the previous chunk "
            f"{previous.index}",
        )
    own_section = source.section_at(record.char_start)
    for start, end in overlap:
        for unit in source.units_in(start, end):
            if source.section_of(unit.node_id) != own_section:
                raise fail(
                    record.index,
                    "overlap_intervals",
                    f"overlap [{start}, {end}) comes from section "
                    f"{excerpt(source.section_of(unit.node_id))} but the chunk starts in "
                    f"{excerpt(own_section)}; overlap never crosses sections",
                )
    overlap_text = "".join(
        record.content[run.display_start : run.display_end]
        for run in record.runs
        if run.kind == "overlap"
    )
    tokens = tokenizer.count(overlap_text)
    if tokens > max_overlap_tokens:
        raise fail(
            record.index,
            "overlap budget",
            f"overlap text has {tokens} tokens > max_overlap_tokens {max_overlap_tokens}",
        )


def _check_count(record: ChunkRecord, tokenizer: TokenCounter, max_tokens: int) -> int:
    """Recount the complete embedding text; budget unless flagged as overflow."""
    tokens = tokenizer.count(build_embedding_text(record.content, record.metadata))
    if type(tokens) is not int or tokens < 0:
        raise ConfigurationError(
            f"tokenizer.count returned {tokens!r} for chunk {record.index}; a tokenizer "
            "must return a nonnegative int"
        )
    if tokens != record.embedding_token_count:
        raise fail(
            record.index,
            "token count",
            f"the embedding text counts {tokens} tokens but embedding_token_count records "
            f"{record.embedding_token_count} (was it produced with another tokenizer?)",
        )
    if tokens > max_tokens and not record.overflow:
        raise fail(
            record.index,
            "budget",
            f"the embedding text has {tokens} tokens > max_tokens {max_tokens} and the "
            "chunk carries no overflow flag",
        )
    if record.overflow and tokens <= max_tokens:
        raise fail(
            record.index,
            "overflow flag",
            f"the chunk is flagged as overflow but has {tokens} tokens <= max_tokens {max_tokens}",
        )
    return tokens


def _classify(source: SourceIndex) -> str:
    normalized = source.normalized
    content = normalized.content

    def blank(unit: CoverageUnit) -> bool:
        owner = normalized.node(unit.node_id)
        rendered_blank = bool(owner.serialization) and not owner.text.strip()
        return rendered_blank or not content[unit.span.start : unit.span.end].strip()

    # Units that show only whitespace embed nothing: such a document is empty too (the
    # Chunker base drops whitespace-only pieces, so no chunk could carry them).
    if all(blank(unit) for unit in source.units):
        return EMPTY
    heading_units = all(
        source.normalized.node(unit.node_id).kind == HEADING for unit in source.units
    )
    return HIERARCHY_ONLY if heading_units else CHUNKED


def _check_coverage(records: list[ChunkRecord], source: SourceIndex, classification: str) -> None:
    """Retained intervals of all chunks partition the union of the units exactly once."""
    if classification in (HIERARCHY_ONLY, EMPTY) and not records:
        return  # headings alone, or only whitespace, need no body chunk
    claims = sorted(
        (start, end, record.index) for record in records for start, end in record.retained
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
        retained_characters=sum(end - start for r in records for start, end in r.retained),
        embedding_tokens=sum(token_counts),
        classification=classification,
        validation_seconds=perf_counter() - started,
        token_counts=tuple(token_counts),
        merged_chunks=kinds.count("merged"),
        split_chunks=kinds.count("split"),
        oversized_chunks=sum(1 for record in records if record.overflow),
        excluded_characters=normalized.excluded_characters,
        normalization_diagnostics=tuple(normalized.diagnostics),
        small_chunks=sum(1 for tokens in token_counts if tokens < min_preferred_tokens),
    )
