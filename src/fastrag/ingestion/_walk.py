"""Walk an input folder into candidate files, without reading any file's content.

Separated from ``sources`` so the walk's rules — hidden paths, exclude pruning, symlink
containment and loops, unlistable directories — can be read on their own. A candidate is
either a regular file to examine or an entry that already has its final verdict (a
symlink leaving the root, a FIFO, a directory that cannot be listed).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fastrag.ingestion._glob import GlobPattern

__all__ = ["Candidate", "walk"]

Verdict = Literal["", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One walked entry: ``path`` is the real (symlink-resolved) file to read."""

    relative_path: str
    path: Path
    verdict: Verdict = ""
    """Empty for a regular file to examine; otherwise its final state, with ``reason``."""
    reason: str = ""


def walk(
    root: Path,
    *,
    skip_hidden: bool,
    follow_symlinks: bool,
    exclude: tuple[GlobPattern, ...],
) -> list[Candidate]:
    """Every file-like entry below the real directory ``root``, unsorted.

    Hidden entries (any path part starting with ``.``) are outside the selection when
    ``skip_hidden`` and are not reported; so are directories an exclude pattern matches,
    which are pruned. Symlinks are followed only to targets inside ``root``; a directory
    symlink that points at one of its own ancestors is a loop and is reported, not walked.
    """
    root_text = str(root)
    candidates: list[Candidate] = []
    stack: list[tuple[Path, str, frozenset[str]]] = [(root, "", frozenset({root_text}))]
    while stack:
        directory, prefix, ancestors = stack.pop()
        try:
            with os.scandir(directory) as iterator:
                entries = list(iterator)
        except OSError as error:
            label = prefix or "."
            candidates.append(
                Candidate(
                    label,
                    directory,
                    "failed",
                    f"cannot list directory {label!r}: {error.strerror or error}; fix its "
                    "permissions or exclude it",
                )
            )
            continue
        for entry in entries:
            if skip_hidden and entry.name.startswith("."):
                continue
            relative = f"{prefix}{entry.name}"
            if entry.is_symlink():
                outcome = _follow(entry, relative, root_text, ancestors, follow_symlinks)
                if isinstance(outcome, Candidate):
                    candidates.append(outcome)
                elif not _excluded(relative, exclude):
                    stack.append((outcome, f"{relative}/", ancestors | {str(outcome)}))
            elif entry.is_dir(follow_symlinks=False):
                if not _excluded(relative, exclude):
                    real = directory / entry.name
                    stack.append((real, f"{relative}/", ancestors | {str(real)}))
            elif entry.is_file(follow_symlinks=False):
                candidates.append(Candidate(relative, directory / entry.name))
            else:
                candidates.append(_special(relative, directory / entry.name))
    return candidates


def _follow(
    entry: os.DirEntry[str],
    relative: str,
    root: str,
    ancestors: frozenset[str],
    follow_symlinks: bool,
) -> Candidate | Path:
    """A verdict for a symlink, or the real directory to walk through it."""
    link = Path(entry.path)
    if not follow_symlinks:
        return Candidate(relative, link, "skipped", "a symbolic link, and follow_symlinks is off")
    target = os.path.realpath(entry.path)
    try:
        info = os.stat(target)
    except OSError as error:
        if error.errno == errno.ELOOP:  # the link chain never reaches a real file
            return Candidate(relative, link, "skipped", "a symbolic link loop; remove the link")
        return Candidate(
            relative, link, "skipped", "a broken symbolic link (its target does not exist)"
        )
    if target != root and not target.startswith(root + os.sep):
        return Candidate(
            relative,
            link,
            "skipped",
            f"a symbolic link to {target!r}, outside the input root; only links that stay "
            "inside the root are followed (copy the file in to ingest it)",
        )
    if stat.S_ISDIR(info.st_mode):
        if target in ancestors:
            return Candidate(
                relative,
                link,
                "skipped",
                "a symbolic link loop: it points at a directory that contains it",
            )
        return Path(target)
    if stat.S_ISREG(info.st_mode):
        return Candidate(relative, Path(target))
    return _special(relative, Path(target))


def _special(relative: str, path: Path) -> Candidate:
    return Candidate(
        relative,
        path,
        "skipped",
        "not a regular file (a FIFO, socket or device); only regular files are read",
    )


def _excluded(relative: str, exclude: tuple[GlobPattern, ...]) -> bool:
    return any(pattern.matches(relative) for pattern in exclude)
