"""The packing engine: a normalized tree, a tokenizer and a configuration in; chunks out.

``pack`` is pure (no I/O, no cache, no async); ``PackingConfig`` holds every output
choice; ``build_embedding_text`` is the exact text that is embedded and budgeted;
``validate_structure_chunks`` re-checks any output independently of the engine.
"""

from fastrag.packing.config import PackingConfig
from fastrag.packing.contract import STRUCTURE_VERSION, build_embedding_text
from fastrag.packing.engine import ENGINE_VERSION, Piece, engine_identity, pack

__all__ = [
    "ENGINE_VERSION",
    "STRUCTURE_VERSION",
    "PackingConfig",
    "Piece",
    "build_embedding_text",
    "engine_identity",
    "pack",
]
