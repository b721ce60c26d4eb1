"""Hypothesis strategies for realistic but nasty Markdown sources.

Documents are built from block-level pieces a parser can trip over: ATX and setext
headings, fenced and indented code whose lines look like headings, nested lists and task
items, tables with ragged rows, block quotes holding lists, HTML blocks, footnotes, link
reference definitions, front matter; joined by blank lines that may hold whitespace, with
``\\n``, ``\\r\\n`` or ``\\r`` line ends (mixed inside one document), non-ASCII text,
NUL bytes and lone surrogates.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["HEADING_LIKE", "blocks", "documents", "inline_text"]

# Lines that are headings outside code; inside code they must stay code.
HEADING_LIKE = ("# Not a heading", "## neither", "Setext look-alike", "===", "---", "###### six")

_WORDS = st.sampled_from(
    [
        "pear",
        "water",
        "soil",
        "Ünïcødé",
        "日本語",
        "emoji🍐",
        "a&amp;b",
        "`code`",
        "*em*",
        "**strong**",
        "~~gone~~",
        "[link](http://example.com/x)",
        "[ref][r1]",
        "<span>inline</span>",
        "\\*escaped",
        "[^n1]",
        "x\x00y",
        "\ud800",
        "tab\there",
        "trailing  ",
        "#hash",
        "|pipe|",
    ]
)


def inline_text(max_words: int = 8) -> st.SearchStrategy[str]:
    """One line of inline Markdown (no line end)."""
    return st.lists(_WORDS, min_size=1, max_size=max_words).map(" ".join)


def _lines(minimum: int = 1, maximum: int = 3) -> st.SearchStrategy[list[str]]:
    return st.lists(inline_text(), min_size=minimum, max_size=maximum)


@st.composite
def _heading(draw: st.DrawFn) -> list[str]:
    title = draw(inline_text(5))
    if draw(st.booleans()):
        level = draw(st.integers(1, 6))
        closing = draw(st.sampled_from(["", " #", " ###"]))
        return [f"{'#' * level} {title}{closing}"]
    return [title, draw(st.sampled_from(["===", "---", "======"]))]


@st.composite
def _code(draw: st.DrawFn) -> list[str]:
    body = draw(
        st.lists(st.sampled_from([*HEADING_LIKE, "x = 1", "", "  indented", "> q"]), max_size=4)
    )
    if draw(st.booleans()):
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        info = draw(st.sampled_from(["", "python", "js title=x", "  rust  "]))
        closed = draw(st.booleans())
        return [f"{fence}{info}", *body, *([fence] if closed else [])]
    return [f"    {line}" for line in [draw(st.sampled_from(HEADING_LIKE)), *body] if line]


@st.composite
def _list(draw: st.DrawFn, depth: int = 0) -> list[str]:
    ordered = draw(st.booleans())
    lines: list[str] = []
    for number in range(draw(st.integers(1, 3))):
        marker = (
            f"{number + 1}{draw(st.sampled_from(['.', ')']))}"
            if ordered
            else draw(st.sampled_from(["-", "*", "+"]))
        )
        task = draw(st.sampled_from(["", "[ ] ", "[x] "]))
        indent = " " * (len(marker) + 1)
        lines.append(f"{marker} {task}{draw(inline_text())}")
        if draw(st.booleans()):
            lines.append(f"{indent}{draw(inline_text())}")
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            lines.extend(indent + line if line else "" for line in draw(_list(depth + 1)))
        if draw(st.integers(0, 4)) == 0:
            lines.append("")
    return lines


@st.composite
def _table(draw: st.DrawFn) -> list[str]:
    columns = draw(st.integers(1, 4))
    header = "| " + " | ".join(draw(inline_text(2)).replace("|", "") for _ in range(columns))
    delimiter = (
        "|"
        + "|".join(draw(st.sampled_from(["---", ":--", "--:", ":-:"])) for _ in range(columns))
        + "|"
    )
    rows = [
        "| " + " | ".join("cell" for _ in range(draw(st.integers(0, columns + 1)))) + " |"
        for _ in range(draw(st.integers(0, 3)))
    ]
    return [header + " |", delimiter, *rows]


@st.composite
def _quote(draw: st.DrawFn) -> list[str]:
    inner = draw(st.one_of(_lines(), _list(), st.just(["[!NOTE]", "careful"]), _heading()))
    prefix = draw(st.sampled_from(["> ", ">", "> > "]))
    return [prefix + line for line in inner]


_SIMPLE_BLOCKS: list[st.SearchStrategy[list[str]]] = [
    _lines(),
    _heading(),
    _code(),
    _list(),
    _table(),
    _quote(),
    st.sampled_from([["***"], ["- - -"], ["___"]]),
    st.sampled_from(
        [
            ["<div>", "raw *html*", "</div>"],
            ["<!-- a comment -->"],
            ['<p align="center">', "  <b>Bold</b> &amp; <a href='x'>linked</a> text", "</p>"],
            ["<table>", "<tr><th>Name</th><th>Role</th></tr>", "<tr><td>Ann</td><td></td></tr>"],
            ["<script>var x = '<b>';</script>"],
            ["<details>", "<summary>More &lt;here&gt;</summary>"],
            ['<h2 align="center">A <em>centred</em> title</h2>'],
            ["<pre>", "  keep   this", "</pre>"],
        ]
    ),
    st.builds(lambda text: ["<div>", text, "</div>"], inline_text()),
    st.builds(lambda text: [f"[^n1]: {text}", f"    {text}"], inline_text()),
    st.sampled_from([["[r1]: http://example.com/r1 'Title'"], ["[r2]: <x y>", "[r3]: /z"]]),
]


def blocks() -> st.SearchStrategy[list[str]]:
    """One block as its lines."""
    return st.one_of(*_SIMPLE_BLOCKS)


_NOISE = st.text(
    st.one_of(
        st.sampled_from(list("#>-*+_=`~|[]()!:<>\\ \t\r\n0123456789.x")),
        st.characters(codec="utf-8"),
        st.sampled_from(["\x00", "\ud800", "\u2028", "\ufeff"]),
    ),
    max_size=200,
)


def documents() -> st.SearchStrategy[str]:
    """A whole Markdown source string; may be empty or whitespace-only.

    Mostly documents built from real block shapes; sometimes raw punctuation soup, which
    reaches parser states the shapes do not.
    """
    return st.one_of(_structured(), _structured(), _structured(), _NOISE)


@st.composite
def _structured(draw: st.DrawFn) -> str:
    pieces: list[str] = []
    if draw(st.integers(0, 5)) == 0:
        pieces.extend(draw(st.sampled_from([["---", "title: x", "---"], ["+++", "a = 1", "+++"]])))
    for block in draw(st.lists(blocks(), max_size=8)):
        pieces.extend(block)
        pieces.extend([""] * draw(st.integers(0, 2)))
        if draw(st.integers(0, 5)) == 0:
            pieces.append(draw(st.sampled_from([" ", "\t", "   "])))
    endings = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    out: list[str] = []
    for line in pieces:
        ending = endings if endings != "mixed" else draw(st.sampled_from(["\n", "\r\n", "\r"]))
        out.append(line + ending)
    text = "".join(out)
    if out and draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text
