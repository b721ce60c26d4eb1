"""Bold paragraphs as section headings, on pages whose sections have no heading elements.

Hand-written and generated pages often title their sections with a paragraph set in
bold instead of ``h2``: sqlite.org's FAQ (``<p><b>(7) How do I list all tables …</b></p>``
over each answer), groff's HTML for mdoc man pages (``<p><b>DESCRIPTION</b></p>``), pages
saved from word processors. Read as paragraphs, every chunk of such a page has the same
heading path, and an answer cut from its question loses what it answers.

On a page with at most one heading element (its title), a top-level paragraph is a
heading when:

* every character of its text is inside ``<b>`` or ``<strong>`` (``Block.plain`` is false)
  and it shows no image;
* it reads as a title (``fastrag._titles.reads_as_title``: short, one line, not a
  sentence, a lead-in or a caption, opening on a word, number or bracket);
* neither paragraph beside it is such a bold paragraph too (an address block, a list of
  bold lines).

And only when such headings are at most half of the blocks beside them (a page set
mostly in bold is emphasis, not structure; the FAQ's answers are block quotes). Each
becomes a section one level below its parent's (level 1 on a page with no heading at
all), holding what follows it up to the next one. The rule mirrors the Word reader's
(``_office_docx_emphasis``).
"""

from __future__ import annotations

from fastrag._titles import reads_as_title
from fastrag.normalization.formats._html_blocks import plain_spaces
from fastrag.normalization.formats._html_text import CONTAINER, Block

__all__ = ["promote_bold_paragraphs"]


def promote_bold_paragraphs(root: Block) -> int:
    """Turn the page's bold title paragraphs into sections (see the module docstring);
    returns how many. ``root`` is the finished draft."""
    sections = _sections(root)
    if len(sections) > 1:
        return 0
    parent = sections[0] if sections else root
    blocks = parent.children
    titles = [block.kind == "paragraph" and _titles(block) for block in blocks]
    chosen = {
        id(block)
        for index, block in enumerate(blocks)
        if titles[index]
        and not (index > 0 and titles[index - 1])
        and not (index + 1 < len(titles) and titles[index + 1])
    }
    if not chosen or 2 * len(chosen) > len(blocks):
        return 0
    level = (parent.level or 0) + 1
    children: list[Block] = []
    section: Block | None = None
    for child in parent.children:
        if id(child) in chosen:
            section = Block("section", CONTAINER, parent, child.start, -1)
            section.level = level
            child.kind = "heading"
            child.level = level
            if "\xa0" in child.display():
                plain_spaces(child)  # as a heading element's title
            children.append(section)
        if section is None:
            children.append(child)
        else:
            child.parent = section
            section.children.append(child)
    parent.children = children
    return len(chosen)


def _sections(root: Block) -> list[Block]:
    """The draft's sections, up to two (enough to tell): sections only ever sit directly
    under the root or another section, so only those children are looked at."""
    found: list[Block] = []
    stack = [root]
    while stack and len(found) < 2:
        for child in stack.pop().children:
            if child.kind == "section":
                found.append(child)
                stack.append(child)
    return found


def _titles(paragraph: Block) -> bool:
    """Whether the paragraph reads as a bold section title (see the module docstring)."""
    if paragraph.plain or not paragraph.units or "images" in paragraph.attrs:
        return False
    return reads_as_title(paragraph.display())
