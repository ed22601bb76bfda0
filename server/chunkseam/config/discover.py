"""Which files ``chunkseam lint PATHS…`` looks at.

* a file named on the command line is linted whatever its suffix (unless an
  ``exclude`` pattern matches it — so a pre-commit hook honours the project's
  excludes);
* a directory is walked recursively: ``.gitignore`` files (at every level,
  with their own base directory), ``.git/info/exclude``, the built-in excludes
  (VCS directories, virtual environments, caches) and the ``exclude`` setting
  prune it; of what remains, files matching an ``include`` pattern are linted;
* anything else containing ``*``, ``?`` or ``[`` is a glob, expanded relative
  to the current directory (``**`` recurses).

Nothing here reads file contents; unreadable directories and paths that do
not exist are returned as errors so the caller reports them and carries on.
"""

from __future__ import annotations

import glob as globmod
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from chunkseam.core.globs import MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS, bounded, glob_problem  # noqa: F401

log = logging.getLogger(__name__)

#: never descended into
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", "node_modules",
    "site-packages", ".eggs", "*.egg-info",
)


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    #: (path as given, message)
    errors: list[tuple[str, str]] = field(default_factory=list)
    #: arguments that matched nothing lintable (a directory with no files to lint)
    empty: list[str] = field(default_factory=list)


def _is_glob(arg: str) -> bool:
    return any(c in arg for c in "*?[")


def _spec(patterns) -> pathspec.PathSpec | None:
    patterns = bounded(p for p in patterns if p and p.strip())
    if not patterns:
        return None
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _read_ignore(path: Path) -> pathspec.PathSpec | None:
    from chunkseam.config.confine import refusal

    if refusal(path) is not None:  # an ignore file linked out of the repository is not read
        from chunkseam.core.printable import printable

        log.warning("chunkseam: %s: %s", printable(str(path)), refusal(path))
        return None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _spec(lines)


class _Matcher:
    """gitignore-style exclusion for a tree rooted at ``root``."""

    def __init__(self, root: Path, exclude: tuple[str, ...], respect_gitignore: bool,
                 base: Path | None = None) -> None:
        self.root = root
        #: exclude patterns are relative to the project (the config file's directory or cwd)
        self.base = (base or Path.cwd()).absolute()
        self.exclude_patterns = tuple(DEFAULT_EXCLUDE) + tuple(exclude)
        self.respect_gitignore = respect_gitignore
        #: directory -> its .gitignore spec (None when it has none)
        self._ignores: dict[Path, pathspec.PathSpec | None] = {}
        self.repo_root = self._find_repo_root(root) if respect_gitignore else None

    @staticmethod
    def _find_repo_root(start: Path) -> Path | None:
        for d in (start, *start.parents):
            if (d / ".git").exists():
                return d
        return None

    def _ignore_for(self, directory: Path) -> pathspec.PathSpec | None:
        if directory not in self._ignores:
            spec = _read_ignore(directory / ".gitignore")
            if self.repo_root is not None and directory == self.repo_root:
                extra = _read_ignore(directory / ".git" / "info" / "exclude")
                if extra is not None:
                    spec = extra if spec is None else spec + extra
            self._ignores[directory] = spec
        return self._ignores[directory]

    def _chain(self, directory: Path) -> list[Path]:
        """Directories whose .gitignore applies below ``directory``: from the
        repository root (or the walk root) down to ``directory``."""
        top = self.repo_root if self.repo_root is not None else self.root
        try:
            rel = directory.relative_to(top)
        except ValueError:
            return [directory]
        chain = [top]
        for part in rel.parts:
            chain.append(chain[-1] / part)
        return chain

    def excluded(self, path: Path, is_dir: bool) -> bool:
        # one dialect (chunkseam.core.globs): gitignore-style, anchored at the config file's directory
        from chunkseam.core.globs import matches

        return matches(path, self.exclude_patterns, self.base, is_dir=is_dir)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        if self.excluded(path, is_dir):
            return True
        if not self.respect_gitignore:
            return False
        for d in self._chain(path.parent):
            spec = self._ignore_for(d)
            if spec is None:
                continue
            rel = path.relative_to(d).as_posix() + ("/" if is_dir else "")
            if spec.match_file(rel):
                return True
        return False


def _included(path: Path, root: Path, include: tuple[str, ...] | None, base: Path | None = None) -> bool:
    """Whether a file found in a walk matches ``include`` (anchored like every pattern, see chunkseam.core.globs)."""
    if not include:
        return True
    from chunkseam.core.globs import matches

    return matches(path, include, base)


def _walk(root: Path, matcher: _Matcher, include: tuple[str, ...] | None, out: Discovery) -> int:
    found = 0

    def onerror(exc: OSError) -> None:
        out.errors.append((exc.filename or str(root), exc.strerror or str(exc)))

    from chunkseam.config.confine import refusal

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        d = Path(dirpath)
        dirnames[:] = sorted(n for n in dirnames if not matcher.ignored(d / n, True))
        for n in dirnames:  # never descended (followlinks=False); one that leaves the root is reported
            if os.path.islink(d / n):
                why = refusal(d / n)
                if why is not None:
                    out.errors.append((str(d / n), why))
        for name in sorted(filenames):
            p = d / name
            if matcher.ignored(p, False) or not _included(p, root, include, matcher.base):
                continue
            why = refusal(p) if os.path.islink(p) else None
            if why is not None:
                out.errors.append((str(p), why))
                continue
            out.files.append(p)
            found += 1
    return found


def file_excluded(path: str | Path, exclude: tuple[str, ...] | list[str], *,
                  base: Path | None = None, cwd: Path | None = None) -> bool:
    """Whether a file named explicitly (on the command line, or opened in an
    editor) is excluded by the ``exclude`` setting; patterns are relative to
    ``base`` (the config file's directory) or ``cwd``."""
    if not exclude:
        return False
    return _Matcher(cwd or Path.cwd(), tuple(exclude), False, base).excluded(Path(path), False)


def file_included(path: str | Path, include: tuple[str, ...] | list[str], *,
                  base: Path | None = None) -> bool:
    """Whether walking ``base`` (``chunkseam lint .`` there) would lint ``path``
    by the ``include`` setting; the editor analyses exactly those files."""
    p = Path(path)
    root = base if base is not None else p.parent
    return _included(p, root, tuple(include) or None, root)


def discover(
    paths: list[str] | None,
    include: tuple[str, ...] | list[str] = (),
    exclude: tuple[str, ...] | list[str] = (),
    *,
    respect_gitignore: bool = True,
    cwd: Path | None = None,
    base: Path | None = None,
) -> Discovery:
    """Files to lint for the command-line ``paths`` (default: the current directory)."""
    cwd = cwd or Path.cwd()
    out = Discovery()
    include_spec = tuple(p for p in include if p and p.strip()) or None
    seen: set[Path] = set()
    from chunkseam.config.confine import refusal

    for arg in paths or ["."]:
        p = Path(arg)
        if not p.is_absolute():
            p = cwd / p if cwd != Path.cwd() else p
        why = refusal(p)
        if why is not None:  # a link (or a path through one) out of the repository: never read
            out.errors.append((arg, why))
            continue
        try:
            st = os.stat(p)
        except FileNotFoundError:
            if os.path.islink(p):
                out.errors.append((arg, "broken symbolic link"))
                continue
            if _is_glob(arg):
                matches = sorted(globmod.glob(str(p), recursive=True))
                files = [Path(m) for m in matches if os.path.isfile(m)]
                if not files:
                    out.empty.append(arg)
                for f in files:
                    if refusal(f) is not None:
                        out.errors.append((str(f), refusal(f)))
                        continue
                    if f not in seen and not _Matcher(cwd, tuple(exclude), False, base).ignored(f, False):
                        seen.add(f)
                        out.files.append(f)
                continue
            out.errors.append((arg, "No such file or directory"))
            continue
        except OSError as exc:
            out.errors.append((arg, exc.strerror or str(exc)))
            continue
        if stat.S_ISDIR(st.st_mode):
            matcher = _Matcher(p.absolute(), tuple(exclude), respect_gitignore, base)
            before = len(out.files)
            sub = Discovery()
            _walk_rel(p, matcher, include_spec, sub)
            out.errors.extend(sub.errors)
            for f in sub.files:
                if f not in seen:
                    seen.add(f)
                    out.files.append(f)
            if len(out.files) == before:
                out.empty.append(arg)
        else:
            # an explicitly named file: linted whatever its suffix, unless excluded
            if file_excluded(p, exclude, base=base, cwd=cwd):
                continue
            if p not in seen:
                seen.add(p)
                out.files.append(p)
    return out


def _walk_rel(root: Path, matcher: _Matcher, include: tuple[str, ...] | None, out: Discovery) -> None:
    """Walk ``root`` (possibly relative) while matching on absolute paths, so the
    paths we return keep the form the user typed (``docs/a.md``, not ``/abs/docs/a.md``)."""
    absolute_root = matcher.root
    tmp = Discovery()
    _walk(absolute_root, matcher, include, tmp)
    for f in tmp.files:
        rel = f.relative_to(absolute_root)
        out.files.append(root / rel if str(root) != "." else rel)
    for path, msg in tmp.errors:
        try:
            shown = str(root / Path(path).relative_to(absolute_root))
        except ValueError:
            shown = path
        out.errors.append((shown, msg))
