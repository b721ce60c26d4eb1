"""HtmlNormalizer: a page's first heading that repeats its ``<title>`` titles the page.

DocBook's reference pages and gtk-doc's set every heading in ``<h2>``, the page's title
too (cockpit's guide, a page per API: "cockpit.js: Raw Channels", then "Synopsis" and
one ``<h2>`` per function). Read by rank alone, every section was top-level, so none
merged with its neighbours: a chunk per two-line function description.
"""

from __future__ import annotations

import pytest

from tests.unit.normalization._html_helpers import normalize, outline


def _page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


REFERENCE = (
    '<div class="refentry"><div class="refnamediv"><table><tr><td>'
    "<h2>cockpit.js: Raw Channels</h2><p>Raw communication channels</p></td></tr></table>"
    '</div><div class="refsynopsisdiv"><h2>Synopsis</h2><p>Rarely used directly.</p></div>'
    '<div class="refsection"><h2>channel.binary</h2><p>True for a binary channel.</p>'
    "<h3>Example</h3><p>See below.</p></div></div>"
)


def test_a_first_heading_repeating_the_title_outranks_its_peers() -> None:
    tree = normalize(_page("cockpit.js: Raw Channels", REFERENCE))
    assert outline(tree) == [
        (1, "cockpit.js: Raw Channels", ""),
        (2, "Synopsis", "cockpit.js: Raw Channels"),
        (2, "channel.binary", "cockpit.js: Raw Channels"),
        (3, "Example", "channel.binary"),
    ]


@pytest.mark.parametrize(
    "title",
    [
        "cockpit.js: Raw Channels | Cockpit Guide",  # the site's name after it
        "Cockpit Guide — cockpit.js: Raw Channels",  # or before it
        "cockpit.js: Raw Channels: raw communication channels",  # a description after it
        "  cockpit.js:\n Raw   Channels ",  # whitespace is not compared
    ],
)
def test_the_title_may_name_the_site_or_describe_the_page_too(title: str) -> None:
    tree = normalize(_page(title, REFERENCE))
    assert outline(tree)[1] == (2, "Synopsis", "cockpit.js: Raw Channels")


@pytest.mark.parametrize(
    "title",
    [
        "Function Flags",  # sqlite.org's pages: the first <h2> is the section of the site
        "cockpit.js: Raw Channelsets",  # a longer word, not the heading
        "",
    ],
)
def test_other_first_headings_keep_their_rank(title: str) -> None:
    # (Not in a DocBook reference page, whose <title> would head it: see the man page.)
    tree = normalize(_page(title, REFERENCE.replace('"refentry"', '"article"')))
    assert [row[:2] for row in outline(tree)[:3]] == [
        (2, "cockpit.js: Raw Channels"),
        (2, "Synopsis"),
        (2, "channel.binary"),
    ]
    assert outline(tree)[1][2] == ""  # a section of its own


def test_only_the_first_heading_and_a_later_h1_still_closes_it() -> None:
    tree = normalize(
        _page(
            "Guide",
            "<h2>Intro</h2><p>a</p><h2>Guide</h2><p>b</p>"  # not the first: keeps its rank
            "<h1>Appendix</h1><p>c</p>",
        )
    )
    assert outline(tree) == [(2, "Intro", ""), (2, "Guide", ""), (1, "Appendix", "")]
    tree = normalize(_page("Guide", "<h2>Guide</h2><p>a</p><h1>Appendix</h1><p>c</p>"))
    assert outline(tree) == [(1, "Guide", ""), (1, "Appendix", "")]


MAN_PAGE = (
    '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" />'
    "<title>aptitude-create-state-bundle</title></head><body>"
    '<div class="refentry"><div class="titlepage"></div><div class="refnamediv">'
    "<h2>Name</h2><p>aptitude-create-state-bundle &#8212; bundle the current aptitude "
    'state</p></div><div class="refsynopsisdiv"><h2>Synopsis</h2><div class="cmdsynopsis">'
    "<p>aptitude-create-state-bundle [options...] output-file</p></div></div>"
    '<div class="refsect1"><h2>Options</h2><p>--force-bzip2</p></div></div></body></html>'
)


def test_a_man_pages_title_heads_its_sections() -> None:
    """DocBook's reference pages (man pages) head no section with the command's name:
    "Name", "Synopsis", "Options" are all <h2>. The <title> heads them."""
    tree = normalize(MAN_PAGE)
    assert outline(tree) == [
        (1, "aptitude-create-state-bundle", ""),
        (2, "Name", "aptitude-create-state-bundle"),
        (2, "Synopsis", "aptitude-create-state-bundle"),
        (2, "Options", "aptitude-create-state-bundle"),
    ]
    assert tree.metadata["title"] == "aptitude-create-state-bundle"
    # The same headings outside a reference page keep their rank, and the title its role.
    plain = normalize(MAN_PAGE.replace('class="refentry"', 'class="article"'))
    assert [row[:2] for row in outline(plain)] == [(2, "Name"), (2, "Synopsis"), (2, "Options")]
