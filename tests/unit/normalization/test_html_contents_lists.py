"""HtmlNormalizer: a list of in-page links that opens the page or a section is its table of
contents, and leaves the tree as chrome (``TreeBuilder.contents_list``).

sqlite.org's FAQ opens with the list of its questions, each ``<a href="#q1">``; pod2html
and groff's mom pages open with their sections'. Kept, the list is a chunk that matches
every query naming a question and answers none. The same list after a section's text is
content: javadoc's ``isSpaceChar`` lists the constants a space is one of.
"""

from __future__ import annotations

import pytest

from tests.unit.normalization._html_helpers import excluded, normalize, texts

CONTENTS = (
    '<ol><li><a href="#q1">How do I create an AUTOINCREMENT field?</a></li>'
    '<li><a href="#q2">What datatypes does SQLite support?</a></li>'
    '<li><a href="#q3">Is SQLite threadsafe?</a>'
    '<ul><li><a href="#q3a">Threads</a></li><li><a href="#q3b">Processes</a></li></ul></li>'
    "</ol>"
)


def page(body: str) -> str:
    return f"<html><head><title>FAQ</title></head><body>{body}</body></html>"


def test_a_list_of_in_page_links_opening_a_section_is_left_out() -> None:
    tree = normalize(
        page(
            f"<h1>Frequently Asked Questions</h1>{CONTENTS}<h2 id='q1'>AUTOINCREMENT</h2>"
            "<p>Declare the column INTEGER PRIMARY KEY.</p>"
        )
    )
    assert texts(tree) == [
        "Frequently Asked Questions",
        "AUTOINCREMENT",
        "Declare the column INTEGER PRIMARY KEY.",
    ]
    assert "How do I create an AUTOINCREMENT field?" in " ".join(excluded(tree, "boilerplate"))
    tree.validate()


def test_a_list_of_in_page_links_opening_the_page_is_left_out() -> None:
    # (A page without heading elements is headed by its <title>.)
    tree = normalize(page(f"{CONTENTS}<p>The answers follow.</p>"))
    assert texts(tree) == ["FAQ", "The answers follow."]


@pytest.mark.parametrize(
    "body",
    [
        # After the section's text: content (javadoc's isSpaceChar).
        "<h1>isSpaceChar</h1><p>A space is one of:</p><ul>"
        '<li><a href="#SPACE">SPACE_SEPARATOR</a></li>'
        '<li><a href="#LINE">LINE_SEPARATOR</a></li>'
        '<li><a href="#PARA">PARAGRAPH_SEPARATOR</a></li></ul>',
        # Inside a definition: a member's "See Also".
        '<dl><dt>See Also:</dt><dd><ul><li><a href="#a">a()</a></li>'
        '<li><a href="#b">b()</a></li><li><a href="#c">c()</a></li></ul></dd></dl>',
        # Two items only; an item with words beside its link; links to other pages.
        '<ul><li><a href="#a">Alpha</a></li><li><a href="#b">Beta</a></li></ul>',
        '<ul><li><a href="#a">Alpha</a> the first</li><li><a href="#b">Beta</a></li>'
        '<li><a href="#c">Gamma</a></li></ul>',
        '<ul><li><a href="a.html">Alpha</a></li><li><a href="b.html">Beta</a></li>'
        '<li><a href="c.html">Gamma</a></li></ul>',
    ],
)
def test_other_lists_of_links_stay(body: str) -> None:
    # Text after the list: a page that is nothing but navigation keeps it anyway.
    tree = normalize(page(body + "<p>The answers follow.</p>"))
    assert not [text for text in excluded(tree, "boilerplate") if "<" not in text]
    assert any(node.kind == "list" for node in tree.nodes)
