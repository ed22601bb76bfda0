"""Hugging Face ``tokenizers`` as a sizer (``encoding = "hf:..."``), offline.

A real ``tokenizer.json`` is trained here with the ``tokenizers`` library
(BERT-like: WordPiece plus a [CLS]/[SEP] post-processor); nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from chunkseam import Settings, chunkers
from chunkseam.engine.analysis import sizer_for
from chunkseam.config.loader import ConfigError, resolve
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import TokenizerUnavailable, get_sizer
from chunkseam.tokens.hf import HFSizer
from conftest import FIXTURES, IN_CI

if importlib.util.find_spec("tokenizers") is None:  # pragma: no cover
    if IN_CI:
        raise ImportError("tokenizers is in the test extra but not installed")
    pytest.skip("tokenizers not installed", allow_module_level=True)

TEXT = (FIXTURES / "database.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def tokenizer_json(tmp_path_factory):
    from tokenizers import (
        Tokenizer,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    tok.train_from_iterator([TEXT] * 3, trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tok.save(str(path))
    return path


def test_counts_are_the_libraries_and_special_tokens_are_known(tokenizer_json):
    from tokenizers import Tokenizer

    sizer = get_sizer("tokens", f"hf:{tokenizer_json}")
    assert isinstance(sizer, HFSizer) and sizer.unit == "tokens" and not sizer.approximate
    ref = Tokenizer.from_file(str(tokenizer_json))
    for text in ("Hello, world.", TEXT[:500], "ÜÖÄ café — 日本"):
        assert sizer.count(text) == len(ref.encode(text, add_special_tokens=False).ids)
        # the model sees [CLS] and [SEP] too
        assert sizer.count(text) + sizer.special_tokens == len(ref.encode(text).ids)
    assert sizer.special_tokens == 2 and sizer.count("") == 0
    # a directory holding tokenizer.json works as well; the sizer is shared
    assert get_sizer("tokens", f"hf:{tokenizer_json.parent}").count("Hello") == sizer.count("Hello")


def test_every_chunker_takes_it(tokenizer_json):
    sizer = get_sizer("tokens", f"hf:{tokenizer_json}")
    doc = Document(TEXT, path="database.md")
    names = ["recursive", "markdown", "fixed", "sentence", "semchunk", "text-splitter", "chonkie",
             "llamaindex"]
    for name in names:
        chunks = chunkers.get(name).chunk(doc, sizer, size=64, overlap=0)
        assert chunks, name
        for c in chunks:
            assert TEXT[c.start:c.end] == c.text
            assert c.tokens == sizer.count(c.text)


def test_config_accepts_hf_and_model_names_relative_to_the_config_file(tmp_path, tokenizer_json):
    (tmp_path / ".git").mkdir()
    (tmp_path / "tok").mkdir()
    (tmp_path / "tok" / "tokenizer.json").write_bytes(tokenizer_json.read_bytes())
    (tmp_path / "chunkseam.toml").write_text('encoding = "hf:tok/tokenizer.json"\n')
    (tmp_path / "sub").mkdir()
    r = resolve(tmp_path / "sub")
    assert r.settings.encoding == "hf:" + str(tmp_path / "tok" / "tokenizer.json")
    assert isinstance(sizer_for(r.settings), HFSizer)
    for model in ("gpt-4o", "text-embedding-3-small"):
        (tmp_path / "chunkseam.toml").write_text(f'encoding = "{model}"\n')
        settings = resolve(tmp_path).settings
        assert settings.encoding == model
        assert sizer_for(settings).name in ("o200k_base", "cl100k_base")
    (tmp_path / "chunkseam.toml").write_text('encoding = "gpt-9000"\n')
    with pytest.raises(ConfigError, match="encoding.*a model name tiktoken knows"):
        resolve(tmp_path)


def test_offline_model_ids_resolve_from_the_local_cache_only(tmp_path, monkeypatch,
                                                             tokenizer_json):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(TokenizerUnavailable, match="not in the local Hugging Face cache"):
        get_sizer("tokens", "hf:acme/bert-mini")
    snap = tmp_path / "models--acme--bert-mini" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "tokenizer.json").write_bytes(tokenizer_json.read_bytes())
    (tmp_path / "models--acme--bert-mini" / "refs").mkdir()
    (tmp_path / "models--acme--bert-mini" / "refs" / "main").write_text("abc123")
    assert get_sizer("tokens", "hf:acme/bert-mini").count("Hello world") > 0


def test_bad_files_are_clear_errors(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(TokenizerUnavailable, match="is not a tokenizer.json"):
        get_sizer("tokens", f"hf:{bad}")
    with pytest.raises(TokenizerUnavailable, match="no tokenizer file"):
        get_sizer("tokens", f"hf:{tmp_path / 'missing.json'}")


def test_cli_uses_it(tmp_path, tokenizer_json):
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT)
    out = subprocess.run(
        [sys.executable, "-m", "chunkseam", "chunks", str(doc), "--chunker", "recursive",
         "--size", "64", "--encoding", f"hf:{tokenizer_json}", "--format", "json"],
        capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    sizer = get_sizer("tokens", f"hf:{tokenizer_json}")
    chunks = data["chunks"] if isinstance(data, dict) else data
    assert chunks and all(c["tokens"] == sizer.count(c["text"]) for c in chunks)
    assert Settings().encoding == "cl100k_base"
