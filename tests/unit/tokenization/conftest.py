"""Shared tokenizers for the tokenization tests, built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.tokenization import HuggingFaceTokenizer, TiktokenTokenizer

CORPUS = (
    "The quick brown fox jumps over the lazy dog. Packing chunks for retrieval!",
    "Tokenizers count tokens; budgets must be exact, or chunks overflow the model.",
    "中文 测试 café naïve résumé 123 4567 (parenthesized) [bracketed] {braced}",
    "def count(text: str) -> int:\n    return len(text.split())",
)


def train_bert_wordpiece(path: Path, *, vocab_size: int = 300) -> Path:
    """Train a small BERT-style WordPiece tokenizer and save it with truncation and padding
    turned ON, as model files often ship, so the tests prove they get switched off."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials)
    tokenizer.train_from_iterator(list(CORPUS) * 20, trainer)
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    tokenizer.enable_truncation(max_length=8)
    tokenizer.enable_padding(length=16, pad_token="[PAD]")
    tokenizer.save(str(path))
    return path


@pytest.fixture(scope="session")
def cl100k() -> TiktokenTokenizer:
    return TiktokenTokenizer("cl100k_base")


@pytest.fixture(scope="session")
def bert_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_bert_wordpiece(tmp_path_factory.mktemp("bert") / "tokenizer.json")


@pytest.fixture(scope="session")
def bert(bert_json: Path) -> HuggingFaceTokenizer:
    return HuggingFaceTokenizer(bert_json)


@pytest.fixture(scope="session")
def bert_special(bert_json: Path) -> HuggingFaceTokenizer:
    return HuggingFaceTokenizer(bert_json, add_special_tokens=True)
