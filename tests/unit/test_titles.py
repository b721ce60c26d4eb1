"""``reads_as_title``: the text rule Word's and HTML's bold titles share (``fastrag._titles``)."""

from __future__ import annotations

import pytest

from fastrag._titles import reads_as_title


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("CHAPTER I. Looking-Glass house", True),
        ("  DESCRIPTION\n", True),  # surrounding whitespace aside
        ("(7) How do I list all tables", True),
        # A question or an exclamation may be as long as a FAQ's.
        (
            "(5) Can multiple applications or multiple instances of the same application "
            "access a single database file at the same time?",
            True,
        ),
        ("(3) SQLite lets me insert a string into a database column of type integer!", True),
        # Too long, two lines, a sentence, a clause, a lead-in.
        ("A bold sentence that runs on for more words than any heading would have", False),
        ("First line\nSecond line", False),
        ("Back up your data first.", False),
        ("Requirements:", False),
        ("Alpha, beta,", False),
        # Options are terms; captions name a table or a figure; numbers alone say nothing.
        ("-4", False),
        ("--verbose", False),
        ("Table 9.54. Range Operators", False),
        ("Figure 2 Architecture", False),
        ("2024", False),
        ("", False),
    ],
)
def test_reads_as_title(text: str, title: bool) -> None:
    assert reads_as_title(text) is title
