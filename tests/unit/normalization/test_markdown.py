"""MarkdownNormalizer: one test per construct, then limits and pathological input."""

from __future__ import annotations

import pytest

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document
from fastrag.normalization import (
    Nodes,
    NormalizedDocument,
    NormalizedNode,
    NormalizerRegistry,
    SourceSpan,
)
from fastrag.normalization.formats.markdown import MarkdownNormalizer

NORMALIZER = MarkdownNormalizer()


def normalize(source: str, normalizer: MarkdownNormalizer = NORMALIZER) -> NormalizedDocument:
    return normalizer.normalize(Document("d", "test", source, {"content_format": "markdown"}))


def of_kind(tree: NormalizedDocument, kind: str) -> list[NormalizedNode]:
    return [node for node in tree.nodes if node.kind == kind]


def owned(tree: NormalizedDocument, node: NormalizedNode) -> list[str]:
    return [u.span.slice(tree.content) for u in tree.units if u.node_id == node.node_id]


def excluded(tree: NormalizedDocument, reason: str) -> list[str]:
    return [e.span.slice(tree.content) for e in tree.exclusions if e.reason == reason]


# -- headings and sections --------------------------------------------------------------


def test_atx_heading_text_is_the_title_and_its_unit_the_whole_line() -> None:
    tree = normalize("## Water *the* `pears` ##\n\nbody\n")
    (heading,) = of_kind(tree, "heading")
    assert heading.text == "Water the pears" and heading.level == 2
    assert owned(tree, heading) == ["## Water *the* `pears` ##"]
    (section,) = of_kind(tree, "section")
    assert section.level == 2 and section.text == "Water the pears"
    assert section.children[0] == heading.node_id


def test_badges_and_logos_at_a_headings_edges_leave_its_title() -> None:
    source = (
        "# dotenv [![NPM version](https://img.shields.io/npm/v/dotenv.svg)](https://npm.im/x)"
        " ![downloads](https://img.shields.io/npm/dw/dotenv)\n\nLoads .env files.\n\n"
        "## ![logo](logo.png) Install <sup>[![v](badge.svg)][pkg]</sup>\n\nnpm i\n\n"
        "## Using ![Python](python.svg) with Node\n\nText.\n\n"
        "## [![Project Logo](logo.png)](https://example.org)\n\nText.\n\n"
        "## <a href='https://redux.js.org'><img src='logo.png' alt='Redux &amp; Logo'></a>\n\n"
        "Text.\n\n"
        "## <img src='a.png'>\n\nText.\n\n[pkg]: https://npm.im/x\n"
    )
    tree = normalize(source)
    assert [node.text for node in of_kind(tree, "heading")] == [
        "dotenv",
        "Install",
        "Using Python with Node",  # an icon between words is read
        "Project Logo",  # an image alone names its heading
        "Redux & Logo",  # so does an <img> alone, by its alt text
        "",
    ]
    assert tree.nodes[0].text == "dotenv"  # the document's title
    # The heading's text in a chunk is its source, badges included.
    assert owned(tree, of_kind(tree, "heading")[0]) == [source.split("\n")[0]]


def test_a_heading_element_of_links_only_is_navigation() -> None:
    bar = (
        '<h2 align="center">\n  <a href="/start">Quickstart</a>\n  <span> · </span>\n'
        '  <a href="/tutorial">Tutorial</a> · <a href="/plugins">Plugins</a>\n  <br />\n'
        '  Support: <a href="/discussions">Discussions</a>\n</h2>'
    )
    titled = (
        '<h2>Using <a href="/a">Foo</a> with <a href="/b">Bar</a> and <a href="/c">Baz</a></h2>'
    )
    tree = normalize(f"{bar}\n\nGatsby builds sites.\n\n{titled}\n\nText.\n")
    assert excluded(tree, "navigation") == [bar]
    assert [node.text for node in of_kind(tree, "heading")] == ["Using Foo with Bar and Baz"]
    assert of_kind(tree, "paragraph")[0].parent_id == tree.nodes[0].node_id


def test_a_logo_over_an_html_title_in_one_block_leaves_the_title_a_heading() -> None:
    logo = (
        '<p align="center">\n  <a href="https://x.org">\n'
        '    <img alt="Gatsby" src="g.svg" />\n  </a>\n</p>\n'
    )
    source = f'{logo}<h1 align="center">\n  Gatsby\n</h1>\n\nThe future of the web.\n'
    tree = normalize(source)
    (heading,) = of_kind(tree, "heading")
    assert (heading.text, heading.level, tree.nodes[0].text) == ("Gatsby", 1, "Gatsby")
    assert owned(tree, heading) == ["Gatsby"]  # its tags and the logo's are markup
    assert logo.rstrip() in excluded(tree, "markup")
    assert of_kind(tree, "paragraph")[0].parent_id == heading.parent_id
    # A logo inside the heading element, the title after it (HTTPie's): owned alone.
    tree = normalize(
        '<h2 align="center">\n  <a href="https://httpie.io"><img alt="HTTPie" src="h.svg"></a>'
        "\n  <br>HTTPie CLI: human-friendly HTTP client\n</h2>\n"
    )
    (heading,) = of_kind(tree, "heading")
    assert owned(tree, heading) == ["HTTPie CLI: human-friendly HTTP client"]
    # The title inside the logo's paragraph, its closing tags after it (Sequelize's).
    tree = normalize(
        '<p align="center">\n  <img alt="Logo" src="l.svg" />\n  <h1>Sequelize</h1>\n</p>\n'
    )
    (heading,) = of_kind(tree, "heading")
    assert (heading.text, owned(tree, heading)) == ("Sequelize", ["Sequelize"])
    assert excluded(tree, "markup")[-1] == "</h1>\n</p>"
    # Logo, title and tagline in one block (Zod's): the title heads what follows it.
    tree = normalize(
        '<p align="center">\n  <img alt="Zod logo" src="logo.svg" />\n  <h1>Zod</h1>\n'
        '  <p align="center">Schema validation</p>\n</p>\n\n## Install\n\nnpm i zod\n'
    )
    assert [(node.text, node.level) for node in of_kind(tree, "section")] == [
        ("Zod", 1),
        ("Install", 2),
    ]
    (tagline,) = of_kind(tree, "html_block")
    assert tagline.text == "Schema validation"
    assert tagline.parent_id == of_kind(tree, "section")[0].node_id


def test_setext_heading_unit_covers_the_underline() -> None:
    tree = normalize("Orchard\r\n=======\r\n\r\nSoil\r\n----\r\n")
    first, second = of_kind(tree, "heading")
    assert (first.text, first.level, owned(tree, first)) == ("Orchard", 1, ["Orchard\r\n======="])
    assert (second.text, second.level, owned(tree, second)) == ("Soil", 2, ["Soil\r\n----"])


def test_sections_nest_by_level_and_close_at_same_or_higher_level() -> None:
    source = "# A\n\na\n\n## B\n\nb\n\n### C\n\nc\n\n## D\n\nd\n\n# E\n"
    tree = normalize(source)
    sections = {node.text: node for node in of_kind(tree, "section")}
    parent = {name: node.parent_id for name, node in sections.items()}
    root, a, b = tree.root.node_id, sections["A"].node_id, sections["B"].node_id
    assert parent == {"A": root, "B": a, "C": b, "D": a, "E": root}
    assert [sections[name].level for name in "ABCDE"] == [1, 2, 3, 2, 1]
    assert sections["A"].spans[0].slice(source) == source[: source.index("# E") - 2]
    assert sections["C"].spans[0].slice(source) == "### C\n\nc"
    assert tree.root.text == "A"


def test_heading_inside_a_container_is_a_leaf_without_section() -> None:
    tree = normalize("# Top\n\n> # Quoted\n\n- # Listed\n\nafter\n")
    assert [node.text for node in of_kind(tree, "section")] == ["Top"]
    quoted, listed = of_kind(tree, "heading")[1:]
    assert tree.node(quoted.parent_id or "").kind == "blockquote"
    assert tree.node(listed.parent_id or "").kind == "list_item"
    assert of_kind(tree, "paragraph")[0].parent_id == of_kind(tree, "section")[0].node_id


def test_lines_that_look_like_headings_inside_code_stay_code() -> None:
    source = "```\n# not\n## heading\n```\n\n    # indented\n    ===\n\n~~~\nSetext\n---\n"
    tree = normalize(source)
    assert of_kind(tree, "heading") == [] and of_kind(tree, "section") == []
    assert [node.text for node in of_kind(tree, "code")] == [
        "```\n# not\n## heading\n```",
        "    # indented\n    ===",
        "~~~\nSetext\n---",
    ]


# -- leaves ---------------------------------------------------------------------------


def test_paragraph_text_is_the_exact_source_without_trailing_whitespace() -> None:
    source = "Water *pears*\r\nweekly  \n\n\n"
    tree = normalize(source)
    (paragraph,) = of_kind(tree, "paragraph")
    assert paragraph.text == "Water *pears*\r\nweekly"
    assert excluded(tree, "whitespace") == ["  \n\n\n"]


def test_fenced_code_keeps_fences_language_and_fence_attribute() -> None:
    tree = normalize("````js title=x\nlet a = 1;\n````\n")
    (code,) = of_kind(tree, "code")
    assert code.text == "````js title=x\nlet a = 1;\n````"
    assert dict(code.attributes) == {"language": "js", "fence": "````"}


def test_indented_code_keeps_its_indentation_and_has_no_language() -> None:
    tree = normalize("para\n\n    x = 1\n      y = 2\n")
    (code,) = of_kind(tree, "code")
    assert code.text == "    x = 1\n      y = 2" and dict(code.attributes) == {}


def test_unclosed_fence_runs_to_the_end() -> None:
    tree = normalize("```python\n# comment\n\ntext")
    (code,) = of_kind(tree, "code")
    assert code.text == "```python\n# comment\n\ntext" and code.attributes["language"] == "python"


def test_thematic_breaks_are_markup() -> None:
    source = "***\n\ntext\n\n- item\n\n  ---\n"
    tree = normalize(source)
    assert excluded(tree, "markup") == [
        "***",
        "---",  # inside a list item too: a rule shows no text
    ]
    assert not of_kind(tree, "thematic_break")


def test_html_blocks_show_their_readable_text_mapped_to_their_source() -> None:
    # The HTML adapter reads each block: tags excluded, entities decoded, scripts out.
    source = (
        "<div class=x>\n*raw*\n</div>\n\n<!-- note --> tail\n\n"
        '<p align="center"><b>Fast</b> &amp; <a href="d">documented</a></p>\n\n'
        "<table>\n<tr><td>Ann</td><td>Bob</td></tr>\n<tr><td>Cy</td><td>Di</td></tr>\n</table>\n\n"
        "<script>alert(1)</script>\n"
    )
    tree = normalize(source)
    blocks = of_kind(tree, "html_block")
    assert [node.text for node in blocks] == [
        "*raw*",  # Markdown inside an HTML block is not Markdown: kept as written
        "tail",
        "Fast & documented",
        "| Ann | Bob |\n| Cy | Di |",
        "",  # a script shows nothing: the block keeps its place and owns no source
    ]
    fast = blocks[2]
    for run in fast.serialization:  # runs map the display back into the source
        shown = fast.text[run.display_start : run.display_end]
        assert shown == "&" or shown == source[run.source_start : run.source_end]
    assert excluded(tree, "script") == ["<script>alert(1)</script>"]
    assert "<!-- note -->" in excluded(tree, "comment")
    assert tree.validate() is tree


# Node.js docs (MIT), doc/api/path.md: version history kept in YAML comments.
NODE_PATH = (
    "# Path\n\n<!--introduced_in=v0.10.0-->\n\n"
    "## `path.basename(path[, suffix])`\n\n"
    "<!-- YAML\nadded: v0.1.25\nchanges:\n  - version: v6.0.0\n-->\n\n"
    "* `path` {string}\n\n  <!-- lint disable -->\n\n"
    "> <!-- quoted\n> comment -->\n\n"
    "The `path.basename()` method returns the last portion of a `path`.\n"
)


def test_html_blocks_of_only_comments_are_excluded_as_comments() -> None:
    tree = normalize(NODE_PATH)
    assert of_kind(tree, "html_block") == []
    assert excluded(tree, "comment") == [
        "<!--introduced_in=v0.10.0-->",
        "<!-- YAML\nadded: v0.1.25\nchanges:\n  - version: v6.0.0\n-->",
        "<!-- lint disable -->",
        "<!-- quoted\n> comment -->",
    ]
    assert [node.text for node in of_kind(tree, "paragraph")][-1].startswith("The `path")
    assert not any("<!--" in unit.span.slice(tree.content) for unit in tree.units)


def test_a_comment_ends_at_its_first_closing_mark() -> None:
    tree = normalize("<!-- note --> shown -->\n\n<!-- a --><!-- b -->\n\nText.\n")
    # The first block is no comment alone: the HTML adapter reads it, and shows its text.
    assert excluded(tree, "comment") == ["<!-- note -->", "<!-- a --><!-- b -->"]
    (block,) = of_kind(tree, "html_block")
    assert block.text == "shown -->"


def test_myst_targets_are_excluded_as_markup_and_look_alikes_stay() -> None:
    source = (
        "(configuration)=\n\n# Configuration\n\nSome text.\n\n  (config-file)=\n\n"
        "## Config file\n\nMore (not a target)= text.\n\n(a)=b\n\n(Requirement Specifiers)=\n\n"
        "( )=\n"
    )
    tree = normalize(source)
    # Labels may hold spaces: pip's documentation has "(Requirement Specifiers)=".
    assert excluded(tree, "markup") == [
        "(configuration)=",
        "(config-file)=",
        "(Requirement Specifiers)=",
    ]
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "Some text.",
        "More (not a target)= text.",
        "(a)=b",
        "( )=",
    ]
    assert tree.validate() is tree


# The head of a typical project README (typer's, rich's): a centred logo, a tagline,
# a row of badges.
README_HEAD = (
    '<p align="center">\n  <a href="https://typer.example"><img src="logo.svg" alt="Typer"></a>\n'
    "</p>\n\n"
    '<p align="center">\n    <em>Typer, build great CLIs.</em>\n</p>\n\n'
    "[![Test](https://ci.example/badge.svg)](https://ci.example) "
    '[![PyPI][pypi-badge]][pypi] | [![Docs](d.svg "docs")](https://docs.example)\n'
    "[![Coverage](c.svg)](https://cov.example)\n\n"
    "![Logo](https://example.org/logo.svg)\n\n"
    "[![Build](b.svg)](https://ci.example) is green on every commit.\n\n"
    "<div>&nbsp;</div>\n\n"
    "[pypi-badge]: https://img.example/pypi.svg\n[pypi]: https://pypi.example\n"
)


def test_a_paragraph_of_inline_tags_only_is_markup() -> None:
    # Node.js's and Rust's changelogs put an anchor above every version heading.
    source = (
        '# Changelog\n\n<a id="18.15.0"></a>\n\n## 18.15.0\n\nPress <kbd>Ctrl</kbd>.\n\n'
        '<a name="x"></a> <span></span>\n\n<img src="a.png" alt="A"> and text\n\n'
        "<https://nodejs.org/download/release/>\n\n<a@example.org>\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == ['<a id="18.15.0"></a>', '<a name="x"></a> <span></span>']
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "Press <kbd>Ctrl</kbd>.",
        '<img src="a.png" alt="A"> and text',
        "<https://nodejs.org/download/release/>",  # autolinks show their link
        "<a@example.org>",
    ]
    assert tree.validate() is tree


def test_tag_only_html_blocks_and_badge_rows_show_nothing_and_are_excluded() -> None:
    tree = normalize(README_HEAD)
    assert excluded(tree, "markup") == [
        '<p align="center">\n  <a href="https://typer.example">'
        '<img src="logo.svg" alt="Typer"></a>\n</p>',
        '<p align="center">',  # the tagline's tags (its text is read below)
        "<em>",
        "</em>",  # after the tagline's last character: not its unit
        "</p>",
        "<div>&nbsp;</div>",
    ]
    assert excluded(tree, "badges") == [
        "[![Test](https://ci.example/badge.svg)](https://ci.example) "
        '[![PyPI][pypi-badge]][pypi] | [![Docs](d.svg "docs")](https://docs.example)\n'
        "[![Coverage](c.svg)](https://cov.example)"
    ]
    # Text stays: a tagline inside tags, an image without a link, a badge in a sentence.
    assert [node.text for node in of_kind(tree, "html_block")] == ["Typer, build great CLIs."]
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "![Logo](https://example.org/logo.svg)",
        "[![Build](b.svg)](https://ci.example) is green on every commit.",
    ]
    assert tree.validate() is tree


def test_tables_of_contents_are_navigation_other_link_lists_stay() -> None:
    # Node.js's BUILDING.md, CONTRIBUTING.md, releases.md … open with one.
    contents = (
        "* [Supported platforms](#supported-platforms)\n  * [Input](#input)\n"
        "* [Building Node.js](#building-nodejs)\n"
    )
    source = (
        f"# Building\n\n## Table of Contents\n\n{contents}\n"
        "## Supported platforms\n\nText.\n\n"
        "- [Docs](#docs)\n- [Home](https://example.org)\n- [Other](#other)\n\n"
        "+ [One](#one)\n+ [Two](#two)\n\n"
        "> - [Quoted](#a)\n> - [List](#b)\n> - [Kept](#c)\n"
    )
    tree = normalize(source)
    assert excluded(tree, "navigation") == [contents.rstrip("\n")]
    assert [node.text for node in of_kind(tree, "heading")] == [
        "Building",
        "Table of Contents",
        "Supported platforms",
    ]
    # A list with an outside link, a list of two, a list inside a quote: kept.
    assert len(of_kind(tree, "list")) == 3
    assert tree.validate() is tree


def test_reference_links_to_in_page_targets_make_a_table_of_contents_too() -> None:
    # winston's README: "* [Formats]" with "[Formats]: #formats" at the end of the file.
    contents = (
        "* [Motivation](#motivation)\n* [Formats]\n  * [Combining formats][combine]\n"
        "* [Logging levels][]\n"
    )
    source = (
        f"# winston\n\n## Table of contents\n\n{contents}\n## Motivation\n\nText.\n\n"
        "- [Usage](#usage)\n- [Formats]\n- [RFC5424]\n\nMore text.\n\n"
        "[Formats]: #formats\n[combine]: <#combining-formats>\n[logging LEVELS]: #levels\n"
        "[RFC5424]: https://tools.ietf.org/html/rfc5424\n"
    )
    tree = normalize(source)
    # The second list names an outside page through its reference: kept.
    assert excluded(tree, "navigation") == [contents.rstrip("\n")]
    assert len(of_kind(tree, "list")) == 1
    assert tree.validate() is tree


def test_a_lone_in_page_link_is_navigation_a_sentence_or_a_quoted_one_stays() -> None:
    # Awesome lists and README templates end every section with "back to top".
    source = (
        "# List\n\n## Tools\n\n- [A](https://a) - a tool.\n\n[⬆ back to top](#list)\n\n"
        "([back to top](#top))\n\nSee [the intro](#list) first.\n\n"
        "[Elsewhere](https://example.org)\n\n> [Quoted](#list)\n"
    )
    tree = normalize(source)
    assert excluded(tree, "navigation") == ["[⬆ back to top](#list)", "([back to top](#top))"]
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "See [the intro](#list) first.",
        "[Elsewhere](https://example.org)",
        "[Quoted](#list)",
    ]
    assert tree.validate() is tree


README_TEMPLATE = """<a id="readme-top"></a>

# Rocket

<details>
  <summary>Table of Contents</summary>
  <ol>
    <li><a href="#about-the-project">About The Project</a>
      <ul>
        <li><a href="#built-with">Built With</a></li>
      </ul>
    </li>
    <li><a href="#usage">Usage</a></li>
  </ol>
</details>

## About The Project

A fast HTTP toolkit.

<p align="right">(<a href="#readme-top">back to top</a>)</p>

<p>Read <a href="#usage">Usage</a> first.</p>

<ul><li><a href="#usage">Usage</a></li><li><a href="https://example.org">Home</a></li>
<li><a href="#license">License</a></li></ul>
"""


def test_html_blocks_that_only_move_within_the_page_are_navigation() -> None:
    # Best-README-Template (copied by thousands of READMEs): its table of contents and
    # its "(back to top)" lines were chunk text.
    tree = normalize(README_TEMPLATE)
    contents = README_TEMPLATE[
        README_TEMPLATE.index("<details>") : README_TEMPLATE.index("\n\n## About")
    ]
    back = '<p align="right">(<a href="#readme-top">back to top</a>)</p>'
    assert excluded(tree, "navigation") == [contents, back]
    # A sentence around an in-page link, a list with an outside link: kept.
    assert [node.text for node in of_kind(tree, "html_block") if node.text] == [
        "Read Usage first.",
        "- Usage\n- Home\n- License",
    ]
    assert tree.validate() is tree


def test_a_badge_row_half_html_half_markdown_is_badges() -> None:
    row = (
        '<a href="https://npm.im/mocha"><img src="v.svg" alt="npm version"></a> <!-- x -->\n'
        '<a href="https://github.com/m"><img src="n.svg" alt="Node Version"></a>\n'
        "[![CI](https://github.com/m/ci.svg)](https://github.com/m/actions)"
    )
    tree = normalize(f"{row}\n\n<b>Note</b> the [![CI](c.svg)](u) badge.\n")
    assert excluded(tree, "badges") == [row]
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "<b>Note</b> the [![CI](c.svg)](u) badge."
    ]


def test_linked_images_in_an_html_block_are_badges_its_text_stays() -> None:
    block = (
        '<p align="center">\n    <em>Typer, build great CLIs.</em>\n</p>\n<p align="center">\n'
        '<a href="https://github.com/t/actions"><img src="test.svg" alt="Test"></a>\n'
        '<a href="https://pypi.org/project/typer"><img src="v.svg" alt="Package version"></a>\n'
        "</p>"
    )
    only = (  # "|" is text: not a block of tags only
        '<p align="center">\n<a href="https://ci"><img src="ci.svg" alt="CI"></a> |\n'
        '<a href="https://docs"><img src="d.svg" alt="Docs"></a>\n</p>'
    )
    tree = normalize(f"{block}\n\n{only}\n\n<p>A <img src='x.png' alt='chart'> inline.</p>\n")
    assert [node.text for node in of_kind(tree, "html_block")] == [
        "Typer, build great CLIs.",
        "",
        "A chart inline.",  # an image without a link stays, as in Markdown
    ]
    assert excluded(tree, "badges")[-1] == only
    first = excluded(tree, "badges")[0]  # the first badge's alt text to the last's
    assert first.startswith("Test") and first.endswith("Package version")


def test_html_link_bars_are_navigation_lists_of_links_and_sentences_stay() -> None:
    bar = (
        '<p align="center">\n  <a href="https://discord.gg/x"><img alt="Discord" src="d.svg"></a>\n'
        '  <br />\n  <a href="/start">Quickstart</a>&nbsp;&nbsp;•&nbsp;&nbsp;'
        '<a href="/docs">Docs</a>&nbsp;•&nbsp;<a href="/blog">Blog</a>\n</p>'
    )
    listed = '<ul>\n<li><a href="/a">Alpha</a></li>\n<li><a href="/b">Beta</a></li>\n'
    listed += '<li><a href="/c">Gamma</a></li>\n</ul>'
    said = '<p>Read <a href="/a">A</a>, <a href="/b">B</a> and <a href="/c">C</a>.</p>'
    tree = normalize(f"{bar}\n\n{listed}\n\n{said}\n")
    assert excluded(tree, "navigation") == [bar]
    assert [node.text for node in of_kind(tree, "html_block")] == [
        "",
        "- Alpha\n- Beta\n- Gamma",
        "Read A, B and C.",
    ]


def test_link_bars_are_navigation_sentences_with_links_stay() -> None:
    source = (
        "[Docs](https://docs.example) | [Examples](#examples) | [Discord](https://chat.example)\n\n"
        "[English readme](README.md)\n • [简体中文 readme](README.cn.md)\n"
        " • [Deutsch](README.de.md)\n\n"
        "See [a](x), [b](y) and [c](z).\n\n[Only](one) [two](links)\n"
    )
    tree = normalize(source)
    assert excluded(tree, "navigation") == [
        "[Docs](https://docs.example) | [Examples](#examples) | [Discord](https://chat.example)",
        "[English readme](README.md)\n • [简体中文 readme](README.cn.md)\n"
        " • [Deutsch](README.de.md)",
    ]
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "See [a](x), [b](y) and [c](z).",
        "[Only](one) [two](links)",
    ]


# Docusaurus's installation page (MIT), cut down: MDX imports, a container, heading ids.
DOCUSAURUS = (
    "---\ntitle: Installation\n---\n\n"
    "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n"
    "Docusaurus is essentially a set of npm packages.\n\n"
    ":::tip\n\nUse the **Fast Track** to understand Docusaurus.\n\n:::\n\n"
    "## Requirements {#requirements}\n\n- Node.js 18.0 or above\n\n"
    "## Set {a, b}\n\nBraces that are no attribute list.\n\n"
    "::: warning Heads up\n\nimport numpy as np\n"
)


def test_mdx_imports_and_container_fences_are_markup_heading_attributes_leave_titles() -> None:
    tree = normalize(DOCUSAURUS)
    assert excluded(tree, "markup") == [
        "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';",
        ":::tip",
        ":::",
    ]
    assert [node.text for node in of_kind(tree, "section")] == [
        "Installation",
        "Requirements",
        "Set {a, b}",
    ]
    assert [node.text for node in of_kind(tree, "heading")][1] == "Requirements"
    # The heading still owns its whole source line, attribute list included.
    heading = of_kind(tree, "heading")[1]
    assert [u.span.slice(tree.content) for u in tree.units if u.node_id == heading.node_id] == [
        "## Requirements {#requirements}"
    ]
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "Docusaurus is essentially a set of npm packages.",
        "Use the **Fast Track** to understand Docusaurus.",
        "Braces that are no attribute list.",
        "::: warning Heads up",  # a fence with a title keeps it
        "import numpy as np",  # no quoted module: prose (or a sloppy snippet), kept
    ]


def test_container_fences_around_text_without_blank_lines_are_markup_a_title_stays() -> None:
    # Docusaurus and MyST allow the content right under the opening line: the fence lines
    # were the paragraph's first and last lines (":::tip Before you start" … ":::").
    source = (
        "# Guide\n\n:::tip Before you start\nInstall the CLI first.\n:::\n\n"
        ":::{warning}\nMyST body.\n:::\n\n:::note\nNo closing line here.\n\n"
        "A line with ::: inside\n:::\n"
    )
    tree = normalize(source)
    assert [node.text for node in of_kind(tree, "paragraph")] == [
        "Before you start\nInstall the CLI first.",
        "MyST body.",
        "No closing line here.",
        "A line with ::: inside",
    ]
    assert excluded(tree, "markup") == [":::tip ", ":::", ":::{warning}", ":::", ":::note", ":::"]
    assert tree.validate() is tree


def test_myst_navigation_and_autodoc_fences_are_markup_other_fences_stay() -> None:
    source = (
        "# Docs\n\n```{toctree}\n:hidden:\n\ninstallation\nusage\n```\n\nText.\n\n"
        "```{autofunction} pip.main\n```\n\n```{note}\nA note.\n```\n\n"
        "```python\nprint(1)\n```\n\n"
        "```{autoclass} pip.Session\n:members:\n\n:undoc-members:\n```\n\n"
        "```{autoclass} pip.Index\n:members:\n\nThe index pip installs from.\n```\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == [
        "```{toctree}\n:hidden:\n\ninstallation\nusage\n```",
        "```{autofunction} pip.main\n```",
        "```{autoclass} pip.Session\n:members:\n\n:undoc-members:\n```",
    ]
    assert [node.text for node in of_kind(tree, "code")] == [
        "```{note}\nA note.\n```",
        "```python\nprint(1)\n```",
        # text of the author's own: it stays, with the object it is about
        "```{autoclass} pip.Index\n:members:\n\nThe index pip installs from.\n```",
    ]


def test_strikethrough_stays_in_the_paragraph_source() -> None:
    (paragraph,) = of_kind(normalize("a ~~b~~ c\n"), "paragraph")
    assert paragraph.text == "a ~~b~~ c"


# -- lists ----------------------------------------------------------------------------


def test_tight_items_own_marker_and_text_in_one_unit() -> None:
    tree = normalize("- pears\n- apples\n  and plums\n")
    (lst,) = of_kind(tree, "list")
    assert dict(lst.attributes) == {"ordered": False}
    first, second = of_kind(tree, "list_item")
    assert owned(tree, first) == ["- pears"] and owned(tree, second) == ["- apples\n  and plums"]
    assert dict(first.attributes) == {"label": "-", "depth": 1} and first.text == ""
    assert of_kind(tree, "paragraph") == []


def test_ordered_list_start_labels_and_nesting_depth() -> None:
    tree = normalize("3. three\n4. four\n   1) inner\n   2) inner two\n")
    outer, inner = of_kind(tree, "list")
    assert dict(outer.attributes) == {"ordered": True, "start": 3}
    assert dict(inner.attributes) == {"ordered": True, "start": 1}
    items = of_kind(tree, "list_item")
    assert [(i.attributes["label"], i.attributes["depth"]) for i in items] == [
        ("3.", 1),
        ("4.", 1),
        ("1)", 2),
        ("2)", 2),
    ]
    assert owned(tree, items[1]) == ["4. four"], "an item owns the lines before its nested list"
    assert inner.parent_id == items[1].node_id


def test_loose_items_hold_paragraphs_and_own_their_marker() -> None:
    tree = normalize("* one\n\n  more\n\n* two\n")
    first, _ = of_kind(tree, "list_item")
    assert owned(tree, first) == ["*"]
    assert [node.text for node in tree.children(first)] == ["one", "more"]


def test_task_items_record_checked() -> None:
    tree = normalize("- [ ] todo\n- [x] done\n- plain\n")
    items = of_kind(tree, "list_item")
    assert [item.attributes.get("checked") for item in items] == [False, True, None]
    assert owned(tree, items[1]) == ["- [x] done"]


# -- quotes, alerts, footnotes ----------------------------------------------------------


def test_blockquote_owns_its_prefixes_and_nests() -> None:
    tree = normalize("> outer\n> > inner\n")
    outer, inner = of_kind(tree, "blockquote")
    assert inner.parent_id == outer.node_id
    # Line two is "> > inner": its first ">" is the outer quote's, the second the inner's.
    assert owned(tree, outer) == [">", ">"] and owned(tree, inner) == [">"]
    assert [node.text for node in of_kind(tree, "paragraph")] == ["outer", "inner"]


def test_prefixes_of_a_list_inside_a_quote_belong_to_the_quote() -> None:
    tree = normalize("> 1. a\n> 2. b\n")
    (quote,) = of_kind(tree, "blockquote")
    assert owned(tree, quote) == [">", ">"]
    assert [owned(tree, item) for item in of_kind(tree, "list_item")] == [["1. a"], ["2. b"]]


def test_gfm_alert_is_an_admonition() -> None:
    tree = normalize("> [!WARNING]\n> Hot.\n")
    (alert,) = of_kind(tree, "admonition")
    assert dict(alert.attributes) == {"name": "warning"}
    assert owned(tree, alert) == ["> [!WARNING]\n>"]


def test_footnote_definition_and_reference() -> None:
    tree = normalize("Pears[^w].\n\n[^w]: Weekly.\n")
    paragraph, note_text = of_kind(tree, "paragraph")
    assert paragraph.attributes["footnotes"] == ("w",)
    (footnote,) = of_kind(tree, "footnote")
    assert dict(footnote.attributes) == {"label": "w"}
    assert owned(tree, footnote) == ["[^w]:"] and note_text.text == "Weekly."


# -- tables ---------------------------------------------------------------------------


def test_table_alignment_header_row_owns_delimiter_and_rows() -> None:
    source = "| a | b | c |\n|:--|:-:|--:|\n| 1 | `x|y` | 3 |\n| 4 |\n"
    tree = normalize(source)
    (table,) = of_kind(tree, "table")
    assert table.attributes["align"] == ("left", "center", "right")
    rows = of_kind(tree, "table_row")
    assert [(row.text, row.attributes["header"]) for row in rows] == [
        ("| a | b | c |\n|:--|:-:|--:|", True),
        ("| 1 | `x|y` | 3 |", False),
        ("| 4 |", False),
    ]
    assert owned(tree, table) == []


def test_header_only_table() -> None:
    tree = normalize("| h |\n| - |\n")
    (row,) = of_kind(tree, "table_row")
    assert row.text == "| h |\n| - |" and row.attributes["header"] is True


def test_a_first_row_of_pictures_is_data_not_a_header() -> None:
    """all-contributors' grid: GFM makes its first row of avatars the header row."""
    avatar = "[![{0}](https://github.com/{0}.png?size=100)](https://github.com/{0})"
    grid = (
        f"{avatar.format('ann')} | {avatar.format('bob')} |\n---|---|\n"
        f"{avatar.format('cy')} | <img src='d.png'> |\n"
    )
    logos = "| <a href='https://a.example'><img src='a.svg'/></a> | |\n|---|---|\n| x | y |\n"
    schema = "| Feature | ![A](a.png) | ![B](b.png) |\n|---|---|---|\n| fast | yes | no |\n"
    for source, header in ((grid, False), (logos, False), (schema, True)):
        first = of_kind(normalize(source), "table_row")[0]
        assert first.attributes["header"] is header, source


def test_a_picture_grid_wider_than_the_budget_is_cut_not_refused() -> None:
    from fastrag.ingestion.steps.chunking import StructureAwareChunker, Utf8ByteTokenizer

    cell = "[![{0}](https://avatars.example/{0}.png)](https://example.org/people/{0})"
    row = " | ".join(cell.format(f"person-{n}") for n in range(12))
    source = f"# Team\n\n| {row} |\n|{'---|' * 12}\n| {row} |\n"
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(), target_tokens=300, max_tokens=400, cache=False
    )
    pieces = list(chunker.split(Document("team", "t", source, {"content_format": "markdown"})))
    assert all(meta["embedding_token_count"] <= 400 for _, meta in pieces)
    assert any(meta.get("atomic_structure_loss") for _, meta in pieces)


# -- links, front matter, definitions ---------------------------------------------------


def test_links_and_images_with_targets_on_their_block() -> None:
    source = (
        'See [the *guide*](https://x.org/g "T"), [ref][r], <https://auto.org> and '
        "![alt](pic.png) [![logo](l.png)](https://home)\n\n[r]: https://ref.org\n"
    )
    tree = normalize(source)
    (paragraph,) = of_kind(tree, "paragraph")
    assert paragraph.attributes["links"] == (
        ("the guide", "https://x.org/g"),
        ("ref", "https://ref.org"),
        ("https://auto.org", "https://auto.org"),
        ("logo", "https://home"),
    )
    assert paragraph.attributes["images"] == (("alt", "pic.png"), ("logo", "l.png"))
    assert excluded(tree, "link_definition") == ["[r]: https://ref.org"]


def test_links_in_headings_table_rows_and_tight_items() -> None:
    tree = normalize("# [A](a)\n\n- [B](b)\n\n| [C](c) |\n|---|\n")
    heading = of_kind(tree, "heading")[0]
    assert heading.attributes["links"] == (("A", "a"),) and heading.text == "A"
    assert of_kind(tree, "list_item")[0].attributes["links"] == (("B", "b"),)
    assert of_kind(tree, "table_row")[0].attributes["links"] == (("C", "c"),)


def test_each_link_lands_on_the_block_open_when_it_closes() -> None:
    # The walker reuses a block's link list for its next links: every change of block
    # (item to nested item and back, leaf to container, quote to paragraph) must switch.
    source = (
        "- [a](1) x\n  - [b](2)\n  - [c](3) [d](4)\n- [e](5)\n\n"
        "> [f](6)\n>\n> - [g](7)\n\nend [h](8) ![i](9) [j](10)\n"
    )
    tree = normalize(source)
    found = {
        node.node_id: node.attributes["links"] for node in tree.nodes if "links" in node.attributes
    }
    assert found == {
        "d:list_item:2": (("a", "1"),),
        "d:list_item:4": (("b", "2"),),
        "d:list_item:5": (("c", "3"), ("d", "4")),
        "d:list_item:6": (("e", "5"),),
        "d:paragraph:8": (("f", "6"),),
        "d:list_item:10": (("g", "7"),),
        "d:paragraph:11": (("h", "8"), ("j", "10")),
    }
    assert tree.node("d:paragraph:11").attributes["images"] == (("i", "9"),)


def test_repeated_links_share_their_strings() -> None:
    # Documents repeat links; every repeat holds the same two strings (memory): pairs
    # are kept flat and rebuilt on each read, their strings are not copied.
    tree = normalize("[`fs`][] and [`fs`][]\n\n- [`fs`][]\n\n[`fs`]: fs.md\n")
    (paragraph,) = of_kind(tree, "paragraph")
    (item,) = of_kind(tree, "list_item")
    first, second = paragraph.attributes["links"]
    (third,) = item.attributes["links"]
    assert first == second == third == ("fs", "fs.md")
    assert first[0] is second[0] is third[0] and first[1] is second[1] is third[1]


def test_yaml_front_matter_is_excluded_and_kept_raw() -> None:
    source = "---\ntitle: !!python/object x\nlist: [1, 2]\n---\n# Body\n"
    tree = normalize(source)
    assert dict(tree.metadata) == {
        "front_matter": "title: !!python/object x\nlist: [1, 2]\n",
        "front_matter_format": "yaml",
    }
    assert excluded(tree, "front_matter") == ["---\ntitle: !!python/object x\nlist: [1, 2]\n---\n"]
    assert [node.text for node in of_kind(tree, "heading")] == ["Body"]


def test_toml_front_matter_with_crlf() -> None:
    tree = normalize("+++\r\na = 1\r\n+++\r\n\r\ntext\r\n")
    assert tree.metadata["front_matter"] == "a = 1\r\n"
    assert tree.metadata["front_matter_format"] == "toml"
    assert [node.text for node in of_kind(tree, "paragraph")] == ["text"]


# npm's documentation (Artistic-2.0), docs/content/commands/npm-audit.md, shortened: the
# page title is in the front matter, the body's headings start at level 3.
NPM_AUDIT = (
    "---\ntitle: npm-audit\nsection: 1\ndescription: Run a security audit\n---\n\n"
    "### Synopsis\n\n```bash\nnpm audit [fix|signatures]\n```\n\n"
    "### Description\n\nThe audit command submits a description of the dependencies.\n"
)


def test_a_front_matter_title_heads_a_document_without_a_level_one_heading() -> None:
    tree = normalize(NPM_AUDIT)
    root, section, heading = tree.nodes[:3]
    assert root.text == "npm-audit" and root.children == (section.node_id,)
    assert (section.kind, section.level, section.text) == ("section", 1, "npm-audit")
    assert (section.start, section.end) == (NPM_AUDIT.index("npm-audit"), len(NPM_AUDIT))
    assert (heading.kind, heading.level, heading.text) == ("heading", 1, "npm-audit")
    assert owned(tree, heading) == ["npm-audit"]
    assert [tree.node(child).text for child in section.children[1:]] == [
        "Synopsis",
        "Description",
    ]
    assert excluded(tree, "front_matter") == [
        "---\ntitle: ",
        "\nsection: 1\ndescription: Run a security audit\n---\n",
    ]
    assert tree.metadata["front_matter"].startswith("title: npm-audit\n")


def test_chunks_of_a_titled_page_carry_the_title_in_their_heading_path() -> None:
    from fastrag.ingestion.steps.chunking import StructureAwareChunker

    chunker = StructureAwareChunker(
        cache=False, target_tokens=15, max_tokens=30, min_preferred_tokens=5
    )
    document = Document("d", "test", NPM_AUDIT, {"content_format": "markdown"})
    paths = [tuple(meta["heading_path"]) for _content, meta in chunker.split(document)]
    assert paths and all(path[0] == "npm-audit" for path in paths)
    assert ("npm-audit", "Description") in paths


@pytest.mark.parametrize(
    ("front", "title"),
    [
        ('---\ntitle: "Quoted: yes"\n---\n', "Quoted: yes"),
        ("---\ntitle: 'Single'\nweight: 3\n---\n", "Single"),
        ('+++\ntitle = "Hugo page"\n+++\n', "Hugo page"),
        ('+++\r\ntitle = "CRLF"\r\n+++\r\n', "CRLF"),
    ],
)
def test_plain_and_quoted_titles_are_read(front: str, title: str) -> None:
    tree = normalize(front + "\nSome text.\n")
    assert tree.nodes[0].text == title and tree.nodes[2].text == title
    assert owned(tree, tree.nodes[2]) == [title]


@pytest.mark.parametrize(
    "front",
    [
        "---\ntitle: |\n  A block scalar\n---\n",
        "---\ntitle: A # and a comment\n---\n",
        '---\ntitle: "An \\"escaped\\" quote"\n---\n',
        "---\n  title: Nested\n---\n",
        "---\ntitle: [a, list]\n---\n",
        "---\ntitle:\n---\n",
        "---\ndescription: No title\n---\n",
    ],
)
def test_other_front_matter_gives_no_heading(front: str) -> None:
    tree = normalize(front + "\nSome text.\n")
    assert of_kind(tree, "heading") == [] and tree.nodes[0].text == ""
    assert excluded(tree, "front_matter") == [front]


def test_a_body_level_one_heading_wins_over_the_front_matter_title() -> None:
    source = "---\ntitle: Page\n---\n\n# Real title\n\nText.\n"
    tree = normalize(source)
    assert [node.text for node in of_kind(tree, "heading")] == ["Real title"]
    assert tree.nodes[0].text == "Real title"
    assert excluded(tree, "front_matter") == ["---\ntitle: Page\n---\n"]


@pytest.mark.parametrize(
    "source",
    [
        "text\n\n---\na: b\n---\n",  # not at the very start
        "---\n\na: b\n---\n",  # opening line followed by a blank line
        "---\na: b\n",  # never closed
    ],
)
def test_dashes_elsewhere_are_not_front_matter(source: str) -> None:
    tree = normalize(source)
    assert dict(tree.metadata) == {} and excluded(tree, "front_matter") == []


def test_link_definitions_after_a_list_are_excluded_not_owned_by_it() -> None:
    tree = normalize("- item\n\n[x]: /y\n[z]: /w\n")
    assert excluded(tree, "link_definition") == ["[x]: /y", "[z]: /w"]
    assert owned(tree, of_kind(tree, "list_item")[0]) == ["- item"]


def test_definition_titles_on_the_next_line_and_repeated_labels() -> None:
    tree = normalize("[a]: /x\n  'title'\n[a]: /again\n\nuse [a]\n\n[a]: /third\n")
    assert excluded(tree, "link_definition") == ["[a]: /x\n  'title'", "[a]: /again", "[a]: /third"]
    (used,) = of_kind(tree, "paragraph")
    assert used.attributes["links"] == (("a", "/x"),), "the first definition wins"
    assert tree.diagnostics == ()


def test_source_the_parser_drops_is_kept_as_a_paragraph() -> None:
    # pulldown-cmark emits no event for "pear" here (indented code, then " \r").
    source = "    code\n \rpear\n"
    tree = normalize(source)
    assert [node.text for node in of_kind(tree, "paragraph")] == ["pear"]
    assert any("no parsed block" in message for message in tree.diagnostics)
    assert excluded(tree, "link_definition") == []


# -- offsets, encodings, empty input ------------------------------------------------------


def test_non_ascii_offsets_are_code_points() -> None:
    source = "# Père 🍐\n\nÉté — 日本語 [x](y)\n"
    tree = normalize(source)
    heading = of_kind(tree, "heading")[0]
    paragraph = of_kind(tree, "paragraph")[0]
    assert heading.spans[0].slice(source) == "# Père 🍐" and heading.text == "Père 🍐"
    assert paragraph.text == "Été — 日本語 [x](y)" == paragraph.spans[0].slice(source)


def test_lone_surrogates_are_kept_in_text_and_diagnosed() -> None:
    source = "# a\ud800b\n\npara \udfff end\n"
    tree = normalize(source)
    assert of_kind(tree, "paragraph")[0].text == "para \udfff end"
    assert of_kind(tree, "heading")[0].spans[0].slice(source) == "# a\ud800b"
    assert any("surrogate" in message and "offset 3" in message for message in tree.diagnostics)


def test_nul_bytes_and_mixed_line_ends() -> None:
    source = "a\x00b\r\n# h\rc\nd\r\n\r\n- e\r- f\n"
    tree = normalize(source)
    assert [node.text for node in of_kind(tree, "paragraph")] == ["a\x00b", "c\nd"]
    assert [node.text for node in of_kind(tree, "heading")] == ["h"]
    assert [owned(tree, item) for item in of_kind(tree, "list_item")] == [["- e"], ["- f"]]


@pytest.mark.parametrize("source", ["", "   ", "\n\n\r\n", "\t"])
def test_empty_and_blank_documents(source: str) -> None:
    tree = normalize(source)
    assert len(tree.nodes) == 1 and tree.units == ()
    assert tree.root.spans == ((SourceSpan(0, len(source)),) if source else ())
    assert excluded(tree, "whitespace") == ([source] if source else [])


# -- identity, options, registry --------------------------------------------------------


def test_identity_names_parser_version_and_changed_options() -> None:
    assert MarkdownNormalizer.identity.startswith("markdown:pyromark-0.10.3:")
    assert MarkdownNormalizer().identity == MarkdownNormalizer.identity
    assert MarkdownNormalizer(max_depth=5).identity.endswith(":max_depth=5")
    assert MarkdownNormalizer(max_characters=10).identity == MarkdownNormalizer.identity


@pytest.mark.parametrize("option", ["max_characters", "max_depth", "max_table_cells"])
@pytest.mark.parametrize("value", [0, -1, 1.5, "10"])
def test_invalid_options_are_rejected(option: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=option):
        MarkdownNormalizer(**{option: value})  # type: ignore[arg-type]


def test_registry_routes_markdown_documents_here() -> None:
    document = Document("r", "s", "# T\n", {"content_format": "markdown"})
    tree = NormalizerRegistry().normalize(document)
    assert tree.format == "markdown" and of_kind(tree, "heading")[0].text == "T"


# -- limits and pathological input -------------------------------------------------------


def test_max_characters_names_the_limit() -> None:
    with pytest.raises(NormalizationError, match=r"max_characters=10\b"):
        normalize("x" * 11, MarkdownNormalizer(max_characters=10))


@pytest.mark.parametrize("marker", ["> ", "- ", "1. "])
def test_100k_nested_containers_on_one_line_are_flattened(marker: str) -> None:
    source = marker * 100_000 + "deep\n"
    tree = normalize(source)
    assert max(len(tree.ancestors(node)) for node in tree.nodes) <= 2 * 100 + 1
    assert any("max_depth=100" in message for message in tree.diagnostics)
    deepest_owner = tree.node(tree.units[-1].node_id)
    assert tree.units[-1].span.slice(source).endswith("deep")
    assert deepest_owner.kind in {"blockquote", "list_item"}


def test_deep_nesting_over_lines_respects_a_small_max_depth() -> None:
    source = "".join(">" * level + " line\n" for level in range(1, 60))
    tree = normalize(source, MarkdownNormalizer(max_depth=10))
    assert len(of_kind(tree, "blockquote")) == 10
    assert any("max_depth=10" in message for message in tree.diagnostics)


def test_one_long_line() -> None:
    source = "word " * 1_000_000  # 5 MB; 50 MB is measured by hand (see bench/)
    tree = normalize(source)
    (paragraph,) = of_kind(tree, "paragraph")
    assert len(paragraph.text) == len(source) - 1


def test_many_table_cells_and_the_cell_limit() -> None:
    columns, rows = 100, 2000  # 200,000 cells; one million is measured by hand
    header = "|" + "h|" * columns + "\n|" + "-|" * columns + "\n"
    source = header + ("|" + "c|" * columns + "\n") * rows
    tree = normalize(source)
    assert len(of_kind(tree, "table_row")) == rows + 1
    with pytest.raises(NormalizationError, match="max_table_cells=1000"):
        normalize(source, MarkdownNormalizer(max_table_cells=1000))


def test_wide_header_over_short_rows_does_not_expand_quadratically() -> None:
    # GFM pads short rows to the header's width: 240 kB could mean 10^9 empty cells.
    # pulldown-cmark caps the padding (it stops the table and reads the rest as a
    # paragraph); max_table_cells counts the cells it does emit, padding included.
    source = "|" + "a|" * 30_000 + "\n|" + "-|" * 30_000 + "\n" + "|x|\n" * 30_000
    tree = normalize(source)
    assert tree.retained_characters + tree.excluded_characters == len(source)
    assert 1 < len(of_kind(tree, "table_row")) < 100
    with pytest.raises(NormalizationError, match="max_table_cells=40000"):
        normalize(source, MarkdownNormalizer(max_table_cells=40_000))


def test_many_pathological_inline_delimiters() -> None:
    source = "*" * 50_000 + "x" + "_" * 50_000 + "[" * 50_000 + "\n"
    (paragraph,) = of_kind(normalize(source), "paragraph")
    assert paragraph.text == source.rstrip("\n")


def test_an_html_heading_block_is_a_heading_that_opens_a_section() -> None:
    # READMEs centre their title with HTML; GitHub renders it as the heading it is.
    source = (
        '<h1 align="center">Chonkie &amp; Co <img src="logo.png"/></h1>\n\nIntro.\n\n'
        "<h2>Install</h2>\n\npip install x\n\n"
        "- item\n\n  <h3>inside an item</h3>\n\n"
        '<h1><img src="banner.png"></h1>\n\n'
        "<h2>A</h2>\n<p>and more</p>\n\n"
        f"<h4>{'lang | ' * 60}</h4>\n"
    )
    tree = normalize(source)
    headings = of_kind(tree, "heading")
    assert [(h.text, h.level) for h in headings] == [
        ("Chonkie & Co", 1),
        ("Install", 2),
        ("inside an item", 3),
        ("A", 2),  # a heading and more in one block: the heading, then the rest
    ]
    assert owned(tree, headings[0]) == [
        '<h1 align="center">Chonkie &amp; Co <img src="logo.png"/></h1>'
    ]
    assert [(s.text, s.level) for s in of_kind(tree, "section")] == [
        ("Chonkie & Co", 1),
        ("Install", 2),  # the heading inside a list item opens no section
        ("A", 2),
    ]
    assert [node.text[:12] for node in of_kind(tree, "html_block")] == [
        "and more",
        "lang | lang ",  # a 400-character "heading" is a banner
    ]
    assert '<h1><img src="banner.png"></h1>' in excluded(tree, "markup")
    # A title written as plain text is owned alone, its tags markup: the chunk shows
    # "Install", not "<h2>Install</h2>".
    assert owned(tree, headings[1]) == ["Install"]
    assert owned(tree, headings[2]) == ["inside an item"]
    assert "<h2>" in excluded(tree, "markup") and "</h2>" in excluded(tree, "markup")
    assert tree.validate() is tree


def test_equal_attributes_share_one_mapping() -> None:
    # Memory: a list item's label and depth repeat thousands of times in a document.
    source = "- a\n- b\n- c\n\n```js\n1\n```\n\n```js\n2\n```\n\nSee [x](u).\n\nSee [x](u).\n"
    tree = normalize(source)
    nodes = tree.nodes
    assert isinstance(nodes, Nodes)
    packed = nodes._attributes  # (keys, values) of each node, as stored

    def stored(kind: str) -> list[object]:
        return [packed[tree.node_index[node.node_id]] for node in of_kind(tree, kind)]

    first, second, third = of_kind(tree, "list_item")
    assert first.attributes == second.attributes == third.attributes == {"label": "-", "depth": 1}
    items = stored("list_item")
    assert items[0] is items[1] is items[2]
    one, two = stored("code")
    assert one is two
    linked = [node.attributes for node in of_kind(tree, "paragraph")]
    assert linked[0] == linked[1] == {"links": (("x", "u"),)}
    own, other = stored("paragraph")  # each its own, their keys shared
    assert own is not other and own is not None and other is not None
    assert own[0] is other[0]


def test_items_opening_with_the_same_attributes_get_their_own_once_they_add_to_them() -> None:
    # The draft shares one attribute dict per (label, depth); a task marker, a link or a
    # footnote must not reach the other items that share it.
    source = "- plain\n- [x] done\n- see [a](u)[^n]\n- plain again\n  - nested\n\n[^n]: Note.\n"
    items = of_kind(normalize(source), "list_item")
    assert [dict(item.attributes) for item in items] == [
        {"label": "-", "depth": 1},
        {"label": "-", "depth": 1, "checked": True},
        {"label": "-", "depth": 1, "links": (("a", "u"),), "footnotes": ("n",)},
        {"label": "-", "depth": 1},
        {"label": "-", "depth": 2},
    ]
