"""Lead-in paragraphs: a short sentence ending with ":" travels with what it introduces.

"Improvements:", "…the following:", "For example:" announce the block after them (a
list, a code sample, a table, an example paragraph); split from it, the lead-in is a
dangling half-thought at the end of one chunk and the next chunk starts without its
introduction. Such a paragraph is therefore attach-forward, exactly like a heading: the
boundary after it is ``Strength.NEVER`` and a chunk ends there only if nothing else fits.

The decision is per block (text and neighbour), unlike the static per-kind table of
``blocks.py``, and is taken once in ``leaves.build_layout``; the packer then reads the
block's ``Behaviour`` as for any other block. The same test applies inside one block
that must be cut (``introduces``, from ``CutSite.after_lead_in``): a Python docs
``.. function::`` directive is a single block whose "Roughly equivalent to::" and code
are units, and the cut between them gets the strength ``NEVER`` (51 of 4,235 chunks of
Python's reStructuredText sources ended on such a lead-in, 2 after). It is deliberately
narrow:

* the block is a paragraph (prose) whose text, past trailing whitespace and closing
  inline markup (``**Note:**``, ``<b>Note:</b>``), ends with a colon — or is nothing but
  an admonition label (``ADMONITION_LABELS``: "See also", "Warning", "Note" …; Sphinx
  and MkDocs render an admonition's title as a paragraph of its own, which dangled at
  the end of a chunk while its body opened the next) — or is a *pseudo-heading*: one
  line that is strong emphasis from end to end in Markdown or reStructuredText source
  (``**Example 2: To copy a bucket**``, ``__Step 3__``), the way the AWS CLI's examples,
  many READMEs and changelogs title what follows without a heading (the AWS CLI's
  ``awscli/examples`` had one such title dangling at the end of a chunk in 44 of about
  1,800 chunk boundaries, its example opening the next chunk);
* it is short: at most ``MAX_LEAD_IN_CHARS`` characters (see there);
* the very next block is in the same section and is something a colon introduces
  (``INTRODUCED_KINDS``): never a heading (a new section), a footnote, a thematic break
  or an admonition (an aside, not the thing announced). A pseudo-heading titles any
  block of its section but a footnote, an admonition included (the AWS CLI puts
  ``.. warning::`` between an example's title and the example).

A list whose last line is such a colon sentence leads in too: a README's numbered
steps often leave the step's code block unindented, which ends the list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from fastrag.packing.blocks import Behaviour

if TYPE_CHECKING:
    from fastrag.packing.leaves import Block

__all__ = [
    "ADMONITION_LABELS",
    "INTRODUCED_KINDS",
    "LABELLED_KINDS",
    "LEAD_IN_KINDS",
    "MAX_LEAD_IN_CHARS",
    "announces",
    "ends_with_colon",
    "introduces",
    "is_label",
    "is_pseudo_heading",
    "is_title_line",
    "mark",
]

LEAD_IN_KINDS: Final = frozenset({"paragraph"})
"""Block kinds that may be a lead-in as a whole: prose (a list leads in only by its last
line, a table never)."""

INTRODUCED_KINDS: Final = frozenset(
    {
        "list",
        "code",
        "table",
        "blockquote",
        "definition_list",
        "field_list",
        "directive",  # RST ``.. code-block::``, ``.. doctest::``, ``.. productionlist::`` …
        "html_block",
        "line_block",
        "math",
        "image",
        "caption",
        # An example, a quoted condition or a figure is often a plain paragraph ("For
        # example:" then the example): the colon says it belongs to what precedes it.
        "paragraph",
    }
)
"""Block kinds a colon-terminated paragraph announces when it directly precedes them."""

LABELLED_KINDS: Final = frozenset({"table", "code"})
"""Blocks a title-shaped line right above them labels, whatever the format: a caption
set above a table ("A non-uniform table with vertical spans" in a Word document), an
example's name above its code. Such lines dangled at the end of a chunk at 4 of the
13,255 chunk boundaries of the Node.js docs and at both of a Word file of tables."""

TITLE_LINE_CHARS: Final = 60
"""Longest plain-text title line (``is_title_line``): a chapter or section title, not
a sentence; the Jargon File's longest chapter title is 51 characters."""

_CLOSING_PUNCTUATION: Final = frozenset(".,;!?")
"""A line ending with one of these is a sentence (or part of one), not a title."""
_UNDERLINE: Final = re.compile(r"([-=~*^#+_])\1{2,}")

MAX_LEAD_IN_CHARS: Final = 240
"""At most three 80-column lines (about 60 tokens at ~4 characters a token, a tenth of
the default 600-token maximum). A lead-in is one introducing sentence; the median is
35-120 characters over ~1,400 colon-ended paragraphs of real Markdown, RST and HTML
documents (90th percentile 164 before a list, 311 before a code sample), and this bound
keeps 85 % of them. A longer paragraph that merely *ends* with a
colon is mostly body text: pulling all of it forward would move a whole paragraph into
the next chunk to rescue one sentence. The bound is in characters, not tokens, because
it is decided before anything is counted, and the decision must not depend on the
tokenizer."""

ADMONITION_LABELS: Final = frozenset(
    {
        "attention", "caution", "danger", "deprecated", "error", "example", "examples",
        "hint", "important", "info", "note", "notes", "see also", "seealso", "tip",
        "tips", "todo", "warning",
    }
)  # fmt: skip
"""Titles of docutils', Sphinx's and MkDocs's admonitions, casefolded."""

# Emphasis around a label (``**Note**``, ``<b>Warning</b>``) and a colon after it.
_LABEL_MARKUP: Final = re.compile(r"</?[A-Za-z][A-Za-z0-9]*\s*>|[*_:\s]+")

# Trailing whitespace and closing inline markup after the colon: Markdown/RST emphasis
# delimiters and closing HTML tags left in Markdown/RST source. Not a backtick: a colon
# inside inline code (`key:`) is code, not a sentence introducing anything.
_TAIL: Final = re.compile(r"(?:</[A-Za-z][A-Za-z0-9]*\s*>|[*_\s])*\Z")
_COLONS: Final = (":", "\uff1a")  # ASCII and full-width (CJK) colon
_TAIL_ENDS: Final = ">*_"
"""Last characters (besides whitespace) of what ``_TAIL`` strips."""

_NEVER_TITLED: Final = frozenset({"heading", "footnote"})
"""Blocks no lead-in or pseudo-heading introduces: a new section, a note from elsewhere."""

# One line of strong emphasis, delimiters included: ``**…**`` or ``__…__`` with no
# delimiter or line break inside (``**a** and **b**`` is two emphases in a sentence).
_STRONG_MARKERS: Final = ("**", "__")
_STRONG_LINE: Final = re.compile(r"(\*\*|__)(?=\S)(?:(?!\1)[^\n])+(?<=\S)\1")


def ends_with_colon(text: str) -> bool:
    """Whether ``text`` ends with a colon once trailing whitespace and markup are gone."""
    last = text[-1:]
    if last not in _TAIL_ENDS and not last.isspace():
        # Nothing ``_TAIL`` strips ends the text (most blocks): no regex scan.
        return last in _COLONS
    # Only the tail can matter; bounding the slice keeps a hostile block's last-character
    # test constant-time (the regex scans from each position of what it is given).
    tail = text[-64:]
    markup = _TAIL.search(tail)
    return tail[: len(tail) if markup is None else markup.start()].endswith(_COLONS)


def is_label(text: str) -> bool:
    """Whether ``text`` is an admonition label alone ("See also", "**Note**", "Warning:")."""
    if len(text) > 40:
        return False
    return _LABEL_MARKUP.sub(" ", text).strip().casefold() in ADMONITION_LABELS


def is_pseudo_heading(text: str) -> bool:
    """Whether ``text`` is one short line of strong emphasis (``**Example 2: …**``).

    Only source markers count: HTML display text has lost its ``<b>`` tags, and
    emphasis is not a heading there unless the page's own markup says so.
    """
    if len(text) > 2 * MAX_LEAD_IN_CHARS:  # asked of every paragraph: no copy of a long one
        return False
    stripped = text.strip()
    return (
        len(stripped) <= MAX_LEAD_IN_CHARS
        and stripped[:2] in _STRONG_MARKERS
        and _STRONG_LINE.fullmatch(stripped) is not None
    )


def introduces(text: str, following_kind: str) -> bool:
    """Whether prose ``text`` leads in to a following node of kind ``following_kind``.

    Shared by whole blocks (``mark``) and by the units inside one block that a splitter
    may cut between (``CutSite.after_lead_in``: "Roughly equivalent to::" and its code
    inside one ``.. function::`` directive).
    """
    if following_kind in _NEVER_TITLED:
        return False
    if following_kind in INTRODUCED_KINDS and (_colon_sentence(text) or is_label(text)):
        return True
    if following_kind in LABELLED_KINDS and _title(text) is not None:
        return True  # "Example: generating the sha256 HMAC of a file", then the code
    # A title heads whatever follows it in its section, an admonition included
    # ("**Example 11: …**" then ".. warning::" then the example).
    return is_pseudo_heading(text)


def _colon_sentence(text: str) -> bool:
    """A short sentence ending with a colon ("Improvements:", "…the following:")."""
    # the colon test before the length: it looks at 64 characters
    return ends_with_colon(text) and len(text.strip()) <= MAX_LEAD_IN_CHARS


def announces(block: Block, following: Block) -> bool:
    """Whether paragraph ``block`` ends with ":" right before a block of its section that
    a colon introduces, whatever its length: a short one is also a lead-in (``mark``);
    the packer lets a chunk pass its target to keep a longer one with the block it
    announces (``merge.pack_atoms``)."""
    return (
        block.kind in LEAD_IN_KINDS
        and following.kind in INTRODUCED_KINDS
        and following.section == block.section
        and not following.blank
        and ends_with_colon(block.text)
    )


def _leads_in(block: Block, following: Block, plain_text: bool) -> bool:
    if following.section != block.section or following.blank:
        return False
    if block.kind in LEAD_IN_KINDS:
        return introduces(block.text, following.kind) or (
            plain_text
            and following.kind == "paragraph"
            and is_title_line(block.text, following.text)
        )
    if block.kind == "list" and following.kind in INTRODUCED_KINDS:
        # "* Now, do a clean rebuild of Node.js to test:" then a code block left
        # unindented, which ends the list in Markdown: the item meant to hold it.
        text = block.text
        return _colon_sentence(text[text.rfind("\n") + 1 :])
    return False


def _title(text: str) -> str | None:
    """The title ``text`` is, if it has a title's shape: one short line (perhaps
    underlined) with a letter and no closing punctuation."""
    if len(text) > 2 * TITLE_LINE_CHARS:  # asked of every paragraph: no copy of a long one
        return None
    lines = text.strip().splitlines()
    if len(lines) == 2 and _UNDERLINE.fullmatch(lines[1].strip()):
        lines = lines[:1]  # "MIT License" over a line of "-": the same title, underlined
    if len(lines) != 1:
        return None
    title = lines[0].strip()
    if (
        0 < len(title) <= TITLE_LINE_CHARS
        and title[-1] not in _CLOSING_PUNCTUATION
        and any(character.isalpha() for character in title)
    ):
        return title
    return None


def is_title_line(text: str, following: str) -> bool:
    """Whether plain-text paragraph ``text`` is a title line over paragraph ``following``.

    Plain text marks no headings, yet its titles are plain to see: one short line with
    a letter and no closing punctuation ("Chapter 5. Hacker Writing Style", "Preamble",
    "Verb Doubling"), perhaps underlined ("MIT License" over "-----------"), then a
    paragraph longer than any title line and twice its own length. Such a line dangled at the
    end of a chunk at 93 of the 4,347 chunk boundaries of the text bench corpus (mostly
    the Jargon File), its section opening the next chunk. A short line over a short one
    (an index entry, a subtitle) is left alone.
    """
    title = _title(text)
    return title is not None and len(following) > max(2 * len(title), TITLE_LINE_CHARS)


def mark(blocks: Sequence[Block], *, plain_text: bool = False) -> list[Block]:
    """``blocks`` with every lead-in paragraph made attach-forward (one pass, in order);
    in ``plain_text`` (the ``text`` format), title lines too (``is_title_line``)."""
    attached: dict[Behaviour, Behaviour] = {}
    marked = list(blocks)
    for index in range(len(marked) - 1):
        block = marked[index]
        if not _leads_in(block, marked[index + 1], plain_text):
            continue
        behaviour = block.behaviour
        forward = attached.get(behaviour)
        if forward is None:
            forward = attached[behaviour] = replace(behaviour, attach_forward=True)
        marked[index] = block._replace(behaviour=forward)
    return marked
