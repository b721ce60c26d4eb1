"""The rules ``validate_jsonl`` applies: to one record alone, then to one document's records.

Each rule appends ``Problem`` values instead of raising, so one run lists everything that
is wrong with a file. Rules never quote document text beyond a short excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ChunkingError, FastragError
from fastrag.ingestion._validate_source import ParsedSource
from fastrag.ingestion.records import OFFSET_MODES, RECORD_KEYS
from fastrag.models import Document
from fastrag.packing.contract import STRUCTURE_VERSION, build_embedding_text

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = ["Line", "Problem", "check_document", "check_fields", "check_tokens"]

_TYPES: Final[Mapping[str, tuple[type, ...]]] = {
    "chunk_id": (str,),
    "document_id": (str,),
    "source": (str,),
    "source_type": (str,),
    "page": (int, type(None)),
    "section": (str,),
    "text": (str,),
    "char_start": (int, type(None)),
    "char_end": (int, type(None)),
    "token_estimate": (int,),
    "metadata": (dict,),
}
_CHUNK_NUMBER: Final = re.compile(r"^chunk (\d+): ")
_VERBATIM_KINDS: Final = frozenset({"source", "context", "overlap"})


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule: the 1-based line, the record's chunk id and source, and what is wrong."""

    line: int
    chunk_id: str | None
    source: str | None
    rule: str
    detail: str

    def __str__(self) -> str:
        where = f"record {self.line}" if self.line else "file"
        return (
            f"{where} (chunk_id {self.chunk_id or '-'}, source {self.source or '-'}): "
            f"{self.rule}: {self.detail}"
        )


@dataclass(frozen=True, slots=True)
class Line:
    """A record that passed the field rules, with its line number."""

    number: int
    record: Mapping[str, Any]

    @property
    def metadata(self) -> Mapping[str, Any]:
        metadata: Mapping[str, Any] = self.record["metadata"]
        return metadata

    def problem(self, rule: str, detail: str) -> Problem:
        return Problem(self.number, self.record["chunk_id"], self.record["source"], rule, detail)


Report = Callable[[Problem], None]


def check_fields(number: int, record: object, report: Report) -> bool:
    """Every contract field present, in order, of the right type; True when usable."""
    if not isinstance(record, dict):
        report(
            Problem(
                number,
                None,
                None,
                "fields",
                f"a record must be a JSON object (got {type(record).__name__})",
            )
        )
        return False
    chunk_id = record.get("chunk_id") if isinstance(record.get("chunk_id"), str) else None
    source = record.get("source") if isinstance(record.get("source"), str) else None
    keys = tuple(record)
    if keys != RECORD_KEYS:
        missing = [key for key in RECORD_KEYS if key not in record]
        extra = [key for key in keys if key not in RECORD_KEYS]
        detail = (
            f"missing {missing}, unexpected {extra}"
            if missing or extra
            else f"keys out of order: {list(keys)}, expected {list(RECORD_KEYS)}"
        )
        report(Problem(number, chunk_id, source, "fields", detail))
        if missing:
            return False
    usable = True
    for key, expected in _TYPES.items():
        value = record[key]
        if type(value) not in expected:  # exact: a bool is not an offset
            names = " or ".join(
                "null" if kind is type(None) else kind.__name__ for kind in expected
            )
            report(
                Problem(
                    number,
                    chunk_id,
                    source,
                    "types",
                    f"{key} must be {names} (got {type(value).__name__})",
                )
            )
            usable = False
    return usable


def check_tokens(line: Line, tokenizer: Tokenizer, max_tokens: int | None, report: Report) -> int:
    """Recount the embedding text; budget unless flagged overflow. Returns the recount."""
    record, metadata = line.record, line.metadata
    tokens = tokenizer.count(build_embedding_text(record["text"], metadata))
    if tokens != record["token_estimate"]:
        report(
            line.problem(
                "token_estimate",
                f"the embedding text counts {tokens} tokens under {tokenizer.identity!r} but the "
                f"record says {record['token_estimate']}",
            )
        )
    if max_tokens is not None and tokens > max_tokens and metadata.get("overflow") is not True:
        report(
            line.problem(
                "budget", f"{tokens} tokens > max_tokens {max_tokens} without an overflow flag"
            )
        )
    return tokens


def _check_offsets(line: Line, content: str, report: Report) -> None:
    record = line.record
    start, end, text = record["char_start"], record["char_end"], record["text"]
    mode = line.metadata.get("offset_mode")
    if mode not in OFFSET_MODES:
        report(
            line.problem(
                "offsets",
                f"metadata.offset_mode must be one of {sorted(OFFSET_MODES)} (got {mode!r})",
            )
        )
        return
    if mode == "none":
        if start is not None or end is not None:
            report(line.problem("offsets", "offset_mode 'none' requires null char_start/char_end"))
        return
    if start is None or end is None or not 0 <= start <= end <= len(content):
        report(
            line.problem(
                "offsets",
                f"[{start}, {end}) must be a range within the parsed document [0, {len(content)})",
            )
        )
        return
    shown = content[start:end]
    if mode == "verbatim" and shown != text:
        report(line.problem("offsets", f"content[{start}:{end}] is not the record's text"))
    elif mode == "suffix" and not (shown and text.endswith(shown)):
        report(
            line.problem("offsets", f"the record's text does not end with content[{start}:{end}]")
        )
    elif mode == "map":
        _check_map_runs(line, content, report)


def _check_map_runs(line: Line, content: str, report: Report) -> None:
    """The verbatim runs of a structural chunk's map round-trip to the parsed source."""
    text = line.record["text"]
    runs = line.metadata.get("serialization_map")
    if not isinstance(runs, list):
        report(line.problem("offsets", "a structural record needs metadata.serialization_map"))
        return
    for number, run in enumerate(runs):
        if not (isinstance(run, list) and len(run) == 5):
            report(
                line.problem(
                    "offsets", f"serialization_map[{number}] must be [d0, d1, s0, s1, kind]"
                )
            )
            return
        d0, d1, s0, s1, kind = run
        if kind in _VERBATIM_KINDS and text[d0:d1] != content[s0:s1]:
            report(
                line.problem(
                    "offsets",
                    f"serialization_map[{number}] ({kind}): text[{d0}:{d1}] != content[{s0}:{s1}]",
                )
            )
            return


def check_document(
    lines: Sequence[Line],
    parsed: ParsedSource,
    tokenizer: Tokenizer | None,
    token_counts: Sequence[int],
    max_tokens: int | None,
    report: Report,
) -> None:
    """Identity, order, offsets and (for structural chunks) coverage of one document."""
    first = lines[0]
    for position, line in enumerate(lines):
        if line.record["document_id"] != parsed.document_id:
            report(
                line.problem(
                    "document_id",
                    f"{line.record['document_id']!r} is not the id of the re-parsed source "
                    f"({parsed.document_id!r}); re-ingest the changed source",
                )
            )
        index = line.metadata.get("chunk_index")
        if type(index) is not int or index != position:
            report(
                line.problem(
                    "chunk_index",
                    f"records of one document must carry chunk_index 0, 1, 2 … in file order "
                    f"(got {index!r} at position {position})",
                )
            )
        _check_offsets(line, parsed.content, report)
    structural = [line.metadata.get("structure_version") == STRUCTURE_VERSION for line in lines]
    if tokenizer is None or not all(structural) or not token_counts:
        return
    _check_structure(lines, parsed, tokenizer, token_counts, max_tokens, report, first)


def _check_structure(
    lines: Sequence[Line],
    parsed: ParsedSource,
    tokenizer: Tokenizer,
    token_counts: Sequence[int],
    max_tokens: int | None,
    report: Report,
    first: Line,
) -> None:
    """Re-normalize the parsed source and run the engine-independent structural validator."""
    from fastrag.normalization import NormalizerRegistry
    from fastrag.packing.validator import validate_structure_chunks

    content_format = first.metadata.get("content_format") or parsed.content_format or "text"
    parent = Document(
        parsed.document_id,
        first.record["source"],
        parsed.content,
        {"content_format": content_format},
    )
    chunks = [
        Document(line.record["chunk_id"], line.record["source"], line.record["text"], line.metadata)
        for line in lines
    ]
    # Without a known budget, the largest non-overflow count is one every chunk honours.
    ordinary = [
        count
        for count, line in zip(token_counts, lines, strict=True)
        if line.metadata.get("overflow") is not True
    ]
    budget = max_tokens if max_tokens is not None else max([1, *ordinary])
    try:
        normalized = NormalizerRegistry().normalize(parent)
        validate_structure_chunks(normalized, chunks, tokenizer, budget, budget, 0)
    except ChunkingError as error:
        match = _CHUNK_NUMBER.match(str(error))
        line = lines[int(match.group(1))] if match and int(match.group(1)) < len(lines) else first
        report(line.problem("structure", str(error)))
    except FastragError as error:
        report(
            first.problem(
                "structure", f"cannot re-normalize the source as {content_format!r}: {error}"
            )
        )
