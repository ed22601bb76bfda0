"""Hugging Face ``tokenizers`` as a sizer: ``encoding = "hf:..."``.

Most open embedding models (bge, e5, nomic, gte …) count tokens with a
``tokenizer.json`` read by the Hugging Face ``tokenizers`` library, not with
tiktoken. The encoding setting names one as:

* ``hf:PATH/tokenizer.json`` (or ``hf:PATH`` of a directory that holds one),
  a relative path being taken from the config file's directory;
* ``hf:ORG/MODEL``: a model id, resolved from the local Hugging Face cache
  only (``HF_HUB_CACHE``, else ``HF_HOME/hub``, else
  ``~/.cache/huggingface/hub``: ``models--ORG--MODEL/snapshots/*/tokenizer.json``).
  Nothing is downloaded unless the user allows network (``allow-network``),
  and then with ``huggingface_hub`` and a bounded wait.

Files are read only when they are regular files of at most
:data:`MAX_FILE_BYTES` (opened without blocking: a FIFO, a device or a
``/proc`` stream is refused, never waited on), and a file that failed is not
read again until it changes. A setting from an untrusted workspace's own
config file may only name a model id, resolved from the local cache
(``local_paths=False``): a tokenizer.json is data the ``tokenizers`` library
runs (its pre-tokenizer regular expressions cannot be interrupted), so a
repository cannot hand the server one of its own, nor make it download.

Counts: :meth:`HFSizer.count` is the number of tokens of the text as the
tokenizer encodes it *without* the model's special tokens (so the sizes of
adjacent pieces add up, as chunkers need); :attr:`HFSizer.special_tokens`
is how many the tokenizer's post-processor adds around one input
(``[CLS]``/``[SEP]`` for BERT-like models) — what ``tokenizer.encode(text)``
counts on top, and what the embedding-limit rule (CS105) adds, because the
model sees them. The ``tokenizers`` library is the optional dependency
``chunkseam[hf]``.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import threading
from pathlib import Path
from typing import Any

from chunkseam.tokens.base import COUNT_CACHE_MAX_CHARS, COUNT_CACHE_SIZE, TokenizerUnavailable, file_stamp

PREFIX = "hf:"
#: the largest tokenizer.json read (real ones are 0.5–20 MB)
MAX_FILE_BYTES = 64 * 1024 * 1024
MISSING = ('Hugging Face tokenizers need the `tokenizers` library: '
           'pip install "chunkseam[hf]"')
_MODEL_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
#: a snapshot name in the cache's ``refs/main`` (a commit hash): never a path
_REVISION = re.compile(r"^[A-Za-z0-9][\w.-]{0,127}$")

_lock = threading.Lock()
_sizers: dict[tuple[str, str], HFSizer] = {}


def is_hf(encoding: str | None) -> bool:
    return isinstance(encoding, str) and encoding.startswith(PREFIX)


def check_name(value: str) -> str:
    """The shape of an ``hf:`` encoding setting (no file access): ValueError if bad."""
    ref = value[len(PREFIX):].strip()
    if not ref or "\x00" in ref:
        raise ValueError("hf: needs a tokenizer.json path or a model id (hf:BAAI/bge-small-en-v1.5)")
    return PREFIX + ref


class HFSizer:
    """Exact token counts of a Hugging Face ``tokenizers.Tokenizer``."""

    unit = "tokens"
    approximate = False

    def __init__(self, tokenizer: Any, *, name: str, source: str) -> None:
        # a count is of the whole text: a truncation or padding the tokenizer.json carries would
        # change it (and a truncation whose stride is not below its length panics on every text)
        for off in ("no_truncation", "no_padding"):
            try:
                getattr(tokenizer, off)()
            except (AttributeError, Exception):
                pass
        self.tokenizer = tokenizer
        self.name = name
        self.source = source
        try:
            self.special_tokens = int(tokenizer.num_special_tokens_to_add(False))
        except Exception:  # a tokenizer without a post-processor
            self.special_tokens = 0
        self._cached = functools.lru_cache(maxsize=COUNT_CACHE_SIZE)(self._count)

    def _ids(self, text: str) -> list[int]:
        try:
            return self.tokenizer.encode(text, add_special_tokens=False).ids
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except Exception:
            raise
        except BaseException as exc:  # a panic in the library's Rust code (pyo3's PanicException)
            from chunkseam.core.errors import LibraryError

            what = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            raise LibraryError(f"{self.name}: the tokenizer failed on this document in its native code "
                               f"({type(exc).__name__}{': ' + what if what else ''}); this is a bug in the "
                               "tokenizer.json or the tokenizers library, not in the document") from None

    def _count(self, text: str) -> int:
        return len(self._ids(text))

    def count(self, text: str) -> int:
        if not text:
            return 0
        if len(text) <= COUNT_CACHE_MAX_CHARS:
            return self._cached(text)
        return self._count(text)

    def encode(self, text: str) -> list[int]:
        return list(self._ids(text))

    def __repr__(self) -> str:
        return f"HFSizer({self.name}, source={self.source!r})"


def hub_cache_dir() -> Path:
    env = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if env:
        return Path(env).expanduser()
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home).expanduser() / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def is_model_id(ref: str) -> bool:
    """Is ``ref`` (what follows ``hf:``) shaped like a Hugging Face model id (``ORG/MODEL``)?"""
    return bool(_MODEL_ID.match(ref)) and ".." not in ref


def _cached_model_file(model: str) -> Path | None:
    base = hub_cache_dir() / ("models--" + model.replace("/", "--"))
    ref = base / "refs" / "main"
    snapshots = base / "snapshots"
    candidates: list[Path] = []
    try:
        if ref.is_file():
            revision = _read_bounded(ref, 1024).decode("utf-8", "replace").strip()
            if _REVISION.match(revision) and ".." not in revision:
                candidates.append(snapshots / revision / "tokenizer.json")
        if snapshots.is_dir():
            candidates.extend(sorted(snapshots.glob("*/tokenizer.json")))
    except OSError:
        return None
    return next((c for c in candidates if c.is_file()), None)


def _download(model: str, timeout: float) -> Path | None:
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        return None
    old = os.environ.get("HF_HUB_DOWNLOAD_TIMEOUT")
    os.environ["HF_HUB_DOWNLOAD_TIMEOUT"] = str(int(max(1, timeout)))
    try:
        return Path(hf_hub_download(model, "tokenizer.json", etag_timeout=timeout))
    except Exception:
        return None
    finally:
        if old is None:
            os.environ.pop("HF_HUB_DOWNLOAD_TIMEOUT", None)
        else:
            os.environ["HF_HUB_DOWNLOAD_TIMEOUT"] = old


class _NotRegular(OSError):
    pass


def _read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes. The file is opened
    without blocking and checked on the open descriptor, so a FIFO, a device or
    a file swapped for one is refused without a blocking read; a ``/proc`` or
    ``/sys`` stream that would block gives EAGAIN instead."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _NotRegular(0, "not a regular file (a FIFO, device or directory)")
        if info.st_size > limit:
            raise _NotRegular(0, f"{info.st_size:,} bytes, over the {limit:,} bytes a "
                                 "tokenizer.json may have")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise _NotRegular(0, f"over the {limit:,} bytes a tokenizer.json may have")
    return data


def _read_regular(path: Path, name: str) -> str:
    try:
        data = _read_bounded(path, MAX_FILE_BYTES)
    except _NotRegular as exc:
        raise TokenizerUnavailable(f"{name}: {path} is {exc.strerror}", encoding=name) from None
    except OSError as exc:
        raise TokenizerUnavailable(f"{name}: cannot read {path}: {exc.strerror or exc}",
                                   encoding=name) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise TokenizerUnavailable(f"{name}: {path} is not UTF-8 JSON", encoding=name) from None


#: resolved path -> (its stamp when it failed, the error): a bad tokenizer file
#: (64 MB of garbage, a device) is not read again on every analysis
_failures: dict[str, tuple[Any, TokenizerUnavailable]] = {}


def resolve_file(name: str, *, base: str | os.PathLike[str] | None = None,
                 allow_network: bool = False, timeout: float = 10.0,
                 local_paths: bool = True) -> Path:
    """The tokenizer.json an ``hf:`` encoding names (offline unless allowed).

    With ``local_paths=False`` (a setting from an untrusted workspace's config
    file) only a model id is accepted, and only from the local cache."""
    ref = check_name(name)[len(PREFIX):]
    if not local_paths:
        if not is_model_id(ref):
            raise TokenizerUnavailable(
                f"{name}: a tokenizer file path from the workspace's config file is not used "
                "because the workspace is not trusted (a model id from the local Hugging Face "
                "cache is; or set the encoding in the editor's settings)", encoding=name)
        cached = _cached_model_file(ref)
        if cached is not None:
            return cached
        raise TokenizerUnavailable(
            f"{name}: model {ref!r} is not in the local Hugging Face cache ({hub_cache_dir()}); "
            "an untrusted workspace's config file cannot make chunkseam download it",
            encoding=name)
    path = Path(os.path.expanduser(ref))
    if not path.is_absolute() and base is not None:
        path = Path(base) / path
    if path.is_dir():
        path = path / "tokenizer.json"
    if path.exists() or ref.endswith(".json") or not _MODEL_ID.match(ref):
        if not path.exists():
            raise TokenizerUnavailable(f"{name}: no tokenizer file at {path}", encoding=name)
        return path
    cached = _cached_model_file(ref)
    if cached is not None:
        return cached
    if allow_network:
        got = _download(ref, timeout)
        if got is not None:
            return got
    raise TokenizerUnavailable(
        f"{name}: model {ref!r} is not in the local Hugging Face cache ({hub_cache_dir()}); "
        "download it once (huggingface-cli download " + ref + " tokenizer.json), point "
        "encoding at a tokenizer.json (hf:path/to/tokenizer.json), or set allow-network = true",
        encoding=name)


def get_hf_sizer(name: str, *, base: str | os.PathLike[str] | None = None,
                 allow_network: bool = False, timeout: float = 10.0,
                 local_paths: bool = True) -> HFSizer:
    """The (cached) sizer for an ``hf:`` encoding; :class:`TokenizerUnavailable` if none."""
    path = resolve_file(name, base=base, allow_network=allow_network, timeout=timeout,
                        local_paths=local_paths)
    resolved = str(path.resolve())
    key = (name, resolved)
    with _lock:
        hit = _sizers.get(key)
        failed = _failures.get(resolved)
    if hit is not None:
        return hit
    stamp = file_stamp(path)
    if failed is not None and failed[0] == stamp:
        raise TokenizerUnavailable(str(failed[1]), encoding=name)
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise TokenizerUnavailable(f"{name}: {MISSING}", encoding=name) from None
    try:
        text = _read_regular(path, name)
        try:
            tokenizer = Tokenizer.from_str(text)
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as exc:  # an Exception, or a panic of its Rust code while loading
            what = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise TokenizerUnavailable(f"{name}: {path} is not a tokenizer.json: {what}",
                                       encoding=name) from None
    except TokenizerUnavailable as exc:
        with _lock:
            _failures[resolved] = (stamp, exc)
        raise
    sizer = HFSizer(tokenizer, name=name, source=str(path))
    with _lock:
        _failures.pop(resolved, None)
        return _sizers.setdefault(key, sizer)


def clear_caches() -> None:
    with _lock:
        _sizers.clear()
        _failures.clear()
