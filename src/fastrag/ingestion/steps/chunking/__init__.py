"""Chunking: parsed documents in, embeddable chunks out."""

from fastrag.ingestion.steps.chunking.base import Chunker
from fastrag.ingestion.steps.chunking.character import CharacterTextSplitter
from fastrag.ingestion.steps.chunking.docling import DoclingChunker
from fastrag.ingestion.steps.chunking.embedding_semantic import EmbeddingSemanticChunker
from fastrag.ingestion.steps.chunking.heading import HeadingChunker
from fastrag.ingestion.steps.chunking.langchain_semantic import LangchainSemanticChunker
from fastrag.ingestion.steps.chunking.recursive import RecursiveCharacterTextSplitter
from fastrag.ingestion.steps.chunking.refiner import ChatBoundaryRefiner, RefinementResult
from fastrag.ingestion.steps.chunking.router import ChunkerRouter
from fastrag.ingestion.steps.chunking.semantic import SemanticChunker
from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.packing.contract import build_embedding_text
from fastrag.packing.validation import ChunkValidation
from fastrag.packing.validator import validate_structure_chunks
from fastrag.tokenization import (
    HuggingFaceTokenizer,
    TiktokenTokenizer,
    Tokenizer,
    Utf8ByteTokenizer,
)

__all__ = [
    "CharacterTextSplitter",
    "ChatBoundaryRefiner",
    "ChunkValidation",
    "Chunker",
    "ChunkerRouter",
    "DoclingChunker",
    "EmbeddingSemanticChunker",
    "HeadingChunker",
    "HuggingFaceTokenizer",
    "LangchainSemanticChunker",
    "RecursiveCharacterTextSplitter",
    "RefinementResult",
    "SemanticChunker",
    "StructureAwareChunker",
    "TiktokenTokenizer",
    "Tokenizer",
    "Utf8ByteTokenizer",
    "build_embedding_text",
    "validate_structure_chunks",
]
