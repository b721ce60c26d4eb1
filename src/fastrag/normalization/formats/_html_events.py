"""The HTML adapter's streaming tree builder: tokens in, draft blocks out.

The tokens come from ``Tokenizer`` (``_html_tokens``), which reports every token with its
exact ``[start, end)`` in the source: no well-kept HTML library gives both exact source
offsets and a display map (lxml and html5lib build DOMs that drop source positions).

Two stacks: the open *elements* (tag names; implied closes of ``p``/``li``/``dt``/``dd``/
``tr``/``td`` as in HTML; stray and misnested end tags tolerated with diagnostics) and the
open *blocks* (draft nodes). Every retained source range is claimed in source order — text
runs by the block that shows them; comments, whitespace and excluded elements as
exclusions. Whatever no claim covers (tags, the doctype) is markup.
"""

from __future__ import annotations

import contextlib
import html
import re
from typing import cast

from fastrag.normalization.formats._html_blocks import IN_PAGE_CONTENTS, BlockTree
from fastrag.normalization.formats._html_emphasis import promote_bold_paragraphs
from fastrag.normalization.formats._html_frames import (
    BOUNDARY,
    DATA_TEXT,
    FLATTENED,
    MAIN,
    TITLE,
    TITLE_TEXT,
    Frame,
    HeadFrame,
    HintFrame,
    Limits,
    LinkFrame,
    SuppressedFrame,
)
from fastrag.normalization.formats._html_generators import (
    DOXYGEN_BLOCKS,
    GUTTER,
    Page,
    doxygen_block,
    doxygen_line_number,
    javadoc_breadcrumb,
    javadoc_layout_list,
    rdoc_control,
    rdoc_method_heading,
)
from fastrag.normalization.formats._html_start import START, void_element
from fastrag.normalization.formats._html_tags import (
    CATEGORY,
    OPTIONAL_END,
    PERMALINK_CLASSES,
    WS,
    Category,
    attribute,
    chrome_verdict,
    is_generated_index,
    is_self_label,
    is_site_menu,
    is_site_navigation,
    is_symbol_permalink,
)
from fastrag.normalization.formats._html_text import (
    CONTAINER,
    PRE,
    Block,
    add_references,
    add_run,
    add_verbatim,
)
from fastrag.normalization.formats._html_tokens import Attrs, Tokenizer

__all__ = ["Attrs", "TreeBuilder"]

_TABLE_TAGS = frozenset(("table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption"))
# A plain dict copy: looking up a MappingProxyType costs an extra indirection per tag.
_CATEGORY: dict[str, int] = dict(CATEGORY)
_NO_IMPLIED = frozenset((Category.SUPPRESS, Category.TITLE, Category.LINK, Category.CODE))
_WORD = re.compile(r"\w+")
# Words a navigation line may show outside its links, per link: the labels ("Next:",
# "Up:", "Nach oben:"), never a sentence around a link.
_NAV_WORDS_PER_LINK = 2
# Elements generators wrap site navigation in (see ``is_site_navigation``).
_SITE_NAVIGATION_TAGS = frozenset({"div", "nav", "ol", "ul", "p", "section"})
_INDEX_TAGS = frozenset({"div", "table", "ul"})
# rustdoc (every crate's documentation on docs.rs): its generator tag, and the classes of
# its interface text — ``span.rightside`` ("1.0.0 · Source", beside every item: 233
# times in Vec's page), ``a.src.rightside`` (a bare "Source" beside each trait
# implementation), ``span.sub-heading`` (the same under the page's title, since rustdoc
# 1.8x) and the ``summary.hideme`` toggle ("Expand description").
_RUSTDOC_UI = {
    "span": frozenset({"rightside", "sub-heading"}),
    "a": frozenset({"rightside"}),
    "summary": frozenset({"hideme"}),
}


class _RestIsExcludedError(Exception):
    """Raised inside the parse when the rest of the input is known to be one exclusion."""


class TreeBuilder(BlockTree):
    """One pass over one document; ``run()`` leaves the draft in ``root`` and ``claims``."""

    def __init__(
        self,
        content: str,
        limits: Limits,
        *,
        boilerplate: bool,
        page: Page,
        protected: frozenset[int],
    ) -> None:
        BlockTree.__init__(self, limits)
        Tokenizer.__init__(self, content)
        self.boilerplate = boilerplate
        self.has_main = has_main = page.has_main
        self.protected = protected
        self.data_mode = DATA_TEXT  # what text is now: shown, the title, or excluded (0)
        # Flat triples start, end, owner (a Block, or an exclusion reason): no list per claim.
        self.claims: list[int | Block | str] = []
        self.sup = -1
        self.main = 0  # open main/article/role=main elements: nothing inside is chrome
        # With a marked main region, text outside every one of them is chrome (headings
        # excepted); main_text records that the regions held text, so the rule applies.
        self.outside_main_is_chrome = boilerplate and has_main
        self.rustdoc = boilerplate and page.rustdoc
        self.texinfo = boilerplate and page.texinfo
        self.doxygen = page.doxygen
        self.rdoc = page.rdoc
        # Inline elements a generator's rules read (Doxygen's line numbers, RDoc's
        # controls): never taken as bare text, wherever they stand.
        self.generator_inline = page.doxygen or page.rdoc
        self.javadoc = page.javadoc
        self.javadoc_listing = boilerplate and page.javadoc_listing
        self.doxygen_index = boilerplate and page.doxygen_index
        self.header_end = page.doxygen_body if boilerplate else 0  # text before it: chrome
        self.gutter = -1  # where a Doxygen line number's "&#160;" separator starts
        self.title_heads = page.title_heads
        self.member_tables: list[int] = []  # where Doxygen's open member tables stand
        self.main_text = False
        self.bold_element = False  # the text being read is a <b> or <strong> element's
        self.conflicts: set[int] = set()
        self.removed_boilerplate = False
        self.removed_index = False  # a generated index left out (see is_generated_index)
        self.title_parts: list[str] = []
        self.title_done = False
        self.outside_headings: list[Block] = []  # top-level headings outside main content
        self.nav_sections: list[Block] = []  # sections that lost a manual's navigation

    # -- driving -------------------------------------------------------------------------

    def run(self) -> None:
        with contextlib.suppress(_RestIsExcludedError):
            self.scan()
        end = len(self.content)
        self.pos = end
        if self.tags:
            unclosed = sum(tag not in OPTIONAL_END for tag in self.tags)
            if unclosed and self.sup < 0:
                self.diagnose(
                    f"offset {end}: {unclosed} elements not closed at the end of input "
                    f"(innermost <{self.tags[-1]}>)"
                )
            self.pop_to(0, end, None, at_eof=True)
        while self.blocks:
            self.close_block(self.blocks[-1], end)
        if self.outside_headings or self.nav_sections:
            self._drop_empty_chrome_sections()
        promote_bold_paragraphs(self.root)
        if self.dropped_diagnostics:
            self.diagnostics.append(f"{self.dropped_diagnostics} more diagnostics not shown")

    def release(self) -> None:
        """Break the draft's reference cycles once it is read (or discarded).

        A block points to its parent (and a row to its table) while the parent lists it,
        so every draft is one big reference cycle: left alone it outlives its document
        until a full collection of the cyclic garbage collector, and every collection
        until then walks it (with every other draft piled up by then): about 5 % of the
        normalizer's time on the HTML bench corpus. Without those back references the
        draft is freed by reference counting as soon as the builder is dropped. The
        blocks are never read again.
        """
        stack = [self.root, *self.outside_headings]
        # A dropped chrome section still lists its heading, which points back at it.
        stack += [section.children[0] for section in self.nav_sections if section.children]
        while stack:
            block = stack.pop()
            block.parent = block.table = None
            stack += block.children

    def handle_comment(self, start: int, end: int) -> None:
        if self.sup < 0:
            self._exclude(start, end, "comment")

    # -- coverage claims -----------------------------------------------------------------

    def claim(self, start: int, end: int, block: Block) -> None:
        """``block`` shows the text at ``[start, end)``.

        A leaf owns one unit from its first to its last text character, the inline markup
        between its text runs included; only an exclusion (a comment, a script, an
        excluded permalink) or another block's text in between starts a new unit.
        """
        claims = self.claims
        if claims and claims[-1] is block:
            claims[-2] = end
            block.uend = end
            return
        claims += (start, end, block)
        if block.ustart < 0:
            block.ustart = start
        block.uend = end
        block.units += 1

    def page_title(self) -> str:
        # Not kept: a <title> in the body may still be read after the first heading.
        return " ".join(html.unescape("".join(self.title_parts)).split())

    def chrome_text(self, owner: Block | None) -> bool:
        """Whether text shown by ``owner`` here is page chrome: the page marks its main
        content and this is outside every such region. Headings are kept so the section
        structure survives (those without content are dropped at the end, see
        ``_drop_empty_chrome_sections``); chrome of other kinds (``nav`` …) is excluded at
        its start tag."""
        return self.main == 0 and (owner is None or owner.kind != "heading")

    def navigation_line(self, block: Block) -> None:
        """A paragraph whose every link moves between the pages of a manual (``rel="next"``,
        an ``accesskey`` …) and whose other words are only their labels is the page's
        navigation line ("Next: Types, Up: Using libffi [Contents][Index]"): chrome. So is
        a line of at least ``IN_PAGE_CONTENTS`` links to the page's own fragments and
        nothing but spaces between them, its table of contents ("NAME SYNOPSIS …"), and a
        later paragraph with the same text as either: Texinfo repeats the line at the
        page's foot with plain links (only ``[Index]`` keeps its ``rel`` there)."""
        links = block.links
        assert links is not None  # the caller checked
        text = block.display()
        if (
            (block.nav == len(links) and _labels_only(text, links))
            or (
                self.boilerplate
                and len(links) >= IN_PAGE_CONTENTS
                and all(href.startswith("#") for _start, _end, href in links)
                and _in_page_contents(text, links)
            )
            or text in self.nav_lines
        ):
            self.nav_lines.add(text)
            self.unclaim(block)
            self.note_navigation()

    def contents_list(self, block: Block) -> None:
        """A list that opens the page or a section (nothing but the heading before it)
        of ``IN_PAGE_CONTENTS`` or more items, each one link to the page's own fragments and
        nothing else (nested lists of such links included), is the page's table of
        contents (sqlite.org's FAQ lists its questions so, pod2html its sections): chrome,
        as the Markdown reader's rule has it."""
        parent = block.parent
        if (
            not self.boilerplate
            # Among the page's blocks, not inside a definition or a cell: javadoc's "See
            # Also" lists of in-page links are a member's content.
            or parent is None
            or parent.kind not in ("document", "section")
            # First among them: a list of in-page links after a section's text is its
            # content (javadoc's "one of SPACE_SEPARATOR, LINE_SEPARATOR, …").
            or any(child.kind != "heading" and _kept(child) for child in _before(parent, block))
            or not _in_page_list(block)
        ):
            return
        stack = [block]
        while stack:
            top = stack.pop()
            if top.units:
                self.unclaim(top)
            stack += top.children
        self.note_navigation()

    def note_navigation(self) -> None:
        """A manual's navigation left the open section: if nothing else stays in it, its
        heading goes too (see ``_drop_empty_chrome_sections``)."""
        if self.sections:
            section = self.sections[-1]
            if not self.nav_sections or self.nav_sections[-1] is not section:
                self.nav_sections.append(section)

    def shows_nothing(self, block: Block) -> None:
        self.unclaim(block, "whitespace")

    def unclaim(self, block: Block, reason: str = "boilerplate") -> None:
        """Exclude everything ``block`` showed, for ``reason``; it leaves the tree.

        ``whitespace``: the tags between its runs are told apart when the partition
        is built (``_partition``)."""
        claims = self.claims
        low, high = 0, len(claims) // 3
        while low < high:  # the first claim at or after the block's first text
            middle = (low + high) // 2
            if cast(int, claims[3 * middle]) < block.ustart:
                low = middle + 1
            else:
                high = middle
        for index in range(3 * low + 2, len(claims), 3):
            if cast(int, claims[index - 2]) >= block.uend:
                break
            if claims[index] is block:
                claims[index] = reason
        block.units = 0
        self.removed_boilerplate |= reason == "boilerplate"

    def _drop_empty_chrome_sections(self) -> None:
        """A heading outside the main content stays only if content belongs to it.

        It opened a section so a page title outside ``<main>`` can head the main content;
        it is chrome instead (and excluded) when its section holds nothing retained (a
        sidebar or pop-up title whose body was excluded), or holds only text up to a
        heading of its rank or above (a top bar's ``<h2>`` before the main content's
        ``<h1>``; mdBook's ``<h1 class="menu-title">`` before a chapter's ``<h1>``, with
        the Rust Reference's rule label ``[abi]`` between): that text moves up to the
        enclosing section. On a page without a main region, a
        section whose only body was a manual's navigation (Texinfo's title heading above
        the first node's navigation line) goes the same way, so no heading is left as a
        chunk of its own. Latest first, so a section sees its subsections already
        settled; each affected parent is rebuilt once (linear).
        """
        dropped: set[int] = set()
        parents: dict[int, Block] = {}
        headings = self.outside_headings or [section.children[0] for section in self.nav_sections]
        outranked = self.outside_main_is_chrome
        for heading in reversed(headings):
            section = heading.parent
            if heading.kind != "heading" or section is None or section.kind != "section":
                continue
            body = section.children[1:]
            if any(
                child.kind == "section" and id(child) not in dropped and _kept(child)
                for child in body
            ):
                continue
            level = section.level or 0
            if any(_kept(child) for child in body) and not (
                outranked and 0 < section.closer <= level
            ):
                continue
            self.unclaim(heading)
            dropped.add(id(section))
            parent = section.parent
            while parent is not None and id(parent) in dropped:
                parent = parent.parent
            if parent is not None:
                parents[id(parent)] = parent
        for parent in parents.values():
            if id(parent) not in dropped:
                parent.children = _hoist(parent, parent.children, dropped)

    def exclude_chrome(self, start: int, end: int, reason: str) -> None:
        self._exclude(start, end, reason)
        self.removed_boilerplate |= reason == "boilerplate"

    def _exclude(self, start: int, end: int, reason: str) -> None:
        if start >= end:
            return
        claims = self.claims
        if claims and claims[-1] == reason and claims[-2] == start:
            claims[-2] = end
            return
        claims += (start, end, reason)

    # -- start tags ----------------------------------------------------------------------

    def handle_element(self, tag: str, has_attributes: bool, start: int, text: str) -> None:
        if tag in _CATEGORY or (
            has_attributes
            and (
                (self.main == 0 and self.sup < 0 and self.boilerplate)
                or tag == "label"
                or self.generator_inline
            )
        ):
            Tokenizer.handle_element(self, tag, has_attributes, start, text)
            return
        # Inline markup around bare text (a highlighted token, <em>word</em>) that cannot
        # be chrome: pushing and popping it changes nothing, so only its text is read
        # (bold text noted as such: see _html_emphasis).
        self.pos = start
        if tag == "b" or tag == "strong":
            self.bold_element = True
            self.handle_data(start, text)
            self.bold_element = False
        else:
            self.handle_data(start, text)

    def handle_startendtag(self, tag: str, has_attributes: bool) -> None:
        self.handle_starttag(tag, has_attributes)
        if _CATEGORY.get(tag) != Category.VOID:
            # Read as an end tag, "<p/>" ends at its first ">" (which may lie inside a
            # quoted attribute value), where a real end tag's ``tag_end`` always is.
            self.tag_end = self.end_tag_end()
            self.handle_endtag(tag)

    def handle_starttag(self, tag: str, has_attributes: bool) -> None:
        category = _CATEGORY.get(tag)
        if category is None:  # inline markup: the common case, kept cheap
            # Its attributes matter only where it could be chrome; inside the main content
            # and inside excluded elements they are never parsed.
            if (
                has_attributes
                and self.main == 0
                and self.sup < 0
                and self.boilerplate
                and self._chrome_verdict(None, tag, self.attributes()) == 1
            ):
                self.suppress(tag, "boilerplate")
                return
            if has_attributes and self.rustdoc and self.sup < 0 and self._rustdoc_ui(tag):
                return
            if has_attributes and self.doxygen and self.sup < 0 and doxygen_line_number(self, tag):
                return
            if has_attributes and self.rdoc and self.sup < 0 and rdoc_control(self, tag):
                return
            if tag == "label" and has_attributes and self.owner is None and self.sup < 0:
                label_attrs = self.attributes()
                if (attribute(label_attrs, "for") or "").startswith("__tabbed_"):
                    # A tab's label in a PyMdown tabbed set (MkDocs Material): the
                    # labels stand side by side without a space between them in the
                    # source ("Latest1.x"), so each is a paragraph of its own.
                    START[Category.PARA](self, tag, label_attrs)
                    return
            self.push_inline(tag)
            return
        if self.javadoc_listing and category == Category.MAIN:
            # A real main region (it marks the page's main content), whose text is
            # navigation: see is_generated_index.
            self.main_text = self.removed_index = True
            self.drop_block(tag)
            return
        if self.javadoc and has_attributes:
            if tag == "ul" and javadoc_layout_list(self):
                category = Category.BOUNDARY  # its items, outside any list, are boundaries too
            elif tag == "div" and self.boilerplate and self.sup < 0 and javadoc_breadcrumb(self):
                self.drop_block(tag)
                return
        if self.doxygen and has_attributes and self.sup < 0 and tag in DOXYGEN_BLOCKS:
            found = doxygen_block(self, tag)
            if found is None:
                return
            category = found
        if (
            self.rdoc
            and tag == "div"
            and has_attributes
            and self.sup < 0
            and rdoc_method_heading(self)
        ):
            category = Category.HEADING  # level RDOC_METHOD_LEVEL (see _start_heading)
        if category == Category.VOID:
            if self.sup < 0:
                void_element(self, tag)
            return
        if category not in _NO_IMPLIED:
            self.implied_close(category, tag)
        if self.sup >= 0:
            self.push(tag, None)
            if category == Category.MAIN or (category == Category.BOUNDARY and has_attributes):
                self._check_conflict(tag, self.attributes())
            return
        if category == Category.CODE and (self.main or not self.boilerplate):
            # Inline code, the commonest tag with attributes in documentation: they matter
            # only as the language of a pre that shows no text yet (see _start_code).
            owner = self.owner
            if not has_attributes or owner is None or owner.mode != PRE or owner.dlen:
                self.push(tag, None)
                return
        attrs: Attrs = self.attributes() if has_attributes else []
        if self.boilerplate and category != Category.SUPPRESS:
            if category == Category.LINK and attrs:
                css = attribute(attrs, "class")
                content, tag_end = self.content, self.tag_end
                if (
                    (css and not PERMALINK_CLASSES.isdisjoint(css.split()))  # a "¶" mark
                    or is_symbol_permalink(attrs, content, tag_end)
                    or is_self_label(attrs, content, tag_end)
                ):
                    self.suppress(tag, "boilerplate")
                    return
            if attrs and tag in _INDEX_TAGS and is_generated_index(attrs):
                self.removed_index = True
                self.suppress(tag, "boilerplate")
                return
            if tag in _SITE_NAVIGATION_TAGS and attrs and is_site_navigation(tag, attrs):
                self.suppress(tag, "boilerplate")  # "std :: vec", "Docs » Guide »": inside main too
                return
            if self.rustdoc and attrs and self._rustdoc_ui(tag, attrs):
                return
            if self.main and (
                tag == "nav" or (tag == "footer" and not self.open.get("blockquote"))
            ):
                # Navigation inside the main region too: MkDocs Material's sidebars (the
                # site's pages, the page's own headings), Docusaurus's "Previous / Next";
                # and an article's footer ("Edit this page", "Last updated on …"), not a
                # quotation's (its attribution).
                self.drop_block(tag)
                return
            if self.main == 0 and (attrs or category == Category.CHROME):
                verdict = self._chrome_verdict(category, tag, attrs)
                if verdict == 3:
                    self.note_navigation()
                    # A manual's navigation (its tables of contents, its panels): a page
                    # left with nothing else is navigation by design (see
                    # is_generated_index), not content misread as chrome. A site's menu
                    # class ("menu", "navbar") is a guess: such a page still falls back.
                    self.removed_index |= not is_site_menu(attrs)
                    verdict = 1
                if verdict == 1:
                    if category == Category.TABLE:
                        # Excluded or not, a table inside a cell means its table lays out
                        # the page (see end_layout_table).
                        self.end_layout_table()
                    self.drop_block(tag)
                    return
                if verdict == 2 and category == Category.BOUNDARY:
                    category = Category.MAIN
        START[category](self, tag, attrs)

    def push_inline(self, tag: str) -> None:
        """Open an element that makes no block: only its end tag is to be matched."""
        tags = self.tags
        positions = self.open.get(tag)
        if positions is None:
            self.open[tag] = [len(tags)]
        else:
            positions.append(len(tags))
        tags.append(tag)
        self.frames.append(None)

    def _rustdoc_ui(self, tag: str, attrs: Attrs | None = None) -> bool:
        """Suppress rustdoc's interface text (``_RUSTDOC_UI``); whether it did."""
        wanted = _RUSTDOC_UI.get(tag)
        if wanted is None:
            return False
        css = attribute(self.attributes() if attrs is None else attrs, "class")
        if not css or wanted.isdisjoint(css.split()):
            return False
        self.suppress(tag, "ui_control")
        return True

    def _chrome_verdict(self, category: int | None, tag: str, attrs: Attrs) -> int:
        if self.pos in self.protected:
            return 0
        in_section = bool(self.open.get("section"))
        return chrome_verdict(
            category,
            tag,
            attrs,
            has_main=self.has_main,
            in_section=in_section,
            texinfo=self.texinfo,
        )

    def _check_conflict(self, tag: str, attrs: Attrs) -> None:
        """Main content inside excluded chrome: remember the chrome so a rerun keeps it."""
        frame = self.frames[self.sup]
        if not isinstance(frame, SuppressedFrame) or frame.reason != "boilerplate":
            return
        role = attribute(attrs, "role") if attrs else None
        if tag in ("main", "article") or (role is not None and role.strip().lower() == "main"):
            self.conflicts.add(frame.start)

    def drop_block(self, tag: str) -> None:
        """Exclude the block-level element starting now whole, as boilerplate."""
        self.boundary()
        self.suppress(tag, "boilerplate")

    def suppress(self, tag: str, reason: str) -> None:
        self.sup = len(self.tags)
        self.data_mode = 0
        self.push(tag, SuppressedFrame(reason, self.pos))

    # -- text ----------------------------------------------------------------------------

    def handle_data(self, start: int, raw: str) -> None:
        end = start + len(raw)
        if self.data_mode != DATA_TEXT:
            if self.data_mode == TITLE_TEXT:
                self._exclude(start, end, "front_matter")
                self.title_parts.append(raw)
            return  # data_mode 0 while excluding: the run is part of the exclusion
        if raw[0] == "<" and self.content.startswith("<!--", start):
            # The tokenizer reports a comment without "-->" as text; in HTML it runs to the
            # end of the input, so the rest is one comment and parsing stops here.
            self.diagnose(f"offset {start}: comment not closed; the rest is a comment")
            self._exclude(start, len(self.content), "comment")
            raise _RestIsExcludedError
        if start < self.header_end:  # Doxygen's page header (see Page.doxygen_body)
            self.exclude_chrome(start, end, "boilerplate" if raw.strip(WS) else "whitespace")
            return
        if start == self.gutter:  # the rest of a line number: see doxygen_line_number
            self.gutter = -1
            self._exclude(start, start + len(GUTTER), "ui_control")
            start += len(GUTTER)
            raw = raw[len(GUTTER) :]
            if not raw:
                return
        owner = self.owner
        if (  # self.chrome_text(owner), inlined: this runs once per text run
            self.outside_main_is_chrome
            and self.main == 0
            and (owner is None or owner.kind != "heading")
        ):
            self.exclude_chrome(start, end, "boilerplate" if raw.strip(WS) else "whitespace")
            return
        if owner is None:
            if not raw.strip(WS) or ("&" in raw and not html.unescape(raw).strip()):
                self._exclude(start, end, "whitespace")
                return
            owner = self.implicit_owner()
        elif not owner.tail and owner.mode != PRE and not raw.strip(WS):
            # Whitespace before a leaf's first text (or after a cell pipe) shows nothing.
            self._exclude(start, end, "whitespace")
            return
        claims = self.claims  # self._claim(start, end, owner), inlined on the hot path
        if claims and claims[-1] is owner:
            claims[-2] = end
        else:
            claims += (start, end, owner)
            if owner.ustart < 0:
                owner.ustart = start
            owner.units += 1
        owner.uend = end
        if not owner.plain and not self.bold_element:
            open_ = self.open
            if not (open_.get("b") or open_.get("strong")) and raw.strip(WS):
                owner.plain = True
        if self.main:
            self.main_text = True
        if "&" in raw:
            add_references(owner, raw, start, self.diagnose)
        elif owner.mode == PRE:  # add_run's first test, done here: a call less per run
            add_verbatim(owner, raw, start)
        else:
            add_run(owner, raw, start)

    # -- end tags ------------------------------------------------------------------------

    def handle_endtag(self, tag: str) -> None:
        # The element ends at ``tag_end``, where the tokenizer saw its end tag end: no
        # search for the tag's ">" (``end_tag_end``) per closed element.
        tags = self.tags
        if tags and tags[-1] == tag:  # the common case: the innermost element closes
            frame = self.frames.pop()
            tags.pop()
            self.open[tag].pop()
            if frame is None:
                return
            if frame is BOUNDARY:
                self.boundary()
            elif frame is not None:
                self.close_frame(frame, self.tag_end)
            return
        positions = self.open.get(tag)
        if not positions:
            if tag == "br" and self.sup < 0:
                void_element(self, "br")
            elif self.sup < 0:
                self.diagnose(f"offset {self.pos}: stray </{tag}> ignored")
            return
        index = positions[-1]
        if tag not in _TABLE_TAGS and index < self.barrier():
            if self.sup < 0:
                self.diagnose(f"offset {self.pos}: </{tag}> cannot close across a table")
            return
        self.pop_to(index, self.pos, self.tag_end)

    def close_frame(self, frame: Frame, end: int) -> None:
        if isinstance(frame, Block):
            self.close_block(frame, end)
        elif frame is BOUNDARY or isinstance(frame, HintFrame):
            self.boundary()
        elif isinstance(frame, LinkFrame):
            self._close_link(frame)
        elif frame is MAIN:
            self.main -= 1
            self.boundary()
        elif frame is FLATTENED:
            self.flattened -= 1
            self.boundary()
        elif isinstance(frame, SuppressedFrame):
            self._exclude(frame.start, end, frame.reason)
            self.removed_boilerplate |= frame.reason == "boilerplate"
            self.sup = -1
            self.data_mode = DATA_TEXT
        elif isinstance(frame, HeadFrame):
            if frame.header:
                frame.table.in_head -= 1
            owner = self.owner
            if owner is not None and owner.implicit and owner.table is frame.table:
                self.close_block(owner, self.pos)
        elif frame is TITLE:
            self.data_mode = DATA_TEXT

    def _close_link(self, link: LinkFrame) -> None:
        owner, start = link.owner, link.start
        if owner is None:
            owner, start = self.owner, 0
            if owner is None:
                return
        if owner.links is None:
            owner.links = []
        owner.links.append((start, owner.dlen, link.href))
        if link.nav:
            owner.nav += 1


def _gaps(text: str, links: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """The stretches of ``text`` outside its links."""
    gaps, position = [], 0
    for start, end, _href in links:
        gaps.append((position, max(start, position)))
        position = max(position, end)
    gaps.append((position, len(text)))
    return gaps


def _labels_only(text: str, links: list[tuple[int, int, str]]) -> bool:
    """Whether the words of ``text`` outside its links are at most ``_NAV_WORDS_PER_LINK``
    a link ("Next:", "Up:")."""
    words = sum(len(_WORD.findall(text, start, end)) for start, end in _gaps(text, links))
    return words <= _NAV_WORDS_PER_LINK * len(links)


def _in_page_contents(text: str, links: list[tuple[int, int, str]]) -> bool:
    """Whether nothing but spaces and line breaks stands between the links of ``text``: a
    table of contents, not "See also pause(), sigwait() and sigtimedwait()", nor names
    joined by commas or bars ("penup() | pu() | up()")."""
    return all(not text[start:end].strip() for start, end in _gaps(text, links))


def _before(parent: Block, block: Block) -> list[Block]:
    """``parent``'s children before ``block``."""
    children = parent.children
    for index, child in enumerate(children):
        if child is block:
            return children[:index]
    return children


def _in_page_list(block: Block) -> bool:
    """Whether every item of the list ``block`` is one in-page link, label aside, maybe
    over a nested list of the same (see ``TreeBuilder.contents_list``)."""
    items = block.children
    if any(item.kind != "list_item" or not item.children for item in items):
        return False
    for item in items:
        leaf, *nested = item.children
        if not _sole_in_page_link(leaf) or not all(
            child.kind == "list" and _in_page_list(child) for child in nested
        ):
            return False
    return True


def _sole_in_page_link(leaf: Block) -> bool:
    """A leaf that shows its label and one link to a fragment of the page, nothing else."""
    links = leaf.links
    if leaf.mode == CONTAINER or not leaf.units or links is None or len(links) != 1:
        return False
    start, end, href = links[0]
    text = leaf.display()
    return (
        href.startswith("#")
        and text[:start].strip() in ("", leaf.head.strip())  # a link may open before it
        and not text[end:].strip()
    )


def _kept(block: Block) -> bool:
    """Whether ``block`` or a block below it shows retained text."""
    stack = [block]
    while stack:
        top = stack.pop()
        if top.units:
            return True
        stack.extend(top.children)
    return False


def _hoist(parent: Block, children: list[Block], dropped: set[int]) -> list[Block]:
    """``children`` with each dropped section replaced by its body (recursively: sections
    nest at most six deep), every block moved under ``parent``."""
    kept: list[Block] = []
    for child in children:
        if id(child) in dropped:
            kept += _hoist(parent, child.children[1:], dropped)
        else:
            child.parent = parent
            kept.append(child)
    return kept
