"""The repository root, and the symbolic links chunkseam refuses to follow out of it.

A pull request can add ``docs/x.md -> ../.git/config`` (or a link to ``/etc``, or to the
runner's home); a checker that follows it quotes the target's text in its messages, and in
CI those messages are public annotations. So every file chunkseam reads on behalf of a
repository — the files it lints, fixes or audits, the sources a dump names, baselines,
``extend``-ed and found configuration files — goes through :func:`refusal` first:

* a path with **no symbolic link** in it is read wherever it is (the user named it, or a
  walk found it without following links);
* a path that goes **through a link** is read only when its target (every link of a
  chain resolved) is inside the root and not inside a version-control directory
  (``.git``, ``.hg``, ``.svn``, ``.bzr``: ``.git/config`` can hold the checkout's token).

**The root** is found the way ruff and pre-commit users expect: the top of the git work
tree that contains the current directory (the directory holding ``.git``); outside git,
the directory of the project's configuration file found from the current directory; else
the current directory itself. Nothing here reads file contents.
"""

from __future__ import annotations

import os
from pathlib import Path

#: directories whose contents are never reached through a link (they hold credentials)
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr"})

OUTSIDE = "symbolic link to a path outside the repository root; skipped (not read)"
INTO_VCS = "symbolic link into a version-control directory (.git …); skipped (not read)"


def _root_of(cwd: str) -> str:
    here = Path(cwd)
    for d in (here, *here.parents):
        if os.path.lexists(d / ".git"):
            return str(d)
    try:
        from chunkseam.config.files import find_config

        found = find_config(here)
    except Exception:  # no readable config: the current directory
        found = None
    if found is not None and (found.parent == here or found.parent in here.parents):
        return str(found.parent)
    return str(here)


_roots: dict[tuple[str, int], str] = {}


def project_root() -> Path:
    """The root links may not leave (see the module's docstring). The current directory
    comes from the kernel, so it has no symbolic link in it. Found once per current
    directory (and its modification time: a ``.git`` or a config file made there since
    is seen)."""
    cwd = os.getcwd()
    try:
        key = (cwd, os.stat(cwd).st_mtime_ns)
    except OSError:
        return Path(_root_of(cwd))
    root = _roots.get(key)
    if root is None:
        if len(_roots) > 64:
            _roots.clear()
        root = _roots[key] = _root_of(cwd)
    return Path(root)


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def refusal(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> str | None:
    """Why ``path`` may not be read (a one-line reason that quotes nothing of the target),
    or None. ``root`` defaults to :func:`project_root`. A path named outside the root
    (``lint /tmp/notes.md``) is the user's own choice and is not judged."""
    try:
        joined = os.path.join(os.getcwd(), os.fspath(path))
        norm = os.path.normpath(joined)
        base = os.path.realpath(root) if root is not None else str(project_root())  # already real
        if not _under(norm, base):
            return None
        real = os.path.realpath(joined)  # every link of a chain, and ``link/..``, resolved
    except (OSError, ValueError):  # a NUL in the name, a loop on an old Python
        return "cannot be resolved; skipped (not read)"
    if real == norm:
        return None
    if not _under(real, base):
        return OUTSIDE
    if any(part in VCS_DIRS for part in Path(os.path.relpath(real, base)).parts):
        return INTO_VCS
    return None


def leaves_root(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``path`` (say a directory link met in a walk) points out of the root."""
    return refusal(path, root) is not None


def write_refusal(path: str | os.PathLike[str]) -> str | None:
    """Why an output file (``-o``, ``--html``, ``--report``) may not be written through
    ``path``, or None: the same links as :func:`refusal` (a repository can hold a link
    where a workflow writes its report)."""
    why = refusal(path)
    return None if why is None else why.replace("skipped (not read)", "not written")
