"""The persistent lint cache: one file's result, kept between runs.

An entry is keyed by the file's path and content hash, the resolved settings
that apply to it, the chunkseam version and its own files (see
:func:`code_fingerprint`) and the hash of the tokenizer file the settings
name — change any of them and the entry is simply not found. Entries
are written atomically (a temporary file in the same directory, then
``os.replace``) and carry a keyed digest (HMAC-BLAKE2b) of their key and
payload, keyed by the cache's own secret (``secret.key``: 32 random bytes,
created 0600 with the cache, owned by the user), so a torn, truncated,
tampered or forged entry, or one from another format version, is a miss,
never a wrong answer; two runs writing the same entry at once each replace it
whole. Entries are JSON (reading the cache never runs code), and are read only
when they are regular files of bounded size (opened without blocking and
without following a link: a FIFO or a link to ``/dev/zero`` is a miss). A
secret that is not a private regular file of the user turns the cache off for
the run.

The directory: ``--cache-dir``, else ``$CHUNKSEAM_CACHE_DIR``, else the user
cache directory (``platformdirs``). ``--no-cache`` or ``CHUNKSEAM_NO_CACHE=1``
turns it off; ``chunkseam clean`` removes it.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import stat
import json
import os
import shutil
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

from chunkseam.core.version import __version__
from chunkseam.report.formats import FileResult, Record

__all__ = ["FORMAT", "ResultCache", "clean", "default_dir"]

#: bump when the entry layout or the meaning of a result changes
FORMAT = 2
_SUBDIR = f"lint-v{FORMAT}"

_tokenizer_hashes: dict[tuple[str, int, int], str] = {}


def default_dir() -> Path:
    env = os.environ.get("CHUNKSEAM_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("chunkseam", appauthor=False))


#: a tokenizer file larger than this is not hashed (tiktoken's are a few MB; loading refuses huge ones)
MAX_HASHED = 256 * 1024 * 1024


def _file_digest(path: str) -> str:
    """The BLAKE2b of a regular file's bytes; a FIFO, a device or a huge file (which the
    tokenizer refuses to load anyway) is never read: its key is its kind, size and mtime."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_HASHED:
            return f"unhashed:{stat.S_IFMT(st.st_mode)}:{st.st_size}:{st.st_mtime_ns}"
        key = (path, st.st_size, st.st_mtime_ns)
        got = _tokenizer_hashes.get(key)
        if got is None:
            h = hashlib.blake2b(digest_size=16)
            with os.fdopen(os.dup(fd), "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            got = _tokenizer_hashes[key] = h.hexdigest()
        return got
    finally:
        os.close(fd)


#: the files of the installed package whose change can change a result
_CODE_SUFFIXES = (".py", ".md", ".json", ".toml", ".txt")


@functools.lru_cache(maxsize=None)
def code_fingerprint(root: str | None = None) -> str:
    """A digest of the chunkseam package's own files (each one's path, size
    and modification time; ``root``: the package directory, by default this
    one's). An install from a source tree keeps its version number across
    commits, and an editable install changes with every edit: the version
    alone would give their results from before the change."""
    base = Path(root) if root is not None else Path(__file__).resolve().parents[1]
    h = hashlib.blake2b(digest_size=16)
    found = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in filenames:
            if name.endswith(_CODE_SUFFIXES):
                path = os.path.join(dirpath, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found.append((os.path.relpath(path, base), st.st_size, st.st_mtime_ns))
    for rel, size, mtime in sorted(found):
        h.update(f"{rel}\0{size}\0{mtime}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def settings_key(settings: Any) -> str:
    """The part of the key that stands for the settings, the version and the tokenizer file."""
    tok = getattr(settings, "tiktoken_file", None)
    tok_hash = ""
    if tok:
        try:
            tok_hash = _file_digest(str(Path(tok).expanduser()))
        except OSError:
            tok_hash = "unreadable"
    encoding = getattr(settings, "encoding", None)
    if isinstance(encoding, str) and encoding.startswith("hf:"):
        # the tokenizer.json an hf: encoding names (a path, or a model's file in the
        # local Hugging Face cache, which a download can replace): its bytes count
        from chunkseam.tokens.tiktoken import TokenizerUnavailable
        from chunkseam.tokens.hf import resolve_file

        try:
            path = resolve_file(encoding, local_paths=not getattr(settings, "hf_model_only", False))
            tok_hash += "\0hf:" + _file_digest(str(path))
        except (OSError, TokenizerUnavailable):
            tok_hash += "\0hf:unavailable"
    return f"{__version__}\0{code_fingerprint()}\0{FORMAT}\0{settings!r}\0{tok_hash}"


_RESULT_FIELDS = tuple(f.name for f in fields(FileResult) if f.name != "records")
_RECORD_FIELDS = tuple(f.name for f in fields(Record) if f.name != "extra")


def _result_from(data: dict[str, Any]) -> FileResult:
    """A result from an entry's payload (unknown keys are an error: the entry is not trusted)."""
    records = [Record(**r) for r in data.pop("records")]
    return FileResult(records=records, **data)


#: the largest entry read (a file's records; real ones are kilobytes)
MAX_ENTRY_BYTES = 64 * 1024 * 1024
SECRET_NAME = "secret.key"
_SECRET_BYTES = 32
_secrets: dict[str, bytes | None] = {}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _read_private(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (not a link, a FIFO or a device) of
    at most ``limit`` bytes; None otherwise. Never blocks."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, left = [], limit + 1
        while left > 0:
            block = os.read(fd, min(left, 1 << 20))
            if not block:
                break
            chunks.append(block)
            left -= len(block)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _secret_usable(path: Path) -> bytes | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    owner_ok = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if not stat.S_ISREG(st.st_mode) or not owner_ok or (os.name == "posix" and st.st_mode & 0o077):
        return None
    data = _read_private(path, _SECRET_BYTES)
    return data if data is not None and len(data) == _SECRET_BYTES else None


def cache_secret(root: Path) -> bytes | None:
    """The cache's secret key, created on first use (0600, complete before it appears:
    written to a temporary file, then linked into place). None when the cache
    directory cannot hold one, or holds one that is not a private regular file of
    the user: the cache is then off for the run."""
    key = str(root.absolute())
    if key in _secrets:
        return _secrets[key]
    path = root / SECRET_NAME
    secret = _secret_usable(path)
    if secret is None and not os.path.lexists(path):
        import secrets as secrets_mod

        try:
            root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".secret.", dir=root)  # created 0600
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(secrets_mod.token_bytes(_SECRET_BYTES))
                try:
                    os.link(tmp, path)
                except FileExistsError:  # another run made it first: theirs is used
                    pass
            finally:
                os.unlink(tmp)
        except OSError:
            pass
        secret = _secret_usable(path)
    if secret is None:
        import logging

        if os.path.lexists(path):
            logging.getLogger(__name__).warning(
                "chunkseam: the result cache in %s is off for this run: its %s is not a private file "
                "of this user (remove the directory to start afresh)", root, SECRET_NAME)
        else:
            logging.getLogger(__name__).warning(
                "chunkseam: the result cache in %s is off for this run: its %s cannot be created",
                root, SECRET_NAME)
    _secrets[key] = secret
    return secret


class ResultCache:
    """Get and put one file's :class:`FileResult` by (path, content, settings key)."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.root = Path(directory)
        self.dir = self.root / _SUBDIR
        self.secret = cache_secret(self.root)

    def _digest(self, key: str, payload: bytes) -> str:
        assert self.secret is not None
        mac = hmac.new(self.secret, digestmod=lambda *a: hashlib.blake2b(*a, digest_size=32))
        mac.update(key.encode("ascii", "replace") + b"\0")
        mac.update(payload)
        return mac.hexdigest()

    def key(self, path: str, data: bytes, skey: str) -> str:
        h = hashlib.blake2b(digest_size=20)
        for part in (path.encode("utf-8", "surrogatepass"), skey.encode("utf-8", "surrogatepass")):
            h.update(len(part).to_bytes(8, "little"))
            h.update(part)
        h.update(hashlib.blake2b(data, digest_size=20).digest())
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> FileResult | None:
        if self.secret is None:
            return None
        raw = _read_private(self._path(key), MAX_ENTRY_BYTES)
        if raw is None:
            return None
        try:
            head, _, payload = raw.partition(b"\n")
            meta = json.loads(head)
            digest = meta.get("digest")
            if (meta.get("format") != FORMAT or meta.get("key") != key or not isinstance(digest, str)
                    or not hmac.compare_digest(digest, self._digest(key, payload))):
                return None
            return _result_from(json.loads(payload))
        except (ValueError, TypeError, AttributeError, KeyError):
            return None

    def put(self, key: str, result: FileResult) -> None:
        """Store ``result`` (a failure to write is not an error: the run goes on uncached)."""
        if self.secret is None:
            return
        data = {name: getattr(result, name) for name in _RESULT_FIELDS}
        data["records"] = [{"extra": r.extra, **{n: getattr(r, n) for n in _RECORD_FIELDS}} for r in result.records]
        payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        head = json.dumps({"format": FORMAT, "key": key, "digest": self._digest(key, payload)}).encode()
        target = self._path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=target.parent)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(head + b"\n" + payload)
            os.replace(tmp, target)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def clean(directory: str | os.PathLike) -> int:
    """Remove chunkseam's cache entries under ``directory``; the number of entries removed."""
    root = Path(directory)
    n = 0
    for sub in root.glob("lint-v*"):
        if sub.is_dir() and not sub.is_symlink():
            n += sum(1 for _ in sub.rglob("*.json"))
            shutil.rmtree(sub, ignore_errors=True)
    return n
