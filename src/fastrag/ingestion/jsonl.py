"""``JsonlWriter``: a JSONL file that appears whole, in a deterministic order, or not at all.

Documents finish in whatever order the workers complete them; the file must not depend on
that. Each finished document's lines are appended to a spool file next to the output and
only an index entry ``(source, offset, length)`` stays in memory, so memory is bounded by
one document whatever the corpus size. ``commit`` copies the spooled ranges, sorted by
source (and each document's records by ``chunk_index``), into a temporary file in the same
directory, fsyncs it and ``os.replace``s it over the output: a crash (even SIGKILL) at any
point leaves the previous output untouched, never a truncated JSONL.

Temporary files are named ``.<output name>.<random>.spool`` / ``.tmp`` in the output's
directory; a killed run leaves them behind (harmless, never read) and they may be deleted.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Self

from fastrag.exceptions import ValidationError
from fastrag.ingestion.records import record_line

__all__ = ["JsonlWriter"]

_COPY_BLOCK: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class _Part:
    """Where one document's lines sit in the spool file."""

    source: str
    offset: int
    length: int
    count: int


class JsonlWriter:
    """Collect per-document records in any order; ``commit`` writes them sorted, atomically.

    Use as a context manager: leaving the block normally commits, an exception aborts
    (the previous output stays as it was). ``add`` takes all records of one document at
    once; the same source twice is an error (it would duplicate records).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not self.path.name:
            raise ValidationError(f"JsonlWriter needs a file path (got {os.fspath(path)!r})")
        self._parts: list[_Part] = []
        self._sources: set[str] = set()
        self._spool: IO[bytes] | None = None
        self._spool_path: Path | None = None
        self._closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()

    @property
    def record_count(self) -> int:
        """Records added so far."""
        return sum(part.count for part in self._parts)

    def add(self, source: str, records: Iterable[Mapping[str, Any]]) -> int:
        """Spool every record of the document ``source``; returns how many were added."""
        self._check_open()
        self._check_new(source)
        ordered = sorted(records, key=_chunk_index)
        data = "".join(record_line(record) for record in ordered).encode("utf-8")
        return self._spool_part(source, data, len(ordered))

    def add_lines(self, source: str, lines: bytes, count: int) -> int:
        """``add`` for records already serialized: ``lines`` is the UTF-8 of what
        ``record_line`` wrote for each of the ``count`` records of ``source``, in
        ``chunk_index`` order.

        A process-pool or Dask worker serializes its records anyway to send them; the
        parent spools those bytes as they are instead of parsing every record back and
        serializing it again (most of the parent's work, and the parent is the serial
        part of a parallel run). The bytes are those ``add`` would write for the records.
        """
        self._check_open()
        self._check_new(source)
        found = lines.count(b"\n")  # a line's text never holds b"\n": JSON escapes it
        if found != count or not (lines.endswith(b"\n") if count else not lines):
            raise ValidationError(
                f"the records of {source!r} were given as {found} JSONL lines for {count} "
                "records; pass exactly the UTF-8 record_line output of each record"
            )
        return self._spool_part(source, lines, count)

    def _check_new(self, source: str) -> None:
        if source in self._sources:
            raise ValidationError(
                f"records of {source!r} were already added to {str(self.path)!r}; add each "
                "document's records exactly once (all chunks together)"
            )

    def _spool_part(self, source: str, data: bytes, count: int) -> int:
        spool = self._open_spool()
        offset = spool.tell()
        spool.write(data)
        self._sources.add(source)
        self._parts.append(_Part(source, offset, len(data), count))
        return count

    def commit(self) -> int:
        """Write the sorted output atomically and durably; returns the record count."""
        self._check_open()
        self._closed = True
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            dir=directory, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(handle, "wb") as output:
                spool = self._spool
                if spool is not None:
                    spool.flush()
                    for part in sorted(self._parts, key=lambda part: part.source):
                        self._copy(spool, part, output)
                output.flush()
                os.fsync(output.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            self._drop_spool()
            raise
        self._drop_spool()
        _fsync_directory(directory)
        return sum(part.count for part in self._parts)

    def abort(self) -> None:
        """Discard everything added; the output file is left exactly as it was."""
        self._closed = True
        self._drop_spool()

    def _copy(self, spool: IO[bytes], part: _Part, output: IO[bytes]) -> None:
        spool.seek(part.offset)
        remaining = part.length
        while remaining:
            block = spool.read(min(remaining, _COPY_BLOCK))
            if not block:
                raise ValidationError(
                    f"the spool file {str(self._spool_path)!r} is shorter than recorded "
                    f"(record of {part.source!r}); was it modified? re-run the ingestion"
                )
            output.write(block)
            remaining -= len(block)

    def _open_spool(self) -> IO[bytes]:
        if self._spool is None:
            directory = self.path.parent
            directory.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(
                dir=directory, prefix=f".{self.path.name}.", suffix=".spool"
            )
            self._spool_path = Path(name)
            self._spool = os.fdopen(handle, "w+b")
        return self._spool

    def _drop_spool(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        if self._spool_path is not None:
            with contextlib.suppress(OSError):
                self._spool_path.unlink()
            self._spool_path = None

    def _check_open(self) -> None:
        if self._closed:
            raise ValidationError(
                f"the JsonlWriter for {str(self.path)!r} was already committed or aborted; "
                "create a new writer for another run"
            )


def _chunk_index(record: Mapping[str, Any]) -> int:
    metadata = record.get("metadata")
    index = metadata.get("chunk_index", 0) if isinstance(metadata, Mapping) else 0
    return index if type(index) is int else 0


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; platforms that cannot open a directory skip it."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
