"""Retrieval settings of an evaluation: how candidates are ranked, not what is returned.

Kept apart from ``fastrag.benchmarking.retrieval`` (which needs numpy) so that reading
configuration files stays cheap. The defaults are Chroma's dense protocol.

Settings (each also a ``retrieval`` table key in a configuration file):

``retrieval``
    ``"dense"`` (cosine only), ``"bm25"`` (Okapi BM25 only, a diagnostic) or
    ``"hybrid"`` (both rankings fused by reciprocal rank fusion).
``bm25_over``
    what BM25 indexes: ``"chunk"`` (the returned text) or ``"window"``.
``embed``
    what the model embeds: ``"chunk"`` (the chunk's embedding text), ``"window"`` (the
    window instead) or ``"fuse"`` (both; a chunk's similarity is the mean of the two
    cosines, which a vector store gets from one stored vector ``(v_chunk + v_window)
    / 2`` under the inner-product metric) or ``"fuse_sentences"`` (the mean of three
    cosines: the chunk's, its window's and its best sentence's; every sentence of the
    chunk is embedded too, see ``fastrag.retrieval.sentences``).
``dedupe``
    skip a candidate that is a near-duplicate of an already returned chunk.
``window_tokens``
    the window's size in the model's word pieces (default: the model's limit minus
    its two special tokens, 254 for all-MiniLM-L6-v2). See ``fastrag.benchmarking.windows``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from fastrag.exceptions import ConfigurationError

__all__ = ["Embed", "LexicalText", "Ranking", "RetrievalSettings", "retrieval_settings"]

Ranking = Literal["dense", "bm25", "hybrid"]
Embed = Literal["chunk", "window", "fuse", "fuse_sentences"]
LexicalText = Literal["chunk", "window"]


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    """How candidates are ranked; the defaults are Chroma's dense protocol."""

    retrieval: Ranking = "dense"
    bm25_over: LexicalText = "chunk"
    embed: Embed = "chunk"
    dedupe: bool = False
    window_tokens: int | None = None
    """Window size in model word pieces; ``None``: the model's limit minus 2."""

    @property
    def uses_windows(self) -> bool:
        """Whether any ranking reads context windows."""
        return self.embed != "chunk" or (self.retrieval != "dense" and self.bm25_over == "window")

    def label(self) -> str:
        """A short description for tables (empty for the default dense protocol)."""
        if self == RetrievalSettings():
            return ""
        parts: list[str] = [self.retrieval]
        if self.retrieval != "dense":
            parts.append(f"bm25 over {self.bm25_over}")
        if self.retrieval != "bm25" and self.embed != "chunk":
            parts.append(f"embed {self.embed}")
        if self.uses_windows and self.window_tokens is not None:
            parts.append(f"window {self.window_tokens}")
        if self.dedupe:
            parts.append("dedupe")
        return ", ".join(parts)

    def describe(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {
            "retrieval": self.retrieval,
            "bm25_over": self.bm25_over,
            "embed": self.embed,
            "dedupe": self.dedupe,
            "window_tokens": self.window_tokens,
        }


_CHOICES: Final[Mapping[str, tuple[Any, ...]]] = {
    "retrieval": get_args(Ranking),
    "bm25_over": get_args(LexicalText),
    "embed": get_args(Embed),
}


def retrieval_settings(
    raw: Mapping[str, Any], where: str, base: RetrievalSettings | None = None
) -> RetrievalSettings:
    """Settings from a ``retrieval`` table of a configuration file, over ``base``."""
    values = (base or RetrievalSettings()).describe()
    unknown = sorted(set(raw) - set(values))
    if unknown:
        raise ConfigurationError(
            f"{where}: unknown retrieval key {', '.join(unknown)}; allowed: {', '.join(values)}"
        )
    for key, value in raw.items():
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ConfigurationError(
                f"{where}: retrieval {key} = {value!r} is not one of "
                f"{', '.join(map(repr, _CHOICES[key]))}"
            )
        if key == "dedupe" and not isinstance(value, bool):
            raise ConfigurationError(f"{where}: retrieval dedupe must be true or false")
        if key == "window_tokens" and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise ConfigurationError(
                f"{where}: retrieval window_tokens must be an integer >= 1 (got {value!r}), "
                f"e.g. 254 for all-MiniLM-L6-v2"
            )
        values[key] = value
    return RetrievalSettings(**values)
