"""HTML read into a readable, source-mapped tree by a single-pass tokenizer.

The tokenizer (``_html_tokens``) reads markup exactly as the standard library's
``html.parser`` of CPython 3.11.7 does, at a fraction of its cost, and reports exact
source offsets; the tree builder (``_html_events``) turns its tokens into the tree,
reading Doxygen's and javadoc's layouts by ``_html_generators``.

``Document.content`` stays the original HTML. Nodes carry a readable, Markdown-like
serialization as ``text`` and a ``serialization`` map from display offsets to source
offsets; units own the source ranges of the text each block shows.

What the tree looks like (see ``fastrag.normalization.model`` for the shared rules):

* ``h1``–``h6`` at the top level open ``section`` nodes (same ``level``; ``text`` is the
  title) that run until the next heading of the same or a higher level, whatever the
  element nesting. Wrappers without a node of their own do not change that: a heading
  inside ``div``, ``section``, ``details`` … opens its section, also after text directly
  inside the wrapper, and so does one inside a ``<summary>`` (rustdoc's ``<details>
  <summary><section><h4>pub fn push(…)</h4>``): it ends the summary's paragraph (the
  text before it stays one). A ``summary`` without a heading is a paragraph. Headings
  inside lists, quotes, tables or definitions are ``heading`` leaves without a section.
  The page's first heading is level 1 when it repeats the ``<title>`` (alone, or beside
  the site's name or a description: "Assert | Node.js", "pattern: interface for …"):
  it titles the page, above the headings of its own rank after it (DocBook's reference
  pages and gtk-doc's set every heading in ``<h2>``, the title too). A DocBook
  reference page (a man page, ``div.refentry``) whose first heading is its "Name"
  section's is headed by its ``<title>`` instead, as a page without headings is.
  A heading shows a no-break space (U+00A0, ``&nbsp;``) as a space and none at its
  ends, since titles become section paths. The root's ``text`` and
  ``metadata["title"]`` are the ``<title>``.
* On a page with at most one heading element, paragraphs set wholly in ``<b>`` or
  ``<strong>`` that read as titles (short, one line, not a sentence, a lead-in or a
  caption, no bold neighbour; at most half of the blocks beside them) open sections one
  level below that heading (level 1 without one): sqlite.org's FAQ questions, groff's
  mdoc man pages (``_html_emphasis``).
* Leaves: ``paragraph`` (also text directly inside ``div``, ``li``, ``blockquote`` …),
  ``heading``, ``code`` (``pre``, kept verbatim; ``{"language": ...}`` from a
  ``language-*``/``lang-*`` class on it or its ``code``, or a Sphinx ``highlight-*``
  wrapper), ``table_row`` (``| a | b |``; ``{"header": bool}``; the first row, when a
  header, also shows the delimiter row ``|---|---|``; a ``|`` in a cell shows as ``\\|``,
  as GFM writes it), ``definition_term``, ``caption``.
* Containers have ``text == ""``: ``list`` (``{"ordered": bool}`` plus ``"start"`` when
  ordered), ``list_item`` (``{"label": "-" | "3." | "c.", "depth": n}``, depth 1 at the
  top), ``definition_list``, ``definition``, ``blockquote``, ``table`` (``{"align":
  ("left", "none", ...)}``). A list item's first paragraph shows its label, indented by
  nesting (``"  - nested item"``); further paragraphs show the continuation indent; a
  definition's first paragraph starts with ``": "``.
* Inline markup becomes plain text: links keep their text, with ``{"links": (("text",
  "href"), ...)}`` on the leaf; ``<img alt>`` shows its alt text inline (the attribute
  value is the unit) and is listed in ``{"images": ((alt, src), ...)}``; ``<br>`` breaks
  the line (a space in one-line leaves). Whitespace collapses to single spaces outside
  ``pre``; character references are decoded (unknown ones stay literal, with a
  diagnostic). Blocks inside one-line leaves (a paragraph or list in a table cell, a
  ``pre`` in a heading) are flattened into the leaf's text; rowspan/colspan are not
  modelled. A table with a heading or another table in a cell lays out the page rather
  than holding data: it keeps the rows read so far and the rest of it is read like a
  ``div`` (so old table-layout pages still get sections, code and lists). The labels of
  a PyMdown tabbed set (``<label for="__tabbed_1_1">``, MkDocs Material), side by side
  with nothing between them in the source, are each a paragraph.
* Serialization map: equal-length runs map offsets one to one — the display equals the
  source except that a single whitespace character shows as a space; other runs (a
  decoded reference, a collapsed whitespace run) map their ends only. Display text in no
  run is generated: list labels and indents, cell pipes, the delimiter row, line breaks.

Coverage: a leaf owns one unit from its first to its last text character, the inline
markup between its text runs included (the map still shows exactly which characters are
text); a comment, script or excluded anchor inside the leaf splits it. Tags between
blocks, the doctype and processing instructions are ``markup``; whitespace between blocks
(and before a leaf's first text) is ``whitespace``; comments are ``comment`` (one left
open runs to the end of the input); ``script``, ``style``, ``template`` and ``noscript``
elements are excluded whole under their own name, ``button`` elements (the labels of UI
controls: "Copy item path", "Run") and ``select`` and ``datalist`` elements (a menu's
choices: sqlite.org's "Search Documentation / Search Changelog", a version picker) as
``ui_control``, and so, on pages rustdoc generated,
its interface text (``span.rightside``, ``span.sub-heading``: "1.0.0 · Source";
``a.rightside``: "Source"; ``summary.hideme``: "Expand description"); ``<title>`` text is
``front_matter`` (kept as metadata) — except on a page without a single heading element
(``h1``–``h6``, anywhere in its source), where the title is a level-1 heading over the
page (still its metadata title), so that its chunks have a heading path.

Boilerplate (``remove_boilerplate=True``, the default) — excluded as ``boilerplate``,
outside the main content (``<main>``, ``<article>`` or an element with
``role="main"``) unless a rule says "anywhere":

* ``nav`` and ``aside`` elements, and elements with ``role="navigation"``; ``nav``
  elements anywhere (MkDocs Material's sidebars and Docusaurus's "Previous / Next" lie
  inside ``<main>``, Wikipedia's page tools inside its content);
* ``footer`` elements inside the main content, but a quotation's (its attribution):
  an article's "Edit this page" and "Last updated on …" (Docusaurus);
* when the page marks its main content: ``header`` and ``footer`` elements that are not
  inside a ``section`` (page-level ones), and elements with ``role="banner"`` or
  ``role="contentinfo"``;
* when the page marks its main content: every other text run outside all main regions
  (``div.footer``, ``div.sidebar``, a copyright line, stray paragraphs, image alt text),
  except the text of top-level headings (``h1``–``h6``) that content belongs to: such a
  heading stays, so a page title outside ``<main>`` still heads the main content, when
  its section holds retained content, unless that is only text up to a heading of its
  rank or above (a top bar's ``<h2>`` before the main ``<h1>``, mdBook's ``<h1
  class="menu-title">`` before the chapter's ``<h1>``: the text moves up to the
  enclosing section). A heading whose section holds nothing retained (a sidebar's
  "Quick search", mdBook's "Keyboard shortcuts" pop-up) is excluded too. This rule works
  on text, not elements, so the wrappers around a main region stay; the tags between the
  excluded runs are ``markup``. A page marks its main content only if such a region
  holds text: with an empty ``<main>`` (or a ``<main`` inside a script) the page is read
  as if it marked none;
* when the page marks no main content, the navigation of generated manuals: elements
  with a generator's navigation class (Texinfo ``div.nav-panel``, ``ul.section-toc``,
  ``ul.mini-toc``, ``table.menu``, the wrappers of its tables of contents, and
  ``div.contents`` and ``div.shortcontents`` on pages whose generator meta names
  makeinfo or texi2any, as Doxygen's ``div.contents`` is the whole page; DocBook
  ``div.navheader``, ``div.navfooter``, ``table.nav``, ``div.toc``; gtk-doc
  ``table.navigation``; LaTeX2HTML ``div.navigation`` and the "Subsections" label over
  its lists of subsections, ``a#CHILD_LINKS``; a site's menus, ``div`` or ``ul`` with
  class ``menu``, ``mainmenu``, ``submenu``, ``menubar``, ``navbar`` or ``topnav``),
  tables with ``summary="Navigation header"`` or ``"Navigation footer"``, and navigation lines:
  paragraphs whose every link has
  ``rel`` ``next``, ``prev``, ``previous``, ``up``, ``index``, ``contents``, ``start`` or
  ``home``, or an ``accesskey``, with at most two other words per link ("Next: Types,
  Up: Using libffi [Index]"), and later paragraphs with the same text as one (Texinfo's
  footer, whose links have no ``rel``). Classes match in any case (``CLASS="TOC"``). A
  heading whose section held nothing but such navigation goes too, and a page left with
  nothing but its title after a manual's navigation class (not a site's menu, a guess)
  keeps no content, as an index does (a DocBook chapter's table of contents, a Texinfo
  node's menu of subsections);
* a list of three or more items, each one link to a fragment of the page and nothing
  else (nested lists of the same included), that opens the page or a section (nothing
  but the heading before it, not inside a definition or cell): its table of contents
  (sqlite.org's FAQ, pod2html's pages); after a section's text such a list is content;
* elements with the ``hidden`` attribute or ``aria-hidden="true"``;
* permalink anchors, anywhere: ``<a>`` with class ``headerlink`` (Sphinx, MkDocs),
  ``copiable-anchor`` (Texinfo), ``anchorjs-link``, ``header-anchor`` or ``hash-link``
  (Docusaurus, a zero-width space) — the ``¶`` or ``#`` put after headings and terms —
  or ``footnote-backref``, ``footnote-back``, ``data-footnote-backref`` (the "↩" back
  from a footnote, Python-Markdown, Pandoc, GitHub); and, whatever its class, an
  ``<a>`` to an in-page ``#fragment`` whose whole text is one such mark (``#``, ``¶``,
  ``§``, ``🔗``, ``⚓``, ``◆``, ``↩``, ``↑``), e.g. Node.js's
  ``<a class="mark" href="#path">#</a>``;
* site navigation, anywhere: breadcrumb trails (a class or ``aria-label`` naming one),
  Sphinx's "Indices and tables" section, docutils' ``.. contents::`` (``nav.contents``,
  ``div.contents.topic``) and other generators' tables of contents by id (``toc``,
  ``table-of-contents``, ``TableOfContents``, ``markdown-toc``, ``page-toc``, in any
  case, with ``_`` for ``-``) or class (the same but ``toc``), with their headings;
* a page's own table of contents written as a line of links: at least three links to
  the page's fragments with nothing but spaces and line breaks between them (groff's
  man pages: "NAME SYNOPSIS DESCRIPTION …", each a link to its heading);
* generated navigation, anywhere: Sphinx's general and module indexes
  (``table.indextable``), their letter bars (``div.genindex-jumpbox``,
  ``div.modindex-jumpbox``) and its toctrees (``div.toctree-wrapper``, the titles of
  other pages); LaTeX2HTML's lists of a node's subsections (``ul.ChildLinks``). A page
  left with nothing else keeps no content (a diagnostic says so) instead of falling back
  to its whole text as the rule below does;
* a page that redirects within a second (``<meta http-equiv="refresh" content="0;
  URL=...">``, the stubs documentation generators leave at moved pages: "Redirecting
  to..."): no reader sees its text, so the whole source is excluded as ``redirect``,
  with the target in ``metadata["redirect"]`` and a diagnostic; the page gives no
  chunks;
* on pages whose generator meta names Doxygen: its project banner (``div#titlearea``)
  and any text of the project's own page header (everything before the
  ``<!-- Generated by Doxygen -->`` comment: jsoncpp's bar of links), its breadcrumb
  path (``div.navpath``), its links to the page's groups (``div.ingroups``), its bar of
  links to the page's own sections (``div.summary``), the status lines of its
  search-results frames and its footer (``address.footer``); its hover tooltips
  (``div.ttc``), its fragments' line numbers (``span.lineno`` and the ``&#160;`` after
  them) and its "More..." links are ``ui_control``. Its generated indexes (members,
  classes; the listings of every class, file or member with its brief description
  again) keep no content, with the diagnostic Sphinx's indexes get, and so does a page
  with nothing but its title (no fallback to its furniture). Its title outranks the
  page's own headings: an ``<h1>`` there is level 2;
* on RDoc's darkfish pages (its ``rdoc_rel_prefix`` script): the "click to toggle
  source" in each method's heading is ``ui_control``; the heading itself
  (``div.method-heading``) is a level-4 heading, and an undocumented class keeps no
  content, as an empty Doxygen page;
* self-labels, anywhere: an ``<a>`` to an in-page ``#fragment`` naming the ``div``, ``p``
  or ``span`` that holds the link and nothing else (the Rust Reference's rule
  identifiers, ``<div id="r-abi"><a href="#r-abi">[abi]</a></div>``, before every
  paragraph). A heading or term whose title is a link to itself keeps it.

The other elements are excluded whole. Not removed on a page without a marked main
region: anything else, whatever its class or id (``div.footer``, ``div.sidebar``, cookie
banners …), and forms, which stay as text (their buttons excepted). If the main content
lies inside chrome (a ``main`` inside a ``nav``), that chrome is kept. If removing
boilerplate would leave no retained text besides headings, nothing is removed (the page
is all chrome, so the chrome is its content).

Three generators' layouts are read by their generator's mark, whatever
``remove_boilerplate``. On Doxygen's pages, code fragments (``div.fragment``, a
``div.line`` per line) are ``code`` leaves without their line numbers, the page title
(``div.title``) is a level-1 heading above the page's own headings (one level down),
and each row of its member lists (``table.memberdecls``) is one paragraph, their group
headings opening sections. On RDoc's, each method's heading (``div.method-heading``) is
a level-4 heading without its "click to toggle source". On javadoc's (its generator
comment or tag), the lists that lay the page out (``ul.blockList``,
``ul.blockListLast``; ``ul.summary-list``, ``ul.details-list``, ``ul.member-list``,
``ul.block-list``) are plain blocks, not lists, so the headings inside them open
sections, one per member ("Method Detail › before"); with ``remove_boilerplate``, a
type's module and package lines above its title
(``div.sub-title``, ``div.subTitle``) are boilerplate, and its generated index and lists
of all classes and packages (by their ``<title>``: "Index", "A-Index", "All Classes",
"All Packages") keep no content, as Sphinx's indexes.

Malformed markup is read the way HTML recovers it, approximately: implied end tags (a new
``p``, ``li``, ``dt``/``dd``, ``tr``, ``td``), unclosed and misnested elements closed by
their ancestor's end tag, stray end tags ignored, unquoted attributes; each repair that
HTML does not allow silently gets a diagnostic (offset and reason, no document text).
Nothing a document names is ever fetched or executed.
"""

from __future__ import annotations

from typing import ClassVar

from fastrag.exceptions import ConfigurationError
from fastrag.models import Document
from fastrag.normalization.formats._html_events import TreeBuilder
from fastrag.normalization.formats._html_finish import build_document
from fastrag.normalization.formats._html_frames import Limits
from fastrag.normalization.formats._html_generators import Page, read_page
from fastrag.normalization.formats._html_tags import immediate_redirect
from fastrag.normalization.formats._html_text import Block
from fastrag.normalization.formats._limits import check_positive, check_size, refined_identity
from fastrag.normalization.model import (
    Exclusions,
    NormalizedDocument,
    NormalizedNode,
    SourceSpan,
    Units,
)

__all__ = ["HtmlNormalizer"]

# The tokenizer reproduces html.parser 3.11.7 on every interpreter, so the identity names
# that, not the running Python. Bump _VERSION with every change of output: the identity
# feeds every chunk's engine_identity, which keys cached chunks.
# v2: symbol permalinks without a generator class (Node.js's "#") are boilerplate.
# v3: navigation chrome of pages without a main region (generator classes, navigation
# tables, navigation lines), outside-main headings without content, button text, U+00A0
# in titles shown as a space.
# v4: headings open sections inside <summary> (rustdoc's method titles) and after text
# directly inside a wrapper (an implicit paragraph no longer makes them leaves).
# v5: Texinfo's generated indexes (table.index-cp, *-printindex) and their "Jump to"
# letter bars (table rows of navigation links only) are boilerplate; so are breadcrumb
# trails, inside a main region too.
# v6: Sphinx's "Indices and tables" section (id="indices-and-tables") is boilerplate.
# v7: so is docutils' table of contents (nav.contents, div.contents.topic) inside main.
# v8: rustdoc's interface text (span.rightside "1.0.0 · Source", summary.hideme) is a
# ui_control on pages rustdoc generated.
# v9: so is span.sub-heading (the title's "1.0.0 · Source" since rustdoc 1.8x); a "|" in
# a table cell shows as "\\|", so that it does not read as a cell border.
# v10: a heading outside main is chrome when its section holds only text up to a heading
# of the same rank (mdBook's menu-title <h1> before the chapter's <h1>), not just a higher.
# v11: rustdoc's a.rightside ("Source" beside each trait implementation) is a ui_control.
# v12: a leaf's unit ends at its last shown character (trailing whitespace and the markup
# it spans are excluded); the first <title> is the title even with text open before it.
# v13: that trailing source is excluded tag run by tag run, whitespace between as such.
# v14: a leaf showing only spaces (<p>&nbsp;</p>, a blank <pre>) leaves the tree, excluded.
# v15: self-labels (a link alone in the div, p or span it links to) are boilerplate.
# v16: pages that redirect within a second are excluded whole as "redirect".
# v17: a table of contents by id or class (npm's, Hugo's, Docusaurus's) is boilerplate.
# v18: select and datalist elements are ui_control, like buttons.
# v19: div.contents is a table of contents on Texinfo's pages only (Doxygen's is content).
# v20: Doxygen's fragments are code, its title a heading, its furniture excluded; a "◆"
#      link to an in-page fragment is a permalink mark.
# v21: Doxygen's project banner (div#titlearea) is boilerplate.
# v22: javadoc's layout lists are blocks, so each member's heading opens a section.
# v23: a site's menus (div or ul .menu, .navbar …) are navigation on pages without main.
# v24: Doxygen's group links inside a page's title (div.ingroups) are boilerplate.
# v25: Doxygen's member tables: a paragraph per row, group headings open sections.
# v26: Sphinx's generated indexes are boilerplate; an index page keeps nothing.
# v27: and so are its toctrees.
# v28: the <title> of a page without heading elements is a level-1 heading over it.
# v29: LaTeX2HTML's navigation panels (div.navigation) and subsection lists (ul.ChildLinks,
#      with its "Subsections" label) are navigation.
# v30: nav elements and an article's footer are boilerplate inside the main region too;
#      Docusaurus's a.hash-link is a permalink mark.
# v31: javadoc's module and package lines above a type's title are boilerplate; its
#      index and lists of all classes and packages keep no content.
# v32: a footnote's link back to its reference ("↩", by class or as a bare mark) is a
#      permalink mark.
# v33: the labels of a PyMdown tabbed set (for="__tabbed_…") are paragraphs.
_PARSER = "html.parser-3.11.7"
# v34: Doxygen: its page header, generated indexes, line-number separators; its title
# outranks the page's headings; an empty page keeps no furniture.
# v35: RDoc: method headings, "click to toggle source"; an empty class keeps no furniture.
# v36: a first heading that repeats the page's <title> is level 1.
# v37: a DocBook man page's <title> heads its sections.
# v38: a page that is only a manual's navigation keeps no content (no fallback).
# v39: a line of three or more links to the page's fragments, nothing else, is its
# table of contents (groff's man pages).
# v40: on a page with at most one heading element, bold paragraphs that read as titles
# open sections (sqlite.org's FAQ questions, groff's mdoc pages; _html_emphasis).
# v41: a list of three or more in-page links, nothing else, that opens the page or a
# section is its table of contents (sqlite.org's FAQ, pod2html, groff's mom).
# v42: a bold paragraph's title shows no-break spaces as spaces, as a heading's does.
# v43: bold titles read by the rule Word documents share (fastrag._titles): 12 words,
#      twice that for a question or an exclamation.
_VERSION = 43
_MAX_RERUNS = 8


def _retains_text(builder: TreeBuilder) -> bool:
    """Whether the run keeps text besides headings (a title alone is not content)."""
    return any(
        isinstance(owner, Block) and owner.kind != "heading" for owner in builder.claims[2::3]
    )


class HtmlNormalizer:
    """Normalize HTML strings; pure, deterministic and safe on hostile input.

    ``max_characters`` (default 100,000,000): longer content raises ``NormalizationError``.
    ``max_depth`` (default 100): deeper block nesting is flattened into its container's
    text, with a diagnostic. ``max_table_cells`` (default 1,000,000): a table with more
    cells raises ``NormalizationError``. ``remove_boilerplate`` (default True): exclude
    page chrome as described in the module documentation.
    """

    identity: ClassVar[str] = f"html:{_PARSER}:v{_VERSION}"

    def __init__(
        self,
        *,
        max_characters: int = 100_000_000,
        max_depth: int = 100,
        max_table_cells: int = 1_000_000,
        remove_boilerplate: bool = True,
    ) -> None:
        check_positive(
            "HtmlNormalizer",
            {
                "max_characters": max_characters,
                "max_depth": max_depth,
                "max_table_cells": max_table_cells,
            },
        )
        self.max_characters = max_characters
        self.max_depth = max_depth
        self.max_table_cells = max_table_cells
        if not isinstance(remove_boilerplate, bool):
            raise ConfigurationError(
                "HtmlNormalizer(remove_boilerplate=...) must be a bool "
                f"(got {remove_boilerplate!r})"
            )
        self.remove_boilerplate = remove_boilerplate
        # Limits change the output; the size cap only decides whether there is one.
        self.identity = refined_identity(  # type: ignore[misc]  # instance refinement
            type(self).identity,
            {
                "max_depth": max_depth,
                "max_table_cells": max_table_cells,
                "remove_boilerplate": remove_boilerplate,
            },
            {"max_depth": 100, "max_table_cells": 1_000_000, "remove_boilerplate": True},
        )
        self._limits = Limits(max_depth, max_table_cells)

    def normalize(self, document: Document) -> NormalizedDocument:
        content = document.content
        check_size("HtmlNormalizer", document, self.max_characters)
        if self.remove_boilerplate:
            target = immediate_redirect(content)
            if target is not None:
                return _redirect_stub(document, target)
        page = read_page(content)
        builder = self._remove_chrome(content, page)
        if page.has_main and self.remove_boilerplate and not builder.main_text:
            # The probe matched no main region that holds text (an empty <main>, or
            # "<main" inside a script): the page does not mark its main content after all.
            # (A discarded draft is released at once, see TreeBuilder.release.)
            builder.release()
            page = page._replace(has_main=False)
            builder = self._remove_chrome(content, page)
        if builder.removed_boilerplate and not _retains_text(builder):
            if builder.removed_index:
                # An index or contents page (Sphinx's genindex-A.html, contents.html):
                # navigation by design, so it has no content of its own to fall back to.
                builder.diagnostics.append(
                    "generated navigation page (an index or a table of contents): no content"
                )
                return build_document(document, builder)
            if page.doxygen or page.rdoc:
                # Its furniture is known by the generator's marks, not guessed: a page with
                # nothing but its title (an empty main page, an undocumented class) is
                # empty, not misread.
                builder.diagnostics.append(
                    "generated manual page without content: only its title and furniture"
                )
                return build_document(document, builder)
            everything = self._run(content, False, page, frozenset())
            if _retains_text(everything):
                everything.diagnostics.append(
                    "boilerplate kept: removing it would leave no content"
                )
                builder.release()
                builder = everything
            else:
                everything.release()
        return build_document(document, builder)

    def _remove_chrome(self, content: str, page: Page) -> TreeBuilder:
        builder = self._run(content, self.remove_boilerplate, page, frozenset())
        if builder.conflicts:
            builder.release()
            builder = self._rerun_keeping_main(content, page, builder)
        return builder

    def _run(
        self, content: str, boilerplate: bool, page: Page, protected: frozenset[int]
    ) -> TreeBuilder:
        builder = TreeBuilder(
            content, self._limits, boilerplate=boilerplate, page=page, protected=protected
        )
        builder.run()
        return builder

    def _rerun_keeping_main(self, content: str, page: Page, first: TreeBuilder) -> TreeBuilder:
        """Chrome that turned out to hold the main content is kept: rerun protecting it."""
        protected = frozenset(first.conflicts)
        for _ in range(_MAX_RERUNS):
            builder = self._run(content, True, page, protected)
            if builder.conflicts <= protected:
                return builder
            protected |= builder.conflicts
            builder.release()
        return self._run(content, False, page, frozenset())


def _redirect_stub(document: Document, target: str) -> NormalizedDocument:
    """A page that redirects at once shows nothing of its own: its whole source is
    excluded as ``redirect`` and the target kept in ``metadata["redirect"]``."""
    length = len(document.content)
    root = NormalizedNode(
        f"{document.id}:document:0", "document", "", (SourceSpan(0, length),) if length else ()
    )
    return NormalizedDocument(
        document,
        "html",
        (root,),
        Units.from_offsets([], [], [], id_prefix=f"{document.id}:unit:"),
        Exclusions.from_offsets([0], [length], ["redirect"]) if length else (),
        ("an immediate redirect (meta refresh): the page shows nothing of its own",),
        {"redirect": target},
    ).validate()
