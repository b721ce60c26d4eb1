"""Glob patterns over relative POSIX paths, with ``**`` spanning directories.

Why not ``fnmatch`` or ``PurePosixPath.match``: ``fnmatch``'s ``*`` crosses ``/`` (so
``docs/*.md`` would match ``docs/a/b.md``), and ``PurePosixPath.match`` on Python 3.11 has
no ``**`` (``full_match``, which does, arrived in 3.13). So one small translator to a
regular expression, compiled once per pattern, with the rules a user of ``.gitignore``
expects:

- ``*`` matches within one path segment, ``?`` one character of a segment, ``[...]`` a
  character class (``[!...]`` negates); a ``**`` segment matches zero or more segments;
- a pattern without ``/`` matches a file or directory *name* at any depth (``*.md``);
- a pattern with ``/`` is anchored at the input root (``docs/**/*.rst``); a leading ``/``
  or ``./`` is ignored and a trailing ``/`` means "everything below" (``build/``);
- matching is case-sensitive, like the POSIX paths it reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from fastrag.exceptions import ConfigurationError

__all__ = ["GlobPattern", "compile_globs"]

_ANY_SEGMENTS = "(?:[^/]+/)*"
_ONE_OR_MORE_SEGMENTS = "(?:[^/]+/)*[^/]+"


@dataclass(frozen=True, slots=True)
class GlobPattern:
    """One compiled glob; ``matches`` takes a relative POSIX path such as ``a/b.md``."""

    pattern: str
    regex: re.Pattern[str]

    def matches(self, relative_path: str) -> bool:
        """Whether ``relative_path`` (no leading ``/``) matches this pattern."""
        return self.regex.fullmatch(relative_path) is not None


def compile_globs(option: str, patterns: Iterable[str]) -> tuple[GlobPattern, ...]:
    """Compile ``patterns`` (named ``option`` in errors), rejecting empty or non-str ones."""
    if isinstance(patterns, str):
        raise ConfigurationError(
            f"{option!r} must be a list of glob patterns such as ['**/*.md'] "
            f"(got the single string {patterns!r}); wrap it in a list"
        )
    compiled: list[GlobPattern] = []
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern.strip("/"):
            raise ConfigurationError(
                f"{option!r} entries must be non-empty glob patterns such as 'docs/**/*.md' "
                f"(got {type(pattern).__name__}: {pattern!r:.60})"
            )
        compiled.append(GlobPattern(pattern, re.compile(_translate(pattern))))
    return tuple(compiled)


def _translate(pattern: str) -> str:
    body = pattern.removeprefix("./").lstrip("/")
    if body.endswith("/"):
        body = body.rstrip("/") + "/**"
    segments = body.split("/")
    anchored = len(segments) > 1
    parts: list[str] = [] if anchored else [_ANY_SEGMENTS]
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(_ONE_OR_MORE_SEGMENTS if last else _ANY_SEGMENTS)
        elif segment:
            parts.append(_segment(segment) + ("" if last else "/"))
    return "".join(parts)


def _segment(segment: str) -> str:
    """Translate one segment: ``*``, ``?`` and ``[...]`` never cross a ``/``."""
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        char = segment[i]
        if char == "*":
            while i + 1 < n and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = segment[i + 1 : end]
                negate = inner.startswith("!")
                inner = inner[1:] if negate else inner
                escaped = inner.replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[{'^/' if negate else ''}{escaped}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)
