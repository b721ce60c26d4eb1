"""Source-text helpers for the reStructuredText adapter: line offsets, markers and links.

All of them are regular expressions or ``str`` methods over the original content, so the
adapter stays linear: no per-character Python loop ever runs over the document.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = [
    "MARKERS",
    "first_token",
    "line_starts",
    "links_in",
    "normalize_name",
    "option_label",
    "readable_title",
    "trim",
]

# docutils splits lines with str.splitlines() after turning \v and \f into spaces, so these
# are exactly its line boundaries; line numbers from docutils index this table.
_BREAK = re.compile("\r\n|[\n\r\x1c\x1d\x1e\x85\u2028\u2029]")
_NON_SPACE = re.compile(r"\S")
_TOKEN = re.compile(r"\S+")
_OPTION_LABEL = re.compile(r"\S(?:[^\n\r]*?\S)?(?=[ \t]{2,}|\t|[ \t]*(?:[\r\n]|$))")

# Where a container's own syntax ends on its first line, when its first child shares that
# line (``- text``, ``:field: text``, ``.. note:: text``, ``.. [1] text``): the child starts
# after the marker and the container owns the marker.
MARKERS: Mapping[str, re.Pattern[str]] = {
    "list_item": re.compile(r"\S+[ \t]*"),
    "option_list_item": re.compile(r"\S(?:[^\n\r]*?\S)?(?:[ \t]{2,}|\t)[ \t]*"),
    "field": re.compile(r":(?:[^:\\\r\n]|\\.|:(?![ \t`\r\n]))*:[ \t]*"),
    "footnote": re.compile(r"\.\.[ \t]+\[[^\]\r\n]*\][ \t]*"),
    "directive": re.compile(r"\.\.[ \t]+[^\s:]++(?:[^\s:]++|:(?!:))*+[ \t]?::[ \t]*"),
}

_INLINE_LITERAL = re.compile(r"``.+?``", re.DOTALL)
_PHRASE = r"`(?P<phrase>[^`<]*?)\s*<(?P<uri>[^<>`]+)>`__?"  # `text <uri>`_ (or <target_>)
_REF = r"`(?P<ref>[^`<>]+)`__?"  # `named reference`_
_WORD = r"(?<![\w`:/])(?P<word>[A-Za-z0-9](?:[\w+.-]*[A-Za-z0-9])?)__?(?![\w])"  # word_
_URL = r"(?P<url>\b(?:https?|ftp)://[^\s<>`\"']*[^\s<>`\"'.,;:!?)\]}])"  # standalone URI
_LINK = re.compile(f"{_PHRASE}|{_REF}|{_WORD}|{_URL}")
# Without named targets no ``word_`` reference can resolve, and that alternative, tried at
# every word, is most of the scan. Dropping it changes no other match: a ``word_`` run has
# no backquote, colon or slash, so no other alternative can start or end inside one.
_LINK_UNNAMED = re.compile(f"{_PHRASE}|{_REF}|{_URL}")
_WHITESPACE = re.compile(r"\s+")

# Inline markup in a section title, reduced to what a reader sees (the adapter never runs
# docutils' inliner, see _rst_docutils._NoInliner). Hand-written because the inliner would
# also run role functions; one alternation, so a literal's content is never re-read.
# Titles longer than _MAX_TITLE are not reduced, which bounds the regex work.
_ROLE = r":[\w.+-]+(?::[\w.+-]+)?:"
_TITLE_INLINE = re.compile(
    r"``(?P<literal>.+?)``"  # ``literal``
    rf"|(?:{_ROLE})?`(?P<interpreted>[^`]+)`(?:{_ROLE}|__?)?"  # :role:`x`, `x`_, `x`:role:
    r"|\*\*(?P<strong>[^*]+)\*\*"  # **strong**
    r"|(?<![\w*])\*(?P<emphasis>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"  # *emphasis*
    r"|\\(?P<escaped>.)",  # backslash escape
    re.DOTALL,
)
_TARGET = re.compile(r"(?P<label>.*?)\s*<(?P<target>[^<>]+)>", re.DOTALL)
# Beyond this a title is not reduced (kept as its whitespace-collapsed source): titles are
# a line or two, and the cap keeps a hostile one-line "title" from costing regex time.
_MAX_TITLE = 2000


def line_starts(content: str) -> list[int]:
    """Offset of every line docutils sees (plus one past a final line break)."""
    starts = [0]
    starts.extend(match.end() for match in _BREAK.finditer(content))
    return starts


def trim(content: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without leading and trailing whitespace (empty: start == end)."""
    found = _NON_SPACE.search(content, start, end)
    if found is None:
        return end, end
    first = found.start()
    return first, first + len(content[first:end].rstrip())


def first_token(content: str, start: int, end: int) -> str:
    found = _TOKEN.match(content, start, end)
    return found.group() if found else ""


def option_label(content: str, start: int, end: int) -> str:
    """An option list item's options (``-a, --all``): up to two spaces or the line end."""
    found = _OPTION_LABEL.match(content, start, end)
    return found.group() if found else first_token(content, start, end)


def normalize_name(name: str) -> str:
    """docutils' reference-name normalization: whitespace collapsed, lower case."""
    return " ".join(name.split()).lower()


def links_in(text: str, targets: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """``(text, href)`` for embedded URIs, resolvable named references and bare URIs.

    Named references count only when the document defines their target
    (``.. _name: uri``); inline literals are skipped. Order of appearance, no repeats.
    """
    if "`" in text:
        text = _INLINE_LITERAL.sub(" ", text)
    found: list[tuple[str, str]] = []
    for match in _LINK.finditer(text):
        kind = match.lastgroup
        if kind == "uri":
            uri = _WHITESPACE.sub("", match.group("uri"))
            label = _WHITESPACE.sub(" ", match.group("phrase")).strip() or uri
            if uri.endswith("_") and not uri.endswith("\\_"):
                resolved = targets.get(normalize_name(uri.rstrip("_")))
                if resolved is None:
                    continue
                uri = resolved
            found.append((label, uri))
        elif kind in ("ref", "word"):
            label = _WHITESPACE.sub(" ", match.group(kind)).strip()
            resolved = targets.get(normalize_name(label))
            if resolved is not None:
                found.append((label, resolved))
        else:
            url = match.group("url")
            found.append((url, url))
    return tuple(dict.fromkeys(found))


def readable_title(raw: str) -> str:
    """A section title's source as its reader sees it: ``:mod:`json` --- JSON`` becomes
    ``json --- JSON``.

    Headings feed the section path that every chunk embeds, so role names, backquotes
    and emphasis marks there would be noise in each chunk's embedding (the Markdown
    adapter likewise titles sections with their inline text). Roles keep their text (a
    Sphinx cross-reference's ``title <target>`` its title, ``~a.b`` its last part),
    references their phrase, literals and emphasis their content. The leaf's own text and
    offsets are unchanged: this is the heading's *name*, not its source.
    """
    collapsed = " ".join(raw.split())
    if len(collapsed) > _MAX_TITLE or not any(mark in collapsed for mark in "`*\\"):
        return collapsed
    return " ".join(_TITLE_INLINE.sub(_readable, collapsed).split()) or collapsed


def _readable(match: re.Match[str]) -> str:
    kind = match.lastgroup
    text = match.group(kind) if kind else match.group()
    if kind != "interpreted":
        return text
    target = _TARGET.fullmatch(text)
    if target is not None:  # `title <target>`: the title, or the target when untitled
        text = target.group("label") or target.group("target")
    if text[:1] == "!":  # Sphinx: a cross-reference that makes no link
        text = text[1:]
    elif text[:1] == "~":  # Sphinx: show only the last component
        text = text[1:].rsplit(".", 1)[-1]
    return text
