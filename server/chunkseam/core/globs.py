"""One glob dialect for every path pattern in the configuration.

``include``, ``exclude``, ``per-file-ignores`` and the ``chunkers`` routes all
use gitignore-style patterns (pathspec's ``GitIgnoreSpec``), anchored at the
directory of the configuration file that applies to the document (the
current directory when there is none):

* a pattern without a ``/`` (other than a trailing one) matches a file or
  directory name at any depth: ``*.md``, ``CHANGELOG.md``, ``drafts/``;
* a pattern with a ``/`` is relative to that directory: ``docs/legacy/*.md``,
  ``/notes.txt``; ``**`` crosses directories (``docs/**/api.md``);
* a pattern ending in ``/`` names a directory and covers everything under it;
* ``!pattern`` re-includes (within one list).

A document outside the anchoring directory is matched by its name only (by
the patterns without a ``/``).
"""

from __future__ import annotations

import logging
import os
import posixpath
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Iterable

import pathspec

__all__ = ["compile_patterns", "matches", "first_match", "relative_to_base", "glob_problem", "bounded"]

log = logging.getLogger(__name__)

#: bounds on one glob pattern from a config file or an ignore file. Matching
#: runs on RE2 (linear time) when google-re2 is installed, as it is with
#: chunkseam's dependencies; these bounds keep Python's backtracking ``re``
#: (``*a*a*a*a*b`` against a long name takes seconds to hours) out of reach
#: too, and real patterns never come near them.
MAX_GLOB_LENGTH = 1024
MAX_GLOB_WILDCARDS = 10


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused as a glob, or None when it is fine."""
    if len(pattern) > MAX_GLOB_LENGTH:
        return f"a glob of at most {MAX_GLOB_LENGTH} characters"
    if sum(pattern.count(c) for c in "*?[") > MAX_GLOB_WILDCARDS:
        return f"a glob with at most {MAX_GLOB_WILDCARDS} wildcards (*, ?, [)"
    return None


def bounded(patterns) -> list[str]:
    """The patterns of an ignore file that are within the bounds (others are skipped)."""
    out = []
    for p in patterns:
        if glob_problem(p) is None:
            out.append(p)
        else:
            log.warning("chunkseam: ignore pattern skipped (%s): %.80s", glob_problem(p), p)
    return out


@lru_cache(maxsize=1024)
def _compile(patterns: tuple[str, ...]) -> pathspec.PathSpec | None:
    lines = [p.replace("\\", "/") for p in patterns if p and p.strip()]
    # patterns too costly to match are skipped (and refused by the configuration)
    lines = bounded(p[2:] if p.startswith("./") else p for p in lines)
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def compile_patterns(patterns: Iterable[str]) -> pathspec.PathSpec | None:
    return _compile(tuple(patterns))


def _absolute(p: str) -> tuple[str, bool]:
    """(normalised absolute POSIX form, is a Windows drive path) of ``p``."""
    p = p.replace("\\", "/")
    drive = len(p) > 2 and p[1] == ":" and p[2] == "/"
    if not drive and not p.startswith("/"):
        p = os.path.abspath(p).replace("\\", "/")  # relative paths are relative to the current directory
    return posixpath.normpath(p), drive


def relative_to_base(path: str | os.PathLike[str], base: str | os.PathLike[str] | None) -> str | None:
    """``path`` relative to ``base`` (POSIX form), or None when it is outside ``base``."""
    p, drive = _absolute(os.fspath(path))
    b, _ = _absolute(os.fspath(base) if base is not None else os.getcwd())
    if drive:  # Windows paths compare case-insensitively
        p_cmp, b_cmp = p.lower(), b.lower()
    else:
        p_cmp, b_cmp = p, b
    if p_cmp == b_cmp:
        return "."
    prefix = b_cmp.rstrip("/") + "/"
    return p[len(prefix):] if p_cmp.startswith(prefix) else None


def _has_slash(pattern: str) -> bool:
    return "/" in pattern.replace("\\", "/").rstrip("/")


def matches(path: str | os.PathLike[str] | None, patterns: Iterable[str] | str,
            base: str | os.PathLike[str] | None = None, *, is_dir: bool = False) -> bool:
    """Whether ``path`` matches ``patterns`` (one pattern or a list, gitignore rules) anchored at ``base``."""
    if path is None or str(path) == "":
        return False
    pats = (patterns,) if isinstance(patterns, str) else tuple(patterns)
    rel = relative_to_base(path, base)
    slash = "/" if is_dir else ""
    if rel is None or rel == ".":
        # outside the anchoring directory: only name patterns can apply
        pats = tuple(p for p in pats if not _has_slash(p))
        rel = PurePosixPath(str(path).replace("\\", "/")).name
    spec = _compile(pats)
    return bool(spec is not None and spec.match_file(rel + slash))


def first_match(path: str | os.PathLike[str] | None, patterns: Iterable[str],
                base: str | os.PathLike[str] | None = None) -> str | None:
    """The first of ``patterns`` that ``path`` matches (for routing tables), or None."""
    for pattern in patterns:
        if matches(path, pattern, base):
            return pattern
    return None
