"""Find the ATX and Setext headings of a Markdown string, ignoring those inside code.

This is a deliberately small, hand-written line scanner rather than a Markdown parser:
``HeadingChunker`` is part of the base install, which has no third-party dependency, and
sectioning needs only the block-level facts that decide whether a line is a heading —
fenced code (backticks or tildes, with info strings, closed by a fence of the same
character at least as long), indented code, paragraphs (a Setext underline needs one),
thematic breaks, and YAML front matter. Inline Markdown is read only to turn a heading's
source into a plain-text title.

Lines inside list items and block quotes never become section headings (a ``# x`` there
belongs to the item, not to the document's outline), but a fence opened inside one is
still tracked, so the ``# comment`` lines of a shell snippet in a list item stay code.
Line breaks are ``\\n``, ``\\r\\n`` or ``\\r``, as in CommonMark — not the other characters
``str.splitlines`` also breaks on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["MarkdownHeading", "plain_title", "scan_headings"]


@dataclass(frozen=True, slots=True)
class MarkdownHeading:
    """One heading of the document's outline."""

    level: int
    """1 to 6: the number of ``#`` marks, 1 for a ``===`` and 2 for a ``---`` underline."""
    title: str
    """The heading's text as plain text: markers, closing ``#``s and inline markup removed."""
    start: int
    """Offset of the heading's first line (a Setext heading starts at its paragraph)."""
    end: int
    """Offset just past the heading's last character, before its line break."""


_LINE = re.compile(r"[^\r\n]*")
_BLANK = re.compile(r"[ \t]*")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t](.*))?")
# Closing "#"s start after a run of spaces, never inside one: a search from each space of
# a long run would rescan the rest of it (quadratic in a hostile heading's length).
_ATX_CLOSING = re.compile(r"(?:^|(?<![ \t])[ \t]++)#++[ \t]*+$")
_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:(=+)|-+)[ \t]*")
_THEMATIC_BREAK = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})")
# A fence may open after block-quote and list-item markers; the marker prefix is optional.
# Possessive: the spaces between markers could be split between the two space runs in
# as many ways as there are spaces, and a failed match would try them all (a line of
# "-    " repeated took seconds); markers and fence characters never overlap.
_FENCE_OPEN = re.compile(
    r"(?P<prefix>[ \t]*+(?:(?:>[ \t]?+|(?:[-+*]|\d{1,9}[.)])[ \t]++)[ \t]*+)*+)"
    r"(?P<fence>`{3,}|~{3,})(?P<info>.*)"
)
_FENCE_CLOSE = re.compile(r"[ \t]*+(?:>[ \t]?+)*+[ \t]*+(?P<fence>`{3,}+|~{3,}+)[ \t]*+")
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)")
_QUOTE = re.compile(r" {0,3}>")
_FRONT_MATTER_OPEN = re.compile(r"---[ \t]*")
_FRONT_MATTER_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*")


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    text: str


def _lines(source: str) -> Iterator[_Line]:
    position = 0
    length = len(source)
    while position <= length:
        match = _LINE.match(source, position)
        end = match.end() if match else position
        yield _Line(position, end, source[position:end])
        if end >= length:
            return
        position = end + (2 if source.startswith("\r\n", end) else 1)


def _indent(text: str) -> int:
    """Leading indentation in columns, tabs advancing to the next multiple of four."""
    column = 0
    for character in text:
        if character == " ":
            column += 1
        elif character == "\t":
            column += 4 - column % 4
        else:
            break
    return column


@dataclass(frozen=True, slots=True)
class _Fence:
    character: str
    length: int

    def closed_by(self, text: str) -> bool:
        match = _FENCE_CLOSE.fullmatch(text)
        if match is None:
            return False
        fence = match["fence"]
        return fence[0] == self.character and len(fence) >= self.length


def _fence_opened_by(text: str) -> _Fence | None:
    """The fence ``text`` opens, after any block-quote or list-item markers, if any."""
    match = _FENCE_OPEN.fullmatch(text)
    if match is None:
        return None
    fence = match["fence"]
    if fence[0] == "`" and "`" in match["info"]:
        return None  # CommonMark: a backtick fence's info string may not contain backticks
    return _Fence(fence[0], len(fence))


def _skip_front_matter(lines: list[_Line]) -> int:
    """Index of the first line after YAML front matter (0 when there is none).

    Front matter is not CommonMark, but it is common enough in Markdown files that reading
    its closing ``---`` as a Setext underline would invent a heading from ``title: x``.
    """
    if not lines or _FRONT_MATTER_OPEN.fullmatch(lines[0].text) is None:
        return 0
    for index in range(1, len(lines)):
        if _FRONT_MATTER_CLOSE.fullmatch(lines[index].text):
            return index + 1
    return 0


def scan_headings(source: str) -> tuple[MarkdownHeading, ...]:
    """Every outline heading of ``source``, in order, with offsets into ``source``."""
    lines = list(_lines(source))
    scanner = _Scanner()
    for line in lines[_skip_front_matter(lines) :]:
        scanner.feed(line)
    return tuple(scanner.headings)


@dataclass(slots=True)
class _Scanner:
    """The block state one line needs to decide whether it is a heading.

    ``paragraph`` holds the lines of the open paragraph (a Setext underline turns them into
    a heading); ``eligible`` is false when that paragraph lives in a list item or block
    quote, whose lazy continuation lines must not become headings either; ``item_indent``
    is the content column of the open list item, so its indented lines stay inside it.
    """

    headings: list[MarkdownHeading] = field(default_factory=list)
    fence: _Fence | None = None
    paragraph: list[_Line] = field(default_factory=list)
    eligible: bool = False
    item_indent: int | None = None

    def feed(self, line: _Line) -> None:
        text = line.text
        if self.fence is not None:
            if self.fence.closed_by(text):
                self.fence = None
        elif _BLANK.fullmatch(text):
            self.paragraph = []
        elif self.item_indent is not None and _indent(text) >= self.item_indent:
            self._container_line(line)
        elif _indent(text) > 3:
            if self.paragraph:
                self.paragraph.append(line)  # a lazy continuation; otherwise indented code
        elif _THEMATIC_BREAK.fullmatch(text) and not (
            self.paragraph and self.eligible and _SETEXT_UNDERLINE.fullmatch(text)
        ):
            self.paragraph, self.item_indent = [], None
        elif (item := _LIST_ITEM.match(text)) is not None:
            self.item_indent = len(text[: item.end()].expandtabs(4)) + (item.end() == len(text))
            self._container_line(line)
        elif _QUOTE.match(text):
            self.item_indent = None
            self._container_line(line)
        else:
            self._top_level_line(line)

    def _container_line(self, line: _Line) -> None:
        """A line of a list item or block quote: it may open a fence, never a heading."""
        self.fence = _fence_opened_by(line.text)
        if self.fence is not None:
            self.paragraph = []
        elif self.paragraph:
            self.paragraph.append(line)
        else:
            self.paragraph = [line]
        self.eligible = False

    def _top_level_line(self, line: _Line) -> None:
        text = line.text
        self.fence = _fence_opened_by(text)
        if self.fence is not None:
            self.paragraph, self.item_indent = [], None
            return
        atx = _ATX.fullmatch(text)
        if atx is not None:
            content = _ATX_CLOSING.sub("", (atx[2] or "").strip(" \t")).strip(" \t")
            self.headings.append(
                MarkdownHeading(len(atx[1]), plain_title(content), line.start, line.end)
            )
            self.paragraph, self.item_indent = [], None
            return
        underline = _SETEXT_UNDERLINE.fullmatch(text)
        if underline is not None and self.paragraph and self.eligible:
            raw = " ".join(part.text.strip(" \t") for part in self.paragraph)
            level = 1 if underline[1] else 2
            self.headings.append(
                MarkdownHeading(level, plain_title(raw), self.paragraph[0].start, line.end)
            )
            self.paragraph = []
            return
        if self.paragraph:
            # Continues the open paragraph; when that paragraph is a list item's, this is a
            # lazy continuation line, so the item (and ``item_indent``) stays open.
            self.paragraph.append(line)
            return
        self.paragraph, self.eligible, self.item_indent = [line], True, None


# Inline rules, applied in order outside code spans: (pattern, replacement).
_INLINE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # images and inline links keep their text; so do full reference links
    (re.compile(r"!?(?<!\\)\[([^\]]*)(?<!\\)\]\([^)]*\)"), r"\1"),
    (re.compile(r"!?(?<!\\)\[([^\]]*)(?<!\\)\]\[[^\]]*\]"), r"\1"),
    (re.compile(r"<((?:https?|mailto|ftp):[^>\s]*)>"), r"\1"),  # autolinks
    (re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"), ""),  # raw HTML tags
    # strong, strikethrough, then emphasis; an escaped delimiter is literal text
    (re.compile(r"(?<!\\)(\*\*|__|~~)(?=\S)(.+?)(?<=\S)(?<!\\)\1"), r"\2"),
    (re.compile(r"(?<!\\)\*(?=\S)(.+?)(?<=\S)(?<!\\)\*"), r"\1"),
    (re.compile(r"(?<![A-Za-z0-9\\])_(?=\S)(.+?)(?<=\S)(?<!\\)_(?![A-Za-z0-9])"), r"\1"),
)
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_ESCAPE = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
_SPACES = re.compile(r"\s+")


def _plain_inline(text: str) -> str:
    for pattern, replacement in _INLINE_RULES:
        text = pattern.sub(replacement, text)
    return _ESCAPE.sub(r"\1", text)


_MAX_PLAIN_TITLE = 2_000
"""Longer headings keep their markup (whitespace still collapsed): each inline rule
looks for its closing delimiter from every opening one, quadratic in a hostile line."""


def plain_title(markdown: str) -> str:
    """A heading's inline Markdown as plain text, for metadata and display.

    Code spans keep their content verbatim (no other rule looks inside them); links and
    images keep their text, emphasis loses its delimiters, backslash escapes are resolved
    and runs of whitespace become one space.
    """
    if len(markdown) > _MAX_PLAIN_TITLE:
        return _SPACES.sub(" ", markdown).strip()
    parts: list[str] = []
    position = 0
    for match in _CODE_SPAN.finditer(markdown):
        parts.append(_plain_inline(markdown[position : match.start()]))
        code = match[2]
        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
            code = code[1:-1]  # CommonMark strips one space from each side of a code span
        parts.append(code)
        position = match.end()
    parts.append(_plain_inline(markdown[position:]))
    return _SPACES.sub(" ", "".join(parts)).strip()
