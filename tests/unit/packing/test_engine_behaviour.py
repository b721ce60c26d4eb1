"""What the engine does with sections, headings, tables, code, lists, prose and overlap.

Budgets are in UTF-8 bytes (``Utf8ByteTokenizer``) so each case can be reasoned about by
counting characters. Every case also passes the contract checks and the independent
validator (``check_pieces``).
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

import pytest

from fastrag._pure import compiled
from fastrag.exceptions import ChunkingError
from fastrag.packing import PackingConfig, build_embedding_text, pack
from fastrag.packing import costs as costs_module
from fastrag.packing.contract import PATH_TITLE_MAX, path_title
from fastrag.packing.costs import Costs
from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.packing._engine_support import check_pieces, normalize, tokenizer_named

BYTES = Utf8ByteTokenizer()
Pieces = tuple[tuple[str, Mapping[str, Any]], ...]


def packed(text: str, content_format: str = "markdown", **options: Any) -> Pieces:
    config = PackingConfig(**{"max_overlap_tokens": 0, **options})
    normalized = normalize(text, content_format)
    pieces = pack(normalized, BYTES, config)
    check_pieces(normalized, pieces, BYTES, config)
    return pieces


def test_a_fitting_section_stays_whole_and_is_a_plain_source_slice() -> None:
    text = "# Orchard\n\nIntro.\n\n## Water\nWater pears weekly.\n\n## Soil\nTest soil.\n"
    ((content, metadata),) = packed(text, target_tokens=50, max_tokens=200)
    assert content == text.strip()
    assert metadata["chunk_kind"] == "section"
    assert metadata["serialization_map"] == ((0, len(content), 0, len(content), "source"),)
    assert metadata["displayed_heading_ids"][0] == metadata["heading_ids"][0]
    assert build_embedding_text(content, metadata) == content  # the path is displayed


PREAMBLE = (
    "![Logo](logo.png)\n\n# Project\n\n" + "Project body sentence. " * 20 + "\n\n# Next\n\nMore.\n"
)


def test_a_small_preamble_opens_the_first_sections_chunk() -> None:
    # A README's logo line before its title was a chunk of four tokens.
    pieces = packed(PREAMBLE, target_tokens=300, max_tokens=600, min_preferred_tokens=100)
    assert [content[:22] for content, _ in pieces] == [
        "![Logo](logo.png)\n\n# P",
        "# Next\n\nMore.",
    ]
    first = pieces[0][1]
    assert first["heading_path"] == ()  # it starts in the root
    assert len(first["section_ids"]) == 1 and first["displayed_heading_ids"]
    alone = packed(PREAMBLE, target_tokens=300, max_tokens=600, min_preferred_tokens=10)
    assert alone[0][0] == "![Logo](logo.png)"  # not small: a chunk of its own, as before


def test_a_preamble_leads_even_a_section_that_must_be_split() -> None:
    pieces = packed(PREAMBLE, target_tokens=150, max_tokens=200, min_preferred_tokens=100)
    assert pieces[0][0].startswith("![Logo](logo.png)\n\n# Project\n\nProject body")
    assert len(pieces) > 2


SIBLINGS = (
    "# Guide\n\n"
    + "".join(f"## Part {n}\nShort body {n}.\n\n" for n in range(6))
    + "## Long\n"
    + "A sentence of filler text. " * 12
    + "\n"
)


def test_small_siblings_merge_toward_the_target_unless_disabled() -> None:
    merged = packed(SIBLINGS, target_tokens=120, max_tokens=200, min_preferred_tokens=0)
    assert any(m["chunk_kind"] == "merged" and len(m["section_ids"]) > 1 for _, m in merged)
    separate = packed(
        SIBLINGS,
        target_tokens=120,
        max_tokens=200,
        min_preferred_tokens=0,
        merge_small_sections=False,
    )
    assert len(separate) > len(merged)
    assert all(len(m["section_ids"]) <= 2 for _, m in separate)


def test_a_runt_cut_from_a_block_joins_the_chunk_it_ends_when_the_maximum_allows() -> None:
    tail = "Pears ripen off the tree in a cool room. Eat them."
    text = "# Pears\n\n" + "Pears ripen off the tree in a cool room. " * 16 + tail + "\n"
    options = {"target_tokens": 360, "max_tokens": 400, "min_preferred_tokens": 60}
    # One paragraph, cut at sentences: eight fill each chunk to the target, and the
    # last 50 bytes alone would be a chunk below the preferred minimum.
    chunks = [content for content, _ in packed(text, **options)]
    assert len(chunks) == 2 and chunks[1].endswith(tail)
    # Not when the runt does not fit the maximum, nor when it is not below the minimum.
    assert [c for c, _ in packed(text, **{**options, "max_tokens": 380})][-1] == tail
    assert [c for c, _ in packed(text, **{**options, "min_preferred_tokens": 45})][-1] == tail


def test_a_small_whole_block_ending_a_section_stays_a_chunk_of_its_own() -> None:
    paragraph = "Pears ripen off the tree in a cool room. " * 4
    closing = "See also: apples, pears and plums."
    text = "# Pears\n\n" + f"{paragraph}\n\n" * 4 + f"{closing}\n"
    options = {"target_tokens": 360, "max_tokens": 400, "min_preferred_tokens": 40}
    assert [c for c, _ in packed(text, **options)][-1] == closing


def test_top_level_sections_merge_only_when_allowed() -> None:
    text = "# One\nFirst body.\n\n# Two\nSecond body.\n"
    assert len(packed(text, target_tokens=100, max_tokens=200)) == 2
    crossed = packed(text, target_tokens=100, max_tokens=200, allow_cross_top_level_merge=True)
    assert len(crossed) == 1 and crossed[0][0] == text.strip()


def test_a_heading_travels_with_its_body_and_never_ends_a_chunk() -> None:
    body = " ".join(f"Sentence number {n} is here." for n in range(20))
    text = f"# Title\n\n## Section\n\n{body}\n\n## Next\n\n{body}\n"
    pieces = packed(text, target_tokens=100, max_tokens=140, min_preferred_tokens=0)
    for content, _ in pieces:
        assert not content.rstrip().endswith(("# Title", "## Section", "## Next"))
        if "## Section" in content:
            assert content.index("## Section") < content.index("Sentence number 0")
    first = pieces[0][0]
    assert first.startswith("# Title\n\n## Section\n\nSentence number 0")


TABLE = "## Prices\n\n| fruit | price |\n|-------|------:|\n" + "".join(
    f"| pear {n:02} | {n}.00 |\n" for n in range(30)
)


def test_a_long_table_repeats_its_header_as_context() -> None:
    pieces = packed(TABLE, target_tokens=120, max_tokens=160, min_preferred_tokens=0)
    header = "| fruit | price |\n|-------|------:|"
    assert len(pieces) > 2
    assert pieces[0][0].startswith("## Prices\n\n" + header)
    for content, metadata in pieces[1:]:
        assert content.startswith(header + "\n| pear")
        ((start, end, kind),) = metadata["repeated_context"]
        assert (start, end, kind) == (0, len(header), "table_header")
        assert metadata["heading_path"] == ("Prices",)
    rows = [line for content, _ in pieces for line in content.splitlines() if "pear" in line]
    assert rows == [f"| pear {n:02} | {n}.00 |" for n in range(30)]  # each row once


def test_a_header_of_empty_cells_is_not_repeated() -> None:
    # A PDF table without a header row becomes GFM with an empty one: it names no
    # column, so it is not repeated (it cost NICS's 16 chunks ~45 tokens each).
    empty = "|  |  |\n|---|---|"
    table = (
        "## Prices\n\n" + empty + "\n" + "".join(f"| pear {n:02} | {n}.00 |\n" for n in range(30))
    )
    pieces = packed(table, target_tokens=120, max_tokens=160, min_preferred_tokens=0)
    assert len(pieces) > 2
    assert pieces[0][0].startswith("## Prices\n\n" + empty + "\n| pear 00")
    for content, metadata in pieces[1:]:
        assert content.startswith("| pear")
        assert metadata["repeated_context"] == ()
    rows = [line for content, _ in pieces for line in content.splitlines() if "pear" in line]
    assert rows == [f"| pear {n:02} | {n}.00 |" for n in range(30)]


CODE = (
    "## Code\n\n```python\n"
    + "".join(
        f"def function_{n}(value):\n    total = value * {n}\n    return total\n\n" for n in range(8)
    )
    + "```\n"
)


def test_long_code_is_cut_at_definitions_with_fences_repeated() -> None:
    pieces = packed(CODE, target_tokens=140, max_tokens=200, min_preferred_tokens=0)
    assert len(pieces) > 2
    for number, (content, metadata) in enumerate(pieces):
        kinds = [kind for _, _, kind in metadata["repeated_context"]]
        if number:
            assert content.startswith("```python\ndef function_")
        if number < len(pieces) - 1:
            assert content.endswith("\n```")
        assert set(kinds) <= {"code_fence"} and len(kinds) == (number > 0) + (
            number < len(pieces) - 1
        )
        assert not metadata["atomic_structure_loss"]


def test_an_oversized_code_line_is_flagged_or_split_with_loss() -> None:
    line = "x = '" + "y" * 300 + "'"
    text = f"```\n{line}\n```\n"
    flagged = packed(
        text, target_tokens=80, max_tokens=120, oversized_block_policy="preserve_and_flag"
    )
    assert any(m["overflow"] and m["embedding_token_count"] > 120 for _, m in flagged)
    split = packed(text, target_tokens=80, max_tokens=120)
    assert all(m["embedding_token_count"] <= 120 for _, m in split)
    assert any(m["atomic_structure_loss"] for _, m in split)


def test_nested_list_continuations_repeat_parent_labels() -> None:
    children = "".join(f"  - child item number {n} with some words\n" for n in range(12))
    text = f"- Parent label line\n{children}- Second top item\n"
    pieces = packed(text, target_tokens=110, max_tokens=160, min_preferred_tokens=0)
    continued = [(c, m) for c, m in pieces if "child item" in c and "Parent" not in c[:2]]
    assert continued
    for content, metadata in pieces[1:]:
        if content.lstrip().startswith("- Second"):
            continue
        assert content.startswith("- Parent label line\n  - child item")
        assert "list_parent" in {kind for _, _, kind in metadata["repeated_context"]}


@pytest.mark.parametrize("content_format", ["rst", "html"])
def test_a_long_definition_cut_inside_repeats_its_term(content_format: str) -> None:
    paragraphs = [f"Paragraph {n} of what the option does, in a few words." for n in range(8)]
    if content_format == "rst":
        body = "\n\n".join(f"  {p}" for p in paragraphs)
        text = f"Options\n=======\n\n``--short``\n  Brief.\n\n``--verbose``\n{body}\n"
    else:
        body = "".join(f"<p>{p}</p>" for p in paragraphs)
        text = (
            "<main><h1>Options</h1><dl><dt>--short</dt><dd>Brief.</dd>"
            f"<dt>--verbose</dt><dd>{body}</dd></dl></main>"
        )
    pieces = packed(text, content_format, target_tokens=150, max_tokens=200, min_preferred_tokens=0)
    inside = [(c, m) for c, m in pieces if "Paragraph" in c and "--short" not in c]
    assert inside
    for content, metadata in inside:
        assert "verbose" in content.split("\n")[0]
        assert [kind for _, _, kind in metadata["repeated_context"]] == ["list_parent"]


SENTENCES = " ".join(f"Sentence {n} tells part {n} of the story." for n in range(24))


def test_prose_is_cut_at_sentences_unless_semantics_are_disabled() -> None:
    text = f"# Story\n\n{SENTENCES}\n"
    options = {"target_tokens": 120, "max_tokens": 150, "min_preferred_tokens": 0}
    heuristic = packed(text, **options)
    assert len(heuristic) > 2
    for content, _ in heuristic[:-1]:
        assert content.rstrip().endswith(".")
    disabled = packed(text, semantic_mode="disabled", **options)
    assert any(not content.rstrip().endswith(".") for content, _ in disabled[:-1])


def test_overlap_repeats_trailing_sentences_within_the_section_only() -> None:
    text = f"# Story\n\n{SENTENCES}\n\n# Other\n\n{SENTENCES}\n"
    pieces = packed(
        text,
        target_tokens=160,
        max_tokens=220,
        min_preferred_tokens=0,
        overlap_tokens=40,
        max_overlap_tokens=40,
    )
    overlapping = [(n, m) for n, (_, m) in enumerate(pieces) if m["overlap_intervals"]]
    assert overlapping
    for number, metadata in overlapping:
        previous = pieces[number - 1][1]
        ((start, end),) = metadata["overlap_intervals"]
        assert any(a <= start and end <= b for a, b in previous["retained_intervals"])
        assert all(end <= a or b <= start for a, b in metadata["retained_intervals"])
        assert previous["section_ids"][-1] == metadata["section_ids"][0]
        assert BYTES.count(normalize(text, "markdown").content[start:end]) <= 40
    first_of_other = next(m for _, m in pieces if m["heading_path"] == ("Other",))
    assert first_of_other["overlap_intervals"] == ()


def test_mandatory_context_that_cannot_fit_raises_naming_the_node() -> None:
    text = "# " + "Very long heading title " * 6 + "\n\nBody text that must carry the path.\n"
    with pytest.raises(ChunkingError) as caught:
        packed(text, target_tokens=40, max_tokens=60, min_preferred_tokens=0)
    message = str(caught.value)
    assert "doc:" in message and "max_tokens=60" in message and "preserve_and_flag" in message
    flagged = packed(
        text,
        target_tokens=40,
        max_tokens=60,
        min_preferred_tokens=0,
        oversized_block_policy="preserve_and_flag",
    )
    assert any(m["overflow"] for _, m in flagged)


def test_a_table_header_too_long_to_repeat_is_named_with_the_way_out() -> None:
    columns = range(40)
    text = (
        "|"
        + "|".join(f"h{i}" for i in columns)
        + "|\n"
        + "|"
        + "|".join("-" for _ in columns)
        + "|\n"
        + "|"
        + "|".join("c" for _ in columns)
        + "|\n"
    )
    budget = {"target_tokens": 80, "max_tokens": 100, "min_preferred_tokens": 0}
    with pytest.raises(ChunkingError) as caught:
        packed(text, **budget)
    message = str(caught.value)
    assert "it is the table header, repeated as context in every other piece" in message
    assert "set preserve_table_rows=False" in message
    relaxed = packed(text, preserve_table_rows=False, **budget)  # the way out works
    assert len(relaxed) > 1 and not any(m["overflow"] for _, m in relaxed)


@pytest.mark.parametrize(
    ("text", "content_format"),
    [
        ("", "markdown"),
        ("   \n\n", "markdown"),
        ("# Only\n\n## Headings\n", "markdown"),
        # A heading and an empty code block (found by hypothesis): the validator used to
        # call it chunked and demand a chunk for the heading.
        ("<h1>pear </h1> <pre>\n\n</pre> ", "html"),
    ],
)
def test_empty_and_heading_only_documents_yield_no_chunks(text: str, content_format: str) -> None:
    assert packed(text, content_format, target_tokens=100, max_tokens=200) == ()


def test_a_trailing_empty_section_joins_the_chunk_before_it() -> None:
    text = "# Guide\n\nSome body text.\n\n## Empty at the end\n"
    ((content, _),) = packed(text, target_tokens=100, max_tokens=200)
    assert content.endswith("## Empty at the end")


def _implementors(content_format: str, count: int) -> str:
    """A page ending in headings with no body under any (rustdoc's "Implementors")."""
    if content_format == "markdown":
        items = "".join(
            f"### impl Add for T{n}\n\n#### type Output = T{n}\n\n" for n in range(count)
        )
        return f"# Trait Add\n\nAdds two values.\n\n## Implementors\n\n{items}"
    items = "".join(
        f"<details><summary><section><h3>impl Add for T{n}</h3></section></summary>"
        f"<section><h4>type Output = T{n}</h4></section></details>"
        for n in range(count)
    )
    return (
        "<html><body><h1>Trait Add</h1><p>Adds two values.</p>"
        f"<h2>Implementors</h2><div>{items}</div></body></html>"
    )


def test_a_run_of_headings_counted_over_the_plan_is_cut_between_headings() -> None:
    # The non-additive tokenizer charges the square of the blank-line joins: the plan's
    # sum fits, the rendered run of 40 headings does not, and no body follows any of them.
    # The finisher used to keep the attached run whole and raise ChunkingError.
    text = "Intro.\n\n" + "".join(f"## Heading number {n}\n\n### Sub {n}\n\n" for n in range(20))
    tokenizer = tokenizer_named("non-additive")
    config = PackingConfig(
        target_tokens=66, max_tokens=100, min_preferred_tokens=0, max_overlap_tokens=0
    )
    normalized = normalize(text, "markdown")
    pieces = pack(normalized, tokenizer, config)
    check_pieces(normalized, pieces, tokenizer, config)
    assert len(pieces) > 2
    assert all(metadata["embedding_token_count"] <= 100 for _, metadata in pieces)


def test_path_title_keeps_titles_whole_up_to_the_limit_and_cuts_longer_ones_at_a_space() -> None:
    assert path_title("Installation") == "Installation"
    assert path_title("x" * PATH_TITLE_MAX) == "x" * PATH_TITLE_MAX
    words = " ".join(f"w{n:03}" for n in range(200))  # 999 code points
    cut = path_title(words)
    assert len(cut) <= PATH_TITLE_MAX and cut.endswith("w059…")
    assert words.startswith(cut[:-1])
    assert path_title("x" * 1000) == "x" * (PATH_TITLE_MAX - 1) + "…"  # no space: the limit


@pytest.mark.parametrize(
    "source",
    [
        # a paragraph that an unspaced "---" turns into a setext heading
        "# Notes\n\n" + "This sentence is long. " * 120 + "\n---\n\nThe body under it.\n",
        "<html><body><h1>Notes</h1><h2>" + "This sentence is long. " * 120 + "</h2>"
        "<p>The body under it.</p></body></html>",
    ],
)
def test_a_heading_too_long_for_any_path_is_cut_in_the_path_and_whole_in_the_content(
    source: str,
) -> None:
    # Its 2,760-byte title was mandatory context of every chunk under it: split() raised.
    content_format = "html" if source.startswith("<") else "markdown"
    normalized = normalize(source, content_format)
    (heading,) = [n for n in normalized.nodes if n.kind == "heading" and len(n.text) > 1000]
    pieces = packed(source, content_format, target_tokens=400, max_tokens=600)
    assert all(metadata["embedding_token_count"] <= 600 for _, metadata in pieces)
    last = pieces[-1][1]
    assert last["heading_path"] == ("Notes", path_title(heading.text))
    assert len(last["heading_path"][1]) <= PATH_TITLE_MAX
    shown = "".join(content for content, _ in pieces)
    assert shown.count("This sentence is long.") == 120  # the heading's text is all there


@pytest.mark.parametrize("content_format", ["markdown", "html"])
def test_trailing_headings_too_many_for_one_chunk_are_packed_not_refused(
    content_format: str,
) -> None:
    # Rust's std::ops::Add page ends in 206 such headings (3,014 tokens): they became one
    # chunk that no cut could bring under max_tokens, and split() raised ChunkingError.
    pieces = packed(_implementors(content_format, 60), content_format, target_tokens=200)
    assert len(pieces) > 5
    assert all(metadata["embedding_token_count"] <= 600 for _, metadata in pieces)
    for content, _ in pieces[1:]:  # each chunk opens on an impl, with its type under it
        assert content.lstrip("# ").startswith("impl Add for T")
        assert content.rstrip().rsplit("\n", 1)[-1].lstrip("# ").startswith("type Output")


def _empty_description(content_format: str, body: str) -> str:
    if content_format == "markdown":
        return f"## Synopsis\n\n{body}\n\n## Description\n\n## Details\n\n{body}\n"
    return (
        f"<html><body><h2>Synopsis</h2><p>{body}</p><h2>Description</h2>"
        f"<h2>Details</h2><p>{body}</p></body></html>"
    )


@pytest.mark.parametrize("merge_small_sections", [True, False])
@pytest.mark.parametrize("content_format", ["markdown", "html"])
def test_an_empty_section_joins_the_chunk_before_it_even_across_top_level(
    content_format: str, merge_small_sections: bool
) -> None:
    # gtk-doc pages have an empty top-level "Description" between "Synopsis" and
    # "Details": it used to come out as a chunk of one heading. At the end of the chunk
    # before, it leaves every chunk's heading path its own.
    body = " ".join(f"Sentence number {n} is here." for n in range(8))
    pieces = packed(
        _empty_description(content_format, body),
        content_format,
        target_tokens=200,
        max_tokens=300,
        merge_small_sections=merge_small_sections,
    )
    assert len(pieces) == 2
    (first, first_meta), (second, second_meta) = pieces
    assert first.rstrip().endswith("Description") and "Details" not in first
    assert first_meta["heading_path"] == ("Synopsis",)
    assert second.lstrip("# ").startswith("Details")
    assert second_meta["heading_path"] == ("Details",)


def test_an_empty_section_without_room_before_it_goes_on_to_what_follows() -> None:
    body = " ".join(f"Sentence number {n} is here." for n in range(8))  # 215 bytes
    # "## Synopsis" and its body take 228 of 235 bytes: no room for "## Description".
    pieces = packed(_empty_description("markdown", body), target_tokens=230, max_tokens=235)
    assert not any(content.strip() == "## Description" for content, _ in pieces)
    assert not pieces[0][0].rstrip().endswith("## Description")
    assert any(content.startswith("## Description\n\n## Details\n\n") for content, _ in pieces)


def test_an_empty_subsection_never_stands_alone_without_merging() -> None:
    body = " ".join(f"Sentence number {n} is here." for n in range(8))
    text = f"# Guide\n\n## A\n\n{body}\n\n### A.1\n\n### A.2\n\n{body}\n"
    pieces = packed(text, target_tokens=120, max_tokens=160, merge_small_sections=False)
    assert not any(content.strip() == "### A.1" for content, _ in pieces)
    assert "### A.1" in "".join(content for content, _ in pieces)


def test_html_chunks_show_readable_text_mapped_to_the_original_markup() -> None:
    text = (
        "<html><body><h1>Pears &amp; soil</h1><p>Water <b>pears</b> weekly.</p>"
        "<ul><li>one</li><li>two</li></ul></body></html>"
    )
    ((content, metadata),) = packed(text, "html", target_tokens=100, max_tokens=200)
    assert "Pears & soil" in content and "Water pears weekly." in content
    assert "<b>" not in content and "- one" in content
    assert {kind for *_, kind in metadata["serialization_map"]} >= {"source", "rendered"}


def test_the_same_input_gives_identical_output() -> None:
    options = {"target_tokens": 120, "max_tokens": 160, "min_preferred_tokens": 0}
    assert packed(TABLE + CODE, **options) == packed(TABLE + CODE, **options)


@pytest.mark.skipif(
    compiled(costs_module), reason="a compiled Costs cannot be patched to observe it"
)
def test_finished_blocks_are_released_without_changing_any_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Memory: what was built for the blocks of finished chunks (prepared leaves, cut
    # sites, splitters) is let go while the rest is packed; it is rebuilt if needed.
    tokenizer = tokenizer_named("cl100k")
    sections = [
        f"## Part {index}\n\nSome prose about part {index}. It goes on a while. " * 3
        + "\n\n| key | value |\n|---|---|\n"
        + "".join(f"| k{row} | value {row} of part {index} |\n" for row in range(12))
        + "\n- item one\n  - nested item\n- item two\n"
        for index in range(8)
    ]
    normalized = normalize("# Title\n\n" + "\n".join(sections), "markdown")
    config = PackingConfig(
        target_tokens=60, max_tokens=80, min_preferred_tokens=20, overlap_tokens=10
    )
    released: list[tuple[int, int]] = []
    original = Costs.release

    def recording(self: Costs, first: int, end: int) -> None:
        released.append((first, end))
        original(self, first, end)

    monkeypatch.setattr(Costs, "release", recording)
    pieces = pack(normalized, tokenizer, config)
    monkeypatch.setattr(Costs, "release", lambda self, first, end: None)
    assert pieces == pack(normalized, tokenizer, config)
    check_pieces(normalized, pieces, tokenizer, config)
    assert len(pieces) > 20
    assert released[0][0] == 0
    assert all(a[1] == b[0] for a, b in pairwise(released))  # in order, each block once
    assert released[-1][1] > len(pieces) // 2


def _dense_line_in_sparse_code(seed: int, characters: int, indent: int) -> str:
    """A code block of indented short lines, then one long line of URL-like characters:
    the plan spreads the block's count evenly over its characters, so the dense line
    counts far more than planned (a presigned URL in a JSON example, AWS CLI's docs)."""
    symbols = string.ascii_letters + string.digits + "%&="
    chosen = random.Random(seed).choices(symbols, k=characters)
    lines = [" " * indent + f"line {number}" for number in range(60)]
    return "# Events\n\n```text\n" + "\n".join([*lines, "".join(chosen)]) + "\n```\n\nSee.\n"


@pytest.mark.parametrize(
    ("seed", "characters", "indent"),
    [(0, 2000, 20), (1, 2000, 20), (0, 1500, 20), (3, 2500, 60), (1, 3000, 40), (0, 4000, 40)],
)
def test_a_repair_leaves_no_small_rest_when_the_block_goes_on(
    seed: int, characters: int, indent: int
) -> None:
    # A planned piece of the line counted over the maximum; its repair emitted the part
    # that fits and left a rest of 13 to 65 tokens as a chunk of its own, although the next
    # piece continued the same line. The rest now joins the next piece (the last case:
    # the next piece is itself over, and is cut so that its first part joins the rest).
    tokenizer = tokenizer_named("cl100k")
    config = PackingConfig(max_tokens=600, target_tokens=400, min_preferred_tokens=100)
    normalized = normalize(_dense_line_in_sparse_code(seed, characters, indent), "markdown")
    pieces = pack(normalized, tokenizer, config)
    check_pieces(normalized, pieces, tokenizer, config)
    counts = [metadata["embedding_token_count"] for _, metadata in pieces]
    assert max(counts) > 500  # the line was cut, under the maximum
    # Chunks of the dense line alone (the short lines' chunks are small by the plan's
    # estimate, which is not at issue here; the last chunk ends the document).
    dense = [
        count
        for (content, _), count in zip(pieces[:-1], counts, strict=False)
        if "line" not in content
    ]
    assert dense and min(dense) >= config.min_preferred_tokens, counts


@pytest.mark.parametrize(
    "source",
    [
        "<p>Hello<!-- a secret note --> world, this is text.</p>",
        "<p>Hello<script>track()</script> world, this is text.</p>",
        '<title>x<script>var s = "<h1>no</h1>";</script> pear  ',  # found by hypothesis
    ],
)
def test_an_excluded_comment_or_script_inside_a_paragraph_stays_out_of_its_chunk(
    source: str,
) -> None:
    # Two verbatim runs on either side of the exclusion made the block look like one
    # source slice, and a chunk of it alone was that slice, comment or script included.
    ((content, metadata),) = packed(source, "html", target_tokens=200, max_tokens=300)
    assert "<!--" not in content and "<script>" not in content
    assert [run[4] for run in metadata["serialization_map"]] == ["source", "source"]
