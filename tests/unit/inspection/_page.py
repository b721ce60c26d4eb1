"""Read an inspection page back with the standard library's HTML parser.

Shared by the unit tests (on the generated text) and the browser test (on Chromium's
``--dump-dom``): what elements exist, which chunk each text run and card names, and the
text the document pane shows (character references decoded, as a browser shows them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

ALLOWED_TAGS = frozenset(
    {
        *("html", "head", "meta", "title", "style", "body", "h1", "h2", "span", "p", "a"),
        *("section", "main", "aside", "figure", "pre", "details", "summary"),
        *("table", "tbody", "tr", "th", "td", "ol", "li", "dl", "dt", "dd"),
        *("svg", "line", "rect", "text"),
    }
)
"""Every element the page is built from; anything else was injected."""


@dataclass
class Page:
    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    card_ids: list[str] = field(default_factory=list)
    run_chunks: set[int] = field(default_factory=set)
    document_text: str = ""
    csp: str | None = None


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._depth = 0
        """Open elements inside ``<pre class="text">`` (0: outside it)."""
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.page.tags.append((tag, values))
        if self._depth:
            self._depth += 1
        elif tag == "pre" and values.get("class") == "text":
            self._depth = 1
        if tag == "li" and values.get("data-chunk-id") is not None:
            self.page.card_ids.append(str(values["data-chunk-id"]))
        if tag == "a" and values.get("data-chunk") is not None:
            self.page.run_chunks.add(int(str(values["data-chunk"])))
        if tag == "meta" and values.get("http-equiv") == "Content-Security-Policy":
            self.page.csp = values.get("content")

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        self.page.document_text = "".join(self._text)


def read_page(markup: str) -> Page:
    reader = _Reader()
    reader.feed(markup)
    reader.close()
    return reader.page
