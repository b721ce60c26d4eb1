"""A Markdown heading's title: the words a reader takes for its name, not its badges.

READMEs put status badges on the title line (``# dotenv [![NPM version](…)](…)
[![downloads](…)](…)``), and some title a page with a logo alone (``# <a …><img
alt="Redux Logo" …></a>``). Read as plain text, the first title is "dotenv NPM version
downloads" and the second is empty; either way the heading path, which every chunk of
the section embeds, names something else than the section. So the alternative text of
images before a heading's first word or after its last counts only when the heading has
no words of its own (an icon between words keeps its place), and a heading of inline
HTML only is named by its images' ``alt`` (what a screen reader says for it). The
heading's text in the chunk is its source either way: only the title changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html.parser import HTMLParser

__all__ = ["heading_title"]


def heading_title(
    parts: Sequence[str], images: Sequence[tuple[int, int]], inline_html: Sequence[str]
) -> str:
    """The title of a heading whose inline text is ``parts``, in order.

    ``images`` are ``[start, end)`` ranges of ``parts`` read inside images (their
    alternative text); ``inline_html`` the heading's raw inline HTML fragments.
    """
    title = "".join(parts).strip()
    if images:
        inside = [False] * len(parts)
        for start, end in images:
            inside[start:end] = [True] * (end - start)
        worded = [
            index
            for index, part in enumerate(parts)
            if not inside[index] and any(character.isalnum() for character in part)
        ]
        first, last = (worded[0], worded[-1]) if worded else (0, 0)
        edges = any(start < first or end > last + 1 for start, end in images)
        if worded and edges:  # images before the first word and after the last go
            kept = (
                part
                for index, part in enumerate(parts)
                if first <= index <= last or not inside[index]
            )
            return " ".join("".join(kept).split())
    if not title and inline_html:
        return _ImageAlts.read("".join(inline_html))
    return title


class _ImageAlts(HTMLParser):
    """The ``alt`` texts of the ``<img>`` tags of an HTML fragment, joined by spaces.

    The standard library's tokenizer, not a regex: quoting, entities and tags split
    over lines follow HTML's rules. Nothing is fetched or run.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.alts: list[str] = []

    @classmethod
    def read(cls, fragment: str) -> str:
        reader = cls()
        reader.feed(fragment)
        reader.close()
        return " ".join(" ".join(reader.alts).split())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.alts.extend(value for name, value in attrs if name == "alt" and value)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
