"""``validate_jsonl``: re-check an ingestion output against the contract and its sources.

Nothing the writer computed is trusted. Every line is parsed and checked for the contract
fields (present, in order, of the right type); ``chunk_id`` must be unique in the file;
records must be grouped by source in ascending order with ``chunk_index`` 0, 1, 2 …; each
document's source is re-parsed and ``document_id`` must be its content hash; the offsets
must relate ``text`` to ``content[char_start:char_end]`` as ``metadata.offset_mode`` says
(structural chunks: the verbatim runs of the serialization map round-trip); structural
chunks are re-normalized and run through ``validate_structure_chunks`` (coverage of the
normalized units exactly once, maps, lineage, counts); every ``token_estimate`` is
recounted on the complete embedding text and held to ``max_tokens`` (given, or recorded
in ``metadata.max_tokens``). Memory holds one document's records at a time plus the set
of chunk ids.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from fastrag.exceptions import ConfigurationError, ValidationError
from fastrag.ingestion._validate_checks import (
    Line,
    Problem,
    check_document,
    check_fields,
    check_tokens,
)
from fastrag.ingestion._validate_source import (
    FALLBACK_NOTE,
    SourceError,
    reparse,
    tokenizer_for_identity,
)

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = ["Problem", "ValidationReport", "validate_jsonl"]

MAX_PROBLEMS: Final = 1000
"""Problems kept in a report; the rest are counted (a broken file must not flood memory)."""


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """What ``validate_jsonl`` found: ``ok`` when ``problem_count`` is 0."""

    records: int
    documents: int
    problems: tuple[Problem, ...]
    problem_count: int
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the file passed every rule."""
        return self.problem_count == 0


class _Run:
    """The state of one validation pass: problems, seen ids, tokenizers in use."""

    def __init__(
        self, source_dir: Path, tokenizer: Tokenizer | None, max_tokens: int | None
    ) -> None:
        self.source_dir = source_dir
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.problems: list[Problem] = []
        self.count = 0
        self.notes: set[str] = set()
        self.chunk_ids: dict[str, int] = {}
        self.finished_sources: set[str] = set()
        self.last_source: str | None = None
        self.documents = 0
        self._tokenizers: dict[str, Tokenizer | None] = {}

    def report(self, problem: Problem) -> None:
        self.count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)

    def tokenizer_for(self, line: Line) -> Tokenizer | None:
        """The tokenizer to recount ``line`` with, or None (reported once per identity)."""
        identity = line.metadata.get("tokenizer")
        if self.tokenizer is not None:
            if isinstance(identity, str) and identity != self.tokenizer.identity:
                if identity not in self._tokenizers:
                    self._tokenizers[identity] = None
                    self.report(
                        line.problem(
                            "tokenizer",
                            f"records were counted with {identity!r} but --tokenizer is "
                            f"{self.tokenizer.identity!r}; token counts were not re-checked",
                        )
                    )
                return None
            return self.tokenizer
        if not isinstance(identity, str) or not identity:
            self.report(line.problem("tokenizer", "metadata.tokenizer must name the tokenizer"))
            return None
        if identity not in self._tokenizers:
            try:
                self._tokenizers[identity] = tokenizer_for_identity(identity)
            except ConfigurationError as error:
                self._tokenizers[identity] = None
                self.report(line.problem("tokenizer", str(error)))
        return self._tokenizers[identity]

    def check_line(self, number: int, text: str) -> Line | None:
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            self.report(
                Problem(
                    number,
                    None,
                    None,
                    "json",
                    f"not a JSON object ({error.msg} at column {error.colno})",
                )
            )
            return None
        if not check_fields(number, record, self.report):
            return None
        line = Line(number, record)
        first = self.chunk_ids.setdefault(record["chunk_id"], number)
        if first != number:
            self.report(line.problem("duplicate chunk_id", f"already used by record {first}"))
        return line

    def finish_document(self, lines: list[Line]) -> None:
        source = lines[0].record["source"]
        self.documents += 1
        if source in self.finished_sources:
            self.report(lines[0].problem("ordering", "records of this source are not contiguous"))
        elif self.last_source is not None and source < self.last_source:
            self.report(
                lines[0].problem(
                    "ordering",
                    f"sources must be in ascending order ({source!r} after {self.last_source!r})",
                )
            )
        self.finished_sources.add(source)
        self.last_source = source
        counts: list[int] = []
        tokenizer = self.tokenizer_for(lines[0])
        if tokenizer is not None:
            for line in lines:
                recorded = line.metadata.get("max_tokens")
                budget = (
                    self.max_tokens
                    if self.max_tokens is not None
                    else (recorded if type(recorded) is int else None)
                )
                counts.append(check_tokens(line, tokenizer, budget, self.report))
        source_type = lines[0].record["source_type"]
        try:
            parsed = reparse(self.source_dir, source, source_type)
        except SourceError as error:
            self.report(lines[0].problem("source", str(error)))
            return
        if parsed.fallback:
            self.notes.add(FALLBACK_NOTE)
        check_document(lines, parsed, tokenizer, counts, self.max_tokens, self.report)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        handle = path.open(encoding="utf-8", newline="\n")
    except OSError as error:
        raise ValidationError(
            f"cannot read the JSONL output {str(path)!r} ({error.strerror}); pass the file "
            "`fastrag ingest -o` wrote"
        ) from error
    with handle:
        try:
            yield from enumerate(handle, start=1)
        except UnicodeDecodeError as error:
            raise ValidationError(
                f"{str(path)!r} is not UTF-8 (byte {error.start} of a line); a fastrag JSONL "
                "is always UTF-8 — was it re-encoded?"
            ) from error


def validate_jsonl(
    output_path: str | os.PathLike[str],
    source_dir: str | os.PathLike[str],
    *,
    tokenizer: Tokenizer | None = None,
    max_tokens: int | None = None,
) -> ValidationReport:
    """Re-check every record of ``output_path`` against the contract and ``source_dir``.

    ``tokenizer`` defaults to the one each record names (``metadata.tokenizer``: tiktoken
    names and ``utf8-bytes`` are rebuilt; a Hugging Face file must be passed);
    ``max_tokens`` defaults to the budget each record carries, if any. Raises
    ``ValidationError`` only when the file itself cannot be read; everything else is a
    ``Problem`` in the report.
    """
    if max_tokens is not None and (type(max_tokens) is not int or max_tokens < 1):
        raise ConfigurationError(f"max_tokens must be an int >= 1 (got {max_tokens!r})")
    directory = Path(source_dir)
    if not directory.is_dir():
        raise ConfigurationError(
            f"source_dir {str(directory)!r} is not a directory; pass the INPUT_DIR the output "
            "was ingested from"
        )
    run = _Run(directory, tokenizer, max_tokens)
    records = 0
    pending: list[Line] = []
    for number, text in _lines(Path(output_path)):
        records += 1
        if not text.endswith("\n"):
            run.report(
                Problem(
                    number, None, None, "json", "the last line has no newline (truncated file?)"
                )
            )
        line = run.check_line(number, text)
        if line is None:
            continue
        if pending and pending[0].record["source"] != line.record["source"]:
            run.finish_document(pending)
            pending = []
        pending.append(line)
    if pending:
        run.finish_document(pending)
    return ValidationReport(
        records=records,
        documents=run.documents,
        problems=tuple(run.problems),
        problem_count=run.count,
        notes=tuple(sorted(run.notes)),
    )
