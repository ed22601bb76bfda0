"""Input limits (in tokens) of well-known embedding models, for CS105.

An embedding API or a sentence-transformers model truncates a longer input
without a word. ``model-max-tokens`` overrides this table; a model not in it
has no limit unless ``model-max-tokens`` is set. Names are matched without
case and without an ``ORG/`` prefix.
"""

from __future__ import annotations

#: model name (lower case, no org) -> maximum input tokens
LIMITS: dict[str, int] = {
    # OpenAI (tiktoken cl100k_base)
    "text-embedding-3-small": 8191,
    "text-embedding-3-large": 8191,
    "text-embedding-ada-002": 8191,
    # BAAI
    "bge-small-en-v1.5": 512,
    "bge-base-en-v1.5": 512,
    "bge-large-en-v1.5": 512,
    "bge-m3": 8192,
    # intfloat
    "e5-small-v2": 512,
    "e5-base-v2": 512,
    "e5-large-v2": 512,
    "multilingual-e5-small": 512,
    "multilingual-e5-base": 512,
    "multilingual-e5-large": 512,
    # Alibaba / thenlper
    "gte-small": 512,
    "gte-base": 512,
    "gte-large": 512,
    "gte-base-en-v1.5": 8192,
    "gte-large-en-v1.5": 8192,
    # nomic
    "nomic-embed-text-v1": 8192,
    "nomic-embed-text-v1.5": 8192,
    # sentence-transformers (their max_seq_length, below the position limit)
    "all-minilm-l6-v2": 256,
    "all-minilm-l12-v2": 256,
    "all-mpnet-base-v2": 384,
    "multi-qa-minilm-l6-cos-v1": 512,
    # mixedbread, jina, snowflake, cohere, voyage
    "mxbai-embed-large-v1": 512,
    "jina-embeddings-v2-base-en": 8192,
    "jina-embeddings-v2-small-en": 8192,
    "snowflake-arctic-embed-m": 512,
    "snowflake-arctic-embed-l": 512,
    "embed-english-v3.0": 512,
    "embed-multilingual-v3.0": 512,
    "voyage-3": 32000,
    "voyage-3-lite": 32000,
}


def known_limit(model: str | None) -> int | None:
    """The input limit of a known model (None when unknown)."""
    if not model:
        return None
    name = model.strip().lower()
    name = name.removeprefix("hf:")
    return LIMITS.get(name.rsplit("/", 1)[-1])


def model_limit(settings: object) -> int | None:
    """The limit CS105 applies: ``model-max-tokens``, else the embedding model's,
    else the encoding's when it names a known model (``hf:BAAI/bge-small-en-v1.5``)."""
    explicit = getattr(settings, "model_max_tokens", 0) or 0
    if explicit > 0:
        return explicit
    return (known_limit(getattr(settings, "embedding_model", None))
            or known_limit(getattr(settings, "encoding", None)))
