"""Sizes: characters or tokens of a tokenizer (tiktoken encodings, Hugging Face
``tokenizer.json`` files), behind one :class:`Sizer` protocol, and the input
limits of well-known embedding models (:mod:`chunkseam.tokens.models`)."""

from chunkseam.tokens.tiktoken import Sizer, TokenizerUnavailable, get_sizer, sizer_for

__all__ = ["Sizer", "TokenizerUnavailable", "get_sizer", "sizer_for"]
