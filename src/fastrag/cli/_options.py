"""Options shared by several commands (``--tokenizer``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fastrag.exceptions import ConfigurationError

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = ["TOKENIZER_HELP", "tokenizer_from_option"]

TOKENIZER_HELP = (
    "cl100k_base (default; any cached tiktoken encoding name works), utf8-bytes, or the "
    "path of a Hugging Face tokenizer.json (or of a directory holding one)"
)


def tokenizer_from_option(value: str) -> Tokenizer:
    """The tokenizer named by a ``--tokenizer`` value; unknown names say what is accepted."""
    from fastrag.tokenization import HuggingFaceTokenizer, TiktokenTokenizer, Utf8ByteTokenizer

    if value in ("utf8-bytes", Utf8ByteTokenizer.identity):
        return Utf8ByteTokenizer()
    path = Path(value)
    if path.is_dir():
        return HuggingFaceTokenizer.from_pretrained_dir(path)
    if path.suffix == ".json" or path.is_file():
        return HuggingFaceTokenizer(path)
    try:
        return TiktokenTokenizer(value)
    except ConfigurationError as error:
        raise ConfigurationError(
            f"--tokenizer {value!r}: {error}; accepted: {TOKENIZER_HELP}"
        ) from error
