"""Tokenizers: exact counts, safe cut offsets and a stable identity for every budget.

``Tokenizer`` is the contract the packing engine relies on; ``BatchTokenizer`` and
``SplittableTokenizer`` are optional fast paths, used through ``count_many``,
``count_joined`` and ``prepare_parts``/``count_prepared``. Importing this package loads
no tokenizer library: ``tiktoken`` and ``tokenizers`` are imported when a
``TiktokenTokenizer`` or ``HuggingFaceTokenizer`` is constructed.
"""

from fastrag.tokenization.counting import (
    PreparedPart,
    count_joined,
    count_many,
    count_prepared,
    prepare_parts,
)
from fastrag.tokenization.hf import HuggingFaceTokenizer
from fastrag.tokenization.protocol import BatchTokenizer, SplittableTokenizer, Tokenizer
from fastrag.tokenization.tiktoken import TiktokenTokenizer
from fastrag.tokenization.utf8 import Utf8ByteTokenizer

__all__ = [
    "BatchTokenizer",
    "HuggingFaceTokenizer",
    "PreparedPart",
    "SplittableTokenizer",
    "TiktokenTokenizer",
    "Tokenizer",
    "Utf8ByteTokenizer",
    "count_joined",
    "count_many",
    "count_prepared",
    "prepare_parts",
]
