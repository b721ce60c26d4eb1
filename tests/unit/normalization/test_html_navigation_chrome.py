"""HtmlNormalizer: navigation chrome of generated manuals, chrome headings, UI controls.

Fixtures copy the markup of real generators (Texinfo 6/7 ``makeinfo --html``, DocBook XSL,
gtk-doc, mdBook, rustdoc), cut down to the parts each rule reads.
"""

from __future__ import annotations

import pytest

from fastrag.normalization import NormalizedDocument
from tests.unit.normalization._html_helpers import excluded, normalize, texts


def sections(tree: NormalizedDocument) -> list[str]:
    return [n.text for n in tree.nodes if n.kind == "section"]


# -- pages without a main region: generator navigation ------------------------------------

TEXINFO_6 = (
    "<html><head><title>Types (libffi)</title>"
    '<link href="Index.html" rel="index" title="Index"></head><body lang="en">\n'
    '<div class="section" id="Types">\n<div class="header">\n<p>\n'
    'Next: <a href="Multiple-ABIs.html" accesskey="n" rel="next">Multiple ABIs</a>, '
    'Previous: <a href="Simple-Example.html" accesskey="p" rel="prev">Simple Example</a>, '
    'Up: <a href="Using-libffi.html" accesskey="u" rel="up">Using libffi</a> &nbsp; '
    '[<a href="Index.html" title="Index" rel="index">Index</a>]</p>\n</div>\n<hr>\n'
    '<h3 class="section">2.3 Types</h3>\n<p>Read <a href="Structures.html">Structures</a> '
    "first.</p>\n"
    '<ul class="section-toc">\n<li><a href="Primitive-Types.html">Primitive Types</a></li>\n'
    "</ul>\n"
    '<table class="menu" border="0" cellspacing="0"><tr><td>&bull; '
    '<a href="Structures.html">Structures</a>:</td><td>&nbsp;</td></tr></table>\n'
    '<div class="Contents_element" id="SEC_Contents">\n'
    '<h2 class="contents-heading">Table of Contents</h2>\n<div class="contents">\n'
    '<ul class="no-bullet"><li><a href="#Types">2.3 Types</a></li></ul>\n</div>\n</div>\n'
    "</div></body></html>"
)


def test_texinfo_navigation_line_menus_and_contents_are_boilerplate() -> None:
    tree = normalize(TEXINFO_6)
    assert texts(tree) == ["2.3 Types", "Read Structures first."]
    assert sections(tree) == ["2.3 Types"]
    chrome = excluded(tree, "boilerplate")
    assert chrome[0].strip().startswith("Next: <a href=") and chrome[0].endswith("Index</a>]")
    assert [c.split(">", 1)[0] for c in chrome[1:]] == [
        '<ul class="section-toc"',
        '<table class="menu" border="0" cellspacing="0"',
        '<div class="Contents_element" id="SEC_Contents"',
    ]
    assert not tree.diagnostics


# bashref.html (Texinfo 6.8): an appendix of generated indexes, each a "Jump to" letter
# bar around a table of terms and the nodes they appear in.
_JUMP = (
    '<table><tr><th valign="top">Jump to: &nbsp; </th><td>'
    '<a class="summary-letter" href="#Builtin-Index_bt_letter-A"><b>A</b></a> &nbsp; '
    '<a class="summary-letter" href="#Builtin-Index_bt_letter-W"><b>W</b></a></td></tr></table>'
)
TEXINFO_INDEX = (
    '<html><body><div class="chapter"><h2 class="chapter">1 Builtins</h2>'
    "<p>The <code>alias</code> builtin defines aliases.</p></div>\n"
    '<div class="appendix"><h2 class="appendix">Appendix D Indexes</h2>\n'
    '<table class="menu" border="0" cellspacing="0"><tr><td>&bull; '
    '<a href="#Builtin-Index">Builtin Index</a>:</td></tr></table>\n'
    '<div class="appendixsec"><h3 class="appendixsec">D.1 Index of Shell Builtin Commands</h3>'
    f"{_JUMP}"
    '<table class="index-bt" border="0"><tr><td></td><th>Index Entry</th><th>Section</th></tr>'
    '<tr><th id="Builtin-Index_bt_letter-A">A</th><td></td><td></td></tr>'
    '<tr><td></td><td><a href="#index-alias"><code>alias</code></a>:</td>'
    '<td><a href="#Bash-Builtins">Bash Builtins</a></td></tr></table>'
    f"{_JUMP}</div>\n"
    '<div class="appendixsec"><h3>D.2 Concept Index</h3>'
    '<table class="cp-entries-printindex"><tr><td><a href="#index-x">x</a></td></tr></table>'
    "</div></div></body></html>"
)


def test_texinfo_indexes_and_their_letter_bars_are_boilerplate() -> None:
    tree = normalize(TEXINFO_INDEX)
    assert texts(tree) == ["1 Builtins", "The alias builtin defines aliases."]
    assert sections(tree) == ["1 Builtins"]
    chrome = excluded(tree, "boilerplate")
    assert any(c.startswith('<table class="index-bt"') for c in chrome)
    assert any(c.startswith('<table class="cp-entries-printindex"') for c in chrome)
    assert sum("Jump to:" in c for c in chrome) == 2


@pytest.mark.parametrize(
    "trail",
    [
        '<div class="rustdoc-breadcrumbs"><a href="../index.html">std</a>::<wbr>'
        '<a href="index.html">vec</a></div>',
        '<nav aria-label="breadcrumb"><ol class="breadcrumb"><li><a href="/">Docs</a></li>'
        "<li>Guide</li></ol></nav>",
        '<div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs">'
        '<li><a href="index.html">Docs</a> &raquo;</li><li>Guide</li></ul></div>',
    ],
)
def test_breadcrumb_trails_are_boilerplate_inside_main_too(trail: str) -> None:
    tree = normalize(
        f"<html><body><main>{trail}<h1>Struct Vec</h1><p>A vector.</p></main></body></html>"
    )
    assert texts(tree) == ["Struct Vec", "A vector."]
    assert excluded(tree, "boilerplate")


def test_sphinx_indices_and_tables_section_is_boilerplate() -> None:
    source = (
        '<html><body><div role="main"><section id="guide"><h1>Guide</h1><p>Intro.</p>'
        '<section id="indices-and-tables"><h2>Indices and tables</h2><ul class="simple">'
        '<li><p><a class="reference internal" href="genindex.html">Index</a></p></li>'
        '<li><p><a class="reference internal" href="search.html">Search Page</a></p></li>'
        "</ul></section></section></div></body></html>"
    )
    tree = normalize(source)
    assert texts(tree) == ["Guide", "Intro."]
    assert excluded(tree, "boilerplate")[0].startswith('<section id="indices-and-tables">')


@pytest.mark.parametrize(
    "toc",
    [
        # npm's documentation (docs/output/commands/npm-ci.html), cut down
        '<section id="table_of_contents"><h2 id="table-of-contents">Table of contents</h2>'
        '<div id="_table_of_contents"><ul><li><a href="#synopsis">Synopsis</a></li>'
        '<li><a href="#description">Description</a></li></ul></div></section>',
        '<nav id="TableOfContents"><ul><li><a href="#synopsis">Synopsis</a></li></ul></nav>',
        '<ul id="markdown-toc"><li><a href="#synopsis">Synopsis</a></li></ul>',
        '<div class="col table-of-contents"><ul><li><a href="#synopsis">Synopsis</a></li>'
        "</ul></div>",
    ],
)
def test_tables_of_contents_by_id_or_class_are_boilerplate_with_their_heading(toc: str) -> None:
    # npm's "Table of contents" (an h2) became the parent of every h3 section after it.
    source = (
        f"<html><body><section><h1>npm-ci</h1>{toc}<div><h3 id='synopsis'>Synopsis</h3>"
        "<p>npm ci</p><h3 id='description'>Description</h3><p>Installs.</p></div>"
        "</section></body></html>"
    )
    tree = normalize(source)
    assert texts(tree) == ["npm-ci", "Synopsis", "npm ci", "Description", "Installs."]
    assert sections(tree) == ["npm-ci", "Synopsis", "Description"]
    assert excluded(tree, "boilerplate") == [toc]


@pytest.mark.parametrize(
    "contents",
    [
        '<nav class="contents" id="contents"><p class="topic-title">Contents</p><ul>'
        '<li><a class="reference internal" href="#what">What is Python?</a></li></ul></nav>',
        '<div class="contents topic" id="contents"><p class="topic-title">Contents</p><ul>'
        '<li><a class="reference internal" href="#what">What is Python?</a></li></ul></div>',
    ],
)
def test_docutils_contents_is_boilerplate_inside_main_a_contents_wrapper_stays(
    contents: str,
) -> None:
    source = (
        '<html><body><div role="main"><section id="faq"><h1>General FAQ</h1>'
        f'{contents}<section id="what"><h2>What is Python?</h2><p>A language.</p>'
        '</section><div class="contents"><p>Wrapped text.</p></div></section></div>'
        "</body></html>"
    )
    tree = normalize(source)
    assert texts(tree) == ["General FAQ", "What is Python?", "A language.", "Wrapped text."]
    assert excluded(tree, "boilerplate") == [contents]


_RUSTDOC_ITEM = (
    '<main><div class="main-heading"><h1>Struct Vec</h1><span class="sub-heading">'
    '<span class="since">1.0.0</span> · <a class="src" href="../vec/mod.rs.html#438">'
    "Source</a> </span></div>"
    '<details class="toggle top-doc" open><summary class="hideme"><span>Expand description'
    "</span></summary><p>A contiguous growable array type.</p></details>"
    '<details class="toggle method-toggle" open><summary><section id="method.new">'
    '<span class="rightside"><span class="since">1.0.0</span> · '
    '<a class="src" href="../../src/alloc/vec/mod.rs.html#463">Source</a></span>'
    '<h4 class="code-header">pub const fn new() -&gt; Vec&lt;T&gt;</h4></section></summary>'
    "<p>Constructs a new, empty Vec.</p></details>"
    '<details class="toggle implementors-toggle" open><summary><section id="impl-Any">'
    '<a class="src rightside" href="../../src/core/any.rs.html#138">Source</a>'
    '<h3 class="code-header">impl&lt;T&gt; Any for T</h3></section></summary></details></main>'
)


@pytest.mark.parametrize("rustdoc", [True, False])
def test_rustdoc_interface_text_is_a_ui_control(rustdoc: bool) -> None:
    head = '<head><meta name="generator" content="rustdoc"></head>' if rustdoc else ""
    tree = normalize(f"<html>{head}<body>{_RUSTDOC_ITEM}</body></html>")
    shown = texts(tree)
    assert "A contiguous growable array type." in shown
    assert "pub const fn new() -> Vec<T>" in shown
    if rustdoc:
        assert not any("Source" in text or "Expand description" in text for text in shown)
        assert len(excluded(tree, "ui_control")) == 4
    else:  # the classes alone are not rustdoc's
        assert any("Source" in text for text in shown)


@pytest.mark.parametrize("generator", ["makeinfo", "texi2any", "Doxygen 1.9.1"])
def test_div_contents_is_a_table_of_contents_on_texinfo_pages_only(generator: str) -> None:
    # Doxygen wraps each page's whole content in div.contents: jsoncpp's 340 kB source
    # listing came out as its header and footer. Texinfo 6 puts a bare table of contents
    # in one, right after its "Table of Contents" heading.
    source = (
        f'<html><head><meta name="Generator" content="{generator}"></head><body>'
        "<h1>Manual</h1><p>Intro.</p>"
        '<div class="contents"><ul class="no-bullet"><li><a href="#A">1 A</a></li></ul>'
        "<p>Json::Value represents a JSON value.</p></div></body></html>"
    )
    tree = normalize(source)
    if generator.startswith("Doxygen"):
        assert texts(tree) == ["Manual", "Intro.", "- 1 A", "Json::Value represents a JSON value."]
        assert not excluded(tree, "boilerplate")
    else:
        assert texts(tree) == ["Manual", "Intro."]
        assert excluded(tree, "boilerplate")[0].startswith('<div class="contents">')


def test_texinfo_7_nav_panel_and_mini_toc() -> None:
    source = (
        '<div class="chapter-level-extent" id="Intro"><div class="nav-panel"><p>'
        'Next: <a href="#A" accesskey="n" rel="next">A</a></p></div>'
        '<h2 class="chapter">1 Intro</h2><p>Text.</p>'
        '<ul class="mini-toc"><li><a href="#A" accesskey="1">A</a></li></ul></div>'
        '<div class="element-contents" id="SEC_Contents"><h2 class="contents-heading">'
        'Table of Contents</h2><div class="contents"><ul><li>1 Intro</li></ul></div></div>'
    )
    tree = normalize(source)
    assert texts(tree) == ["1 Intro", "Text."]
    assert len(excluded(tree, "boilerplate")) == 3


DOCBOOK = (
    '<div class="navheader"><table class="nav" width="100%" summary="Navigation header">'
    '<tr><td><a accesskey="p" href="QuickStart.html">Prev</a></td>'
    '<td><a accesskey="u" href="manual.html">Up</a></td></tr></table></div>'
    '<div class="chapter"><div class="titlepage"><h1 class="title">'
    '<a name="core"></a>2.\xa0Using the core</h1></div>'
    '<div class="toc"><p><b>Table of Contents</b></p><dl class="toc"><dt>'
    '<span class="sect1"><a href="#w">2.1. What Valgrind does</a></span></dt></dl></div>'
    "<p>Valgrind is non-intrusive.</p></div>"
    '<div><br><table class="nav" summary="Navigation footer"><tr><td>'
    '<a accesskey="n" href="next.html">Next</a></td></tr></table></div>'
)


def test_docbook_navigation_tables_and_toc_are_boilerplate() -> None:
    tree = normalize(DOCBOOK)
    # The no-break space DocBook puts after section numbers shows as a space in titles.
    assert texts(tree) == ["2. Using the core", "Valgrind is non-intrusive."]
    assert sections(tree) == ["2. Using the core"]
    assert [c.split(">", 1)[0] for c in excluded(tree, "boilerplate")] == [
        '<div class="navheader"',
        '<div class="toc"',
        '<table class="nav" summary="Navigation footer"',
    ]


def test_gtk_doc_navigation_table_inside_a_layout_cell_is_boilerplate() -> None:
    # libxslt's pages lay out the page with a table; the navigation table sits in a cell.
    source = (
        '<table><tr><td><table class="navigation" summary="Navigation header"><tr>'
        '<td><a accesskey="p" href="a.html"><img src="left.png" alt="Prev"></a></td>'
        "<th>libxslt Reference Manual</th></tr></table>"
        "<p>This set of routines encapsulates XPath calls.</p></td></tr></table>"
    )
    tree = normalize(source)
    assert texts(tree) == ["This set of routines encapsulates XPath calls."]
    assert [n.kind for n in tree.nodes] == ["document", "paragraph"]


def test_texinfo_footer_repeating_the_navigation_line_is_boilerplate() -> None:
    # At the foot of the page Texinfo repeats the line with plain links; only [Index]
    # keeps its rel. The same text as a navigation line already excluded is chrome.
    line = 'Next: <a href="s.html"{}>Structures</a>, Up: <a href="t.html"{}>Types</a>'
    source = (
        f'<div class="header"><p>{line.format(" rel=next", " rel=up")} &nbsp; '
        '[<a href="i.html" rel="index">Index</a>]</p></div><h4>2.3.1 Primitive Types</h4>'
        f'<p>Body.</p><div class="header"><p>{line.format("", "")} &nbsp; '
        '[<a href="i.html" rel="index">Index</a>]</p></div>'
        f"<p>{line.format('', '')}</p>"  # not the same text: kept
    )
    tree = normalize(source)
    assert texts(tree) == ["2.3.1 Primitive Types", "Body.", "Next: Structures, Up: Types"]
    assert len(excluded(tree, "boilerplate")) == 2


def test_a_title_whose_only_body_was_navigation_goes_with_it() -> None:
    # bashref.html: the @settitle heading, then the Top node's navigation line.
    source = (
        '<h1 class="settitle">Bash Reference Manual</h1><div class="top" id="Top">'
        '<div class="header"><p>Next: <a href="#I" accesskey="n" rel="next">Introduction'
        '</a></p></div><h1 class="top">Bash Features</h1><p>This text.</p></div>'
    )
    tree = normalize(source)
    assert texts(tree) == ["Bash Features", "This text."]
    assert sections(tree) == ["Bash Features"]
    assert excluded(tree, "boilerplate")[0] == "Bash Reference Manual"
    # Without navigation in it, an empty section is the document's own structure.
    tree = normalize("<h1>Part I</h1><h1>Chapter 1</h1><p>x</p>")
    assert sections(tree) == ["Part I", "Chapter 1"]


def test_generator_classes_match_whatever_their_case() -> None:
    # Old DocBook stylesheets (Debian's users-and-groups.html) write upper-case markup.
    source = (
        '<H1>Users</H1><DIV CLASS="TOC"><DL><DT><B>Table of Contents</B></DT><DT>1. '
        '<A HREF="#I">Introduction</A></DT></DL></DIV><P>Body.</P>'
    )
    tree = normalize(source)
    assert texts(tree) == ["Users", "Body."]


@pytest.mark.parametrize(
    "paragraph",
    [
        '<p>See the <a rel="next" href="b.html">next chapter</a> for the details.</p>',
        '<p>Next: <a rel="next" href="b.html">B</a>, see <a href="c.html">C</a></p>',
        '<p><a rel="nofollow" href="b.html">B</a></p>',
    ],
)
def test_prose_and_mixed_links_are_not_navigation_lines(paragraph: str) -> None:
    tree = normalize(f"<h1>T</h1>{paragraph}<p>Body</p>")
    assert len(texts(tree)) == 3
    assert not excluded(tree, "boilerplate")


def test_navigation_classes_inside_a_marked_main_region_are_content() -> None:
    source = '<main><h1>T</h1><div class="toc"><p>Part one</p></div><p>Body</p></main>'
    tree = normalize(source)
    assert texts(tree) == ["T", "Part one", "Body"]


def test_a_page_that_is_only_a_manuals_navigation_keeps_no_content() -> None:
    """libffi's "Types" node: a title, a navigation line and a menu of subsections, each
    a page of its own; a DocBook chapter's page: its title, panels and table of contents
    (PostgreSQL's "Chapter 70. GIN Indexes"). Navigation by design, as a LaTeX2HTML node
    holding only its subsections: no fallback to the chrome (it kept the navigation line,
    the menu and the panels as a chunk)."""
    texinfo = (
        '<div class="header"><p>Next: <a rel="next" accesskey="n" href="x.html">X</a></p>'
        '</div><h3>2.3 Types</h3><ul class="section-toc"><li><a href="p.html">Primitive</a>'
        "</li></ul>"
    )
    chapter = DOCBOOK.replace("<p>Valgrind is non-intrusive.</p>", "")
    for source in (texinfo, chapter):
        tree = normalize(source)
        assert [n.kind for n in tree.nodes if n.serialization and n.kind != "heading"] == []
        assert tree.diagnostics == (
            "generated navigation page (an index or a table of contents): no content",
        )
    # A page whose only text sits in a site's menu class may be misread: it falls back.
    site = normalize('<div class="menu"><p>Soup of the day.</p></div>')
    assert texts(site) == ["Soup of the day."]
    assert site.diagnostics == ("boilerplate kept: removing it would leave no content",)


def test_navigation_rules_follow_remove_boilerplate() -> None:
    tree = normalize(TEXINFO_6, remove_boilerplate=False)
    assert "2.3 Types" in texts(tree)
    assert "- 2.3 Types" in texts(tree)  # the table of contents
    assert not excluded(tree, "boilerplate")


# -- headings outside the main region -----------------------------------------------------

MDBOOK = (
    '<div id="help-container"><div id="help-popup"><h2 class="help-title">Keyboard '
    "shortcuts</h2><div><p>Press <kbd>?</kbd> to show this help</p></div></div></div>"
    '<nav id="sidebar"><ol><li>Intro</li></ol></nav>'
    '<div id="menu-bar"><h1 class="menu-title">The Cargo Book</h1></div>'
    '<div id="content"><main><h1 id="m">The Manifest Format</h1><p>Every manifest.</p>'
    "<h2>The package section</h2><p>First.</p></main></div>"
)


def test_chrome_headings_without_content_are_boilerplate() -> None:
    tree = normalize(MDBOOK)
    assert texts(tree) == [
        "The Manifest Format",
        "Every manifest.",
        "The package section",
        "First.",
    ]
    assert sections(tree) == ["The Manifest Format", "The package section"]
    chrome = excluded(tree, "boilerplate")
    assert "Keyboard shortcuts" in chrome
    assert "The Cargo Book" in chrome


def test_an_equal_menu_title_before_text_and_the_main_title_is_boilerplate() -> None:
    # The Rust Reference: mdBook's menu-title <h1>, then text before the chapter's own
    # <h1> in main. Headed by the book's title, that text was a 7-token chunk on every
    # page; it moves up to the document instead.
    source = MDBOOK.replace('<main><h1 id="m">', '<main><p>Draft.</p><h1 id="m">')
    tree = normalize(source)
    assert texts(tree)[:2] == ["Draft.", "The Manifest Format"]
    assert sections(tree) == ["The Manifest Format", "The package section"]
    assert "The Cargo Book" in excluded(tree, "boilerplate")
    root = tree.nodes[0]
    assert [tree.node(child).kind for child in root.children] == ["paragraph", "section"]


def test_the_rust_references_rule_label_before_the_title_is_a_self_label() -> None:
    # Its rule label ("[manifest]", a link to the div holding it) is no text at all.
    label = '<a class="rule-link" href="#r-m"><span>[manifest]</span></a>'
    source = MDBOOK.replace(
        '<main><h1 id="m">', f'<main><div class="rule" id="r-m">{label}</div><h1 id="m">'
    )
    tree = normalize(source)
    assert texts(tree)[0] == "The Manifest Format"
    assert label in excluded(tree, "boilerplate")
    root = tree.nodes[0]
    assert [tree.node(child).kind for child in root.children] == ["section"]


RUSTDOC = (
    '<rustdoc-topbar><h2><a href="#">Vec</a></h2></rustdoc-topbar>'
    '<nav class="sidebar"><h2>std</h2></nav><main><section id="main-content">'
    '<div class="main-heading"><div class="rustdoc-breadcrumbs"><a href="../index.html">'
    'std</a>::<a href="index.html">vec</a></div><h1>Struct <span class="struct">Vec</span>'
    '&nbsp;<button id="copy-path" title="Copy item path to clipboard">Copy item path'
    "</button></h1></div><p>A contiguous growable array type.</p></section></main>"
)


def test_topbar_heading_outranked_by_the_main_title_is_boilerplate() -> None:
    tree = normalize(RUSTDOC)
    # The breadcrumb trail is navigation even inside main: alone before the first
    # section it became a 3-token chunk ("std::vec").
    assert texts(tree) == ["Struct Vec", "A contiguous growable array type."]
    assert sections(tree) == ["Struct Vec"]
    assert excluded(tree, "boilerplate")[0] == "Vec"
    assert (
        '<div class="rustdoc-breadcrumbs"><a href="../index.html">std</a>::'
        '<a href="index.html">vec</a></div>'
    ) in excluded(tree, "boilerplate")
    assert excluded(tree, "ui_control") == [
        '<button id="copy-path" title="Copy item path to clipboard">Copy item path</button>'
    ]


def test_outside_heading_that_heads_the_main_content_stays() -> None:
    # A page title outside <main> above the main content's subsections: it heads them.
    source = "<h1>Blog</h1><div class=side>x</div><main><h2>Post</h2><p>Body</p></main>"
    tree = normalize(source)
    assert texts(tree) == ["Blog", "Post", "Body"]
    assert sections(tree) == ["Blog", "Post"]
    root = tree.nodes[0]
    assert [tree.node(child).text for child in root.children] == ["Blog"]


def test_outside_heading_with_main_text_and_no_higher_heading_stays() -> None:
    source = "<header><div><h2>Title</h2></div></header><main><p>Body</p></main>"
    tree = normalize(source, remove_boilerplate=True)
    # A page-level header goes whole; a heading in a plain div stays with its text.
    assert texts(tree) == ["Body"]
    tree = normalize("<div><h2>Title</h2></div><main><p>Body</p></main>")
    assert texts(tree) == ["Title", "Body"]
    assert sections(tree) == ["Title"]


# -- UI controls and no-break spaces ------------------------------------------------------


@pytest.mark.parametrize("boilerplate", [True, False])
def test_button_text_is_a_ui_control_everywhere(boilerplate: bool) -> None:
    source = (
        "<main><p>Copy <button class=copy><span>Copy</span> code</button>the line.</p>"
        "<pre>x = 1<button>Run</button></pre></main>"
    )
    tree = normalize(source, remove_boilerplate=boilerplate)
    assert texts(tree) == ["Copy the line.", "x = 1"]
    assert excluded(tree, "ui_control") == [
        "<button class=copy><span>Copy</span> code</button>",
        "<button>Run</button>",
    ]


GENINDEX = (
    '<html><body><div class="body" role="main"><h1 id="index-A">Index &#8211; A</h1>'
    '<div class="genindex-jumpbox"><a href="genindex-A.html"><strong>A</strong></a> | '
    '<a href="genindex-B.html"><strong>B</strong></a></div>'
    '<table style="width: 100%" class="indextable genindextable"><tr><td><ul>'
    '<li><a href="library/re.html#re.A">A (in module re)</a></li>'
    '<li><a href="library/binascii.html#binascii.a2b_base64">a2b_base64() (in module '
    "binascii)</a></li></ul></td></tr></table>{after}</div></body></html>"
)


def test_sphinx_index_pages_give_no_content_even_when_nothing_else_is_left() -> None:
    # Python's 30 genindex pages and its module index gave 622 chunks of "a2b_hex() (in
    # module binascii)".
    tree = normalize(GENINDEX.format(after=""))
    assert texts(tree) == ["Index – A"]
    assert tree.diagnostics == (
        "generated navigation page (an index or a table of contents): no content",
    )
    (index,) = excluded(tree, "boilerplate")  # the letter bar and the table, one run
    assert index.startswith('<div class="genindex-jumpbox">') and index.endswith("</table>")
    # Beside other content, the index goes the same way and the content stays.
    tree = normalize(GENINDEX.format(after="<p>See also the module index.</p>"))
    assert texts(tree) == ["Index – A", "See also the module index."]
    assert not tree.diagnostics


def test_sphinx_toctrees_are_navigation_the_text_around_them_stays() -> None:
    # Python's library/index.html: an introduction, then the titles of 290 pages.
    source = (
        '<html><body><div class="body" role="main"><section id="the-python-standard-library">'
        "<h1>The Python Standard Library</h1><p>This library reference manual describes the "
        'standard library.</p><div class="toctree-wrapper compound"><ul>'
        '<li class="toctree-l1"><a class="reference internal" href="intro.html">'
        "Introduction</a></li></ul></div></section></div></body></html>"
    )
    tree = normalize(source)
    assert texts(tree) == [
        "The Python Standard Library",
        "This library reference manual describes the standard library.",
    ]
    assert excluded(tree, "boilerplate")[0].startswith('<div class="toctree-wrapper')


def test_a_sites_menus_are_boilerplate_on_a_page_without_main() -> None:
    # sqlite.org's pages open with two menus of the site's pages (cut down).
    source = (
        '<div class="menu mainmenu"><ul><li><a href="index.html">Home</a>'
        '<li><a href="about.html">About</a><li><a href="docs.html">Documentation</a></ul>'
        '</div><div class="menu submenu" id="submenu"><ul><li><a href="about.html">About'
        "</a></ul></div><ul class=menu><li><a href=/>Blog</a></ul>"
        "<h1>The ON CONFLICT Clause</h1><p>A clause.</p>"
        "<ul class=list><li>A list that stays.</ul>"
    )
    tree = normalize(source)
    assert texts(tree) == ["The ON CONFLICT Clause", "A clause.", "- A list that stays."]
    assert excluded(tree, "boilerplate") == [source[: source.index("<h1>")]]  # all three


def test_a_menus_choices_are_a_ui_control() -> None:
    # sqlite.org's search box: "Search Documentation Search Changelog" opened every page.
    source = (
        '<form method="GET" action="search"><select name="s"><option value="d">Search '
        "Documentation<option value=c>Search Changelog</select>"
        '<input type="text" name="q"><datalist id="v"><option value="3.11"></datalist></form>'
        "<h1>The ON CONFLICT Clause</h1><p>A clause.</p>"
    )
    tree = normalize(source)
    assert texts(tree) == ["The ON CONFLICT Clause", "A clause."]
    assert excluded(tree, "ui_control") == [
        '<select name="s"><option value="d">Search Documentation<option value=c>Search '
        "Changelog</select>",
        '<datalist id="v"><option value="3.11"></datalist>',
    ]


def test_no_break_spaces_in_titles_show_as_spaces() -> None:
    source = "<h2>2.1.\xa0What&nbsp;it does\xa0</h2><p>a\xa0b</p>"
    tree = normalize(source)
    heading = next(n for n in tree.nodes if n.kind == "heading")
    assert heading.text == "2.1. What it does"
    assert sections(tree) == ["2.1. What it does"]
    # The map still points at the source: the raw U+00A0 one to one, &nbsp; as a run.
    first = heading.serialization[0]
    assert tree.content[first.source_start : first.source_end] == "2.1.\xa0What"
    assert texts(tree)[1] == "a\xa0b"  # body text keeps its no-break space


LATEX2HTML_PANEL = (
    '<DIV CLASS="navigation"><!--Navigation Panel-->\n<A\n HREF="node188.html">\n'
    '<IMG WIDTH="37" HEIGHT="24" ALT="next" SRC="next.png"></A> \n<A\n HREF="node186.html">\n'
    '<IMG WIDTH="26" HEIGHT="24" ALT="up" SRC="up.png"></A> \n<BR>\n<B> Next:</B> <A\n'
    ' HREF="node188.html">Array</A>\n<B> Up:</B> <A\n HREF="node186.html">Binary</A>\n'
    "<BR>\n<BR></DIV>\n<!--End of Navigation Panel-->\n"
)
LATEX2HTML_CHILD_LINKS = (
    '<BR><HR>\n<!--Table of Child-Links-->\n<A ID="CHILD_LINKS"><STRONG>Subsections</STRONG>'
    '</A>\n\n<UL CLASS="ChildLinks">\n<LI><A ID="tex2html3107"\n  HREF="node187.html">General'
    '</A>\n<UL>\n<LI><A ID="tex2html3114"\n  HREF="node194.html">Avs</A>\n</UL>\n</UL>\n'
    "<!--End of Table of Child-Links-->\n"
)


def latex2html_page(body: str) -> str:
    """A page of gnuplot's LaTeX2HTML manual (cut down): the navigation panel above and
    below the node's own text."""
    return (
        '<!DOCTYPE HTML>\n<!--Converted with LaTeX2HTML 2022.2 -->\n<HTML lang="en">\n<HEAD>\n'
        '<TITLE>Binary</TITLE>\n<META NAME="Generator" CONTENT="LaTeX2HTML v2022.2">\n'
        f"</HEAD>\n<BODY >\n{LATEX2HTML_PANEL}\n"
        '<H3><A ID="SECTION030182000000000000000">\nBinary</A>\n</H3>\n'
        f"{body}{LATEX2HTML_PANEL.replace('<BR>', '<HR>', 1)}</BODY>\n</HTML>\n"
    )


def test_latex2html_navigation_panels_and_subsection_lists_are_navigation() -> None:
    # gnuplot's manual: 650 of its 652 pages' chunks started above the heading, in the
    # panel ("next up previous index Next: Array Up: Binary"), so had no heading path.
    tree = normalize(latex2html_page(f"<P>\nThe binary keyword.\n\n{LATEX2HTML_CHILD_LINKS}"))
    assert texts(tree) == ["Binary", "The binary keyword."]
    root = tree.nodes[0]  # the section is the root's only child: chunks start under it
    assert [tree.node(child).kind for child in root.children] == ["section"]
    removed = excluded(tree, "boilerplate")
    assert removed[0].startswith('<DIV CLASS="navigation">')
    assert any(run.startswith('<A ID="CHILD_LINKS">') for run in removed)
    assert any(run.startswith('<UL CLASS="ChildLinks">') for run in removed)
    assert not tree.diagnostics


def test_a_latex2html_node_holding_only_its_subsections_keeps_no_content() -> None:
    # "Features introduced in version 5.2": a heading over the list of its subsections.
    tree = normalize(latex2html_page(LATEX2HTML_CHILD_LINKS))
    assert texts(tree) == []  # the heading went with the navigation it headed
    assert tree.diagnostics == (
        "generated navigation page (an index or a table of contents): no content",
    )
    # A hand-written page's list with another class stays.
    tree = normalize(latex2html_page(LATEX2HTML_CHILD_LINKS.replace("ChildLinks", "links")))
    assert "- General" in texts(tree)


GROFF_MAN_PAGE = (
    '<html><head><meta name="generator" content="groff -Thtml, see www.gnu.org">'
    '<title>LS</title></head><body>\n<h1 align="center">LS</h1>\n'
    '<a href="#NAME">NAME</a><br>\n<a href="#SYNOPSIS">SYNOPSIS</a><br>\n'
    '<a href="#DESCRIPTION">DESCRIPTION</a><br>\n\n<hr>\n'
    '<h2>NAME<a name="NAME"></a></h2>\n<p style="margin-left:11%; margin-top: 1em">ls - list '
    'directory contents</p>\n<h2>SYNOPSIS<a name="SYNOPSIS"></a></h2>\n'
    '<p style="margin-left:11%; margin-top: 1em"><b>ls</b> [<i>OPTION</i>]...</p>\n'
    '<h2>DESCRIPTION<a name="DESCRIPTION"></a></h2>\n<p>List information about the FILEs.'
    "</p></body></html>"
)


def test_a_line_of_links_to_the_pages_own_sections_is_its_table_of_contents() -> None:
    """groff's man pages open with their sections' names, each a link to the heading
    below: the first chunk started "NAME SYNOPSIS DESCRIPTION …"."""
    tree = normalize(GROFF_MAN_PAGE)
    assert texts(tree)[:3] == ["LS", "NAME", "ls - list directory contents"]
    assert any("NAME</a><br>" in chrome for chrome in excluded(tree, "boilerplate"))


@pytest.mark.parametrize(
    "line",
    [
        # Prose, or names joined by commas or bars, that link within the page: content.
        '<p>See also <a href="#a">pause()</a>, <a href="#b">sigwait()</a> and '
        '<a href="#c">sigtimedwait()</a>.</p>',
        '<p><a href="#a">wholeText()</a>, <a href="#b">ownText()</a>, '
        '<a href="#c">textNodes()</a></p>',
        '<p><a href="#a">penup()</a> | <a href="#b">pu()</a> | <a href="#c">up()</a></p>',
        # Two links are not a table of contents.
        '<p><a href="#a">NAME</a><br><a href="#b">SYNOPSIS</a></p>',
        # Nor links to other pages.
        '<p><a href="a.html">One</a><br><a href="b.html">Two</a><br><a href="c.html">Three</a></p>',
    ],
)
def test_other_lines_of_links_stay(line: str) -> None:
    tree = normalize(f"<h1>Title</h1>{line}<p>Body.</p>")
    assert len(texts(tree)) == 3
