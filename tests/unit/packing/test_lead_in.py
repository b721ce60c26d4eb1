"""A short paragraph ending with ":" travels with the list, code or table it introduces.

Budgets are in UTF-8 bytes so each case can be reasoned about by counting characters.
Each case was checked to fail with lead-ins left as plain paragraphs (the lead-in then
ends the first chunk). Every output also passes the contract checks and the independent
validator (``check_pieces``), including over generated lead-in-heavy documents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError
from fastrag.packing import PackingConfig, pack
from fastrag.packing.lead_in import (
    _COLONS,
    _TAIL,
    MAX_LEAD_IN_CHARS,
    ends_with_colon,
    is_label,
    is_pseudo_heading,
    is_title_line,
)
from fastrag.packing.leaves import build_layout
from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.packing._engine_support import (
    TOKENIZER_NAMES,
    check_pieces,
    normalize,
    tokenizer_named,
)

BYTES = Utf8ByteTokenizer()
Pieces = tuple[tuple[str, Mapping[str, Any]], ...]
BUDGET = {"target_tokens": 90, "max_tokens": 110, "min_preferred_tokens": 0}
INTRO = "Version 2 ships a faster parser and a smaller wheel."


def contents(text: str, content_format: str = "markdown", **options: Any) -> list[str]:
    config = PackingConfig(**{"max_overlap_tokens": 0, **BUDGET, **options})
    normalized = normalize(text, content_format)
    pieces = pack(normalized, BYTES, config)
    check_pieces(normalized, pieces, BYTES, config)
    return [content for content, _ in pieces]


def test_a_markdown_lead_in_moves_to_the_list_it_introduces() -> None:
    text = (
        f"# Release\n\n{INTRO}\n\nImprovements:\n\n"
        "- Parsing is twice as fast on large files.\n- Wheels are smaller.\n"
    )
    assert contents(text) == [
        f"# Release\n\n{INTRO}",
        "Improvements:\n\n- Parsing is twice as fast on large files.\n- Wheels are smaller.",
    ]


def test_an_rst_literal_block_keeps_its_introducing_paragraph() -> None:
    text = (
        f"Release\n=======\n\n{INTRO}\n\nUse it like this::\n\n"
        "    import parser\n    parser.run()\n"
    )
    assert contents(text, "rst") == [
        f"Release\n=======\n\n{INTRO}",
        "Use it like this::\n\n    import parser\n    parser.run()",
    ]


def test_an_html_bold_lead_in_moves_to_its_code_sample() -> None:
    text = (
        f"<h1>Release</h1><p>{INTRO}</p><p><b>For example:</b></p>"
        "<pre>import parser\nparser.run()</pre>"
    )
    assert contents(text, "html", target_tokens=80, max_tokens=100) == [
        f"Release\n\n{INTRO}",
        "For example:\n\nimport parser\nparser.run()",
    ]


@pytest.mark.parametrize(
    ("text", "content_format"),
    [
        # Sphinx and MkDocs render an admonition's title as a paragraph of its own.
        (
            f"<h1>Release</h1><p>{INTRO}</p>"
            '<div class="admonition seealso"><p class="admonition-title">See also</p>'
            "<p>The third-party regex module, with an API compatible with re.</p></div>",
            "html",
        ),
        (
            f"# Release\n\n{INTRO}\n\n**Warning**\n\n"
            "The third-party regex module, with an API compatible with re.\n",
            "markdown",
        ),
    ],
)
def test_an_admonition_label_travels_with_the_text_it_titles(
    text: str, content_format: str
) -> None:
    chunks = contents(text, content_format, target_tokens=80, max_tokens=100)
    assert len(chunks) == 2
    assert chunks[0].endswith(INTRO)
    assert chunks[1].lstrip("*").startswith(("See also", "Warning"))


def test_labels_are_admonition_titles_alone() -> None:
    assert all(map(is_label, ["See also", "**Note**", "<b>Warning</b>:", "Tip", "EXAMPLES"]))
    assert not any(map(is_label, ["Note that x", "A note", "Warnings and errors", ""]))


EXAMPLE = "It copies one file to a bucket."
SAMPLE = "import parser\nparser.run(fast=True)\nparser.close()"


@pytest.mark.parametrize(
    ("text", "content_format", "opening", "headed"),
    [
        (
            f"# Copying\n\n{INTRO}\n\n**Example 2**\n\n{EXAMPLE}\n",
            "markdown",
            "**Example 2**",
            EXAMPLE,
        ),
        (
            f"# Copying\n\n{INTRO}\n\n__Step 2__\n\n{EXAMPLE}\n",
            "markdown",
            "__Step 2__",
            EXAMPLE,
        ),
        # The AWS CLI's examples: the title, an admonition, then the example.
        (
            f"Copy\n====\n\n{INTRO}\n\n**Example 11**\n\n"
            f".. warning:: Input may change.\n\n{EXAMPLE}\n",
            "rst",
            "**Example 11**",
            ".. warning::",
        ),
        # Label lines (one short unpunctuated line) above code or a table, any format.
        (
            f"# Hashing\n\n{INTRO}\n\nExample: hashing a file\n\n```js\n{SAMPLE}\n```\n",
            "markdown",
            "Example: hashing a file",
            "parser.run",
        ),
        # A caption set above its table, as a Word document's converted Markdown has it.
        (
            f"# Tables\n\n{INTRO}\n\nTable 2 : Countries\n\n"
            "| Code | Country |\n|---|---|\n| VENZ | Venezuela |\n| VTNM | Vietnam |\n",
            "markdown",
            "Table 2 : Countries",
            "| Code | Country |",
        ),
        (
            f"<h1>Logging</h1><p>{INTRO}</p><p>then running the script results in</p>"
            f"<pre>{SAMPLE}</pre>",
            "html",
            "then running the script results in",
            "parser.run",
        ),
    ],
)
def test_a_title_or_label_line_opens_the_chunk_of_what_it_heads(
    text: str, content_format: str, opening: str, headed: str
) -> None:
    chunks = contents(text, content_format, target_tokens=80, max_tokens=100)
    assert len(chunks) >= 2
    assert chunks[0].endswith(INTRO)  # it ended with the title, which fitted; or
    assert chunks[1].startswith(opening) and headed in chunks[1]  # it stood alone


def test_pseudo_headings_are_one_line_of_strong_emphasis() -> None:
    titles = ["**Example 2: To copy a file**", "__Step 3__\n", "  **Returns.**  ", "**a**"]
    assert all(map(is_pseudo_heading, titles))
    prose = [
        "**a** and **b**",  # two emphases in a sentence
        "A **bold** word",
        "*Emphasis*",
        "** spaced**",
        "**two\nlines**",
        "****",
        "**" + "x" * MAX_LEAD_IN_CHARS + "**",  # an emphasized paragraph, not a title
        "",
    ]
    assert not any(map(is_pseudo_heading, prose))


def test_a_bold_title_before_a_new_section_or_in_html_stays_a_paragraph() -> None:
    text = "# Doc\n\n**Summary**\n\n## Sub\n\nBody.\n\n**Last words**\n"
    layout = build_layout(normalize(text, "markdown"), PackingConfig())
    forward = [b.text.strip() for b in layout.blocks if b.behaviour.attach_forward]
    assert forward == ["# Doc", "## Sub"]
    html = "<h1>Doc</h1><p><b>Example 2</b></p><p>Body.</p>"
    layout = build_layout(normalize(html, "html"), PackingConfig())
    assert [b.text for b in layout.blocks if b.behaviour.attach_forward] == ["Doc"]


def test_a_lead_in_opens_the_first_piece_of_a_list_too_large_to_travel_whole() -> None:
    items = "".join(f"- Item number {n} of the changes in this release.\n" for n in range(8))
    text = f"# Notes\n\n{INTRO}\n\nChanges:\n\n{items}"
    chunks = contents(text, target_tokens=150, max_tokens=170)
    assert not any(chunk.endswith("Changes:") for chunk in chunks)
    assert chunks[0] == f"# Notes\n\n{INTRO}"
    assert chunks[1].startswith("Changes:\n\n- Item number 0 of")


@pytest.mark.parametrize(
    ("text", "content_format", "lead"),
    [
        # One ``.. function::`` directive is one block: its paragraphs and literal blocks
        # are units the splitter cuts between.
        (
            f".. function:: run(fast)\n\n   {INTRO}\n\n   Roughly equivalent to::\n\n"
            + "".join(f"      {line}\n" for line in SAMPLE.splitlines()),
            "rst",
            "Roughly equivalent to::",
        ),
        # A loose list item: its lead-in paragraph and the code sample inside it.
        (
            f"- {INTRO}\n\n  For example:\n\n  ```\n"
            + "".join(f"  {line}\n" for line in SAMPLE.splitlines())
            + "  ```\n",
            "markdown",
            "For example:",
        ),
        (
            f"<dl><dt>run</dt><dd><p>{INTRO}</p><p>For example:</p><pre>{SAMPLE}</pre></dd></dl>",
            "html",
            "For example:",
        ),
    ],
)
def test_a_lead_in_inside_one_block_stays_with_what_it_introduces(
    text: str, content_format: str, lead: str
) -> None:
    chunks = contents(text, content_format, target_tokens=90, max_tokens=110)
    assert len(chunks) >= 2
    assert not any(chunk.rstrip().endswith(lead) for chunk in chunks)
    assert any(lead in chunk and "parser.run" in chunk for chunk in chunks)


CHAPTER = " ".join(["Hackers write with care."] * 3)


@pytest.mark.parametrize(
    "title", ["Chapter 5. Hacker Writing Style", "Preamble", "MIT License\r\n-----------"]
)
def test_a_plain_text_title_line_opens_the_chunk_of_its_section(title: str) -> None:
    text = f"{INTRO}\n\n{title}\n\n{CHAPTER}\n"
    chunks = contents(text, "text", target_tokens=80, max_tokens=110)
    assert chunks == [INTRO, f"{title}\n\n{CHAPTER}"]


def test_title_lines_are_short_unpunctuated_lines_over_a_longer_paragraph() -> None:
    body = CHAPTER
    assert all(
        is_title_line(title, body)
        for title in ["Verb Doubling", "  Chapter 9. Crackers  ", "TERMS\n=====", ":GIGO: /goh/"]
    )
    not_titles = [
        "A sentence.",
        "Yes, and so,",
        "Two lines\nof prose",
        "-----",
        "x" * 61,
        "Title\n--\n",  # an underline needs three characters
        "",
    ]
    assert not any(is_title_line(text, body) for text in not_titles)
    assert not is_title_line("meme", "meme plague")  # an index entry over another


def test_title_lines_are_only_read_in_plain_text() -> None:
    text = f"{INTRO}\n\nPreamble\n\n{CHAPTER}\n"
    layout = build_layout(normalize(text, "markdown"), PackingConfig())
    assert not any(block.behaviour.attach_forward for block in layout.blocks)
    layout = build_layout(normalize(text, "text"), PackingConfig())
    assert [b.text for b in layout.blocks if b.behaviour.attach_forward] == ["Preamble"]


def test_a_list_ending_on_a_colon_keeps_the_code_its_step_introduces() -> None:
    # A README's step with its code block left unindented, which ends the list.
    text = f"# Build\n\n{INTRO}\n\n* Now rebuild and test:\n\n```\n{SAMPLE}\n```\n"
    chunks = contents(text, target_tokens=80, max_tokens=100)
    assert chunks == [f"# Build\n\n{INTRO}", f"* Now rebuild and test:\n\n```\n{SAMPLE}\n```"]


def test_only_short_colon_paragraphs_directly_before_introduced_content_lead_in() -> None:
    long_lead = "This paragraph explains a great deal before it finally gets to the point. " * 4
    text = (
        "# Doc\n\n"
        "Short:\n\n- a list\n\n"  # 0: lead-in
        f"{long_lead}so:\n\n- a list\n\n"  # 1: too long
        "Set the key `mode:`\n\n- a list\n\n"  # 2: the colon is code
        "Then a subsection follows:\n\n## Sub\n\nBody.\n"  # 3: next block is a new section
    )
    assert len(long_lead) > MAX_LEAD_IN_CHARS
    layout = build_layout(normalize(text, "markdown"), PackingConfig())
    forward = [b.text.strip()[-12:] for b in layout.blocks if b.behaviour.attach_forward]
    assert forward == ["# Doc", "Short:", "## Sub"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Improvements:", True),
        ("Improvements:\n  \n", True),
        ("**For example:**", True),
        ("*Note*: __these__ are:__ ", True),
        ("<b>Options:</b>\n", True),
        ("例如：", True),
        ("Set the key `mode:`", False),
        ("A plain sentence.", False),
        ("Ratio 3:4 holds", False),
        ("", False),
        (":", True),
    ],
)
def test_a_colon_counts_past_trailing_whitespace_and_closing_markup(
    text: str, expected: bool
) -> None:
    assert ends_with_colon(text) is expected


@given(st.text(alphabet=st.sampled_from(list(":\uff1a*_> \n\u00a0\u3000</b>a`")), max_size=80))
def test_the_last_character_shortcut_agrees_with_the_tail_pattern(text: str) -> None:
    # The shortcut skips the regex when no stripped character ends the text; the answer
    # must be the pattern's on every text, including those where it cannot skip.
    tail = text[-64:]
    markup = _TAIL.search(tail)
    expected = tail[: len(tail) if markup is None else markup.start()].endswith(_COLONS)
    assert ends_with_colon(text) is expected


# Lead-in-heavy documents in each format: runs of lead-ins, lead-ins before every kind of
# block, before headings and at the end, under random budgets and every tokenizer.
_WORDS = st.lists(st.sampled_from(["pear", "water", "soil", "日本語", "a", "Ünïcødé"]), min_size=1)


# Each format's blocks, built from some words and a small count (of list items).
_Template = Callable[[str, int], str]
_MARKDOWN: dict[str, _Template] = {
    "lead": lambda w, n: f"{w}:",
    "item": lambda w, n: f"- {w}.\n\n  {w}:\n\n  ```\n  {w}\n  x = {n}\n  ```",
    "title": lambda w, n: f"**{w}**",
    "para": lambda w, n: f"{w}.",
    "list": lambda w, n: "\n".join(f"- {w} {k}" for k in range(n)),
    "code": lambda w, n: f"```\n{w}\n{w}\n```",
    "table": lambda w, n: f"| a | b |\n|---|---|\n| {w} | x |\n| y | z |",
    "head": lambda w, n: f"## {w}",
}
_RST: dict[str, _Template] = {
    "lead": lambda w, n: f"{w}:",
    "function": lambda w, n: (
        f".. function:: f()\n\n   {w}.\n\n   {w} like::\n\n      {w}\n      x = {n}"
    ),
    "title": lambda w, n: f"**{w}**",
    "note": lambda w, n: f".. note:: {w}",
    "literal": lambda w, n: f"{w}::\n\n    {w}\n    x = 1",
    "para": lambda w, n: f"{w}.",
    "list": lambda w, n: "\n".join(f"* {w} {k}" for k in range(n)),
    "head": lambda w, n: f"{w}\n{'-' * (len(w) * 2 + 2)}",
}
_HTML: dict[str, _Template] = {
    "lead": lambda w, n: f"<p><b>{w}:</b></p>",
    "para": lambda w, n: f"<p>{w}.</p>",
    "list": lambda w, n: "<ul>" + "".join(f"<li>{w} {k}</li>" for k in range(n)) + "</ul>",
    "code": lambda w, n: f"<pre>{w}\n{w}</pre>",
    "table": lambda w, n: f"<table><tr><td>{w}</td><td>x</td></tr></table>",
    "head": lambda w, n: f"<h2>{w}</h2>",
}


def _blocks(templates: dict[str, _Template], most: int) -> st.SearchStrategy[list[str]]:
    """Up to ``most`` blocks; lead-ins drawn twice as often as any other kind."""
    kinds = ["lead", *templates]

    @st.composite
    def draw_blocks(draw: st.DrawFn) -> list[str]:
        blocks: list[str] = []
        for _ in range(draw(st.integers(1, most))):
            words = " ".join(draw(_WORDS))
            kind = draw(st.sampled_from(kinds))
            blocks.append(templates[kind](words, draw(st.integers(1, 5))))
        return blocks

    return draw_blocks()


_DOCUMENTS = {
    "markdown": _blocks(_MARKDOWN, 12).map(lambda blocks: "\n\n".join(blocks) + "\n"),
    "rst": _blocks(_RST, 10).map(lambda blocks: "\n\n".join(blocks) + "\n"),
    "html": _blocks(_HTML, 10).map(
        lambda blocks: "<html><body>" + "".join(blocks) + "</body></html>"
    ),
}


@pytest.mark.parametrize("content_format", sorted(_DOCUMENTS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_lead_in_heavy_documents_keep_the_contract(
    content_format: str, data: st.DataObject
) -> None:
    source = data.draw(_DOCUMENTS[content_format], label="document")
    name = data.draw(st.sampled_from(TOKENIZER_NAMES), label="tokenizer")
    maximum = data.draw(st.integers(16, 200), label="max_tokens")
    target = data.draw(st.integers(max(1, maximum // 3), maximum), label="target_tokens")
    config = PackingConfig(
        target_tokens=target,
        max_tokens=maximum,
        min_preferred_tokens=data.draw(st.integers(0, target), label="min_preferred"),
        max_overlap_tokens=min(8, maximum - 1),
        merge_small_sections=data.draw(st.booleans(), label="merge"),
        preserve_heading_hierarchy=data.draw(st.booleans(), label="hierarchy"),
        oversized_block_policy=data.draw(
            st.sampled_from(["split_with_context", "preserve_and_flag"]), label="policy"
        ),
    )
    normalized = normalize(source, content_format)
    try:
        pieces = pack(normalized, tokenizer_named(name), config)
    except ChunkingError:
        assert config.oversized_block_policy == "split_with_context"
        return
    check_pieces(normalized, pieces, tokenizer_named(name), config)


LONG_INTRO = (
    "Functions that steal a reference make populating a new tuple short, because each "
    "new object goes straight into its slot and nothing has to be released afterwards; "
    "the code that builds the tuple (1, 2, 'three') could look like this (error "
    "handling left out for the moment):"
)
SAMPLE = "t = PyTuple_New(3);\nPyTuple_SetItem(t, 0, one);"
AFTER = "Here the new reference is stolen at once, so the caller owns nothing more."


@pytest.mark.parametrize(
    ("content_format", "text", "code"),
    [
        ("markdown", f"{LONG_INTRO}\n\n```c\n{SAMPLE}\n```\n\n{AFTER}\n", f"```c\n{SAMPLE}\n```"),
        (
            "rst",
            f"{LONG_INTRO[:-1]}::\n\n    {SAMPLE.replace(chr(10), chr(10) + '    ')}\n\n{AFTER}\n",
            "    " + SAMPLE.replace("\n", "\n    "),
        ),
    ],
)
def test_a_long_paragraph_ending_with_a_colon_keeps_the_block_it_announces(
    content_format: str, text: str, code: str
) -> None:
    # Too long to be a lead-in (pulled forward whole), so the chunk ends after it at
    # the target; the code sample it announces fits behind it within the maximum.
    assert len(LONG_INTRO) > MAX_LEAD_IN_CHARS
    budget = {"target_tokens": 300, "max_tokens": 400, "min_preferred_tokens": 0}
    first, second = contents(text, content_format, **budget)
    assert first.endswith(code) and second == AFTER
    # Without the room, the chunk ends after the paragraph as before.
    tight = {"target_tokens": 280, "max_tokens": 300, "min_preferred_tokens": 0}
    assert contents(text, content_format, **tight)[0].endswith(":")


BEFORE = (
    "Tuples are immutable, so the C API fills a new tuple once, slot by slot, before any "
    "Python code can see it; each slot holds one reference owned by the tuple."
)
LONG_SAMPLE = "\n".join(f"PyTuple_SetItem(t, {i}, item{i});" for i in range(6))


@pytest.mark.parametrize("content_format", ["markdown", "rst"])
def test_a_long_colon_paragraph_goes_with_its_block_when_this_chunk_cannot_take_both(
    content_format: str,
) -> None:
    """The block does not fit behind the paragraph in this chunk: the paragraph moves to
    the next one with it, instead of ending this chunk on "… could look like this:"."""
    if content_format == "markdown":
        text = f"{BEFORE}\n\n{LONG_INTRO}\n\n```c\n{LONG_SAMPLE}\n```\n"
    else:
        indented = LONG_SAMPLE.replace("\n", "\n    ")
        text = f"{BEFORE}\n\n{LONG_INTRO[:-1]}::\n\n    {indented}\n"
    budget = {"target_tokens": 450, "max_tokens": 600, "min_preferred_tokens": 100}
    first, second = contents(text, content_format, **budget)
    assert first == BEFORE
    assert second.startswith(LONG_INTRO[:40]) and "item5" in second
    # When what would stay behind is under the preferred minimum, the paragraph stays.
    small = {**budget, "min_preferred_tokens": len(BEFORE) + 1}
    assert contents(text, content_format, **small)[0].rstrip().endswith(":")
