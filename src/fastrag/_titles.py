"""Whether a line of text reads as a title, for formats that may mark titles by bold alone.

Word documents without heading styles (``_office_docx_emphasis``) and HTML pages without
heading elements (``_html_emphasis``) title their sections with paragraphs set in bold.
Bold also marks emphasis: a warning sentence, a lead-in, a caption. What tells a title
apart from those is the text itself, the same in both formats:

* one line of at most ``MAX_WORDS`` words and ``MAX_CHARACTERS`` characters (twice
  that for a question or an exclamation: a FAQ's titles are its questions, "(3) SQLite
  lets me insert a string into a database column of type integer!"), with a letter in
  it;
* it starts with a word, a number or an opening bracket or quote (an option such as
  ``-4`` or ``--verbose`` is a term, not a title);
* it does not end like a sentence, a clause or a lead-in (``.`` ``,`` ``;`` ``:``);
* it is not a caption ("Table 9.54. Range Operators", "Figure 2").
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_CHARACTERS", "MAX_WORDS", "reads_as_title"]

MAX_WORDS: Final = 12
MAX_CHARACTERS: Final = 120
_OPENING: Final = re.compile(r"[\w(\[\"'“‘«]")
_CLAUSE_ENDS: Final = (".", ",", ";", ":")
_CAPTION: Final = re.compile(
    r"(?:table|figure|fig\.|listing|example|equation)\s*[\dA-Z]", re.IGNORECASE
)


def reads_as_title(text: str) -> bool:
    """Whether ``text`` (surrounding whitespace aside) reads as a title: see above."""
    line = text.strip()
    scale = 2 if line.endswith(("?", "!")) else 1
    return (
        0 < len(line) <= scale * MAX_CHARACTERS
        and "\n" not in line
        and "\v" not in line
        and len(line.split()) <= scale * MAX_WORDS
        and _OPENING.match(line) is not None
        and any(character.isalpha() for character in line)
        and not line.endswith(_CLAUSE_ENDS)
        and _CAPTION.match(line) is None
    )
