"""Hypothesis strategies for realistic but nasty HTML sources.

Documents are built from what an HTML reader can trip over: headings at every level, some
inside containers; paragraphs whose ``<p>`` end tags are omitted; nested and unclosed
lists; definition lists; tables with and without ``thead``/``tr``, header cells, nested
tables and captions; ``pre`` blocks holding escaped markup and heading-like lines;
scripts, styles, templates and comments that contain tags; page chrome (``nav``,
``aside``, ``header``/``footer``, ``hidden``); misnested inline tags, stray end tags,
unquoted attributes, character references (valid, unknown and invalid), images with alt
text, ``<br>``; joined by whitespace with ``\\n``, ``\\r\\n`` or ``\\r`` line ends,
non-ASCII text, NUL bytes and lone surrogates.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["CODE_HEADING_LIKE", "blocks", "documents", "inline_html"]

# Text that must never become a heading: it is code, script or a comment.
CODE_HEADING_LIKE = (
    "&lt;h1&gt;Not a heading&lt;/h1&gt;",
    "# not a heading",
    "<h2>inside pre</h2>",
    "Title\n=====",
)

_WORDS = st.sampled_from(
    [
        "pear",
        "water",
        "Ünïcødé",
        "日本語",
        "emoji🍐",
        "a &amp; b",
        "&lt;tag&gt;",
        "&#x41;&#66;",
        "&nbsp;",
        "&bogus;",
        "&#xD800;",
        "&#0;",
        "AT&T",
        "5 < 6",
        "x\x00y",
        "\ud800",
        "tab\there",
        "two  spaces",
        "line\nbreak",
        "crlf\r\nbreak",
        "cr\rbreak",
        "<b>bold</b>",
        "<i>it<b>both</i>bold</b>",
        "<a href=/x>link</a>",
        "<a href='http://e.com/?a=1&amp;b=2'>query</a>",
        "<a class=headerlink href=#h>¶</a>",
        "<code>code()</code>",
        "<span hidden>hidden</span>",
        '<img src=p.png alt="a pear">',
        "<img alt=bare src=x>",
        "<br>",
        "<br/>",
        "</span>",
        "<!-- note -->",
        "<em>unclosed",
    ]
)

_SPACE = st.sampled_from([" ", "\n", "\r\n", "\r", "\t", "  \n  ", ""])


def inline_html(max_words: int = 6) -> st.SearchStrategy[str]:
    """A run of inline HTML: words, inline elements and references."""
    return st.lists(st.tuples(_WORDS, _SPACE), min_size=1, max_size=max_words).map(
        lambda pairs: "".join(word + space for word, space in pairs)
    )


def _heading() -> st.SearchStrategy[str]:
    return st.tuples(st.integers(1, 6), inline_html(3)).map(
        lambda pair: f"<h{pair[0]}>{pair[1]}</h{pair[0]}>"
    )


def _paragraph() -> st.SearchStrategy[str]:
    return st.tuples(inline_html(), st.booleans()).map(
        lambda pair: f"<p>{pair[0]}" + ("</p>" if pair[1] else "")
    )


def _code() -> st.SearchStrategy[str]:
    lines = st.lists(
        st.sampled_from([*CODE_HEADING_LIKE, "def f():", "    return 1 &lt; 2", "", "x = 'y'"]),
        min_size=1,
        max_size=4,
    )
    return st.tuples(
        lines, st.sampled_from(["", ' class="language-python"', " class=lang-sh"])
    ).map(lambda pair: f"<pre{pair[1]}>\n" + "\n".join(pair[0]) + "\n</pre>")


def _raw() -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            '<script>var s = "<h1>no</h1>";</script>',
            "<style>h1 { color: red }</style>",
            "<template><h2>never</h2><p>shown</p></template>",
            "<noscript><p>enable js</p></noscript>",
            "<!-- <h1>commented</h1> -->",
            "<!DOCTYPE html>",
            "<?xml version='1.0'?>",
            "<![CDATA[ raw ]]>",
            "<hr>",
            "</div>",
            "</p>",
        ]
    )


def _table() -> st.SearchStrategy[str]:
    cell = st.tuples(st.sampled_from(["td", "th"]), inline_html(2), st.booleans()).map(
        lambda t: f"<{t[0]}>{t[1]}" + (f"</{t[0]}>" if t[2] else "")
    )
    row = st.lists(cell, min_size=0, max_size=4).map(lambda cells: "<tr>" + "".join(cells))
    parts = st.tuples(
        st.booleans(),
        st.lists(row, min_size=0, max_size=4),
        st.sampled_from(["", "<caption>Cap</caption>", "<td>stray cell</td>"]),
        st.sampled_from(["", "<tr><td><table><tr><td>nested</table>"]),
    )
    return parts.map(
        lambda p: (
            "<table>"
            + p[2]
            + ("<thead><tr><th>H1<th>H2</thead>" if p[0] else "")
            + "".join(p[1])
            + p[3]
            + "</table>"
        )
    )


def blocks(depth: int = 2) -> st.SearchStrategy[str]:
    """One block-level piece of HTML, containers nested up to ``depth`` levels."""
    leaf = st.one_of(_heading(), _paragraph(), _code(), _raw(), _table(), inline_html())
    if depth <= 0:
        return leaf
    inner = st.lists(blocks(depth - 1), min_size=1, max_size=3).map("\n".join)
    item = st.tuples(inner, st.booleans()).map(lambda p: "<li>" + p[0] + ("</li>" if p[1] else ""))
    containers = st.one_of(
        st.tuples(
            st.sampled_from(["ul", "ol", "ol start=3 type=a"]), st.lists(item, max_size=3)
        ).map(lambda p: f"<{p[0]}>" + "".join(p[1]) + f"</{p[0].split()[0]}>"),
        inner.map(lambda body: f"<blockquote>{body}</blockquote>"),
        st.tuples(inline_html(2), inner).map(lambda p: f"<dl><dt>{p[0]}<dd>{p[1]}</dl>"),
        st.tuples(
            st.sampled_from(
                [
                    *("div", "section", "article", "main", "nav", "aside", "header", "footer"),
                    *('div role="navigation"', "div hidden", 'div aria-hidden="true"', "figure"),
                ]
            ),
            inner,
        ).map(lambda p: f"<{p[0]}>{p[1]}</{p[0].split()[0]}>"),
    )
    return st.one_of(leaf, containers)


def documents() -> st.SearchStrategy[str]:
    """A whole HTML source: optional head and body around a few blocks, or a fragment."""
    body = st.lists(st.tuples(blocks(), _SPACE), max_size=5).map(
        lambda pairs: "".join(block + space for block, space in pairs)
    )
    head = st.sampled_from(
        ["", "<!DOCTYPE html>\n<html><head><title>T &amp; t</title></head><body>\n", "<title>x"]
    )
    tail = st.sampled_from(["", "</body></html>\n", "</html>"])
    return st.tuples(head, body, tail).map("".join)
