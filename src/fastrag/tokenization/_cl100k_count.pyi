"""cl100k_base token counts by pre-tokens (hand-written C: see ``_cl100k_count.c``)."""

from collections.abc import Callable, Sequence

from fastrag.tokenization.counting import Prepared

class Cl100kCounter:
    """``PreTokenCounter``'s ``SAFE`` text path, with a memo keyed by each pre-token's bytes.

    ``classes`` is ``_pretokens.class_table()``; ``backward_scan`` is ``BACKWARD_SCAN``.
    """

    def __init__(
        self,
        encode_piece: Callable[[bytes], Sequence[int]],
        classes: bytes,
        backward_scan: int,
    ) -> None: ...
    def count(self, text: str) -> int | None:
        """The encoder's count of ``SAFE`` ``text``; ``None`` for other text."""
    def prepare_many(self, texts: Sequence[str]) -> list[Prepared | None]:
        """``prepare_parts``' parts of each ``SAFE`` text; ``None`` for the others."""
    def pretokens(self, text: str) -> list[str] | None:
        """cl100k_base's pre-tokens of ``SAFE`` ``text`` (as ``CL100K_SAFE.findall``)."""
