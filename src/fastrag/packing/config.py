"""``PackingConfig``: every choice that changes what the packing engine produces.

The configuration is a frozen value validated at construction, so an impossible budget
fails before any document is read, with a message naming the value and the fix. Its
``identity()`` is the canonical description that enters ``engine_identity`` (and so every
structural chunk id and cache key): two configs with equal identities produce equal
chunks.

``semantic_mode="llm"`` carries a ``semantic_refiner`` (a ``ChatBoundaryRefiner``, seen
here only through its ``config()`` and ``refine``: the engine never calls it and this
layer cannot import it). Its ``config()`` joins the identity, so chunks made with
different refiners — or without one — never share ids or cache entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from fastrag.exceptions import ConfigurationError

__all__ = [
    "LLM",
    "OVERSIZED_BLOCK_POLICIES",
    "PRESERVE_AND_FLAG",
    "SEMANTIC_MODES",
    "SPLIT_WITH_CONTEXT",
    "PackingConfig",
]

SPLIT_WITH_CONTEXT: Final = "split_with_context"
PRESERVE_AND_FLAG: Final = "preserve_and_flag"
OVERSIZED_BLOCK_POLICIES: Final = (SPLIT_WITH_CONTEXT, PRESERVE_AND_FLAG)

LLM: Final = "llm"
SEMANTIC_MODES: Final = ("heuristic", "disabled", LLM)

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
    "disabled"`` drops sentence preferences; ``semantic_mode="llm"`` (with its required
    ``semantic_refiner``) prefers model-chosen sentence starts, given to ``pack`` as
    ``refinements``, over other sentence ends; ``oversized_block_policy`` says what happens
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
    semantic_refiner: Any = None

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
        if self.semantic_mode not in SEMANTIC_MODES:
            raise ConfigurationError(
                f"'semantic_mode' must be one of {list(SEMANTIC_MODES)} "
                f"(got {self.semantic_mode!r})"
            )
        self._check_refiner()
        if self.oversized_block_policy not in OVERSIZED_BLOCK_POLICIES:
            raise ConfigurationError(
                f"'oversized_block_policy' must be one of {list(OVERSIZED_BLOCK_POLICIES)} "
                f"(got {self.oversized_block_policy!r})"
            )

    def _check_refiner(self) -> None:
        refiner = self.semantic_refiner
        if self.semantic_mode == LLM and refiner is None:
            raise ConfigurationError(
                "semantic_mode='llm' needs a semantic_refiner: pass "
                "semantic_refiner=ChatBoundaryRefiner(llm=..., identity=..., "
                "allow_external_transmission=True), or use semantic_mode='heuristic' "
                "(there is no silent fallback)"
            )
        if refiner is None:
            return
        if self.semantic_mode != LLM:
            raise ConfigurationError(
                f"semantic_refiner ({type(refiner).__name__}) is used only by "
                f"semantic_mode='llm' (got {self.semantic_mode!r}); set "
                "semantic_mode='llm' or remove semantic_refiner"
            )
        missing = [
            name for name in ("config", "refine") if not callable(getattr(refiner, name, None))
        ]
        if missing:
            raise ConfigurationError(
                f"semantic_refiner {type(refiner).__name__} must offer config() and "
                f"async refine(node_id=, text=, allowed=) (missing: {', '.join(missing)}); "
                "use fastrag.ingestion.steps.chunking.ChatBoundaryRefiner"
            )
        if not isinstance(refiner.config(), Mapping):
            raise ConfigurationError(
                f"semantic_refiner {type(refiner).__name__}.config() must return a mapping "
                "(its nonsecret identity)"
            )

    @property
    def refined(self) -> bool:
        """Whether prose boundaries are proposed by a chat model (``semantic_mode="llm"``)."""
        return self.semantic_mode == LLM

    @property
    def sentences(self) -> bool:
        """Whether prose prefers sentence boundaries (``semantic_mode != "disabled"``)."""
        return self.semantic_mode != "disabled"

    @property
    def flag_overflow(self) -> bool:
        """Whether indivisible oversized content is kept whole and flagged."""
        return self.oversized_block_policy == PRESERVE_AND_FLAG

    def identity(self) -> dict[str, Any]:
        """Every field by name: the configuration part of ``engine_identity``.

        The refiner enters as its ``config()`` (nonsecret), and only when there is one,
        so configurations without a refiner keep exactly the identity (and chunk ids)
        they had before refiners existed.
        """
        found = {
            field.name: getattr(self, field.name)
            for field in fields(self)
            if field.name != "semantic_refiner"
        }
        if self.semantic_refiner is not None:
            found["semantic_refiner"] = dict(self.semantic_refiner.config())
        return found
