"""Hypothesis strategies for realistic but nasty reStructuredText sources.

Documents are built from the block constructs docutils can trip over: titles in every
adornment style (underlined, overlined, too short), literal blocks and code directives
whose lines look like titles, nested bullet and enumerated lists, definition, field and
option lists, grid and simple tables (some malformed), admonitions and Sphinx directives
with nested bodies, ``raw``/``include`` that must never run, comments, targets,
substitution definitions, footnotes, block quotes, line blocks, doctest blocks and
transitions; joined by blank lines that may hold whitespace, with ``\\n``, ``\\r\\n`` or
``\\r`` line ends (mixed inside one document), tabs, non-ASCII text, NUL bytes and lone
surrogates.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["HEADING_LIKE", "blocks", "documents", "inline_text"]

# Pairs of lines that make a section title outside literal text.
HEADING_LIKE = (("Not a title", "==========="), ("Neither", "-------"), ("~~~~~", "~~~~~"))

_WORDS = st.sampled_from(
    [
        "pear",
        "water",
        "Ünïcødé",
        "日本語",
        "emoji🍐",
        "*em*",
        "**strong**",
        "``literal``",
        ":func:`open`",
        ":ref:`label <target>`",
        "`Python <https://python.org>`_",
        "ref_",
        "`phrase ref`_",
        "|sub|",
        "[#]_",
        "[CIT1]_",
        "https://example.com/x?y=1",
        "\\*escaped",
        "x\x00y",
        "\ud800",
        "tab\there",
        "trailing  ",
        "::",
        "a:b",
    ]
)
_CHARS = "=-~^\"'`#*+:._"


def inline_text(max_words: int = 8) -> st.SearchStrategy[str]:
    """One line of inline reST (no line end)."""
    return st.lists(_WORDS, min_size=1, max_size=max_words).map(" ".join)


def _lines(minimum: int = 1, maximum: int = 3) -> st.SearchStrategy[list[str]]:
    return st.lists(inline_text(), min_size=minimum, max_size=maximum)


@st.composite
def _title(draw: st.DrawFn) -> list[str]:
    title = draw(st.sampled_from(["Title", "A longer section title", "Ünïcødé 日本", "x"]))
    char = draw(st.sampled_from(_CHARS))
    width = len(title) + draw(st.integers(-2, 3))
    line = char * max(width, 1)
    if draw(st.booleans()):
        return [line, title, line]
    return [title, line]


@st.composite
def _literal(draw: st.DrawFn) -> list[str]:
    body = draw(
        st.lists(
            st.sampled_from(
                [
                    *(line for pair in HEADING_LIKE for line in pair),
                    "x = 1",
                    "  deeper",
                    "- not a list",
                    ".. note:: not a directive",
                ]
            ),
            min_size=1,
            max_size=5,
        )
    )
    indent = draw(st.sampled_from(["   ", "    ", "\t"]))
    style = draw(st.integers(0, 3))
    if style == 0:
        head = [draw(inline_text()) + "::", ""]
    elif style == 1:
        head = ["::", ""]
    elif style == 2:
        language = draw(st.sampled_from(["", " python", " c", " rst"]))
        head = [f".. code-block::{language}", "   :linenos:", ""]
    else:
        head = [f".. {draw(st.sampled_from(['doctest', 'testcode', 'code', 'sourcecode']))}::", ""]
    return [*head, *(indent + line for line in body)]


@st.composite
def _list(draw: st.DrawFn, depth: int = 0) -> list[str]:
    kind = draw(st.sampled_from(["bullet", "arabic", "alpha", "auto", "paren"]))
    lines: list[str] = []
    for number in range(draw(st.integers(1, 3))):
        marker = {
            "bullet": draw(st.sampled_from(["-", "*", "+", "•"])),
            "arabic": f"{number + 1}.",
            "alpha": f"{'abc'[number]})",
            "auto": "#.",
            "paren": f"({number + 1})",
        }[kind]
        indent = " " * (len(marker) + 1)
        lines.append(f"{marker} {draw(inline_text())}")
        if draw(st.booleans()):
            lines.append(f"{indent}{draw(inline_text())}")
        if depth < 3 and draw(st.integers(0, 2)) == 0:
            lines.append("")
            lines.extend(indent + line if line else "" for line in draw(_list(depth + 1)))
        if draw(st.integers(0, 2)) == 0:
            lines.append("")
    return lines


@st.composite
def _definitions(draw: st.DrawFn) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        style = draw(st.integers(0, 2))
        if style == 0:
            lines.extend([draw(inline_text(3)), "   " + draw(inline_text())])
        elif style == 1:
            lines.extend(
                [
                    f":{draw(st.sampled_from(['Author', 'param x', 'returns']))}: "
                    + draw(inline_text()),
                    "   " + draw(inline_text()),
                ]
            )
        else:
            lines.append(
                draw(st.sampled_from(["-a", "--verbose", "-f FILE, --file=FILE"]))
                + "  "
                + draw(inline_text(3))
            )
    return lines


@st.composite
def _table(draw: st.DrawFn) -> list[str]:
    columns = draw(st.integers(1, 3))
    rows = draw(st.integers(1, 3))
    cells = [
        [draw(st.sampled_from(["a", "bb", "日本", "x y", "", "1"])) for _ in range(columns)]
        for _ in range(rows + 1)
    ]
    if draw(st.booleans()):
        border = "+" + "+".join(["------"] * columns) + "+"
        head = "+" + "+".join(["======"] * columns) + "+"
        out = [border]
        for index, row in enumerate(cells):
            out.append("|" + "|".join(f" {cell:<5}"[:6].ljust(6) for cell in row) + "|")
            out.append(head if index == 0 else border)
        if draw(st.integers(0, 4)) == 0:
            out[-1] = out[-1][:-2]  # malformed: a ragged right border
        return out
    border = "  ".join(["====="] * columns)
    out = [border]
    for index, row in enumerate(cells):
        out.append("  ".join(f"{cell or '..'}".ljust(5)[:5] for cell in row).rstrip())
        if index == 0:
            out.append(border)
    out.append(border)
    return out


@st.composite
def _directive(draw: st.DrawFn) -> list[str]:
    name = draw(
        st.sampled_from(
            [
                "note",
                "warning",
                "function",
                "versionadded",
                "seealso",
                "admonition",
                "toctree",
                "topic",
                "container",
                "only",
            ]
        )
    )
    argument = draw(st.sampled_from(["", " 3.2", " open(file, mode='r')", " Title text"]))
    head = [f".. {name}::{argument}"]
    if draw(st.booleans()):
        head.append("   :noindex:")
    body = draw(st.one_of(_lines(), _list(2), _literal()))
    return [*head, "", *("   " + line if line else "" for line in body)]


_SIMPLE_BLOCKS: list[st.SearchStrategy[list[str]]] = [
    _lines(),
    _title(),
    _literal(),
    _list(),
    _definitions(),
    _table(),
    _directive(),
    st.builds(lambda text: ["    " + text, "", "    -- Someone"], inline_text()),
    st.builds(lambda text: ["| " + text, "|    indented line"], inline_text()),
    st.sampled_from(
        [
            [">>> print(1)", "1"],
            ["----------"],
            [".. comment", "   more comment"],
            [".. _label:"],
            [".. _python: https://python.org"],
            ["__ https://x.org"],
            [".. |sub| replace:: substituted"],
            [".. [#] A footnote."],
            [".. [CIT1] A citation."],
            [".. raw:: html", "", "   <b>raw</b>"],
            [".. include:: /etc/passwd"],
            [".. highlight:: c"],
            [".."],
            [".. image:: picture.png", "   :alt: alt"],
        ]
    ),
]


def blocks() -> st.SearchStrategy[list[str]]:
    """One block as its lines."""
    return st.one_of(*_SIMPLE_BLOCKS)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A whole reST source string; may be empty or whitespace-only."""
    pieces: list[str] = []
    for block in draw(st.lists(blocks(), max_size=8)):
        pieces.extend(block)
        pieces.extend([""] * draw(st.integers(0, 2)))
        if draw(st.integers(0, 5)) == 0:
            pieces.append(draw(st.sampled_from([" ", "\t", "   ", "\x0c"])))
    endings = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    out: list[str] = []
    for line in pieces:
        ending = endings if endings != "mixed" else draw(st.sampled_from(["\n", "\r\n", "\r"]))
        out.append(line + ending)
    text = "".join(out)
    if out and draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text
