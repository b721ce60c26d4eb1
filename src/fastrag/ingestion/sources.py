"""Discovery: which files below an input folder are documents, and what becomes of each.

``discover(root)`` returns one ``SourceFile`` per file in the selection, sorted by its
relative POSIX path (so every run, on every machine, sees the same order), each with a
state and, unless accepted, the reason:

- ``accepted``: a supported, readable document within the caps; ``to_document()`` turns it
  into the "raw" ``Document`` a parser step reads (its sha256 makes caches notice edits).
- ``skipped``: deliberately not ingested — an unsupported or binary type, a type recognised
  but without a parser (PDF/Office until their parsers land), over ``max_file_bytes``,
  beyond ``max_files``, a symlink leaving the root or looping, a FIFO, an orphan sidecar.
- ``quarantined``: a document whose metadata sidecar is invalid; it needs a human.
- ``failed``: an I/O error while examining it (unreadable, vanished meanwhile).

The selection excludes hidden paths (any part starting with ``.``; ``skip_hidden=False``
includes them) and paths the globs reject; those are not reported. Binary content named
as text (a ``.md`` full of NUL bytes) is ``skipped`` here when the first 8 KB show it; the
parser fails (``failed``) a file whose binary part starts later.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from fastrag.exceptions import ConfigurationError, ParsingError, PipelineError
from fastrag.ingestion._glob import GlobPattern, compile_globs
from fastrag.ingestion._sidecar import (
    SIDECAR_SUFFIX,
    check_caller_metadata,
    load_sidecar,
)
from fastrag.ingestion._sniff import (
    BINARY_FORMATS,
    SNIFF_BYTES,
    TEXT_FORMATS,
    DetectedBy,
    Sniffed,
    SourceType,
    sniff,
)
from fastrag.ingestion._walk import Candidate, walk
from fastrag.models import EMPTY_METADATA, Document

__all__ = [
    "DEFAULT_MAX_FILES",
    "DEFAULT_MAX_FILE_BYTES",
    "PARSABLE_SOURCE_TYPES",
    "SIDECAR_SUFFIX",
    "SourceFile",
    "SourceState",
    "SourceType",
    "discover",
    "load_sidecar",
    "raw_documents",
]

DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024
"""Files larger than 50 MiB are skipped unless ``max_file_bytes`` is raised."""

DEFAULT_MAX_FILES = 100_000
"""At most 100 000 files are examined; the rest (in path order) are skipped, with a reason."""

PARSABLE_SOURCE_TYPES: frozenset[str] = TEXT_FORMATS | BINARY_FORMATS
"""Source types the built-in parsers read (``default_parsers().source_types``)."""

SourceState = Literal["accepted", "skipped", "quarantined", "failed"]

_READ_BLOCK = 1024 * 1024
_FORMATS = frozenset(member.value for member in SourceType)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One discovered file and its verdict.

    ``relative_path`` is POSIX, relative to the input root (the record's ``source``);
    ``path`` is the real file read (symlinks resolved, always inside the root). ``sha256``
    and ``size`` describe the bytes seen at discovery (None when never read);
    ``metadata`` comes from the file's sidecar (``sidecar`` names it) when it has one.
    """

    relative_path: str
    path: Path
    size: int | None
    state: SourceState
    reason: str = ""
    source_type: str | None = None
    detected_by: DetectedBy | None = None
    sha256: str | None = None
    sidecar: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: EMPTY_METADATA)

    def to_document(self, metadata: Mapping[str, Any] | None = None) -> Document:
        """The raw ``Document`` a parser reads: empty content, discovery facts in metadata.

        ``metadata`` (the caller's, e.g. ``--metadata tenant=acme``) is merged under this
        file's sidecar metadata, keys sorted so the order never depends on how they were
        given. Only an accepted file has a raw document.
        """
        if self.state != "accepted" or self.sha256 is None or self.source_type is None:
            raise PipelineError(
                f"{self.relative_path!r} was {self.state} at discovery ({self.reason}); only "
                "accepted files become documents"
            )
        caller = check_caller_metadata(metadata or {}, origin="caller metadata")
        extra = {**caller, **self.metadata}
        facts: dict[str, Any] = {
            "path": str(self.path),
            "relative_path": self.relative_path,
            "size": self.size,
            "sha256": self.sha256,
            "source_type": self.source_type,
            "detected_by": self.detected_by,
        }
        facts.update((key, extra[key]) for key in sorted(extra))
        return Document(self.relative_path, self.relative_path, "", facts)


def raw_documents(
    files: Iterable[SourceFile], metadata: Mapping[str, Any] | None = None
) -> Iterator[Document]:
    """The raw documents of the accepted ``files``, in order (the pipeline's source items)."""
    for source in files:
        if source.state == "accepted":
            yield source.to_document(metadata)


def discover(
    root: str | os.PathLike[str],
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip_hidden: bool = True,
    follow_symlinks: bool = True,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_files: int = DEFAULT_MAX_FILES,
    format_overrides: str | Sequence[tuple[str, str]] = (),
    parsable_types: Collection[str] | None = PARSABLE_SOURCE_TYPES,
) -> tuple[SourceFile, ...]:
    """Every file in the selection below ``root``, sorted by relative path, with a verdict.

    ``include``/``exclude`` are globs over relative POSIX paths (``**`` spans folders; a
    pattern without ``/`` matches a name at any depth); with ``include`` a file must match
    one, and an ``exclude`` match removes a file or prunes a folder. ``format_overrides``
    is one format for every file, or ``(glob, format)`` pairs (first match wins), applied
    before sniffing — e.g. ``[("docs/**/*.txt", "rst")]``; binary content still is not
    handed to a text parser. ``parsable_types`` are the types a parser exists for (None:
    accept every recognised type); others are skipped, saying so.
    """
    root_path = _root(root)
    includes = compile_globs("include", include)
    excludes = compile_globs("exclude", exclude)
    overrides = _overrides(format_overrides)
    _positive("max_file_bytes", max_file_bytes)
    _positive("max_files", max_files)
    parsable = None if parsable_types is None else frozenset(parsable_types)

    walked = walk(
        root_path, skip_hidden=skip_hidden, follow_symlinks=follow_symlinks, exclude=excludes
    )
    present = {candidate.relative_path for candidate in walked}
    sidecars = {
        c.relative_path.removesuffix(SIDECAR_SUFFIX): c
        for c in walked
        if c.relative_path.endswith(SIDECAR_SUFFIX) and not c.verdict
    }
    selected = sorted(
        (c for c in walked if _selected(c, includes, excludes, present)),
        key=lambda c: c.relative_path,
    )
    results: list[SourceFile] = []
    for position, candidate in enumerate(selected):
        if position >= max_files:
            verdict = SourceFile(
                candidate.relative_path,
                candidate.path,
                None,
                "skipped",
                f"beyond the first {max_files} files (max_files); raise max_files "
                "(--max-files) or narrow the selection with include/exclude globs",
            )
        else:
            verdict = _examine(
                candidate,
                sidecars.get(candidate.relative_path),
                max_file_bytes=max_file_bytes,
                overrides=overrides,
                parsable=parsable,
            )
        results.append(_named(verdict))
    return tuple(results)


def _named(source: SourceFile) -> SourceFile:
    """Prefix a verdict's reason with the file it is about, so a reason read alone says."""
    if not source.reason:
        return source
    return replace(source, reason=f"{source.relative_path}: {source.reason}")


def _examine(
    candidate: Candidate,
    sidecar: Candidate | None,
    *,
    max_file_bytes: int,
    overrides: tuple[tuple[GlobPattern | None, str], ...],
    parsable: frozenset[str] | None,
) -> SourceFile:
    relative, path = candidate.relative_path, candidate.path
    if candidate.verdict:
        return SourceFile(relative, path, None, candidate.verdict, candidate.reason)
    if relative.endswith(SIDECAR_SUFFIX):
        owner = relative.removesuffix(SIDECAR_SUFFIX)
        return SourceFile(
            relative,
            path,
            None,
            "skipped",
            f"a metadata sidecar for {owner!r}, which is not a discovered document (missing, "
            "hidden or excluded); remove the sidecar or include its document",
        )
    try:
        size, head, digest = _read(path, max_file_bytes)
    except OSError as error:
        return SourceFile(relative, path, None, "failed", _io_reason(error))
    if digest is None:
        return SourceFile(
            relative,
            path,
            size,
            "skipped",
            f"{size} bytes, over the {max_file_bytes}-byte cap (max_file_bytes); raise "
            "max_file_bytes (--max-file-bytes) to ingest it",
        )
    sniffed = _detect(head, relative, path, overrides)
    found = sniffed.source_type

    def verdict(
        state: SourceState, reason: str = "", metadata: Mapping[str, Any] = EMPTY_METADATA
    ) -> SourceFile:
        return SourceFile(
            relative,
            path,
            size,
            state,
            reason,
            found,
            sniffed.detected_by,
            digest,
            None if sidecar is None else sidecar.relative_path,
            metadata,
        )

    if found is None:
        return verdict("skipped", sniffed.reason)
    if parsable is not None and found not in parsable:
        return verdict(
            "skipped",
            f"recognised as {found} ({sniffed.detected_by}), but no {found} parser is "
            "available in this version of fastrag-ai; it is not ingested (exclude it, or "
            "convert it to Markdown or text)",
        )
    if sidecar is None:
        return verdict("accepted")
    try:
        return verdict("accepted", metadata=load_sidecar(sidecar.path))
    except ParsingError as error:
        return verdict("quarantined", str(error))


def _read(path: Path, cap: int) -> tuple[int, bytes, str | None]:
    """Size, first ``SNIFF_BYTES`` and sha256 of a file — or no hash when over ``cap``.

    Opened non-blocking so a FIFO swapped in after the walk cannot hang discovery.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise OSError(errno.EISDIR, "it is no longer a regular file")
    with os.fdopen(descriptor, "rb") as handle:
        if info.st_size > cap:
            return info.st_size, b"", None
        digest = hashlib.sha256()
        head = handle.read(SNIFF_BYTES)
        digest.update(head)
        size = len(head)
        while block := handle.read(_READ_BLOCK):
            size += len(block)
            if size > cap:
                return size, b"", None
            digest.update(block)
    return size, head, digest.hexdigest()


def _detect(
    head: bytes,
    relative: str,
    path: Path,
    overrides: tuple[tuple[GlobPattern | None, str], ...],
) -> Sniffed:
    sniffed = sniff(head, relative, path=path)
    for pattern, forced in overrides:
        if pattern is None or pattern.matches(relative):
            if forced in TEXT_FORMATS and sniffed.source_type in BINARY_FORMATS:
                return Sniffed(
                    None,
                    "content",
                    f"the format override says {forced}, but "
                    f"the content is {sniffed.source_type}; it is not read as text",
                )
            if (
                forced in TEXT_FORMATS
                and sniffed.source_type is None
                and sniffed.reason.startswith("content looks binary")
            ):
                return Sniffed(
                    None, "content", f"{sniffed.reason} (despite the format override {forced})"
                )
            return Sniffed(forced, "override")
    return sniffed


def _selected(
    candidate: Candidate,
    includes: tuple[GlobPattern, ...],
    excludes: tuple[GlobPattern, ...],
    present: set[str],
) -> bool:
    relative = candidate.relative_path
    # A sidecar belongs to its document; only an orphan is reported on its own.
    if (
        relative.endswith(SIDECAR_SUFFIX)
        and not candidate.verdict
        and relative.removesuffix(SIDECAR_SUFFIX) in present
    ):
        return False
    if any(pattern.matches(relative) for pattern in excludes):
        return False
    return not includes or any(pattern.matches(relative) for pattern in includes)


def _root(root: str | os.PathLike[str]) -> Path:
    if not isinstance(root, str | os.PathLike):
        raise ConfigurationError(
            f"discover() needs a folder path (got {type(root).__name__}: {root!r:.60})"
        )
    real = Path(os.path.realpath(root))
    if not real.is_dir():
        raise ConfigurationError(
            f"input root {os.fspath(root)!r} is not an existing directory; pass the folder "
            "that holds the documents (or set RAG_INPUT_DIR)"
        )
    return real


def _overrides(
    value: str | Sequence[tuple[str, str]],
) -> tuple[tuple[GlobPattern | None, str], ...]:
    if isinstance(value, str):
        return ((None, _format(value)),) if value else ()
    rules: list[tuple[GlobPattern | None, str]] = []
    for rule in value:
        if not (isinstance(rule, tuple) and len(rule) == 2):
            raise ConfigurationError(
                "format_overrides must be one format or (glob, format) pairs such as "
                f"[('docs/**/*.txt', 'rst')] (got {rule!r:.60})"
            )
        (pattern,) = compile_globs("format_overrides", [rule[0]])
        rules.append((pattern, _format(rule[1])))
    return tuple(rules)


def _format(value: object) -> str:
    if not isinstance(value, str) or value not in _FORMATS:
        raise ConfigurationError(
            f"unknown format {value!r:.40} in format_overrides; use one of "
            f"{', '.join(sorted(_FORMATS))}"
        )
    return value


def _positive(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigurationError(f"{name!r} must be an int > 0 (got {value!r:.40})")


def _io_reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "vanished during discovery; re-run to pick up the folder's current state"
    if isinstance(error, PermissionError):
        return "cannot read it: permission denied; grant read permission (chmod +r) or exclude it"
    return f"cannot read it: {error.strerror or error}; fix it or exclude it"
