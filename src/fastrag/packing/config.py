"""``PackingConfig``: every choice that changes what the packing engine produces.

The configuration is a frozen value validated at construction, so an impossible budget
fails before any document is read, with a message naming the value and the fix. Its
``identity()`` is the canonical description that enters ``engine_identity`` (and so every
structural chunk id and cache key): two configs with equal identities produce equal
chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from fastrag.exceptions import ConfigurationError

__all__ = [
    "OVERSIZED_BLOCK_POLICIES",
    "PRESERVE_AND_FLAG",
    "SEMANTIC_MODES",
    "SPLIT_WITH_CONTEXT",
    "PackingConfig",
]

SPLIT_WITH_CONTEXT: Final = "split_with_context"
PRESERVE_AND_FLAG: Final = "preserve_and_flag"
OVERSIZED_BLOCK_POLICIES: Final = (SPLIT_WITH_CONTEXT, PRESERVE_AND_FLAG)

SEMANTIC_MODES: Final = ("heuristic", "disabled")
_LATER_MODES: Final = {"llm": "ChatBoundaryRefiner"}

_INTEGER_FIELDS: Final = (
    "target_tokens",
    "max_tokens",
    "min_preferred_tokens",
    "overlap_tokens",
    "max_overlap_tokens",
)
_FLAG_FIELDS: Final = (
    "merge_small_sections",
    "allow_cross_top_level_merge",
    "preserve_heading_hierarchy",
    "preserve_code_blocks",
    "preserve_table_rows",
    "preserve_list_hierarchy",
    "include_heading_path_in_embedding",
)


@dataclass(frozen=True, slots=True)
class PackingConfig:
    """Budgets and structural preferences of one packing run.

    ``target_tokens`` is where packing aims; ``max_tokens`` is the hard limit measured on
    each chunk's complete embedding text; packing goes past the target (never past the
    maximum) only to reach ``min_preferred_tokens``. ``overlap_tokens`` (at most
    ``max_overlap_tokens``) repeats trailing prose of the previous chunk of the same
    section. The ``preserve_*`` flags keep a structure's preferred split points and
    repeated context (off: that structure is split like prose); ``semantic_mode=
    "disabled"`` drops sentence preferences; ``oversized_block_policy`` says what happens
    to content that cannot fit: ``"split_with_context"`` splits it further or raises
    ``ChunkingError``, ``"preserve_and_flag"`` keeps indivisible rows and lines whole and
    flags the chunk ``overflow``.
    """

    target_tokens: int = 400
    max_tokens: int = 600
    min_preferred_tokens: int = 100
    overlap_tokens: int = 0
    max_overlap_tokens: int = 50
    merge_small_sections: bool = True
    allow_cross_top_level_merge: bool = False
    preserve_heading_hierarchy: bool = True
    preserve_code_blocks: bool = True
    preserve_table_rows: bool = True
    preserve_list_hierarchy: bool = True
    include_heading_path_in_embedding: bool = True
    semantic_mode: str = "heuristic"
    oversized_block_policy: str = SPLIT_WITH_CONTEXT

    def __post_init__(self) -> None:
        for name in _INTEGER_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigurationError(
                    f"{name!r} must be an int number of tokens (got {value!r})"
                )
        for name in ("target_tokens", "max_tokens"):
            value = getattr(self, name)
            if value <= 0:
                raise ConfigurationError(f"{name!r} must be > 0 (got {value})")
        for name in ("min_preferred_tokens", "overlap_tokens", "max_overlap_tokens"):
            value = getattr(self, name)
            if value < 0:
                raise ConfigurationError(f"{name!r} must be >= 0 (got {value}); use 0 to disable")
        for name in _FLAG_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ConfigurationError(f"{name!r} must be True or False (got {value!r})")
        self._check_relations()
        self._check_modes()

    def _check_relations(self) -> None:
        if self.target_tokens > self.max_tokens:
            raise ConfigurationError(
                f"'target_tokens' ({self.target_tokens}) must not exceed 'max_tokens' "
                f"({self.max_tokens}); lower target_tokens or raise max_tokens"
            )
        if self.min_preferred_tokens > self.max_tokens:
            raise ConfigurationError(
                f"'min_preferred_tokens' ({self.min_preferred_tokens}) must not exceed "
                f"'max_tokens' ({self.max_tokens}); lower min_preferred_tokens"
            )
        if self.overlap_tokens > self.max_overlap_tokens:
            raise ConfigurationError(
                f"'overlap_tokens' ({self.overlap_tokens}) must not exceed "
                f"'max_overlap_tokens' ({self.max_overlap_tokens}); lower overlap_tokens or "
                "raise its ceiling max_overlap_tokens"
            )
        # Only overlap actually requested must leave room: a small max_tokens with the
        # default ceiling of 50 and no overlap is a perfectly good configuration.
        if self.overlap_tokens and self.overlap_tokens >= self.max_tokens:
            raise ConfigurationError(
                f"'overlap_tokens' ({self.overlap_tokens}) must be smaller than "
                f"'max_tokens' ({self.max_tokens}): overlap repeats part of a chunk and must "
                "leave room for new content"
            )

    def _check_modes(self) -> None:
        if self.semantic_mode in _LATER_MODES:
            raise ConfigurationError(
                f"semantic_mode={self.semantic_mode!r} needs a "
                f"{_LATER_MODES[self.semantic_mode]}, which is not available in this "
                f"version; use one of {list(SEMANTIC_MODES)} (there is no silent fallback)"
            )
        if self.semantic_mode not in SEMANTIC_MODES:
            raise ConfigurationError(
                f"'semantic_mode' must be one of {list(SEMANTIC_MODES)} "
                f"(got {self.semantic_mode!r})"
            )
        if self.oversized_block_policy not in OVERSIZED_BLOCK_POLICIES:
            raise ConfigurationError(
                f"'oversized_block_policy' must be one of {list(OVERSIZED_BLOCK_POLICIES)} "
                f"(got {self.oversized_block_policy!r})"
            )

    @property
    def sentences(self) -> bool:
        """Whether prose prefers sentence boundaries (``semantic_mode != "disabled"``)."""
        return self.semantic_mode != "disabled"

    @property
    def flag_overflow(self) -> bool:
        """Whether indivisible oversized content is kept whole and flagged."""
        return self.oversized_block_policy == PRESERVE_AND_FLAG

    def identity(self) -> dict[str, Any]:
        """Every field by name: the configuration part of ``engine_identity``."""
        return {field.name: getattr(self, field.name) for field in fields(self)}
