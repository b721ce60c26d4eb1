"""Large Markdown parsed a piece at a time, with exactly the events of one whole parse.

Why: pyromark collects every event of a parse before yielding the first (about six times
the input's size for 10 MB of Markdown), more than the whole tree the adapter builds. Cut
at top-level headings, a document is parsed in pieces of a fixed size and only one
piece's events exist at a time.

When that is exact: CommonMark reads blocks line by line, and an ATX heading (``# …`` at
column 0) after a blank line closes every container and leaf before it — unless it is a
line of a fenced code block or of an HTML block of types 1–5 (``<pre>``, ``<!--`` …),
which run until their closing line whatever comes between. So a cut before such a
heading is exact when the piece before it ends in no open fence or HTML block: the
parse of each piece then has the block structure the whole parse has there, and the
heading starts the next piece as it would start a document. Two things cross pieces:

* link reference definitions: a link may use a definition of another piece, and the
  first definition of a label is the one that counts. All pieces' definitions are read
  first (``reference_definitions``, block structure only); the parser resolves the
  references a piece does not define itself from them (its ``broken_link_callback``),
  and where a piece defines a label an earlier piece defined differently, the walker
  gives its links the earlier target (``overrides``);
* footnotes: ``[^label]`` is a reference only if the document defines the label, so
  no cut falls between one and its nearest definition; once every piece is walked,
  each piece that writes ``[^label]`` of a label defined anywhere must define it
  itself (else: ``UnsplittableError``).

``plan`` picks the cuts: the first heading after a blank line once a piece reaches its
size, skipping one after an odd number of column-0 fences (likely inside one). It may
still pick a cut inside a block; ``pieces`` checks the end of every piece once it is
walked and raises ``UnsplittableError`` if the piece ends in an open fence or HTML
block, and the caller parses the document whole instead. Nothing here is a guess: a
document is either cut where the cut is exact or parsed whole.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, NamedTuple

__all__ = [
    "PIECE_CHARACTERS",
    "Check",
    "Definitions",
    "UnsplittableError",
    "definitions",
    "label",
    "pieces",
    "plan",
    "resolved_target",
    "resolver",
]

PIECE_CHARACTERS: Final = 1 << 18
"""Characters a piece reaches before it is cut (documents up to twice this are parsed
whole): 256 Ki, about 1.5 MB of pyromark's events at a time."""

# A blank line, then an ATX heading's opening: the cut goes before the "#".
_CUT = re.compile(r"(?:\r\n?|\n)[ \t]*(?:\r\n?|\n)(?=#{1,6}(?:[ \t\r\n]|\Z))")
_FOOTNOTE = re.compile(r"\[\^([^\]\r\n]+)\](:?)")
_FENCE_OPEN = re.compile(rb"[ ]{0,3}(`{3,}|~{3,})")
_LINE_BREAK = re.compile(rb"\r\n?|\n")
# CommonMark's HTML block types 1-5 (opening at the block's start) and the text that
# ends each; types 6 and 7 end at a blank line, which every cut follows.
_HTML_UNTIL: Final = (
    (
        re.compile(rb"[ ]{0,3}<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.I),
        re.compile(rb"</(?:script|pre|style|textarea)>", re.I),
    ),
    (re.compile(rb"[ ]{0,3}<!--"), re.compile(rb"-->")),
    (re.compile(rb"[ ]{0,3}<\?"), re.compile(rb"\?>")),
    (re.compile(rb"[ ]{0,3}<!\[CDATA\["), re.compile(rb"\]\]>")),
    (re.compile(rb"[ ]{0,3}<![A-Za-z]"), re.compile(rb">")),
)


class UnsplittableError(Exception):
    """A planned cut falls inside a block: the document must be parsed whole."""


def plan(text: str, size: int = PIECE_CHARACTERS) -> list[int] | None:
    """Where each piece starts (the first at 0), or None to parse ``text`` whole.

    Linear: fences are counted once, from the last cut on, and a cut between a footnote
    and its definition is found by bisection.
    """
    if len(text) <= 2 * size:
        return None
    firsts, lasts = _footnote_ranges(text)
    starts = [0]
    position = size
    fences = 0
    counted = 0  # fences are counted up to here, from the last cut
    while position < len(text) - size:
        found = _CUT.search(text, position)
        if found is None:
            break
        cut = found.end()
        position = cut
        fences += text.count("\n```", counted, cut) + text.count("\n~~~", counted, cut)
        counted = cut
        if fences % 2:  # likely inside a fence: try the next heading
            continue
        around = bisect_left(firsts, cut) - 1  # the last range starting before the cut
        if around >= 0 and cut <= lasts[around]:  # inside: between a note and its use
            position = lasts[around]
            continue
        starts.append(cut)
        position = cut + size
        fences = 0
    return starts if len(starts) > 1 else None


def _footnote_ranges(text: str) -> tuple[list[int], list[int]]:
    """From each ``[^label]`` to the nearest ``[^label]:`` (a definition) of the same
    label, in any case: where no cut may fall (``pieces`` checks what the parser made of
    them). Overlapping ranges are merged: ``(firsts, lasts)``, sorted and disjoint."""
    references: dict[str, list[int]] = {}
    defined: dict[str, list[int]] = {}
    for found in _FOOTNOTE.finditer(text):
        places = defined if found.group(2) else references
        places.setdefault(label(found.group(1)), []).append(found.start())
    ranges: list[tuple[int, int]] = []
    for name, definitions in defined.items():
        for place in references.get(name, ()):
            after = bisect_left(definitions, place)
            nearest = min(
                definitions[max(after - 1, 0) : after + 1], key=lambda at: abs(at - place)
            )
            ranges.append((min(place, nearest), max(place, nearest)))
    firsts: list[int] = []
    lasts: list[int] = []
    for first, last in sorted(ranges):
        if lasts and first <= lasts[-1]:
            lasts[-1] = max(lasts[-1], last)
        else:
            firsts.append(first)
            lasts.append(last)
    return firsts, lasts


def label(text: str) -> str:
    """A reference label as CommonMark matches it: case-folded, whitespace collapsed."""
    return " ".join(text.split()).casefold()


class Definitions(NamedTuple):
    """What ``definitions`` reads from the pieces' link reference definitions."""

    found: dict[str, tuple[str, str]]
    """Target and title by label: the first definition of each, as the whole document
    resolves them."""
    overrides: list[dict[str, str]]
    """Per piece, the targets its own definitions must yield to: where an earlier piece
    defines a label differently, the piece's parse resolves the label to its own
    definition and the walker corrects it."""
    spans: list[tuple[int, int]]
    """Byte spans of every piece's definitions, in order (the walker's
    ``find_definitions`` over the whole document)."""


def definitions(
    read: Callable[[str], Mapping[str, Any]], text: str, starts: list[int]
) -> Definitions:
    """Every piece's link reference definitions, read a piece at a time (see
    ``Definitions``): the parser reads a str as UTF-8, which CPython caches on the str,
    so reading ``text`` whole would leave it (often the caller's document content)
    carrying a copy of itself, 1x the input for non-ASCII text, for as long as it lives;
    a slice's copy goes with the slice. No definition spans two pieces: they are cut
    between top-level blocks."""
    found: dict[str, tuple[str, str]] = {}
    local_definitions: list[dict[str, tuple[str, str]]] = []
    spans: list[tuple[int, int]] = []
    base = 0
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        piece = text[start:end]
        local: dict[str, tuple[str, str]] = {}
        read_here = read(piece).items()
        for written, definition in read_here:
            local.setdefault(label(written), (definition["dest"], definition["title"] or ""))
        spans += sorted(
            (base + item["span"]["start"], base + item["span"]["end"]) for _, item in read_here
        )
        base += piece_bytes(piece)
        for name, target in local.items():
            found.setdefault(name, target)
        local_definitions.append(local)
    overrides = [
        {
            name: found[name][0]
            for name, (destination, _title) in local.items()
            if found[name][0] != destination
        }
        for local in local_definitions
    ]
    return Definitions(found, overrides, spans)


def piece_bytes(piece: str) -> int:
    """The length of ``piece`` in UTF-8."""
    return len(piece) if piece.isascii() else len(piece.encode("utf-8"))


def resolver(found: Mapping[str, tuple[str, str]]) -> Callable[[Any], tuple[str, str] | None]:
    """pyromark's ``broken_link_callback``: a reference to another piece's definition."""

    def resolve(link: Any) -> tuple[str, str] | None:
        return found.get(label(link["reference"]))

    return resolve


_LOCAL_REFERENCES: Final = frozenset({"Reference", "Collapsed", "Shortcut"})


def resolved_target(link: Mapping[str, Any], overrides: Mapping[str, str]) -> str:
    """A Link or Image tag's target, as the whole document resolves it."""
    destination: str = link["dest_url"]
    if link.get("link_type") in _LOCAL_REFERENCES:
        return overrides.get(label(link.get("id") or ""), destination)
    return destination


Check = Callable[[int, list[str]], None]
"""Called once a piece is walked, with where its last top-level block starts and the
labels of the footnotes it defines."""


def pieces(
    parse: Callable[[str], Iterator[tuple[Any, Any]]],
    text: str,
    data: bytes,
    starts: list[int],
    overrides: list[dict[str, str]],
) -> Iterator[tuple[int, Iterator[tuple[Any, Any]], dict[str, str], Check]]:
    """``(byte base, events, overrides, check)`` of each piece of ``text`` (encoded:
    ``data``), one at a time.

    The events are pyromark's own lazy stream: a list of them as Python values would be
    larger than the parser's buffer. So a cut is checked after its piece is walked:
    ``check`` parses the piece's last top-level block again, on its own, and raises
    ``UnsplittableError`` if it ends open (the caller drops the draft); after the last
    piece, it checks the footnotes.
    """
    footnotes = _Footnotes()
    base = 0
    bounds = [*starts[1:], len(text)]
    for number, (start, end) in enumerate(zip(starts, bounds, strict=True)):
        piece = text[start:end]
        size = piece_bytes(piece)
        footnotes.written.append({label(found.group(1)) for found in _FOOTNOTE.finditer(piece)})
        events = parse(piece)
        del piece
        last = end == len(text)
        yield base, events, overrides[number], _checker(parse, data, base + size, last, footnotes)
        del events
        base += size


class _Footnotes:
    """Footnote labels each piece writes (``[^label]``, any) and defines (parsed)."""

    def __init__(self) -> None:
        self.written: list[set[str]] = []
        self.defined: list[set[str]] = []

    def check(self) -> None:
        anywhere = set().union(*self.defined)
        for number, (written, defined) in enumerate(zip(self.written, self.defined, strict=True)):
            if not (written & anywhere) <= defined:
                raise UnsplittableError(f"piece {number} uses a footnote defined elsewhere")


def _checker(
    parse: Callable[[str], Iterator[tuple[Any, Any]]],
    data: bytes,
    end: int,
    last: bool,
    footnotes: _Footnotes,
) -> Check:
    def check(block_start: int, defined: list[str]) -> None:
        footnotes.defined.append(set(map(label, defined)))
        if last:
            footnotes.check()
            return
        window = data[block_start:end]
        if not _closed(list(parse(window.decode("utf-8"))), window):
            raise UnsplittableError(f"piece {len(footnotes.defined) - 1} ends inside a block")

    return check


def _closed(events: list[tuple[Any, Any]], data: bytes) -> bool:
    """Whether the last top-level block of ``data`` is closed by its own text."""
    depth = 0
    for event, span in events[::-1]:  # not reversed(): mypyc 2.4 fails on it here
        if type(event) is not dict:
            continue
        if "End" in event:
            depth += 1
        elif "Start" in event:
            depth -= 1
            if depth == 0:
                source = data[span["start"] : span["end"]]
                return _block_closed(event["Start"], source)
    return True


def _block_closed(tag: Any, source: bytes) -> bool:
    """A fenced code block needs its closing fence, an HTML block of types 1-5 its end
    text on its last line; every other block is closed by the blank line and heading."""
    lines = _LINE_BREAK.split(source.rstrip(b" \t\r\n"))
    if type(tag) is dict and isinstance(tag.get("CodeBlock"), dict):
        opening = _FENCE_OPEN.match(lines[0])
        if opening is None:
            return False
        fence = opening.group(1)
        closing = re.fullmatch(
            rb"[ ]{0,3}" + re.escape(fence[:1]) + rb"{%d,}[ \t]*" % len(fence), lines[-1]
        )
        return len(lines) > 1 and closing is not None
    if tag == "HtmlBlock":
        for starts_block, ends_block in _HTML_UNTIL:
            if starts_block.match(lines[0]):
                return ends_block.search(lines[-1]) is not None
    return True
