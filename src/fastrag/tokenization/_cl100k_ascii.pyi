"""cl100k_base token counts of ASCII text by pre-tokens (hand-written C: see the ``.c``)."""

from collections.abc import Callable, Sequence

from fastrag.tokenization.counting import Prepared

class AsciiCounter:
    """``PreTokenCounter``'s ASCII path, with a memo keyed by each pre-token's bytes."""

    def __init__(self, encode_piece: Callable[[bytes], Sequence[int]]) -> None: ...
    def count(self, text: str) -> int:
        """The encoder's count of ``text``; ``ValueError`` unless it is ASCII."""
    def prepare_many(self, texts: Sequence[str]) -> list[Prepared | None]:
        """``PreTokenCounter.prepare_many``'s parts; ``None`` for each non-ASCII text."""

def pretokens(text: str) -> list[str]:
    """cl100k_base's pre-tokens of ASCII ``text`` (as ``CL100K_SAFE.findall``; for tests)."""
