"""Static tables of the HTML adapter: how each tag name behaves, in one place.

The tree builder looks a tag up once (``CATEGORY``) and dispatches on the result; nothing
in the hot path compares tag names one by one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "BARRIER_TAGS",
    "CATEGORY",
    "CHROME_CLASSES",
    "CHROME_ROLES",
    "ENTITY",
    "LANGUAGE_CLASS",
    "MULTI_SPACE",
    "NAV_RELS",
    "OPTIONAL_END",
    "PERMALINK_CLASSES",
    "WS",
    "Category",
    "alt_value_span",
    "attribute",
    "chrome_verdict",
    "immediate_redirect",
    "is_navigation_link",
    "is_self_label",
    "is_site_menu",
    "is_site_navigation",
    "is_symbol_permalink",
    "marks_main",
    "names_page",
    "ordered_label",
]


class Category:
    """What a start tag does to the tree (anything not listed is inline markup).

    Plain ``int`` constants, not an ``IntEnum``: the tree builder tests a start tag's
    category several times per tag, and reading an enum member off its class costs
    several times more than reading a plain class attribute (over a hundred thousand
    start tags per corpus). Compare them with ``==``.
    """

    BOUNDARY: Final = 1  # block-level, no node of its own: div, section, form, figure …
    MAIN: Final = 2  # main, article: content inside is never boilerplate
    CHROME: Final = 3  # nav, aside, header, footer: page chrome when outside the main content
    PARA: Final = 4  # p, summary
    HEADING: Final = 5  # h1 … h6
    PRE: Final = 6  # pre, listing, xmp
    LIST: Final = 7  # ul, ol, menu, dir
    ITEM: Final = 8  # li
    DL: Final = 9
    DT: Final = 10
    DD: Final = 11
    TABLE: Final = 12
    TSECT: Final = 13  # thead, tbody, tfoot
    ROW: Final = 14  # tr
    CELL: Final = 15  # td, th
    CAPTION: Final = 16  # caption, figcaption
    QUOTE: Final = 17  # blockquote
    # script, style, template, noscript, button: excluded with their own reason
    SUPPRESS: Final = 18
    VOID: Final = 19  # elements without content or end tag
    TITLE: Final = 20
    LINK: Final = 21  # a
    CODE: Final = 22  # code: may name the language of an enclosing pre


def _table(groups: dict[int, str]) -> Mapping[str, int]:
    table: dict[str, int] = {}
    for category, names in groups.items():
        for name in names.split():
            table[name] = category
    return MappingProxyType(table)


CATEGORY: Mapping[str, int] = _table(
    {
        Category.BOUNDARY: "address center details dialog div fieldset figure form hgroup "
        "legend search section",
        Category.MAIN: "main article",
        Category.CHROME: "nav aside header footer",
        Category.PARA: "p summary",
        Category.HEADING: "h1 h2 h3 h4 h5 h6",
        Category.PRE: "pre listing xmp plaintext",
        Category.LIST: "ul ol menu dir",
        Category.ITEM: "li",
        Category.DL: "dl",
        Category.DT: "dt",
        Category.DD: "dd",
        Category.TABLE: "table",
        Category.TSECT: "thead tbody tfoot",
        Category.ROW: "tr",
        Category.CELL: "td th",
        Category.CAPTION: "caption figcaption",
        Category.QUOTE: "blockquote",
        Category.SUPPRESS: "script style template noscript button select datalist",
        Category.VOID: "area base br col embed hr img input keygen link meta param source "
        "track wbr frame basefont bgsound",
        Category.TITLE: "title",
        Category.LINK: "a",
        Category.CODE: "code",
    }
)

# Elements whose end tag HTML lets authors omit: closing them implicitly is not an error.
OPTIONAL_END: frozenset[str] = frozenset(
    {"html", "head", "body", "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody"}
    | {"tfoot", "caption", "colgroup", "option", "optgroup", "rb", "rt", "rp", "summary"}
)

# End tags of other elements do not reach across these (the HTML "scope" boundaries).
BARRIER_TAGS: tuple[str, ...] = ("table", "td", "th", "caption", "button", "object")

CHROME_ROLES: frozenset[str] = frozenset({"navigation", "banner", "contentinfo"})

# Navigation chrome that documentation generators mark by class, for pages that mark no
# main content (element name -> lowercased classes): Texinfo (``div.nav-panel``, ``ul.section-toc``,
# ``ul.mini-toc``, ``table.menu``, the wrappers of its tables of contents; the tables
# themselves below, ``TEXINFO_CONTENTS``), DocBook XSL (``div.navheader``/``div.navfooter``,
# ``table.nav``, ``div.toc``) and gtk-doc (``table.navigation``). Texinfo's older
# ``div.header`` is left out on purpose: the class is too common on hand-written pages,
# where it may hold the page's own title; the navigation line inside it is caught by its
# links (``NAV_RELS``). Hand-written sites mark their menus so too (sqlite.org's
# ``div.menu.mainmenu`` and ``div.menu.submenu``, WordPress's ``ul.menu``, Bootstrap's
# ``div.navbar``): a bar of links to the site's other pages above every page.
_SITE_MENUS = frozenset({"menu", "mainmenu", "submenu", "menubar", "navbar", "topnav"})
CHROME_CLASSES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "div": frozenset(
            {"nav-panel", "navheader", "navfooter", "toc"}
            | {"navigation"}  # LaTeX2HTML's panels (Next, Up, Previous, Index)
            # Texinfo's wrappers of its tables of contents with their headings (6.x, 7.x)
            | {"contents_element", "overview_element", "element-contents"}
            | {"element-shortcontents"}
            | _SITE_MENUS
        ),
        "ul": frozenset({"section-toc", "mini-toc"} | _SITE_MENUS),
        "table": frozenset({"menu", "nav", "navigation"}),
    }
)

# Texinfo's tables of contents without a wrapper (6.x: ``div.contents`` right after its
# "Table of Contents" heading), on pages makeinfo or texi2any generated only: Doxygen
# puts every page's whole content in a ``div.contents``.
TEXINFO_CONTENTS: frozenset[str] = frozenset({"contents", "shortcontents"})

# Texinfo's generated indexes (``@printindex``): ``table.index-cp`` (6.x; any index name:
# bash has ``index-bt``, ``index-rw``) and ``table.cp-entries-printindex`` with its letter
# bars (7.x). Each row is a term and the node it appears in: navigation, left out as the
# PDF parser leaves out a back-of-book index.
_TEXINFO_INDEX = re.compile(
    r"index-[a-z]{2,3}|[a-z]{2,3}-(?:entries|letters-header|letters-footer)-printindex"
)

# ``summary`` of DocBook's and gtk-doc's navigation tables.
_NAV_SUMMARIES = frozenset({"navigation header", "navigation footer"})

# Link relations that move between the pages of a manual (HTML's rel keywords plus the
# ones Texinfo and DocBook write): a block whose every link has one is a navigation line.
NAV_RELS: frozenset[str] = frozenset(
    {"next", "prev", "previous", "up", "index", "contents", "start", "home"}
)

# Classes of permalink anchors that documentation generators put after headings and terms
# (a "¶" or "#"): Sphinx/MkDocs, Texinfo, AnchorJS, markdown-it-anchor/VuePress, and
# Docusaurus (``a.hash-link``, whose text is a zero-width space); and the links back from
# a footnote to its references ("↩", "↩²" …): Python-Markdown's and markdown-it's
# ``footnote-backref``, Pandoc's ``footnote-back``, GitHub's and remark's
# ``data-footnote-backref``.
PERMALINK_CLASSES: frozenset[str] = frozenset(
    {"headerlink", "copiable-anchor", "anchorjs-link", "header-anchor", "hash-link"}
    | {"footnote-backref", "footnote-back", "data-footnote-backref"}
)

# HTML's inter-element whitespace (not Unicode whitespace: U+00A0 is text).
WS = " \t\n\r\f"
MULTI_SPACE = re.compile(" {2,}")

# The character-reference pattern of html.unescape itself, so pieces decode exactly as the
# whole run would.
ENTITY = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")

LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)")

# Cheap probe for "this page marks its main content" (decides page-level header/footer):
# <main, <article or role=main, in any case. Two searches rather than one alternation: a
# case-insensitive pattern that starts with a word boundary is tried at every position
# (about 20 MB/s), while one that starts with "<", or with a plain [rR] (no other
# character folds to r), lets the regex engine skip ahead (5-10x faster on pages
# without a main region, which are scanned to the end).
_MAIN_TAG = re.compile(r"<(?:main|article)[\s/>]", re.IGNORECASE)
_MAIN_ROLE = re.compile(r"[rR](?<=\b[rR])(?i:ole\s*=\s*[\"']?main\b)")

_ALT = re.compile(r"""[\s"'/]alt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE)

_ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


def marks_main(content: str) -> bool:
    """Whether ``content`` has ``<main``, ``<article`` or ``role=main`` anywhere."""
    return _MAIN_TAG.search(content) is not None or _MAIN_ROLE.search(content) is not None


def attribute(attrs: list[tuple[str, str | None]], name: str) -> str | None:
    """The value of attribute ``name`` ("" for a bare attribute), or None when absent."""
    for key, value in attrs:
        if key == name:
            return "" if value is None else value
    return None


# A permalink anchor that carries no generator class (Node.js's doctool writes
# ``<a class="mark" href="#path" id="path">#</a>``; GitHub, Hugo and hand-written pages have
# their own spellings): a link to an in-page fragment whose whole content is one of the
# marks generators use ("#", "¶", "§", "🔗", "⚓", Doxygen's "◆" before every member's
# title; and the "↩" or "↑" back from a footnote to its reference, which Pandoc,
# Python-Markdown, markdown-it and GitHub put after every footnote; raw or as a character
# reference, maybe with a variation selector or no-break spaces), followed at once by its
# end tag. Recognised by that shape rather than by class names, so a heading wrapped in a
# self-link (``<a href="#x">Title</a>``) or a footnote reference ("1", "*") never matches.
_SYMBOL_LINK_TEXT = re.compile(
    r"[ \t\n\r\f]*(?:[#¶§⚓◆↩↑]|\U0001F517|&(?:para|sect|num|larrhk|hookleftarrow|uarr);"
    r"|&#(?:182|167|35|9670|8617|8593|x[bB]6|x[aA]7|x23|x25[cC]6|x21[aA]9|x2191);)"
    r"(?:[\ufe0e\ufe0f]|&#(?:6503[89]|x[fF][eE]0[eEfF]);)?"
    r"(?:[ \t\n\r\f\xa0]|&nbsp;|&#160;)*</a[ \t\n\r\f]*>",
    re.IGNORECASE,
)


def is_symbol_permalink(attrs: list[tuple[str, str | None]], content: str, tag_end: int) -> bool:
    """Whether the ``<a>`` whose start tag ends at ``tag_end`` is a bare permalink mark."""
    href = attribute(attrs, "href")
    if not href or href[0] != "#":
        return False
    return _SYMBOL_LINK_TEXT.match(content, tag_end) is not None


# A self-label: a link to the element that holds it and nothing else, ``<div id="r-abi">
# <a href="#r-abi">[abi]</a></div>`` — the Rust Reference's rule identifiers before every
# paragraph, anchors a reader copies, not text. Only in a div, p or span: a heading (or
# term) whose title is a link to itself (mdBook's ``<h2 id="x"><a href="#x">Title</a>``)
# keeps it.
_SELF_LABEL_PARENTS = frozenset({"div", "p", "span"})
_OPENING_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9]*)(\s[^<>]*)?>[ \t\n\r\f]*\Z")
_ID = re.compile(r"""(?:^|\s)id\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE)
_LINK_THEN_END = re.compile(r"</a[ \t\n\r\f]*>[ \t\n\r\f]*</([A-Za-z][A-Za-z0-9]*)[ \t\n\r\f]*>")
_SELF_LABEL_LENGTH = 200
"""Longest inner markup of a self-label: a whole paragraph is never one."""


def is_self_label(attrs: list[tuple[str, str | None]], content: str, tag_end: int) -> bool:
    """Whether the ``<a>`` whose start tag ends at ``tag_end`` links to the ``div``,
    ``p`` or ``span`` that it is the whole content of."""
    href = attribute(attrs, "href")
    if not href or len(href) < 2 or href[0] != "#":
        return False
    start = content.rfind("<", 0, tag_end)  # this <a>
    parent_start = content.rfind("<", max(0, start - 1000), start)
    if parent_start < 0:
        return False
    opening = _OPENING_TAG.match(content, parent_start, start)
    if opening is None or opening.group(1).lower() not in _SELF_LABEL_PARENTS:
        return False
    found = _ID.search(opening.group(2) or "")
    if found is None or next(value for value in found.groups() if value is not None) != href[1:]:
        return False
    close = content.find("</a", tag_end, tag_end + _SELF_LABEL_LENGTH)
    if close < 0 or "<a" in content[tag_end:close].lower():
        return False
    after = _LINK_THEN_END.match(content, close)
    return after is not None and after.group(1).lower() == opening.group(1).lower()


# A page that sends the browser elsewhere at once, ``<meta http-equiv="refresh"
# content="0; URL=./vec/vec.html">`` (mdBook's and Sphinx's redirect stubs, moved pages):
# a reader never sees its own text ("Redirecting to..."). A delay of up to a second
# counts; a longer one (a page that reloads itself every minute) does not.
_REFRESH = re.compile(r"<meta\b[^<>]*?\bhttp-equiv\s*=\s*[\"']?refresh\b[^<>]*>", re.IGNORECASE)
_CONTENT = re.compile(
    r"""[\s"']content\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE
)
_TARGET = re.compile(
    r"""\s*(\d+(?:\.\d*)?)\s*[;,]\s*(?:url\s*=\s*)?["']?([^"'\s][^"']*)""", re.IGNORECASE
)
_REDIRECT_DELAY = 1.0


def immediate_redirect(content: str) -> str | None:
    """The target of a refresh that leaves the page within a second, or None (also for
    one inside a comment, or a refresh without a target: a page reloading itself)."""
    for meta in _REFRESH.finditer(content):
        comment = content.rfind("<!--", 0, meta.start())
        if comment >= 0 and content.find("-->", comment + 4, meta.start()) < 0:
            continue  # commented out
        value = _CONTENT.search(meta.group(0))
        if value is None:
            continue
        target = _TARGET.match(next(part for part in value.groups() if part is not None))
        if target is not None and float(target.group(1)) <= _REDIRECT_DELAY:
            return target.group(2).strip()
    return None


# Sphinx's generated navigation: the general index (``table.indextable``, with
# ``genindextable`` in newer versions: every term and the pages it appears on), the module
# index (``table.indextable.modindextable``), their letter bars, and the tables of
# contents ``.. toctree::`` writes (``div.toctree-wrapper``: the titles of other pages);
# and LaTeX2HTML's list of a node's subsections (``ul.ChildLinks``, under its
# "Subsections" label).
_INDEX_CLASSES = frozenset(
    {"indextable", "genindex-jumpbox", "modindex-jumpbox", "toctree-wrapper", "childlinks"}
)


def is_generated_index(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether a ``table``, ``div`` or ``ul`` with ``attrs`` is generated navigation
    (Sphinx's indexes, their letter bars, its toctrees; LaTeX2HTML's lists of
    subsections): left out as the PDF parser leaves out a back-of-book index and a table
    of contents."""
    css = attribute(attrs, "class")
    return css is not None and not _INDEX_CLASSES.isdisjoint(css.lower().split())


def is_site_navigation(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an element is navigation wherever it stands, inside a main region too:

    * a breadcrumb trail (a class or ``aria-label`` naming one: rustdoc's
      ``rustdoc-breadcrumbs``, Sphinx themes' ``wy-breadcrumbs``, Bootstrap's,
      Docusaurus's and MkDocs's ``breadcrumb``), which repeats the page's place in the
      site ("std :: vec") and before the first heading became a chunk;
    * Sphinx quickstart's "Indices and tables" section (``id="indices-and-tables"``:
      links to the generated index, module index and search pages);
    * docutils' table of contents (``.. contents::``: ``nav.contents``, older
      ``div.contents.topic``), a list of the page's own headings: Python's FAQ pages
      opened with a 281-token one;
    * any other generator's table of contents, by id (``toc``, ``table-of-contents``,
      ``TableOfContents``: npm's documentation, Hugo, kramdown's ``markdown-toc``) or
      class (``table-of-contents``: Docusaurus): with its "Table of contents" heading,
      which otherwise became the parent of every later section of npm's pages.
    """
    for key, value in attrs:
        if not value:
            continue
        if key == "class" or key == "aria-label":
            lowered = value.lower()
            if "breadcrumb" in lowered:
                return True
            if key == "class":
                names = lowered.split()
                if "contents" in names and (tag == "nav" or (tag == "div" and "topic" in names)):
                    return True
                if any(_squeezed(name) in _CONTENTS_CLASSES for name in names):
                    return True
        elif key == "id" and (
            value == "indices-and-tables" or _squeezed(value.lower()) in _CONTENTS_IDS
        ):
            return True
    return False


# Names of a page's own table of contents, lowercased without "-" and "_". A bare "toc"
# class is left to ``CHROME_CLASSES`` (DocBook's ``div.toc``, with its heading rules).
_CONTENTS_CLASSES = frozenset({"tableofcontents", "markdowntoc", "pagetoc"})
_CONTENTS_IDS = _CONTENTS_CLASSES | {"toc"}


def _squeezed(name: str) -> str:
    return name.replace("-", "").replace("_", "")


def is_navigation_link(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an ``<a>`` names a page-navigation relation (``rel="next"`` …), has an
    ``accesskey`` (Texinfo and DocBook give one to each Next/Prev/Up link) or is a letter
    of Texinfo's index bar ("Jump to: A B C …", ``a.summary-letter``)."""
    for key, value in attrs:
        if key == "accesskey" and value and value.strip():
            return True
        if key == "rel" and value and not NAV_RELS.isdisjoint(value.lower().split()):
            return True
        if key == "class" and value and "summary-letter" in value.lower().split():
            return True
    return False


def chrome_verdict(
    category: int | None,
    tag: str,
    attrs: list[tuple[str, str | None]],
    *,
    has_main: bool,
    in_section: bool,
    texinfo: bool = False,
) -> int:
    """For an element outside the main content: 1 if it is page chrome to exclude, 3 if it
    is a generated manual's navigation to exclude, 2 if it marks the main content
    (``role="main"``), else 0. The rules are the adapter's docs.

    Generator classes and navigation-table summaries count only on a page that marks no
    main content: with a main region, the text outside it is chrome already."""
    if category == Category.CHROME:
        if tag in ("nav", "aside"):
            return 1
        if has_main and not in_section:
            return 1  # a page-level header or footer
    for key, value in attrs:
        if key == "role" and value:
            role = value.strip().lower()
            if role == "main":
                return 2
            if role in CHROME_ROLES and (role == "navigation" or has_main):
                return 1
        elif key == "hidden" or (
            key == "aria-hidden" and value and value.strip().lower() == "true"
        ):
            return 1
        elif has_main or not value:
            continue
        elif key == "class":
            # Lowercased: old DocBook stylesheets write CLASS="TOC", which browsers match
            # (pages without a doctype are read in quirks mode, where classes ignore case).
            classes = CHROME_CLASSES.get(tag)
            names = value.lower().split()
            if classes is not None and not classes.isdisjoint(names):
                return 3
            if texinfo and tag == "div" and not TEXINFO_CONTENTS.isdisjoint(names):
                return 3
            if tag == "table" and any(map(_TEXINFO_INDEX.fullmatch, names)):
                return 3
        elif key == "summary" and tag == "table" and value.strip().lower() in _NAV_SUMMARIES:
            return 3
        elif key == "id" and value == "CHILD_LINKS":
            return 1  # LaTeX2HTML's "Subsections" label over its ``ul.ChildLinks``
    return 0


def is_site_menu(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an element's classes name a site's menu ("menu", "navbar" …)."""
    css = attribute(attrs, "class")
    return css is not None and not _SITE_MENUS.isdisjoint(css.lower().split())


def alt_value_span(tag_text: str) -> tuple[int, int] | None:
    """Where the ``alt`` attribute's value lies inside a start tag's source text."""
    match = _ALT.search(tag_text)
    if match is None:
        return None
    group = 1 if match.group(1) is not None else 2 if match.group(2) is not None else 3
    return match.start(group), match.end(group)


def _letters(number: int, upper: bool) -> str:
    letters = ""
    while number > 0:
        number, remainder = divmod(number - 1, 26)
        letters = chr(ord("A" if upper else "a") + remainder) + letters
    return letters


def _roman(number: int, upper: bool) -> str:
    numeral = ""
    for value, symbol in _ROMAN:
        count, number = divmod(number, value)
        numeral += symbol * count
    return numeral.upper() if upper else numeral


def ordered_label(number: int, style: str) -> str:
    """The label of item ``number`` of an ``<ol type=style>`` list, e.g. ``"3."``, ``"c."``."""
    if number > 0 and number < 4000:
        if style in ("a", "A"):
            return _letters(number, style == "A") + "."
        if style in ("i", "I"):
            return _roman(number, style == "I") + "."
    return f"{number}."


# How a page's <title> joins its own title to the site's or a description:
# "pattern: interface for the pattern matching", "Guide — Project", "Home | Site".
_TITLE_SEPARATORS = (": ", " — ", " – ", " - ", " | ", " · ", " :: ")


def names_page(heading: str, title: str) -> bool:
    """Whether ``heading`` is the page's title: its ``<title>``, alone or beside the
    site's name or a description."""
    if not heading:
        return False
    if title == heading:
        return True
    after = title[len(heading) :] if title.startswith(heading) else ""
    before = title[: len(title) - len(heading)] if title.endswith(heading) else ""
    return any(
        (after and after.startswith(separator)) or (before and before.endswith(separator))
        for separator in _TITLE_SEPARATORS
    )
