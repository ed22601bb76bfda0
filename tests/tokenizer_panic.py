"""A real tokenizer.json on which the ``tokenizers`` library panics in its Rust code.

Its normalizer is a ``Precompiled`` (SentencePiece) character map of sixteen zero bytes:
the library loads it, then indexes an empty table on the first character it normalizes
(``index out of bounds``, raised in Python as pyo3's ``PanicException``, not an
``Exception``). Checked, not assumed: :func:`panicking_tokenizer` skips the test when
the installed library no longer panics on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TOKENIZER = {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
    "normalizer": {"type": "Precompiled", "precompiled_charsmap": "AAAAAAAAAAAAAAAA"},
    "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
    "model": {"type": "WordLevel", "vocab": {"hello": 0, "world": 1, "[UNK]": 2}, "unk_token": "[UNK]"},
}


def panicking_tokenizer(directory: Path) -> Path:
    tokenizers = pytest.importorskip("tokenizers")
    path = directory / "tokenizer.json"
    path.write_text(json.dumps(TOKENIZER), encoding="utf-8")
    tok = tokenizers.Tokenizer.from_file(str(path))
    try:
        tok.encode("Hello world", add_special_tokens=False)
    except Exception:
        pytest.skip("the tokenizers library reports this tokenizer.json as an error now, not a panic")
    except BaseException:  # noqa: BLE001 - the panic this helper is about
        return path
    pytest.skip("this tokenizers version no longer panics on the tokenizer.json")
    raise AssertionError  # unreachable
