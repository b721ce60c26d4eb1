"""The labelled-corpus format: documents, and questions whose answers are located excerpts.

A reference excerpt is a half-open character range ``[start, end)`` (Unicode code points,
i.e. Python ``str`` indices) into one document. It may be given as offsets, or as an exact
``quote`` that the loader locates: a quote occurring several times is placed at its
*first* occurrence and the reference records ``ambiguous=True`` (with the number of
occurrences), because an evaluation that silently picks one copy of repeated text would
hide why a retriever that found another copy scores zero.

On-disk format (JSON, or JSONL with one question per line)::

    {"question": "...", "references": [
        {"document": "guide.md", "start": 120, "end": 180},
        {"document": "guide.md", "quote": "exact text", "section": ["Install", "Linux"]}
    ]}

A JSON file may also be ``{"questions": [...]}``. Documents are the files of a corpus
folder, named by their path relative to it (``load_documents``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fastrag.exceptions import ConfigurationError

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "LabelledCorpus",
    "Question",
    "Reference",
    "load_documents",
    "load_labelled_corpus",
    "load_questions",
    "locate_quote",
]

MAX_DOCUMENT_BYTES: Final = 50 * 1024 * 1024
"""Documents larger than this are refused (a corpus is read whole into memory)."""
MAX_QUESTIONS_BYTES: Final = 200 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Reference:
    """One reference excerpt: ``documents[document][start:end]``.

    ``section`` is the heading path the excerpt belongs to (outermost first), when the
    labels carry one; ``ambiguous`` is set when a quote occurred ``occurrences`` > 1
    times and was placed at the first.
    """

    document: str
    start: int
    end: int
    section: tuple[str, ...] | None = None
    ambiguous: bool = False
    occurrences: int = 1

    @property
    def span(self) -> tuple[int, int]:
        """``(start, end)``."""
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class Question:
    """A query and the excerpts that answer it (all in one document for Chroma's data)."""

    id: str
    text: str
    references: tuple[Reference, ...]

    @property
    def document(self) -> str:
        """The document of the first reference (the question's corpus in Chroma's data)."""
        return self.references[0].document


@dataclass(frozen=True, slots=True)
class LabelledCorpus:
    """Documents by id, and questions whose references point into them."""

    name: str
    documents: Mapping[str, str]
    questions: tuple[Question, ...]
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        for question in self.questions:
            if not question.references:
                raise ConfigurationError(
                    f"question {question.id!r} of {self.name!r} has no reference excerpt; "
                    f"give every question at least one"
                )
            for reference in question.references:
                text = self.documents.get(reference.document)
                if text is None:
                    raise ConfigurationError(
                        f"question {question.id!r} refers to document {reference.document!r}, "
                        f"which {self.name!r} does not contain; known: "
                        f"{sorted(self.documents)[:10]}"
                    )
                if not 0 <= reference.start < reference.end <= len(text):
                    raise ConfigurationError(
                        f"question {question.id!r}: reference [{reference.start}, "
                        f"{reference.end}) is not a non-empty range inside "
                        f"{reference.document!r} ({len(text)} characters); offsets are "
                        f"0-based, end-exclusive character indices"
                    )

    @property
    def ambiguous_references(self) -> int:
        """References whose quote occurred more than once (placed at the first)."""
        return sum(ref.ambiguous for question in self.questions for ref in question.references)


def locate_quote(text: str, quote: str) -> tuple[int, int, int]:
    """``(start, end, occurrences)`` of the first occurrence of ``quote`` in ``text``.

    Occurrences may overlap each other (``"aa"`` occurs twice in ``"aaa"``). Raises
    ``ConfigurationError`` when the quote is empty or absent.
    """
    if not quote:
        raise ConfigurationError("a reference quote is empty; quote the exact excerpt text")
    first = text.find(quote)
    if first == -1:
        raise ConfigurationError(
            f"a reference quote ({len(quote)} characters) does not occur in its document; "
            f"quote the document's text exactly (whitespace and case included) or give "
            f"start/end offsets"
        )
    occurrences, cursor = 1, first
    while (cursor := text.find(quote, cursor + 1)) != -1:
        occurrences += 1
    return first, first + len(quote), occurrences


def _reference(raw: object, documents: Mapping[str, str], where: str) -> Reference:
    if not isinstance(raw, Mapping):
        raise ConfigurationError(
            f"{where}: a reference must be an object (got {type(raw).__name__})"
        )
    document = raw.get("document")
    if not isinstance(document, str) or document not in documents:
        raise ConfigurationError(
            f"{where}: reference 'document' {document!r} names no document of the corpus; "
            f"use a file path relative to the corpus folder"
        )
    section = raw.get("section")
    if section is not None and (
        not isinstance(section, list) or not all(isinstance(item, str) for item in section)
    ):
        raise ConfigurationError(f"{where}: 'section' must be a list of heading titles")
    path = tuple(section) if section is not None else None
    quote = raw.get("quote")
    if "start" in raw or "end" in raw:
        start, end = raw.get("start"), raw.get("end")
        if not isinstance(start, int) or not isinstance(end, int):
            raise ConfigurationError(f"{where}: 'start' and 'end' must both be integers")
        if quote is not None and documents[document][start:end] != quote:
            raise ConfigurationError(
                f"{where}: the text at [{start}, {end}) of {document!r} differs from the "
                f"given quote; fix the offsets or drop one of them"
            )
        return Reference(document, start, end, path)
    if not isinstance(quote, str):
        raise ConfigurationError(f"{where}: give 'start' and 'end' offsets or a 'quote'")
    try:
        start, end, occurrences = locate_quote(documents[document], quote)
    except ConfigurationError as error:
        raise ConfigurationError(f"{where}: {error}") from error
    return Reference(document, start, end, path, occurrences > 1, occurrences)


def _question_records(path: Path) -> list[Any]:
    size = path.stat().st_size
    if size > MAX_QUESTIONS_BYTES:
        raise ConfigurationError(f"questions file {os.fspath(path)!r} is larger than 200 MiB")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        records = []
        # JSON lines end at "\n" only: ``str.splitlines`` would also break at U+2028,
        # U+0085 and others, which JSON leaves unescaped inside strings.
        for number, line in enumerate(text.split("\n"), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise ConfigurationError(
                        f"{os.fspath(path)}:{number}: not valid JSON ({error.msg})"
                    ) from error
        return records
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigurationError(f"{os.fspath(path)}: not valid JSON ({error.msg})") from error
    if isinstance(data, Mapping):
        data = data.get("questions")
    if not isinstance(data, list):
        raise ConfigurationError(
            f"{os.fspath(path)}: expected a list of questions or {{'questions': [...]}}"
        )
    return data


def load_questions(path: str | os.PathLike[str], documents: Mapping[str, str]) -> list[Question]:
    """Questions from a JSON or JSONL file, references checked against ``documents``."""
    source = Path(path)
    questions = []
    for index, record in enumerate(_question_records(source)):
        where = f"{os.fspath(source)} question {index}"
        if not isinstance(record, Mapping) or not isinstance(record.get("question"), str):
            raise ConfigurationError(f"{where}: expected an object with a 'question' string")
        references = record.get("references")
        if not isinstance(references, list) or not references:
            raise ConfigurationError(f"{where}: 'references' must be a non-empty list")
        refs = tuple(_reference(raw, documents, where) for raw in references)
        question_id = str(record.get("id", index))
        questions.append(Question(question_id, record["question"], refs))
    return questions


def load_documents(
    directory: str | os.PathLike[str], *, suffixes: Iterable[str] | None = None
) -> dict[str, str]:
    """UTF-8 text files under ``directory``, by relative POSIX path, in sorted order."""
    root = Path(directory)
    if not root.is_dir():
        raise ConfigurationError(f"corpus folder {os.fspath(directory)!r} does not exist")
    wanted = None if suffixes is None else set(suffixes)
    documents: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or (wanted is not None and path.suffix not in wanted):
            continue
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise ConfigurationError(f"document {os.fspath(path)!r} is larger than 50 MiB")
        try:
            documents[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise ConfigurationError(
                f"document {os.fspath(path)!r} is not UTF-8 text (byte {error.start}); "
                f"convert it, or ingest it first and evaluate the extracted text"
            ) from error
    if not documents:
        raise ConfigurationError(f"corpus folder {os.fspath(directory)!r} holds no documents")
    return documents


def load_labelled_corpus(
    directory: str | os.PathLike[str], questions: str | os.PathLike[str]
) -> LabelledCorpus:
    """A corpus folder plus a questions file (``.json`` or ``.jsonl``)."""
    documents = load_documents(directory)
    loaded = tuple(load_questions(questions, documents))
    return LabelledCorpus(Path(directory).name or "corpus", documents, loaded)
