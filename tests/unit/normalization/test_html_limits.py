"""HtmlNormalizer: page chrome, malformed markup, limits and pathological input."""

from __future__ import annotations

import pytest

from fastrag.exceptions import NormalizationError
from fastrag.normalization import NormalizedDocument
from tests.unit.normalization._html_helpers import excluded, normalize, texts

# -- boilerplate --------------------------------------------------------------------------

PAGE = (
    "<header><h1>Site</h1></header><nav><a href=/>Home</a></nav>"
    "<main><header><h2>Post</h2></header><p>Body</p><nav>in-main nav</nav>"
    "<aside>in-main aside</aside><div hidden>in-main hidden</div></main>"
    "<aside>Related</aside><footer>© me</footer>"
)


def test_chrome_outside_main_is_boilerplate_and_main_keeps_all_but_its_navigation() -> None:
    tree = normalize(PAGE)
    # Inside main only a nav goes (and an article's footer, see test_html_themes).
    assert texts(tree) == ["Post", "Body", "in-main aside", "in-main hidden"]
    assert excluded(tree, "boilerplate") == [  # adjacent exclusions of one reason merge
        "<header><h1>Site</h1></header><nav><a href=/>Home</a></nav>",
        "<nav>in-main nav</nav>",
        "<aside>Related</aside><footer>© me</footer>",
    ]


def test_remove_boilerplate_false_keeps_everything() -> None:
    tree = normalize(PAGE, remove_boilerplate=False)
    assert texts(tree)[:3] == ["Site", "Home", "Post"]
    assert "© me" in texts(tree)
    assert not excluded(tree, "boilerplate")


def test_header_and_footer_need_a_marked_main_content() -> None:
    source = "<header><h1>Title</h1></header><p>Body</p><footer>Foot</footer><nav>Nav</nav>"
    tree = normalize(source)
    assert texts(tree) == ["Title", "Body", "Foot"]
    assert excluded(tree, "boilerplate") == ["<nav>Nav</nav>"]


def test_header_inside_a_section_is_content() -> None:
    # Outside main, the section's text goes (see below) but its header's heading stays,
    # since main content follows in its section; the page-level header goes whole,
    # heading included.
    source = (
        "<main><p>Body</p></main><section><header><h2>Part</h2></header><p>x</p></section>"
        "<main><p>More</p></main><header><h1>Top</h1></header>"
    )
    tree = normalize(source)
    assert texts(tree) == ["Body", "Part", "More"]
    assert excluded(tree, "boilerplate") == ["x", "<header><h1>Top</h1></header>"]


@pytest.mark.parametrize(
    "chrome",
    [
        '<div role="navigation">menu</div>',
        '<div role="banner">banner</div>',
        '<div role="contentinfo">info</div>',
        "<div hidden>hid</div>",
        '<span aria-hidden="true">icon</span>',
        "<p hidden>para</p>",
    ],
)
def test_roles_and_hidden_elements_outside_main(chrome: str) -> None:
    tree = normalize(f'<div role="main"><p>Body</p></div>{chrome}<h2>After</h2><main>More</main>')
    assert texts(tree) == ["Body", "After", "More"]
    assert excluded(tree, "boilerplate") == [chrome]


def test_hidden_list_item_closed_implicitly_ends_its_exclusion() -> None:
    tree = normalize("<main></main><ul><li hidden>secret<li>shown</ul>")
    assert texts(tree) == ["- shown"]


@pytest.mark.parametrize(
    "css",
    [
        *("headerlink", "copiable-anchor", "x anchorjs-link", "header-anchor", "hash-link"),
        *("footnote-backref", "footnote-back", "data-footnote-backref"),
    ],
)
def test_permalink_anchors_are_boilerplate_everywhere(css: str) -> None:
    anchor = f'<a class="{css}" href="#t">¶</a>'
    tree = normalize(f"<main><h2>Title{anchor}</h2><dl><dt>term{anchor}<dd>x</dl></main>")
    assert texts(tree) == ["Title", "term", ": x"]
    assert excluded(tree, "boilerplate") == [anchor, anchor]


# Node.js API docs (MIT), doc/api/path.html: the doctool's "#" mark has no generator class.
NODE_HEADING = (
    '<h2>Path<span><a class="mark" href="#path" id="path">#</a></span>'
    '<a aria-hidden="true" class="legacy" id="path_path"></a></h2>'
    "<p>The <code>node:path</code> module provides utilities.</p>"
)


def test_a_fragment_link_whose_text_is_only_a_mark_is_a_permalink() -> None:
    tree = normalize(f"<main>{NODE_HEADING}</main>")
    assert texts(tree) == ["Path", "The node:path module provides utilities."]
    assert excluded(tree, "boilerplate") == ['<a class="mark" href="#path" id="path">#</a>']


@pytest.mark.parametrize("mark", ["¶", "&para;", "&#182;", "§", " # ", "\N{LINK SYMBOL}"])
def test_symbol_permalinks_are_recognised_without_a_class(mark: str) -> None:
    tree = normalize(f'<main><h3>Title<a href="#t">{mark}</a></h3></main>')
    assert texts(tree) == ["Title"]


# The links back from a footnote to its reference, as Markdown converters write them.
FOOTNOTE_BACKLINKS = [
    '<a href="#fnref1" role="doc-backlink">↩︎</a>',  # Pandoc (its class removed)
    '<a href="#fnref:2" title="Jump back to footnote 2">&#8617;</a>',  # Python-Markdown
    '<a href="#user-content-fnref-3" aria-label="Back to reference 3">↩</a>',  # GitHub
    '<a href="#fnref4">&#x21a9;&#xfe0e;</a>',
    '<a href="#r5">&uarr;</a>',
]


@pytest.mark.parametrize("backlink", FOOTNOTE_BACKLINKS)
def test_a_footnotes_link_back_to_its_reference_is_a_mark(backlink: str) -> None:
    # GitHub's rendering of Node.js's webcrypto.md ended its footnotes in "↩", "↩2" …
    source = f'<main><ol><li id="fn1"><p>The note. {backlink}</p></li></ol></main>'
    tree = normalize(source)
    assert texts(tree) == ["1. The note."]
    assert excluded(tree, "boilerplate") == [backlink]


@pytest.mark.parametrize(
    "link",
    [
        '<a href="#x">Title</a>',  # a heading wrapped in its self-link keeps its text
        '<a href="#fn1">1</a>',  # footnote references are content
        '<a href="#fn1">*</a>',
        '<a href="other.html#x">#</a>',  # not an in-page fragment
    ],
)
def test_links_that_are_not_bare_marks_are_kept(link: str) -> None:
    tree = normalize(f"<main><p>A {link}</p></main>")
    assert excluded(tree, "boilerplate") == []


# The Rust Reference (mdbook-spec, MIT/Apache-2.0), reference/abi.html: a rule identifier,
# a link to the div that holds it, before the heading and before every paragraph.
RULE = (
    '<div class="rule" id="r-abi.intro"><a class="rule-link" href="#r-abi.intro" '
    'title="abi.intro"><span>[abi<wbr>.intro]</span></a>\n</div>\n'
)


def test_a_link_to_the_element_it_alone_fills_is_a_self_label() -> None:
    tree = normalize(
        f'<main>{RULE.replace("abi.intro", "abi")}<h1 id="abi"><a class="header" href="#abi">'
        f"ABI</a></h1>\n{RULE}<p>This section documents the ABI.</p></main>"
    )
    assert texts(tree) == ["ABI", "This section documents the ABI."]
    labels = excluded(tree, "boilerplate")
    assert len(labels) == 2 and all(label.startswith('<a class="rule-link"') for label in labels)


@pytest.mark.parametrize(
    "source",
    [
        '<h2 id="x"><a href="#x">Title</a></h2>',  # a heading is its own title
        '<dl><dt id="x"><a href="#x">term</a></dt><dd>meaning</dd></dl>',
        '<div id="x"><a href="#x">Label</a> and more text</div>',  # not alone in it
        '<div id="x"><p><a href="#x">Label</a></p></div>',  # not its parent
        '<div id="y"><a href="#x">Label</a></div>',  # another element
        '<p id="x"><a href="#x">A link</a><a href="#z">another</a></p>',
    ],
)
def test_links_to_other_elements_or_sharing_theirs_are_kept(source: str) -> None:
    tree = normalize(f"<main>{source}</main>")
    assert excluded(tree, "boilerplate") == []


def test_main_content_inside_chrome_keeps_that_chrome() -> None:
    tree = normalize("<nav><main><p>Real</p></main></nav><nav>Menu</nav>")
    assert texts(tree) == ["Real"]
    assert excluded(tree, "boilerplate") == ["<nav>Menu</nav>"]


SPHINX_LIKE = (
    "<title>T</title><div class=document><div class=bodywrapper>"
    '<div class="body" role="main"><h1>Classes</h1><p>Body <img alt="diagram"></p></div>'
    "</div><h3>Quick search</h3><div class=sidebar><p>Side <b>bar</b></p>"
    '<img alt="logo"></div></div><div class="footer">&copy; Copyright. Created using '
    "<a href=x>Sphinx</a>.</div>"
)


def test_text_outside_a_marked_main_region_is_boilerplate() -> None:
    # "Quick search" is a heading outside main whose section holds no retained content.
    tree = normalize(SPHINX_LIKE)
    assert tree.metadata["title"] == "T"
    assert texts(tree) == ["Classes", "Body diagram"]
    assert excluded(tree, "boilerplate") == [
        "Quick search",
        "Side ",
        "bar",
        '<img alt="logo">',
        "&copy; Copyright. Created using ",
        "Sphinx",
        ".",
    ]
    assert not tree.diagnostics


def test_text_outside_main_is_kept_without_a_marked_main_region() -> None:
    source = SPHINX_LIKE.replace(' role="main"', "")
    tree = normalize(source)
    assert texts(tree) == [
        "Classes",
        "Body diagram",
        "Quick search",
        "Side bar",
        "logo",
        "© Copyright. Created using Sphinx.",
    ]
    assert not excluded(tree, "boilerplate")
    assert texts(normalize(SPHINX_LIKE, remove_boilerplate=False)) == texts(tree)


@pytest.mark.parametrize(
    "main", ["<main></main>", "<article> </article>", "<script>x = '<main>'</script>"]
)
def test_a_main_region_without_text_does_not_mark_the_main_content(main: str) -> None:
    tree = normalize(f"{main}<h1>Title</h1><div>Real text</div><footer>Foot</footer>")
    assert texts(tree) == ["Title", "Real text", "Foot"]
    assert not excluded(tree, "boilerplate")


def test_a_page_whose_only_text_is_outside_main_keeps_it() -> None:
    tree = normalize("<main><img alt=''></main><div>Only text</div>")
    assert texts(tree) == ["Only text"]
    anchor = '<a class="headerlink" href="#">¶</a>'
    tree = normalize(f'<div role="main">{anchor}</div><p>Only <b>text</b></p>')
    assert texts(tree) == ["Only text"]
    assert excluded(tree, "boilerplate") == [anchor]


def test_a_page_of_only_chrome_keeps_it() -> None:
    tree = normalize("<nav><a href=/a>A</a> <a href=/b>B</a></nav>")
    assert texts(tree) == ["A B"]
    assert tree.diagnostics == ("boilerplate kept: removing it would leave no content",)


# -- malformed markup ---------------------------------------------------------------------

SECRET = "zebra"


@pytest.mark.parametrize(
    ("source", "expected", "diagnostic"),
    [
        (f"<p><b>{SECRET}<i>x</b>y</i></p>", [f"{SECRET}xy"], "<i> was not closed"),
        (f"<p>{SECRET}</span></p>", [SECRET], "stray </span> ignored"),
        (f"<div><p>{SECRET}<ul><li>x</div>y", [SECRET, "- x", "y"], "<ul> was not closed"),
        (
            f"<table><tr><td><div>{SECRET}</td></tr></table>",
            [f"| {SECRET} |"],
            "<div> was not closed",
        ),
        (
            f"<div>{SECRET}<table><tr><td>x</div></td></table>",
            [SECRET, "| x |"],
            "cannot close across",
        ),
        (f"<h1>{SECRET}<h2>x</h2>", [SECRET, "x"], "heading inside a heading"),
        (f"<p>{SECRET}</p><div><span>", [SECRET], "elements not closed at the end of input"),
    ],
)
def test_malformed_markup_is_repaired_with_diagnostics(
    source: str, expected: list[str], diagnostic: str
) -> None:
    tree = normalize(source)
    assert texts(tree) == expected
    assert any(diagnostic in message for message in tree.diagnostics), tree.diagnostics
    assert all(message.startswith("offset ") for message in tree.diagnostics)
    assert not any(SECRET in message for message in tree.diagnostics)


def test_unquoted_attributes_and_self_closing_tags() -> None:
    tree = normalize("<p class=x id=y>a<br/>b</p><p/>c <img alt=pear src=p.png/>d")
    assert texts(tree) == ["a\nb", "c peard"]


def test_unclosed_comment_runs_to_the_end() -> None:
    tree = normalize("<p>kept</p><!-- <p>hidden</p>")
    assert texts(tree) == ["kept"]
    assert excluded(tree, "comment") == ["<!-- <p>hidden</p>"]
    assert tree.diagnostics == ("offset 11: comment not closed; the rest is a comment",)


def test_unclosed_script_runs_to_the_end() -> None:
    tree = normalize("<p>kept</p><script>var a = '<p>'; ")
    assert texts(tree) == ["kept"]
    assert excluded(tree, "script") == ["<script>var a = '<p>'; "]


def test_lone_surrogates_nul_and_mixed_line_ends() -> None:
    source = "<p>a\ud800b\x00c</p>\r\n<p>x\r\ny\rz\nw</p>\r<pre>1\r\n2\r3</pre>"
    tree = normalize(source)
    assert texts(tree) == ["a\ud800b\x00c", "x y z w", "1\r\n2\r3"]


def test_lone_angle_brackets_and_ampersands_are_text() -> None:
    assert texts(normalize("<p>1 < 2 && 3 > 2</p> <")) == ["1 < 2 && 3 > 2", "<"]


def test_empty_and_blank_documents() -> None:
    empty = normalize("")
    assert [n.kind for n in empty.nodes] == ["document"] and not empty.root.spans
    blank = normalize(" \n\t")
    assert not blank.units and [e.reason for e in blank.exclusions] == ["whitespace"]
    only_markup = normalize("<html><body></body></html>")
    assert not only_markup.units and [e.reason for e in only_markup.exclusions] == ["markup"]


# -- limits -------------------------------------------------------------------------------


def test_max_characters_refuses_large_input_naming_the_option() -> None:
    with pytest.raises(
        NormalizationError, match=r"max_characters=10\b.*HtmlNormalizer\(max_characters"
    ):
        normalize("<p>" + "x" * 10 + "</p>", max_characters=10)


def test_max_table_cells_refuses_large_tables_naming_the_option() -> None:
    source = "<table>" + "<tr><td>a<td>b" * 6 + "</table>"
    assert len(normalize(source, max_table_cells=12).nodes) == 8
    with pytest.raises(NormalizationError, match=r"max_table_cells=11\b"):
        normalize(source, max_table_cells=11)


def test_deep_nesting_is_flattened_into_one_paragraph() -> None:
    depth = 100_000
    tree = normalize("<ul><li>x" * depth)
    assert max(_depths(tree).values()) <= 100
    deepest = [n for n in tree.nodes if n.kind == "paragraph"][-1]
    assert deepest.text.count("x") > depth - 100
    assert tree.diagnostics[0].endswith("deeper blocks flattened into their container")
    assert "100000 elements not closed at the end of input" in tree.diagnostics[1]


@pytest.mark.parametrize(
    "opening", ["<blockquote>q", "<div><blockquote><p>q", "<table><tr><td>q", "<dl><dd>q"]
)
def test_deep_nesting_of_any_container_ends_in_a_valid_tree(opening: str) -> None:
    tree = normalize(opening * 30_000, max_depth=20)
    assert max(_depths(tree).values()) <= 20
    assert sum(n.text.count("q") for n in tree.nodes) == 30_000


def test_a_long_single_line_is_one_paragraph() -> None:
    words = "word " * 400_000  # 2 MB on one line; the 50 MB run is in bench notes
    tree = normalize("<p>" + words + "</p>")
    (paragraph,) = [n for n in tree.nodes if n.kind == "paragraph"]
    assert len(paragraph.text) == len(words) - 1
    assert len(paragraph.serialization) == 1


def test_a_large_table_within_the_limit() -> None:
    source = "<table>" + ("<tr>" + "<td>c" * 100) * 200 + "</table>"  # 20,000 cells
    tree = normalize(source)
    rows = [n for n in tree.nodes if n.kind == "table_row"]
    assert len(rows) == 200 and rows[0].text.count("c") == 100


def _depths(tree: NormalizedDocument) -> dict[str, int]:
    depth = {tree.root.node_id: 0}
    for node in tree.nodes[1:]:
        depth[node.node_id] = depth[node.parent_id or ""] + 1
    return depth


# mdBook's redirect stub (the Rustonomicon, MIT/Apache-2.0, nomicon/vec.html), shortened.
REDIRECT = (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
    "<title>Redirecting...</title>\n"
    '<meta http-equiv="refresh" content="0; URL=./vec/vec.html">\n'
    '<link rel="canonical" href="./vec/vec.html"></head>\n<body>'
    '<p>Redirecting to... <a href="./vec/vec.html">./vec/vec.html</a>.</p>'
    "<script>window.location.replace('./vec/vec.html');</script></body></html>"
)


@pytest.mark.parametrize(
    ("meta", "target"),
    [
        ('<meta http-equiv="refresh" content="0; URL=./vec/vec.html">', "./vec/vec.html"),
        ("<META HTTP-EQUIV=Refresh CONTENT='1;url=/new/'>", "/new/"),
        ('<meta content="0;url=\'page.html\'" http-equiv="refresh">', "page.html"),
        (
            '<meta http-equiv="refresh" content="0.5, https://example.org/x">',
            "https://example.org/x",
        ),
    ],
)
def test_a_page_that_redirects_at_once_shows_nothing(meta: str, target: str) -> None:
    tree = normalize(
        REDIRECT.replace(REDIRECT[REDIRECT.index("<meta http") :].split("\n")[0], meta)
    )
    assert [node.kind for node in tree.nodes] == ["document"] and len(tree.units) == 0
    assert [exclusion.reason for exclusion in tree.exclusions] == ["redirect"]
    assert tree.metadata["redirect"] == target
    assert "immediate redirect" in tree.diagnostics[0]


@pytest.mark.parametrize(
    "meta",
    [
        '<meta http-equiv="refresh" content="30; URL=./vec/vec.html">',  # a slow reload
        '<meta http-equiv="refresh" content="0">',  # reloads itself: no target
        '<!-- <meta http-equiv="refresh" content="0; URL=./vec/vec.html"> -->',
        '<meta name="refresh" content="0; URL=./vec/vec.html">',
    ],
)
def test_other_refreshes_keep_the_page(meta: str) -> None:
    tree = normalize(
        REDIRECT.replace(REDIRECT[REDIRECT.index("<meta http") :].split("\n")[0], meta)
    )
    # The page has no heading element: its title heads it (see test_html.py).
    assert texts(tree) == ["Redirecting...", "Redirecting to... ./vec/vec.html."]
    assert "redirect" not in tree.metadata


def test_a_redirect_stub_is_kept_when_boilerplate_is() -> None:
    tree = normalize(REDIRECT, remove_boilerplate=False)
    assert texts(tree) == ["Redirecting...", "Redirecting to... ./vec/vec.html."]


def test_a_redirect_stub_gives_no_chunks_and_validates_as_empty() -> None:
    from fastrag.ingestion.steps.chunking import StructureAwareChunker
    from fastrag.ingestion.steps.chunking.structure import validate_structure_chunks
    from fastrag.models import Document

    chunker = StructureAwareChunker(cache=False)
    document = Document("stub", "s", REDIRECT, {"content_format": "html"})
    assert list(chunker.split(document)) == []
    normalized = chunker.normalizers.normalize(document)
    report = validate_structure_chunks(normalized, (), chunker.tokenizer, 600)
    assert (report.chunk_count, report.classification) == (0, "empty")
    assert report.normalization_diagnostics == normalized.diagnostics
