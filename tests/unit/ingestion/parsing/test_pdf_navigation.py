"""Tables of contents and indexes left out (and recorded), headings that head nothing,
and numbered headings nested by their numbers.

Synthetic rows pin the detection rules; the corpus PDFs pin the outcome on real files
(bashref's TOC and index, GeoTopo's Inhaltsverzeichnis and Stichwortverzeichnis, the
redp excerpt whose numbered sections lack their chapters).
"""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing._pdf_analyze import (
    _demote_empty_headings,
    _without_navigation,
)
from fastrag.ingestion.steps.parsing._pdf_headings import Headings, _nest_by_number, heading_number
from fastrag.ingestion.steps.parsing._pdf_layout import (
    Block,
    BlockKind,
    Box,
    Line,
    PageLayout,
)
from fastrag.ingestion.steps.parsing._pdf_navigation import (
    Entry,
    NavigationKind,
    entry_kind,
    find_navigation,
    title_kind,
)
from tests.unit.ingestion.parsing._pdf_helpers import PDF, parsed


def row(
    text: str,
    y: float = 10.0,
    *,
    size: float = 10.0,
    bold: bool = False,
    mono: bool = False,
    cells: tuple[str, ...] | None = None,
) -> Line:
    box = Box(10.0, y, 10.0 + 5 * len(text), y + size)
    parts = cells or (text,)
    return Line(text, box, size, bold, mono, False, parts, (box,) * len(parts), y + size)


def rows(*texts: str) -> list[Line]:
    return [row(text, 10.0 + 12 * index) for index, text in enumerate(texts)]


# --- single rows -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("3.5.2 Tilde Expansion … 25", Entry.LEADER),
        ("Notices … vii", Entry.LEADER),
        (". … 48", Entry.LEADER),  # a Texinfo index entry for the "." builtin
        # The page number read apart, in a column of its own (auto-multiple-choice's
        # DocBook manual): the leader still ends the row.
        ("2.1 Operating system …", Entry.LEADER),
        ("Wait for it...", None),  # three dots are no leader (_pdf_lines.LEADER: five)
        ("affine, 107", Entry.COMMA),
        ("Gauß-Krümmung, 92, 91–94", Entry.COMMA),
        ("Aktion, siehe Gruppenoperation", Entry.COMMA),
        ("1 Definition of CRC 2", Entry.PAGE_END),
        # A heading's label on its own row names nothing a page could point to.
        ("Chapter 2", None),
        ("Appendix 12", None),
        ("Kapitel 3", None),
        # Not page references: table cells after a leader, prose, thousands separators.
        ("AFM revisions … 1 work-hour × $85 per hour = $85 … $0 … $85 … $6,205.", None),
        ("Coffee … 2.50", None),
        ("Alabama 12,345", None),
        ("The FAA invites you to participate in this rulemaking by submitting", None),
        ("", None),
    ],
)
def test_entry_kind(text: str, kind: Entry | None) -> None:
    assert entry_kind(row(text)) is kind


def test_code_and_table_rows_are_never_entries() -> None:
    assert entry_kind(row("alias … 55", mono=True)) is None
    cells = ("Alabama", "12", "34", "56")
    assert entry_kind(row("Alabama 12 34 56", cells=cells)) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Contents", NavigationKind.CONTENTS),
        ("Table of Contents", NavigationKind.CONTENTS),
        ("Inhaltsverzeichnis", NavigationKind.CONTENTS),
        ("List of Figures", NavigationKind.CONTENTS),
        ("Index", NavigationKind.INDEX),
        ("Concept Index", NavigationKind.INDEX),
        ("Function and Concept Index", NavigationKind.INDEX),
        ("D.1 Index of Shell Builtin Commands", NavigationKind.INDEX),
        ("Appendix D Indexes", NavigationKind.INDEX),
        ("Stichwortverzeichnis", NavigationKind.INDEX),
        # A masthead and ordinary headings are no titles of navigation.
        ("Federal Register", None),
        ("Register", None),
        ("Symbolverzeichnis", None),
        ("3.2 Index maintenance and the cost of an update", None),
        ("Contents of the package", None),
    ],
)
def test_title_kind(text: str, kind: NavigationKind | None) -> None:
    assert title_kind(text) is kind


# --- runs ----------------------------------------------------------------------------


def keys_of(pages: list[list[list[Line]]]) -> list[list[str]]:
    """The texts of each run found in ``pages``."""
    return [
        [pages[page][region][index].text for page, region, index in run.rows]
        for run in find_navigation(pages)
    ]


def test_a_toc_with_its_title_and_wrapped_entries_is_one_run() -> None:
    page = rows(
        "Abstract text that ends the page before the contents.",
        "Contents",
        "1 Definition of CRC 2",
        "2 Related work 3",
        "3 CRC tricks and tips 4",
        "3.1 Incremental CRC computation … 4",
        "3.2 Changing the initial CRC value of a message that is",  # wrapped entry
        "already stored … 4",
        "4 Efficient software implementation 7",
        "1 Definition of CRC",  # the first chapter starts: prose follows
        "Cyclic Redundancy Check (CRC) is a well-known technique that allows",
    )
    runs = find_navigation([[page]])
    assert len(runs) == 1 and runs[0].kind is NavigationKind.CONTENTS
    assert [key[2] for key in runs[0].rows] == list(range(1, 9))


def test_an_index_with_letters_and_two_columns_across_pages_is_one_run() -> None:
    left = rows("Stichwortverzeichnis", "A", "Abbildung", "affine, 107", "stetige, 9")
    right = rows("Abschluss, 3", "Basis, 3", "Baum, 37")
    following = rows("Homotopie, 44", "Isometrie, 6, 10")
    runs = find_navigation([[left, right], [following]])
    assert len(runs) == 1 and runs[0].kind is NavigationKind.INDEX
    assert len(runs[0].rows) == len(left) + len(right) + len(following)


def test_an_untitled_run_needs_many_strong_entries() -> None:
    short = rows("alias … 55", "bg … 114", "bind … 56", "break … 49")
    assert find_navigation([[short]]) == []
    longer = rows("alias … 55", "bg … 114", "bind … 56", "break … 49", "builtin … 57")
    (run,) = find_navigation([[longer]])
    assert run.kind is NavigationKind.CONTENTS  # leaders, no title: the kind is a guess


@pytest.mark.parametrize(
    "texts",
    [
        # Prose whose rows happen to end in numbers or ", 12": too sparse.
        (
            "The measurements were repeated in 2019, 2020",
            "and the spread stayed below one percent in all of",
            "the runs we made, as Table 3 and Figures 3, 4",
            "show for the two machines we had. The outliers",
            "are listed in Section 5, 6",
            "and discussed there in some detail.",
        ),
        # A numbered list whose items end in a number, without a contents title.
        ("1 Apples 12", "2 Pears 7", "3 Plums 31", "4 Cherries 5", "5 Figs 9", "6 Limes 3"),
        # Under an index title, but bare "name number" rows: a table of index sizes.
        ("Index", "idx_users 12", "idx_orders 40", "idx_items 7"),
        # Prose whose rows end in an ellipsis now and then, a leader's shortened form.
        (
            "She paused, and then she said …",
            "nothing at all for a long while, looking at the",
            "sea and the boats coming in one by one …",
            "until the light was gone and the harbour",
            "was quiet again.",
        ),
        # A title page: a date row ending in a year after a title that is not navigation.
        ("Federal Register", "Vol. 85, No. 152", "Thursday, August 6, 2020"),
    ],
)
def test_real_content_is_never_taken_for_navigation(texts: tuple[str, ...]) -> None:
    assert find_navigation([[rows(*texts)]]) == []


def test_a_chapters_own_contents_goes_and_its_heading_stays() -> None:
    # doxygen's manual (LaTeX book class): "Chapter 2" over "Installation", then the
    # chapter's sections with leaders and pages, then its text. "Chapter 2" once read as
    # a weak entry that opened a five-entry run, and the chapter's heading went with it.
    page = [
        row("Chapter 2", 10, size=18.6, bold=True),
        row("Installation", 40, size=22.3, bold=True),
        *[
            row(text, 80 + 12 * index)
            for index, text in enumerate(
                (
                    "2.1 Compiling from source on UNIX … 7",
                    "2.2 Installing the binaries on UNIX … 8",
                    "2.3 Compiling from source on Windows … 9",
                )
            )
        ],
        row("First go to the download page to get the latest distribution.", 140),
    ]
    regions = [[page]]
    (run,) = find_navigation(regions)
    assert [key[2] for key in run.rows] == [2, 3, 4]
    headings = Headings({(0, 0, 0): 2}, frozenset({(0, 0, 1)}), source="outline")
    kept, moved, _removed = _without_navigation(regions, headings)
    assert [line.text for region in kept[0] for line in region] == [
        "Chapter 2",
        "Installation",
        "First go to the download page to get the latest distribution.",
    ]
    assert dict(moved.levels) == {(0, 0, 0): 2}


def test_a_short_untitled_run_counts_only_as_numbered_sections_with_leaders() -> None:
    # Two or three leader rows alone are no contents unless numbered like sections.
    assert find_navigation([[rows("1. Coffee … 3", "2. Tea … 2", "Cake … 4")]]) == []
    assert find_navigation([[rows("A.1 Tools … 3", "Notes … 5")]]) == []
    (run,) = find_navigation([[rows("A.1 Tools … 3", "A.2 Notes … 5")]])
    assert len(run.rows) == 2


def test_a_weak_run_counts_under_a_contents_title_when_numbered() -> None:
    page = rows("Contents", "1 Introduction 1", "2 Methods 4", "3 Results 9", "Introduction")
    (run,) = find_navigation([[page]])
    assert [key[2] for key in run.rows] == [0, 1, 2, 3]


def test_a_weak_entry_after_a_gap_does_not_extend_a_run() -> None:
    # The next part's heading, then its release line ending in a year.
    page = rows(
        "Table of Contents",
        "1. The GNU General Public License … 1",
        "2. The GNU Free Documentation License … 8",
        "1. The GNU General Public License",
        "Version 2, June 1991",
    )
    (run,) = find_navigation([[page]])
    assert [key[2] for key in run.rows] == [0, 1, 2]


# --- removal in the analysis ---------------------------------------------------------


def test_removal_keeps_headings_heading_content_and_moves_heading_keys() -> None:
    regions = [
        [
            [
                row("Table of Contents", 10, size=17, bold=True),
                row("Valgrind Frequently Asked Questions … 1", 30),
            ],
            [
                row("Valgrind Frequently Asked Questions", 10, size=25, bold=True),
                row("1. Background … 1", 40),
                row("1.1. How do you pronounce Valgrind? … 1", 52),
                row("1.2. Where does the name come from? … 1", 64),
                row("1. Background", 90, size=14, bold=True),
                row("Valgrind is pronounced like grinned.", 110),
            ],
        ]
    ]
    headings = Headings({(0, 0, 0): 1, (0, 1, 0): 1, (0, 1, 4): 2}, source="outline")
    kept, moved, removed = _without_navigation(regions, headings)
    texts = [[line.text for line in region] for region in kept[0]]
    assert texts == [
        ["Valgrind Frequently Asked Questions"],
        ["1. Background", "Valgrind is pronounced like grinned."],
    ]
    assert dict(moved.levels) == {(0, 0, 0): 1, (0, 1, 0): 2}
    assert [(part.kind, part.pages, part.rows) for part in removed] == [("contents", (1,), 5)]


def test_a_wrapped_bold_toc_entry_goes_with_the_run() -> None:
    regions = [
        [
            [
                *rows("Contents", "10.8 Optional Features … 161", "Appendix A Bugs … 167"),
                row("Appendix B Major Differences From", 60, size=14, bold=True),
                row("The Bourne Shell … 168", 72, size=14, bold=True),
                row("B.1 Implementation Differences … 172", 84),
                row("Body text after the contents, on its own.", 200),
            ]
        ]
    ]
    headings = Headings({(0, 0, 3): 1}, source="layout")
    kept, moved, _removed = _without_navigation(regions, headings)
    assert [line.text for region in kept[0] for line in region] == [
        "Body text after the contents, on its own."
    ]
    assert not moved.levels


def test_nothing_is_removed_when_the_document_is_only_an_index() -> None:
    regions = [[rows("Index", "alias, 5", "bind, 7", "cd, 9")]]
    kept, _moved, removed = _without_navigation(regions, Headings())
    assert kept == regions and removed == ()


# --- headings that head nothing ------------------------------------------------------


def heading(text: str, level: int, page: int = 1) -> Block:
    return Block(BlockKind.HEADING, page, (row(text),), level)


def paragraph(text: str, page: int = 1) -> Block:
    return Block(BlockKind.PARAGRAPH, page, (row(text),))


def test_headings_over_a_higher_heading_or_nothing_become_paragraphs() -> None:
    pages = [
        PageLayout(1, 600, 800, (heading("Front cover", 2), heading("The Title", 1)), False),
        PageLayout(
            2,
            600,
            800,
            (
                paragraph("Text."),
                heading("Author One", 1),
                heading("Author Two", 1),  # same level: left to the packer
                paragraph("More text."),
                heading("Redpaper", 1),
            ),
            False,
        ),
    ]
    kinds = [
        (block.lines[0].text, block.kind)
        for page in _demote_empty_headings(pages)
        for block in page.blocks
    ]
    assert kinds == [
        ("Front cover", BlockKind.PARAGRAPH),
        ("The Title", BlockKind.HEADING),
        ("Text.", BlockKind.PARAGRAPH),
        ("Author One", BlockKind.HEADING),
        ("Author Two", BlockKind.HEADING),
        ("More text.", BlockKind.PARAGRAPH),
        ("Redpaper", BlockKind.PARAGRAPH),
    ]


# --- nesting by numbers --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("3.1.2 Quoting", ("3", "1", "2")),
        ("Chapter 2. Roles and separation of duties", ("2",)),
        ("Appendix B Major Differences", ("b",)),
        ("A.1 Syntax", ("a", "1")),
        ("A Note on Style", None),
        ("Part II Advanced", None),  # parts are numbered apart from chapters
        ("2010 Results", None),
        ("Authors", None),
    ],
)
def test_heading_number(text: str, number: tuple[str, ...] | None) -> None:
    assert heading_number(text) == number


def test_numbered_headings_close_the_parents_their_numbers_contradict() -> None:
    titles = [
        ("Chapter 1. Securing data", 1),
        ("Authors", 2),
        ("1.2 Current state", 2),
        ("1.3.1 Existing controls", 3),  # 1.3 missing: under chapter 1, beside 1.2
        ("2.1.7 Verifying IDs", 3),  # chapter 2 missing: closes chapter 1
        ("2.2 Separation of duties", 2),
        ("Notes", 3),  # unnumbered: takes what it is given
        ("3.2.2 Built-in variables", 3),
        ("3.2.3 More variables", 3),  # a sibling of 3.2.2
    ]
    keys = {(0, 0, index): level for index, (_title, level) in enumerate(titles)}
    texts = {(0, 0, index): title for index, (title, _level) in enumerate(titles)}
    levels = _nest_by_number(keys, texts)
    assert [levels[(0, 0, index)] for index in range(len(titles))] == [1, 2, 2, 2, 1, 1, 3, 1, 1]


def test_consistent_numbering_is_left_alone() -> None:
    titles = ["1 Introduction", "1.1 What is Bash?", "1.2 What is a shell?", "2 Definitions"]
    titles += ["2.1 Terms", "2.1.1 Blanks", "3 Basic Shell Features"]
    given = [1, 2, 2, 1, 2, 3, 1]
    keys = {(0, 0, index): level for index, level in enumerate(given)}
    texts = {(0, 0, index): title for index, title in enumerate(titles)}
    assert list(_nest_by_number(keys, texts).values()) == given


# --- the corpus ----------------------------------------------------------------------

corpus = pytest.mark.skipif(not PDF.is_dir(), reason="shared corpus not present")


@corpus
def test_bashref_toc_and_index_are_left_out_and_recorded() -> None:
    document = parsed("bashref.pdf")
    content, metadata = document.content, document.metadata
    removed = metadata["removed_navigation"]
    assert removed["contents"]["pages"] == [3, 4, 5, 6]
    assert removed["index"]["pages"] == list(range(188, 197))
    assert 130 <= removed["contents"]["lines"] <= 160
    assert 550 <= removed["index"]["lines"] <= 650
    diagnostics = metadata["parse_diagnostics"]
    lines = removed["contents"]["lines"]
    assert f"navigation: {lines} table of contents lines left out (pages 3–6)" in diagnostics
    assert metadata["pages_without_text"] == []  # left out, not blank
    assert "Table of Contents" not in content and "1.1 What is Bash? … 1" not in content
    assert "# Appendix D Indexes" not in content and "alias … 55" not in content
    # The sections the TOC lists are all still there, with their text.
    assert "### 3.5.2 Tilde Expansion" in content
    assert "# Appendix C GNU Free Documentation License" in content
    assert content.rstrip().endswith("to permit their use in free software.")
    # No chunk is made of TOC or index rows any more.
    chunks = [text for text, _meta in StructureAwareChunker().split(document)]
    leaders = [text for text in chunks if text.count(" … ") >= 3]
    assert leaders == []


@corpus
def test_geotopo_toc_and_index_are_left_out() -> None:
    document = parsed("GeoTopo-komprimiert.pdf")
    content = document.content
    removed = document.metadata["removed_navigation"]
    assert removed["contents"]["pages"] == [4]
    assert removed["index"]["pages"] == [115, 116, 117]
    assert "Inhaltsverzeichnis" not in content and "Stichwortverzeichnis" not in content
    assert "affine, 107" not in content
    assert "# 1 Topologische Grundbegriffe" in content


@corpus
@pytest.mark.parametrize(
    "name",
    [
        "acmart-sample-sigconf.pdf",
        "amt_handbook_sample.pdf",
        "federal-register-2020-17221.pdf",
        "multicolumn.pdf",
        "nics-background-checks-2015-11.pdf",
    ],
)
def test_files_without_navigation_lose_nothing(name: str) -> None:
    document = parsed(name)
    assert document.metadata["removed_navigation"] == {}
    assert not [note for note in document.metadata["parse_diagnostics"] if "navigation" in note]


@corpus
def test_redp_excerpt_nests_headings_by_their_numbers_and_keeps_no_empty_ones() -> None:
    document = parsed("redp5110_sampled.pdf")
    assert document.metadata["removed_navigation"]["contents"]["pages"] == [2]
    paths = {
        tuple(metadata["heading_path"])
        for _text, metadata in StructureAwareChunker().split(document)
    }
    chapter = "Chapter 1. Securing and protecting IBM DB2 data"
    assert (chapter, "1.3.1 Existing row and column control") in paths
    for path in paths:
        numbers = [heading_number(title) for title in path]
        for parent, child in pairwise(numbers):
            if parent is not None and child is not None:
                assert child[: len(parent)] == parent, path
    headings = [line for line in document.content.splitlines() if re.match(r"#{1,6} ", line)]
    assert "## Front cover" not in headings and "# Redpaper ™" not in headings
    assert "Front cover" in document.content and "Redpaper ™" in document.content
