"""The HTML adapter's tokenizer: one regex scan over the whole string, exact source offsets.

Why hand-written: the tree builder needs every token's exact ``[start, end)`` in the
source (units, exclusions and the display map are offsets). lxml and selectolax build a
DOM without source offsets, html5lib is pure Python and slower than this, and the
standard library's ``html.parser.HTMLParser`` — which the adapter used before — runs
several regex calls, slices and method calls per token in its Python loop (its bare scan
alone cost 1.5× a tiktoken pass over the same text).

What it reads is exactly what ``html.parser.HTMLParser`` of CPython 3.11.7 reports with
``convert_charrefs=True`` and ``close()`` (the tree and its golden files were built on
that), event for event and offset for offset; ``tests/unit/normalization/
test_html_tokens.py`` checks this against ``html.parser`` on generated HTML. So it keeps
that parser's departures from the HTML5 tokenizer, which the output depends on:

* only ``script`` and ``style`` hold raw text (``<script/>`` does not open one; a raw
  text element left open swallows the rest of the input without reporting it);
  ``title`` and ``textarea`` content is tokenized as markup;
* a comment ends at the first ``--`` + optional whitespace + ``>`` after ``<!--`` (so
  ``<!-->`` does not end itself); ``<!x …>`` and ``</ …>`` that names no tag are bogus
  comments up to the next ``>``; ``<![CDATA[…]]>`` and conditional sections are markup;
* an unfinished construct (a comment, tag or declaration with no end) is text up to the
  next ``>`` (or ``<``), and ``<`` that starts nothing is text;
* attribute values are unquoted, single- or double-quoted; a bare attribute has value
  None; names are lower-cased and values have character references decoded
  (``html.unescape``). Text runs are reported raw: decoding them is the builder's job.

One departure, where html.parser raises ``AssertionError`` (a marked section ``<![``
with an unknown keyword or none): that is read as a bogus comment, as HTML5 reads it.

Speed: most tokens are text, a plain start tag (quoted or simple unquoted attributes), a
plain end tag or an inline element around bare text, which one master pattern
(``_TOKEN``) recognizes and ``finditer`` walks without Python-level work per character;
everything else (comments, declarations, odd tags) falls back to a port of html.parser's
own logic (its regexes, copied, since they differ between Python releases). Attributes of
plain tags are parsed only when the builder asks (``attributes()``): inline tags rarely
need them. Unlike html.parser, repeated unfinished constructs ("<a " or "<!--" thousands
of times) cost linear time: scans that reached the end of the input are remembered.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

try:  # class options for the compiled build (setup.py); not needed to run the sources
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover  # a pure-Python install without mypy_extensions

    def mypyc_attr(*_: object, **__: object) -> Callable[[Any], Any]:  # type: ignore[misc]
        return lambda cls: cls


__all__ = ["Attrs", "Tokenizer"]

Attrs = list[tuple[str, str | None]]

# -- the master pattern (fast path) ------------------------------------------------------
#
# Group 1: a text run. Groups 2-3: a start tag whose name is ASCII letters/digits followed
# by ASCII whitespace, "/>" or ">", with attributes separated by ASCII whitespace, names
# of the common alphabet and values quoted or unquoted-and-plain (an unquoted value must
# end at whitespace or ">": html.parser reads "x/" in <a href=x/> as the value). On such
# tags html.parser's tolerant scan gives the same end, name and attributes. Group 4: the
# tag is self-closing. Group 5: the element holds only text and its end tag follows at
# once, spelled the same (``<span class="n">x</span>``, most tags of highlighted code):
# one match for three tokens. Group 6: an end tag exactly as html.parser's ``endtagfind``
# reads it. Group 7: any other "<", read by the port of html.parser below.
_ATTRIBUTE = (
    r"[a-zA-Z_:][-a-zA-Z0-9_:.]*"
    r"""(?:[ \t\n\r\f]*=[ \t\n\r\f]*(?:"[^"]*"|'[^']*'|[^\s"'=<>`/]+(?=[ \t\n\r\f>])))?"""
)
_TOKEN = re.compile(
    r"([^<]+)"
    rf"|<([a-zA-Z][a-zA-Z0-9]*)((?:[ \t\n\r\f]+{_ATTRIBUTE})*)[ \t\n\r\f]*"
    r"(?:(/)>|>(?:([^<]+)</\2>)?)"
    r"|</\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>"
    r"|(<)"
)
# Match.lastindex of each alternative (the last group that took part).
_TEXT, _START, _SELF_CLOSING, _ELEMENT, _END, _OTHER = 1, 3, 4, 5, 6, 7
_FAST_ATTRIBUTE = re.compile(  # groups: name, "=" (absent: a bare attribute), value
    r"([a-zA-Z_:][-a-zA-Z0-9_:.]*)"
    r"""(?:[ \t\n\r\f]*(=)[ \t\n\r\f]*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`/]+)))?"""
)
_NO_ATTRIBUTES: Attrs = []  # shared: handlers read attribute lists, never change them
_RAW_TEXT = ("script", "style")  # html.parser's CDATA_CONTENT_ELEMENTS
_RAW_TEXT_END = {name: re.compile(rf"</\s*{name}\s*>", re.IGNORECASE) for name in _RAW_TEXT}

# -- html.parser 3.11.7's patterns, verbatim (the slow path) --------------------------
_TAG_OPEN = re.compile("<[a-zA-Z]")
_COMMENT_CLOSE = re.compile(r"--\s*>")
_TAG_FIND = re.compile(r"([a-zA-Z][^\t\n\r\f />\x00]*)(?:\s|/(?!>))*")
_ATTR_FIND = re.compile(
    r"((?<=[\'\"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*"
    r"(\'[^\']*\'|\"[^\"]*\"|(?![\'\"])[^>\s]*))?(?:\s|/(?!>))*"
)
# html.parser's ``locatestarttagend_tolerant``, cut in three and matched piece by piece
# (see _whole_start_tag): the name with the whitespace before the first attribute, one
# attribute, trailing whitespace. The whole pattern can never fail after the name, so its
# greedy path (the one re takes) is exactly the chain of single attribute matches.
_START_TAG_HEAD = re.compile(r"<[a-zA-Z][^\t\n\r\f />\x00]*[\s/]*")
_START_TAG_ATTRIBUTE = re.compile(
    r"""(?<=['"\s/])[^\s/>][^\s/=>]*(?:\s*=+\s*(?:'[^']*'|"[^"]*"|(?!['"])[^>\s]*)\s*)?"""
    r"(?:\s|/(?!>))*"
)
_SPACES = re.compile(r"\s*")
_END_TAG_FIND = re.compile(r"</\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>")
_DECL_NAME = re.compile(r"[a-zA-Z][-_.a-zA-Z0-9]*\s*")
_MARKED_SECTION_CLOSE = re.compile(r"]\s*]\s*>")
_MS_MARKED_SECTION_CLOSE = re.compile(r"]\s*>")
_MARKED_SECTIONS = frozenset(("temp", "cdata", "ignore", "include", "rcdata"))
_MS_MARKED_SECTIONS = frozenset(("if", "else", "endif"))
_ATTRIBUTE_END_LETTERS = "abcdefghijklmnopqrstuvwxyz=/ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@mypyc_attr(allow_interpreted_subclasses=True)
class Tokenizer:
    """Scan ``content`` once, calling the ``handle_*`` methods in source order.

    While a handler runs, ``pos`` is where its token starts and, for tags, ``tag_end``
    where it ends. Subclasses override the handlers; the defaults ignore everything.
    Interpreted subclasses are allowed in the compiled build (tests record events).
    """

    content: str
    pos: int
    tag_end: int

    def __init__(self, content: str) -> None:
        self.content = content
        self.pos = 0
        self.tag_end = 0
        self._attrs_at = -1  # a plain tag's attribute text starts here (-1: parsed already)
        self._attrs: Attrs = []
        self._no_gt_from = len(content) + 1  # no ">" at or after this position
        self._none_from: dict[re.Pattern[str], int] = {}  # likewise for other searches
        self._attribute_ends: dict[int, int] = {}  # see _whole_start_tag

    # -- handlers ------------------------------------------------------------------------

    def handle_starttag(self, tag: str, has_attributes: bool) -> None:
        """A start tag ``<tag …>``; ``attributes()`` gives its attributes."""

    def handle_startendtag(self, tag: str, has_attributes: bool) -> None:
        """A self-closing start tag ``<tag …/>``."""

    def handle_endtag(self, tag: str) -> None:
        """An end tag ``</tag …>``."""

    def handle_element(self, tag: str, has_attributes: bool, start: int, text: str) -> None:
        """``<tag …>text</tag>``: its start tag (``pos``, ``tag_end``), the text at
        ``start``, its end tag. Reported as those three tokens unless overridden: a
        builder can skip the element when it knows an element around bare text changes
        nothing."""
        self.handle_starttag(tag, has_attributes)
        self.pos = start
        self.handle_data(start, text)
        self.pos = end_start = start + len(text)
        self.tag_end = end_start + len(tag) + 3  # "</" tag ">", spelled as the start tag
        self.handle_endtag(tag)

    def handle_data(self, start: int, text: str) -> None:
        """Text at ``start`` (raw: character references are not decoded)."""

    def handle_comment(self, start: int, end: int) -> None:
        """A comment or bogus comment at ``[start, end)``."""

    def handle_markup(self, start: int, end: int) -> None:
        """A doctype, processing instruction, marked section or ``</>`` (no content)."""

    # -- attributes ----------------------------------------------------------------------

    def attributes(self) -> Attrs:
        """The attributes of the start tag being handled: ``(name, value)`` pairs in
        source order, names lower-cased, values decoded (None for a bare attribute)."""
        at = self._attrs_at
        if at >= 0:
            self._attrs_at = -1
            attrs: Attrs = []
            found = _FAST_ATTRIBUTE.findall(self.content, at, self.tag_end)
            for name, equals, double, single, bare in found:
                value: str | None = None
                if equals:  # findall gives "" for a group that did not take part
                    value = double or single or bare
                    if "&" in value:
                        value = html.unescape(value)
                attrs.append((name.lower(), value))
            self._attrs = attrs
        return self._attrs

    # -- the scan ------------------------------------------------------------------------

    def scan(self) -> None:
        """Report every token of ``content``, as html.parser would at the end of input."""
        content = self.content
        length = len(content)
        position = 0
        # Bound methods, looked up once: this loop runs once per token of the document.
        data = self.handle_data
        start_tag = self.handle_starttag
        end_tag = self.handle_endtag
        while position < length:
            for match in _TOKEN.finditer(content, position):
                kind = match.lastindex
                if kind == _TEXT:
                    start = match.start()
                    self.pos = start
                    data(start, match[1])
                elif kind == _END:
                    self.pos = match.start()
                    self.tag_end = match.end()
                    end_tag(match[6].lower())
                elif kind != _OTHER:  # a start tag
                    self.pos = match.start()
                    tag = match[2].lower()
                    has_attributes = match[3] != ""
                    if has_attributes:
                        self._attrs_at = match.start(3)
                    else:
                        self._attrs_at = -1
                        self._attrs = _NO_ATTRIBUTES
                    if kind == _ELEMENT:
                        # The tag ends where its text starts; a raw text element's text
                        # ends at the same end tag, so this holds for script/style too.
                        start = match.start(5)
                        self.tag_end = start
                        self.handle_element(tag, has_attributes, start, match[5])
                    elif kind == _SELF_CLOSING:
                        self.tag_end = match.end()
                        self.handle_startendtag(tag, has_attributes)
                    else:
                        self.tag_end = end = match.end()
                        start_tag(tag, has_attributes)
                        if tag in _RAW_TEXT:
                            position = self._raw_text(tag, end)
                            break
                else:
                    position = self._other(match.start())
                    break
            else:
                return

    def _raw_text(self, tag: str, start: int) -> int:
        """Inside ``script``/``style``: text up to the matching end tag, then that tag."""
        content = self.content
        pattern = _RAW_TEXT_END[tag]
        while True:
            match = pattern.search(content, start)
            if match is None:
                return len(content)  # html.parser reports nothing more
            end_start = match.start()
            if end_start > start:
                self.pos = start
                self.handle_data(start, content[start:end_start])
            self.pos = end_start
            name = _END_TAG_FIND.match(content, end_start)
            if name is not None and name.group(1).lower() == tag:
                self.tag_end = match.end()
                self.handle_endtag(tag)
                return match.end()
            # Case-insensitive matching also finds "</ſcript>" (U+017F folds to "s"),
            # which html.parser then reports as text and stays in raw text.
            start = match.end()
            self.handle_data(end_start, content[end_start:start])

    def _other(self, i: int) -> int:
        """Any other ``<`` at ``i`` (html.parser's ``goahead`` branch); the next position."""
        content = self.content
        self.pos = i
        if _TAG_OPEN.match(content, i):
            end = self._start_tag(i)
        elif content.startswith("</", i):
            end = self._end_tag(i)
        elif content.startswith("<!--", i):
            end = self._comment(i)
        elif content.startswith("<?", i):
            end = self._find_gt(i + 2)
            if end >= 0:
                end += 1
                self.handle_markup(i, end)
        elif content.startswith("<!", i):
            end = self._declaration(i)
        else:  # "<" that starts nothing is text
            self.handle_data(i, "<")
            return i + 1
        if end < 0:
            # An unfinished construct: html.parser reports it as text up to the next ">"
            # (or up to the next "<", or just the "<").
            end = self._find_gt(i + 1)
            if end < 0:
                end = content.find("<", i + 1)
                if end < 0:
                    end = i + 1
            else:
                end += 1
            self.pos = i
            self.handle_data(i, content[i:end])
        return end

    def _start_tag(self, i: int) -> int:
        """html.parser's ``parse_starttag``: the tag's end, or -1 when it is unfinished."""
        content = self.content
        end = self._whole_start_tag(i)
        if end < 0:
            return end
        match = _TAG_FIND.match(content, i + 1)
        assert match is not None  # _TAG_OPEN matched at i
        position = match.end()
        tag = match.group(1).lower()
        attrs: Attrs = []
        while position < end:
            found = _ATTR_FIND.match(content, position)
            if found is None:
                break
            name, rest, value = found.group(1, 2, 3)
            if not rest:
                value = None
            elif value[:1] == "'" == value[-1:] or value[:1] == '"' == value[-1:]:
                value = value[1:-1]
            if value:
                value = html.unescape(value)
            attrs.append((name.lower(), value))
            position = found.end()
        close = content[position:end].strip()
        if close not in (">", "/>"):
            self.handle_data(i, content[i:end])  # junk: html.parser reports it as text
            return end
        self.tag_end = end
        self._attrs_at = -1
        self._attrs = attrs
        if close.endswith("/>"):
            self.handle_startendtag(tag, bool(attrs))
            return end
        self.handle_starttag(tag, bool(attrs))
        if tag in _RAW_TEXT:
            return self._raw_text(tag, end)
        return end

    def _whole_start_tag(self, i: int) -> int:
        """html.parser's ``check_for_whole_start_tag`` (at the end of input).

        Its ``locatestarttagend_tolerant`` match, computed attribute by attribute: on
        "<a <a <a …" every tag's attributes ("<a", "<a", …) run to the end of the input,
        which made html.parser quadratic (120 KB took minutes). Where one attribute chain
        ends depends only on where it starts, so the ends found are remembered and a later
        tag that joins a known chain stops there.
        """
        content = self.content
        head = _START_TAG_HEAD.match(content, i)
        assert head is not None  # _TAG_OPEN matched at i
        position = head.end()
        ends = self._attribute_ends
        visited: list[int] = []
        while True:
            known = ends.get(position)
            if known is not None:
                position = known
                break
            attribute = _START_TAG_ATTRIBUTE.match(content, position)
            if attribute is None:
                break
            visited.append(position)
            position = attribute.end()
        for start in visited:
            ends[start] = position
        spaces = _SPACES.match(content, position)
        assert spaces is not None  # r"\s*" matches everywhere
        j = spaces.end()
        following = content[j : j + 1]
        if following == ">":
            return j + 1
        if following == "/":
            if content.startswith("/>", j):
                return j + 2
            return -1
        if not following or following in _ATTRIBUTE_END_LETTERS:
            return -1
        return j if j > i else i + 1

    def _end_tag(self, i: int) -> int:
        """html.parser's ``parse_endtag`` outside raw text."""
        content = self.content
        close = self._find_gt(i + 1)
        if close < 0:
            return -1
        match = _END_TAG_FIND.match(content, i)
        if match is not None:
            self.tag_end = close + 1
            self.handle_endtag(match.group(1).lower())
            return close + 1
        name = _TAG_FIND.match(content, i + 2)
        if name is None:
            if content.startswith("</>", i):
                self.handle_markup(i, i + 3)
                return i + 3
            return self._bogus_comment(i)
        close = content.find(">", name.end())
        self.tag_end = close + 1
        self.handle_endtag(name.group(1).lower())
        return close + 1

    def _comment(self, i: int) -> int:
        end = self._search_end(_COMMENT_CLOSE, i + 4)
        if end >= 0:
            self.handle_comment(i, end)
        return end

    def _bogus_comment(self, i: int) -> int:
        close = self._find_gt(i + 2)
        if close < 0:
            return -1
        self.handle_comment(i, close + 1)
        return close + 1

    def _declaration(self, i: int) -> int:
        """html.parser's ``parse_html_declaration`` after ``<!`` (not a comment)."""
        content = self.content
        if content.startswith("<![", i):
            return self._marked_section(i)
        if content[i : i + 9].lower() == "<!doctype":
            close = self._find_gt(i + 9)
            if close < 0:
                return -1
            self.handle_markup(i, close + 1)
            return close + 1
        return self._bogus_comment(i)

    def _marked_section(self, i: int) -> int:
        """``<![CDATA[…]]>``, ``<![if …]>`` …: markup (html.parser's ``unknown_decl``)."""
        content = self.content
        length = len(content)
        if i + 3 == length:
            return -1
        match = _DECL_NAME.match(content, i + 3)
        if match is None:
            return self._bogus_comment(i)  # html.parser raises AssertionError here
        if match.end() == length:
            return -1
        keyword = match.group().strip().lower()
        if keyword in _MARKED_SECTIONS:
            end = self._search_end(_MARKED_SECTION_CLOSE, i + 3)
        elif keyword in _MS_MARKED_SECTIONS:
            end = self._search_end(_MS_MARKED_SECTION_CLOSE, i + 3)
        else:
            return self._bogus_comment(i)  # html.parser raises AssertionError here
        if end >= 0:
            self.handle_markup(i, end)
        return end

    # Searches for what ends a construct ("-->", ">") fail for every unfinished one, and
    # html.parser then goes on just after it: on "<!--" repeated, each search ran to the
    # end of the input (quadratic). A search that found nothing from p finds nothing from
    # any later position either, so the first failure is remembered.

    def _find_gt(self, start: int) -> int:
        """``content.find(">", start)``, remembering where there is none."""
        if start >= self._no_gt_from:
            return -1
        found = self.content.find(">", start)
        if found < 0:
            self._no_gt_from = start
        return found

    def _search_end(self, pattern: re.Pattern[str], start: int) -> int:
        """The end of ``pattern``'s first match from ``start``, or -1 (remembered)."""
        if start >= self._none_from.get(pattern, len(self.content) + 1):
            return -1
        match = pattern.search(self.content, start)
        if match is None:
            self._none_from[pattern] = start
            return -1
        return match.end()
