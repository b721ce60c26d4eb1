"""The HTML tokenizer against html.parser, token for token and offset for offset.

``Tokenizer`` replaced ``html.parser.HTMLParser`` under the HTML adapter and must report
exactly what that parser (CPython 3.11.7, ``convert_charrefs=True``, end of input)
reported, since the golden trees were built on it. The differential properties run both
over generated HTML; the examples pin each tokenization rule on its own, so they keep
failing meaningfully if the interpreter's html.parser changes.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrag.models import Document
from fastrag.normalization.formats import _html_tokens
from fastrag.normalization.formats._html_tokens import Attrs, Tokenizer
from fastrag.normalization.formats.html import HtmlNormalizer
from tests.strategies.html import documents

Event = tuple[object, ...]


class _Reference(HTMLParser):
    """html.parser's events with their source ranges (what the adapter used to read)."""

    def __init__(self, content: str) -> None:
        super().__init__(convert_charrefs=True)
        self.rawdata = content
        self.events: list[Event] = []
        self.pending: Event = ()

    def updatepos(self, i: int, j: int) -> int:
        if i < j:
            kind = self.pending or ("markup",)
            self.events.append((kind[0], i, j, *kind[1:]))
        self.pending = ()
        return j

    def handle_starttag(self, tag: str, attrs: Attrs) -> None:
        self.pending = ("start", tag, attrs)

    def handle_startendtag(self, tag: str, attrs: Attrs) -> None:
        self.pending = ("startend", tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.pending = ("end", tag)

    def handle_data(self, data: str) -> None:
        self.pending = ("data",)

    def handle_comment(self, data: str) -> None:
        self.pending = ("comment",)

    def events_of(self) -> list[Event]:
        self.goahead(True)
        return self.events


class _Recorder(Tokenizer):
    def __init__(self, content: str) -> None:
        super().__init__(content)
        self.events: list[Event] = []

    def _tag(self, kind: str, tag: str, has_attributes: bool) -> None:
        attrs = self.attributes()
        assert bool(attrs) == has_attributes
        self.events.append((kind, self.pos, self.tag_end, tag, attrs))

    def handle_starttag(self, tag: str, has_attributes: bool) -> None:
        self._tag("start", tag, has_attributes)

    def handle_startendtag(self, tag: str, has_attributes: bool) -> None:
        self._tag("startend", tag, has_attributes)

    def handle_endtag(self, tag: str) -> None:
        self.events.append(("end", self.pos, self.tag_end, tag))

    def handle_data(self, start: int, text: str) -> None:
        assert self.pos == start and self.content.startswith(text, start)
        self.events.append(("data", start, start + len(text)))

    def handle_comment(self, start: int, end: int) -> None:
        self.events.append(("comment", start, end))

    def handle_markup(self, start: int, end: int) -> None:
        self.events.append(("markup", start, end))


def tokens(content: str) -> list[Event]:
    recorder = _Recorder(content)
    recorder.scan()
    return recorder.events


def reference(content: str) -> list[Event] | None:
    """html.parser's events, or None where it raises (a marked section it cannot name)."""
    try:
        return _Reference(content).events_of()
    except AssertionError:
        return None


def _reference_is_html_parser_3_11_7() -> bool:
    # Python 3.13.4+ (and security releases of older lines) close comments and drop
    # unfinished tags at the end of input as HTML5 does; the tokenizer keeps 3.11.7's rules.
    unfinished = [("data", 0, 1), ("data", 1, 5)]  # "<" starts nothing, then text
    return reference("<!--x") == unfinished and reference("<a b=") == unfinished


differential = pytest.mark.skipif(
    not _reference_is_html_parser_3_11_7(),
    reason="this interpreter's html.parser no longer tokenizes like CPython 3.11.7's",
)

# Pieces that meet every branch of the tokenizer when glued at random.
_PIECES = st.sampled_from(
    [
        *("<", ">", "/", "/>", " ", "=", "==", '"', "'", "`", "!", "-", "--", "?", "[", "]"),
        *("&", ";", "&amp;", "&#x41;", "&lt", "\t", "\n", "\r\n", "\x0b", "\x0c", "\xa0"),
        *("\x00", "a", "B", "x1", "é", "ſ", ":", ".", "_", "text"),
        *("<a", "<A", "<p", "<br", "<img", "<pre", "<x-y", "<script", "<style", "<SCRIPT"),
        *("</", "</a", "</p", "</script", "</style", "</ script", "</SCRIPT", "</ſcript"),
        *("<!--", "-->", "--!>", "- ->", "<!", "<?", "<![CDATA[", "]]>", "<![if", "<![x"),
        *("<!doctype html", "<!DOCTYPE", " href=", " class=", " alt=", " hidden", " x=y"),
        *(' a="b"', " a='b'", " a=b", " A=B", " a = 'b'", " a=b/", " a=&amp;"),
    ]
)
_NASTY = st.lists(_PIECES, min_size=1, max_size=40).map("".join)
_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@differential
@_SETTINGS
@given(_NASTY)
def test_same_tokens_as_html_parser_on_nasty_fragments(content: str) -> None:
    expected = reference(content)
    if expected is not None:
        assert tokens(content) == expected


@differential
@_SETTINGS
@given(documents())
def test_same_tokens_as_html_parser_on_generated_documents(content: str) -> None:
    assert tokens(content) == reference(content)


@differential
def test_same_tokens_as_html_parser_on_a_real_page() -> None:
    from tests._paths import SHARED

    content = (SHARED / "corpus" / "web" / "wiki_duck.html").read_text(encoding="utf-8")
    events = tokens(content)
    assert len(events) > 1000
    assert events == reference(content)


# -- each rule on its own ----------------------------------------------------------------


def test_plain_tags_text_and_lazy_attributes() -> None:
    content = "<p class=\"x\" id=y data-A='&amp;' hidden>Hi &amp; bye</p>"
    assert tokens(content) == [
        ("start", 0, 40, "p", [("class", "x"), ("id", "y"), ("data-a", "&"), ("hidden", None)]),
        ("data", 40, 52),
        ("end", 52, 56, "p"),
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # An unquoted value runs to whitespace or ">": "x/" is the value, not "/>".
        ("<a href=x/>", [("start", 0, 11, "a", [("href", "x/")])]),
        ("<a href=x />", [("startend", 0, 12, "a", [("href", "x")])]),
        ("<br/>", [("startend", 0, 5, "br", [])]),
        ('<a title="1>2">', [("start", 0, 15, "a", [("title", "1>2")])]),
        ("<a b=''>", [("start", 0, 8, "a", [("b", "")])]),
        ("<a\xa0b>", [("start", 0, 5, "a\xa0b", [])]),  # U+00A0 does not end a tag name
        ('<a b="c"d=e>', [("start", 0, 12, "a", [("b", "c"), ("d", "e")])]),
        ("</p x=1>", [("end", 0, 8, "p")]),
        ("</ P >", [("end", 0, 6, "p")]),
    ],
)
def test_attribute_and_tag_edge_cases(content: str, expected: list[Event]) -> None:
    assert tokens(content) == expected


def test_script_and_style_hold_raw_text_up_to_their_end_tag() -> None:
    content = "<script>if (a<b) x='</p>';</SCRIPT ><style>p>a{}</style>"
    assert tokens(content) == [
        ("start", 0, 8, "script", []),
        ("data", 8, 26),
        ("end", 26, 36, "script"),
        ("start", 36, 43, "style", []),
        ("data", 43, 48),
        ("end", 48, 56, "style"),
    ]
    # A self-closed script holds nothing; one left open swallows the rest unreported.
    assert tokens("<script/><b>") == [
        ("startend", 0, 9, "script", []),
        ("start", 9, 12, "b", []),
    ]
    assert tokens("<script>x<b>") == [("start", 0, 8, "script", [])]
    # Case folding finds "</ſcript>" (U+017F), which is text: the raw text goes on.
    assert tokens("<script>a</ſcript>b</script>") == [
        ("start", 0, 8, "script", []),
        ("data", 8, 9),
        ("data", 9, 18),
        ("data", 18, 19),
        ("end", 19, 28, "script"),
    ]


def test_title_and_textarea_are_not_raw_text() -> None:
    assert [event[0] for event in tokens("<title>a<b>c</title>")] == [
        *("start", "data", "start", "data", "end"),
    ]


def test_comments_bogus_comments_and_declarations() -> None:
    assert tokens("<!-- a -- >x") == [("comment", 0, 11), ("data", 11, 12)]
    assert tokens("<!-->x-->") == [("comment", 0, 9)]  # "<!-->" does not end itself
    assert tokens("<!x>") == [("comment", 0, 4)]
    assert tokens("</1x>") == [("comment", 0, 5)]  # "</" not followed by a name
    assert tokens("</>") == [("markup", 0, 3)]
    assert tokens("<!DOCTYPE html><?xml v?><![CDATA[ <p> ]]>") == [
        ("markup", 0, 15),
        ("markup", 15, 24),
        ("markup", 24, 41),
    ]
    assert tokens("<![if !IE]>x<![endif]>") == [
        ("markup", 0, 11),
        ("data", 11, 12),
        ("markup", 12, 22),
    ]


def test_unknown_marked_sections_are_bogus_comments() -> None:
    """html.parser raises AssertionError on these; HTML5 reads a bogus comment."""
    assert reference("<![foo]>") is None
    assert tokens("<![foo]>x") == [("comment", 0, 8), ("data", 8, 9)]
    assert tokens("<![ x>") == [("comment", 0, 6)]
    tree = HtmlNormalizer().normalize(Document("d", "s", "<p>a<![foo]>b</p>"))
    assert [node.text for node in tree.nodes] == ["", "ab"]
    assert [exclusion.reason for exclusion in tree.exclusions] == ["markup", "comment", "markup"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # Up to the next ">" if there is one, else the "<" alone, then text.
        ("<a b='>c<d>", [("data", 0, 7), ("data", 7, 8), ("start", 8, 11, "d", [])]),
        ("a<b", [("data", 0, 1), ("data", 1, 2), ("data", 2, 3)]),
        ("a < b", [("data", 0, 2), ("data", 2, 3), ("data", 3, 5)]),  # "<" starts nothing
        ("a<", [("data", 0, 1), ("data", 1, 2)]),
        ("<!--x", [("data", 0, 1), ("data", 1, 5)]),  # the adapter: a comment to the end
        ("</a", [("data", 0, 1), ("data", 1, 3)]),
        ("<?x", [("data", 0, 1), ("data", 1, 3)]),
        ("<!DOCTYPE", [("data", 0, 1), ("data", 1, 9)]),
    ],
)
def test_unfinished_constructs_are_text(content: str, expected: list[Event]) -> None:
    assert tokens(content) == expected


# -- hostile input: each repeated unfinished construct cost html.parser a scan to the end
# of the input (quadratic: "<a " * 40_000, 120 KB, took minutes). The tokenizer remembers
# where such scans end; the small versions check it still reads what html.parser reads.

_REPEATED = {
    "unfinished start tags": "<a ",
    "unfinished attributes": "<a b='x ",
    "unclosed comments": "<!--",
    "unfinished end tags": "</a",
    "unfinished declarations": "<!x",
    "unfinished processing instructions": "<?",
}


@differential
@pytest.mark.parametrize("piece", _REPEATED.values(), ids=_REPEATED.keys())
def test_repeated_unfinished_constructs_read_as_html_parser_does(piece: str) -> None:
    content = "<p>x" + piece * 300 + "<p>y</p>"
    assert tokens(content) == reference(content)


class _Counting:
    """A compiled pattern that counts the scans made with it."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0

    def match(self, content: str, position: int) -> re.Match[str] | None:
        self.calls += 1
        return self.pattern.match(content, position)

    def search(self, content: str, position: int) -> re.Match[str] | None:
        self.calls += 1
        return self.pattern.search(content, position)


COUNT = 2_000


@pytest.mark.parametrize(
    ("piece", "pattern", "most"),
    [
        # Each attribute ("<a" …) matched once, not once per tag that runs over it.
        ("<a ", "_START_TAG_ATTRIBUTE", 2 * COUNT + 2),
        # The first search for "-->" fails: the others are known to fail.
        ("<!--", "_COMMENT_CLOSE", 1),
    ],
)
def test_repeated_unfinished_constructs_are_not_rescanned(
    piece: str, pattern: str, most: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = _Counting(getattr(_html_tokens, pattern))
    monkeypatch.setattr(_html_tokens, pattern, counting)
    content = "<nav>" + piece * COUNT  # in excluded chrome: the comments do not end it
    assert tokens(content)[-1][2] == len(content)
    assert counting.calls <= most  # html.parser: COUNT * COUNT / 2 attributes, COUNT scans


@pytest.mark.parametrize("piece", _REPEATED.values(), ids=_REPEATED.keys())
def test_a_large_page_of_unfinished_constructs_normalizes(piece: str) -> None:
    content = "<main><p>x</main><nav>" + piece * 20_000
    tree = HtmlNormalizer().normalize(Document("d", "s", content))
    assert tree.nodes[-1].text == "x"
