"""HtmlNormalizer: bold paragraphs title the sections of pages without heading elements.

sqlite.org's FAQ sets each question as ``<p><b>(7) How do I list …</b></p>`` over its
answer in a block quote, under the page's only ``<h1>``; groff's HTML for an mdoc man page
(``groff -mdoc -Thtml``) sets NAME, SYNOPSIS and DESCRIPTION as ``<p><b>…</b></p>`` and
has no heading element at all. Read as paragraphs, every chunk of such a page had one
heading path and an answer cut from its question lost what it answers
(``_html_emphasis``).
"""

from __future__ import annotations

import pytest

from tests.unit.normalization._html_helpers import normalize, outline

FAQ = (
    "<html><head><title>SQLite FAQ</title></head><body>"
    "<h1>Frequently Asked Questions</h1>"
    "<ol><li>How do I create an AUTOINCREMENT field?</li></ol>"
    '<a name="q1"></a><p><b>(1) How do I create an AUTOINCREMENT field?</b></p>'
    "<blockquote><p>Short answer: a column declared <b>INTEGER PRIMARY KEY</b> will "
    "autoincrement.</p></blockquote>"
    '<a name="q5"></a><p><b>(5) Can multiple applications or multiple instances of the '
    "same application access a single database file at the same time?</b></p>"
    "<blockquote><p>Multiple processes can have the same database open.</p></blockquote>"
    "<p><strong>(7) How do I list all <a href='#t'>tables</a></strong></p>"
    "<blockquote><p>Type <b>.tables</b> in the shell.</p></blockquote>"
    "</body></html>"
)


def test_bold_questions_under_the_pages_only_heading_title_their_answers() -> None:
    tree = normalize(FAQ)
    title = "Frequently Asked Questions"
    assert outline(tree) == [
        (1, title, ""),
        (2, "(1) How do I create an AUTOINCREMENT field?", title),
        (
            2,
            "(5) Can multiple applications or multiple instances of the same application "
            "access a single database file at the same time?",
            title,
        ),
        (2, "(7) How do I list all tables", title),
    ]
    answer = next(node for node in tree.nodes if node.text.startswith("Multiple processes"))
    section = tree.node(tree.node(answer.parent_id or "").parent_id or "")
    assert section.text.startswith("(5) Can multiple applications")
    tree.validate()


MDOC = (
    "<html><body>"
    '<p style="margin-top: 1em"><b>NAME</b></p>'
    '<p style="margin-left:6%;"><b>ssh</b> &mdash; OpenSSH remote login client</p>'
    '<p style="margin-top: 1em"><b>DESCRIPTION</b></p>'
    '<p style="margin-left:6%;"><b>ssh</b> (SSH client) is a program for logging into a '
    "remote machine.</p>"
    '<p style="margin-left:6%;">The options are as follows:</p>'
    '<p style="margin-left:6%; margin-top: 1em"><b>-4</b></p>'
    '<p style="margin-left:17%;">Forces ssh to use IPv4 addresses only.</p>'
    '<p style="margin-left:6%; margin-top: 1em"><b>--verbose</b></p>'
    '<p style="margin-left:17%;">Verbose mode.</p>'
    '<p style="margin-top: 1em"><b>AUTHENTICATION</b></p>'
    '<p style="margin-left:6%;">The OpenSSH SSH client supports SSH protocol 2.</p>'
    "</body></html>"
)


def test_a_page_without_heading_elements_gets_its_bold_titles_as_top_sections() -> None:
    # "-4" and "--verbose" (options) start with no letter, digit or bracket: terms.
    assert outline(normalize(MDOC)) == [
        (1, "NAME", ""),
        (1, "DESCRIPTION", ""),
        (1, "AUTHENTICATION", ""),
    ]


@pytest.mark.parametrize(
    "body",
    [
        # A second heading element: the page has real headings; bold is emphasis.
        "<h1>Guide</h1><p><b>Install</b></p><p>Run pip.</p><h2>Usage</h2><p>Import it.</p>",
        # A bold sentence, a lead-in, a caption.
        "<p><b>Back up your data first.</b></p><p>Text.</p><p>More text.</p>",
        "<p><b>Requirements:</b></p><p>Python 3.11.</p><p>More text.</p>",
        "<p><b>Table 9.54. Range Operators</b></p><table><tr><td>a</td></tr></table><p>Text.</p>",
        # Bold lines one after another: an address block, not titles.
        "<p><b>ACME Corporation</b></p><p><b>12 Main Street</b></p><p>Dear customer,</p>"
        "<p>Text.</p>",
        # Part of the text is not bold.
        "<p><b>Install</b> the package</p><p>Text.</p><p>More text.</p>",
        # Mostly bold: emphasis, not structure.
        "<p><b>Alpha</b></p><p>a</p><p><b>Beta</b></p>",
    ],
)
def test_bold_paragraphs_that_are_not_titles_stay_paragraphs(body: str) -> None:
    tree = normalize(f"<html><body>{body}</body></html>")
    titles = [text for _level, text, _parent in outline(tree)]
    assert titles in ([], ["Guide", "Usage"])


def test_a_bold_title_shows_no_break_spaces_as_spaces() -> None:
    tree = normalize(
        "<html><body><p><b>&nbsp;EXIT&nbsp;STATUS</b></p><p>Zero on success.</p>"
        "<p>More text.</p></body></html>"
    )
    assert outline(tree) == [(1, "EXIT STATUS", "")]
