"""``inspect_file``: parse and chunk ONE file exactly as ``fastrag ingest`` would.

Inspection must show the chunks a real run writes, so nothing here re-implements a step:
the file goes through ``discover`` (type sniffing, size cap, binary refusal, its
``<file>.meta.json`` sidecar), ``SourceFile.to_document``, the parsers and chunker that
``build_plan`` makes from an ``IngestConfig``, and ``build_records``.

Why the file is first copied into a private temporary folder: ``discover`` works on a
folder and walks all of it, and the parent of a file a person wants to look at is often
their home or a repository root — walking that could take minutes for one file. A copy
of the one file (and its sidecar), already checked against the size cap, costs at most
one read of the file and makes the snapshot consistent even if the file changes while it
is inspected. Records never carry the absolute path, so the copy's location leaves no
trace in the output.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastrag.exceptions import ConfigurationError, PipelineError
from fastrag.ingestion._job_config import ChunkerName, IngestConfig, Plan, build_plan
from fastrag.ingestion.records import build_records
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES, SIDECAR_SUFFIX, discover
from fastrag.models import Document
from fastrag.pipeline import IterableSource, Pipeline, Policy

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = ["ChunkingSettings", "Inspection", "inspect_file"]

_RAISE = Policy(on_failure="raise")
"""One file: a parse or chunk failure is the answer, raised with its message."""


@dataclass(frozen=True, slots=True)
class ChunkingSettings:
    """The chunking configuration an inspection ran with, as the page reports it."""

    chunker: ChunkerName
    tokenizer: str
    """The tokenizer's identity (``cl100k_base``, ``utf8-bytes``, ``hf:…``)."""
    max_tokens: int | None
    """The hard budget the chunker promises, or None when it promises none."""
    target_tokens: int | None
    overlap_tokens: int


@dataclass(frozen=True, slots=True)
class Inspection:
    """One parsed document and its chunk records (keys as ``RECORD_KEYS``)."""

    source: str
    """The file's name (the record's ``source``)."""
    source_type: str
    content: str
    """The parsed parent's text, which every record's offsets index."""
    parser_version: str | None
    records: tuple[Mapping[str, Any], ...]
    settings: ChunkingSettings


def inspect_file(
    path: str | os.PathLike[str],
    *,
    chunker: ChunkerName = "structure",
    tokenizer: Tokenizer | None = None,
    max_tokens: int = 600,
    target_tokens: int | None = None,
    overlap_tokens: int = 0,
    source_format: str | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Inspection:
    """Parse and chunk the file at ``path`` with ``fastrag ingest``'s steps and options.

    The options mean what ``IngestConfig``'s fields of the same names mean;
    ``source_format`` forces a format (``text``, ``markdown``, ``rst``, ``html``) as
    ``--format`` does. Raises ``ConfigurationError`` when the path is not a readable
    regular file or discovery would not ingest it (the reason says why), and the
    parser's or chunker's own error when the document cannot be parsed or chunked.
    """
    file = Path(path)
    size = _regular_file_size(file)
    if size > max_file_bytes:
        raise ConfigurationError(
            f"{os.fspath(path)!r} is {size} bytes, over the {max_file_bytes}-byte cap; raise "
            "--max-file-bytes to inspect it"
        )
    overrides = () if source_format is None else (("*", source_format),)
    with tempfile.TemporaryDirectory(prefix="fastrag-inspect-") as folder:
        root = Path(folder)
        _copy(file, root / file.name)
        sidecar = file.with_name(file.name + SIDECAR_SUFFIX)
        if sidecar.is_file():
            _copy(sidecar, root / sidecar.name)
        config = IngestConfig(
            input_dir=root,
            # build_plan needs a whole IngestConfig; inspection writes no output, and
            # the null device is never inside the input folder.
            output=Path(os.devnull),
            format_overrides=overrides,
            max_file_bytes=max_file_bytes,
            chunker=chunker,
            tokenizer=tokenizer,
            max_tokens=max_tokens,
            target_tokens=target_tokens,
            overlap_tokens=overlap_tokens,
        )
        plan = build_plan(config)
        raw = _raw_document(root, file.name, config, plan)
        parent = _only(Pipeline(plan.parsers(IterableSource([raw])), policy=_RAISE).run_sync())
        chunks = Pipeline(plan.chunker(IterableSource([parent])), policy=_RAISE).run_sync()
    records = build_records(
        parent,
        chunks,
        tokenizer=plan.tokenizer,
        ingestion_version=plan.ingestion_version,
        counted_by=plan.counted_by,
        max_tokens=plan.max_tokens,
    )
    return Inspection(
        source=file.name,
        source_type=str(raw.metadata.get("source_type")),
        content=parent.content,
        parser_version=_optional_str(parent.metadata.get("parser_version")),
        records=tuple(records),
        settings=ChunkingSettings(
            chunker=chunker,
            tokenizer=plan.tokenizer.identity,
            max_tokens=plan.max_tokens,
            target_tokens=config.effective_target_tokens if chunker == "structure" else None,
            overlap_tokens=overlap_tokens,
        ),
    )


def _regular_file_size(file: Path) -> int:
    try:
        info = file.stat()
    except OSError as error:
        raise ConfigurationError(
            f"cannot read {str(file)!r}: {error.strerror or error}; pass the path of an "
            "existing document"
        ) from error
    if not file.is_file():
        raise ConfigurationError(
            f"{str(file)!r} is not a regular file; pass the path of one document (use "
            "fastrag ingest for a folder)"
        )
    return info.st_size


def _copy(origin: Path, target: Path) -> None:
    try:
        shutil.copyfile(origin, target)
    except OSError as error:
        raise ConfigurationError(
            f"cannot read {str(origin)!r}: {error.strerror or error}; check its permissions"
        ) from error


def _raw_document(root: Path, name: str, config: IngestConfig, plan: Plan) -> Document:
    """The raw document discovery makes of the copied file, or why it would not ingest it."""
    found = discover(
        root,
        skip_hidden=False,
        max_file_bytes=config.max_file_bytes,
        format_overrides=config.format_overrides,
        parsable_types=plan.parsers.source_types,
    )
    source = next(item for item in found if item.relative_path == name)
    if source.state != "accepted":
        raise ConfigurationError(
            f"fastrag ingest would not chunk this file: {source.state}: {source.reason}"
        )
    return source.to_document()


def _only(parents: list[Document]) -> Document:
    if len(parents) != 1:
        raise PipelineError(
            f"the parser produced {len(parents)} documents from one file; inspect expects "
            "exactly one (this is a fastrag bug, please report it)"
        )
    return parents[0]


def _optional_str(value: object) -> str | None:
    return None if value is None else str(value)
