"""``chunkseam lint`` (and ``clean-cache``): files -> issues, through the result cache, on a Dask cluster or in worker processes; ``--fix`` / ``--diff``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Iterable

from chunkseam.cli.common import (
    EXIT_ERROR,
    EXIT_ISSUES,
    EXIT_OK,
    SettingsCache,
    UsageError,
    check_tokenizer,
    exit_code,
    finish,
    map_jobs,
    progress_bar,
    read_stdin,
    reads_stdin,
)
from chunkseam.core.settings import Settings
from chunkseam.engine.analysis import ChunkerOptionError
from chunkseam.lint.files import lint_cached, lint_one
from chunkseam.report.formats import (
    FileResult,
    eprint,
    error_line,
)


def _cache_dir(args: argparse.Namespace) -> Path:
    from chunkseam.lint.resultcache import default_dir

    return Path(args.cache_dir).expanduser() if getattr(args, "cache_dir", None) else default_dir()


def _cached_items(args: argparse.Namespace, items: list[tuple[str, Settings]]):
    """(function, items) for lint: through the cache unless it is off."""
    if getattr(args, "no_cache", False):
        return lint_one, items
    from chunkseam.lint.resultcache import settings_key

    cache_dir = str(_cache_dir(args).absolute())
    keys: dict[int, str] = {}
    out = []
    for path, settings in items:
        skey = keys.get(id(settings))
        if skey is None:
            skey = keys[id(settings)] = settings_key(settings)
        out.append((path, settings, cache_dir, skey))
    return lint_cached, out


def cmd_clean(args: argparse.Namespace) -> int:
    from chunkseam.lint.resultcache import clean

    where = _cache_dir(args)
    n = clean(where)
    print(f"removed {n} cache entr{'ies' if n != 1 else 'y'} from {where}")
    return EXIT_OK


def cmd_lint(args: argparse.Namespace) -> int:
    from chunkseam.config.discover import discover

    if args.scheduler:
        _refuse_on_cluster(args)
    if reads_stdin(args, args.paths):
        # settings, routing and per-file ignores as for the file --stdin-filename names
        cache = SettingsCache(args)
        name, text = read_stdin(args)
        settings = cache.settings(args.stdin_filename or None)
        check_tokenizer(settings)
        return finish(args, [lint_one((name, settings, text))], [])
    cache = SettingsCache(args)
    top = cache.settings(None)
    if args.no_cache or getattr(args, "fix", False) or getattr(args, "diff", False):
        check_tokenizer(top)
    # else checked on the first file the cache cannot answer (an unchanged corpus loads no tokenizer)
    top_resolved = cache.resolved(None)
    base = top_resolved.config_file.parent if top_resolved.config_file else None
    disc = discover(args.paths or ["."], top.include, top.exclude, respect_gitignore=args.respect_gitignore,
                    base=base)
    errors: list[dict[str, Any]] = []
    for path, msg in disc.errors:
        eprint(error_line(path, msg))
        errors.append({"path": path, "message": msg})
    if not disc.files and not errors:
        where = ", ".join(disc.empty or args.paths or ["."])
        eprint(f"warning: no files to lint in {where} (include: {', '.join(top.include)})")
    resolved_files = [cache.resolved(f) for f in disc.files]
    items = [(str(f), r.settings) for f, r in zip(disc.files, resolved_files)]

    if items and args.format == "text" and not args.quiet:  # which chunker is simulated, and why
        from chunkseam.engine.analysis import describe_chunker

        for line in list(dict.fromkeys(describe_chunker(r.settings, r.sources)
                                       for r in resolved_files))[:5]:
            eprint(line)
    if args.scheduler:
        return _lint_on_cluster(args, items, errors, top)
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        code = _fix_files(args, items, errors)
        if args.diff:
            return code
    func, work = _cached_items(args, items)
    results = map_jobs(func, work, args.jobs)
    if func is lint_cached:
        results = _check_on_first_miss(results, top)
    return finish(args, progress_bar(results, len(items), args, "linting"), errors)


def _refuse_on_cluster(args: argparse.Namespace) -> None:
    """``lint --scheduler``: the options a cluster run cannot honour, refused before any work."""
    if reads_stdin(args, args.paths):
        raise UsageError("error: --scheduler lints files and directories, not stdin")
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        raise UsageError("error: --fix and --diff rewrite local files; they are not available with --scheduler "
                         "(run them without it)")
    if args.cache_dir:
        raise UsageError("error: --cache-dir is not available with --scheduler (a cluster run does not use "
                         "the result cache)")
    if args.output_dir:
        if args.format not in ("text", "jsonl", "sarif"):
            raise UsageError(f"error: --output-dir writes JSON Lines or SARIF parts; --format {args.format} "
                             "is not available with it (use text, jsonl or sarif)")
        if args.baseline or args.write_baseline or args.statistics or args.output:
            raise UsageError("error: --baseline, --write-baseline, --statistics and --output are not "
                             "available with --output-dir (the records go to the parts; drop --output-dir "
                             "for a report built on the client)")


def _lint_on_cluster(args: argparse.Namespace, items: list[tuple[str, Settings]],
                     errors: list[dict[str, Any]], top: Settings) -> int:
    """``lint --scheduler``: batches of files (their bytes, read here) linted on Dask workers.
    Without --output-dir the results come back in order and make the usual report; with it each
    batch writes its part and only summaries come back, merged here."""
    from chunkseam.cluster.jobs import (
        connect,
        lint_on_cluster,
        make_output_dir,
        merge,
        write_summary,
    )
    from chunkseam.report import formats as report

    check_tokenizer(top)
    out_dir = args.output_dir
    if out_dir and "://" not in out_dir:
        out_dir = str(Path(out_dir).absolute())  # the workers' working directory is not ours
    fmt = "sarif" if args.format == "sarif" else "jsonl"
    try:
        if out_dir:
            make_output_dir(out_dir)
        with connect(args.scheduler, args.jobs) as client:
            answers = lint_on_cluster(client, items, out_dir, fmt, args.fail_on)
            if not out_dir:
                results = (r for batch in answers for r in batch)
                return finish(args, progress_bar(results, len(items), args, "linting"), errors)
            parts = list(answers)
    except (ValueError, RuntimeError, OSError) as exc:
        raise UsageError(f"error: {exc}") from None
    summary, _, part_errors, fails, _ = merge(parts)
    for e in part_errors:
        eprint(error_line(e["path"], e["message"]))
    errors.extend(part_errors)
    write_summary(out_dir, {"summary": summary.to_dict(), "errors": errors,
                            "parts": [p.part for p in sorted(parts, key=lambda p: p.index)]})
    eprint(f"wrote the records to {args.output_dir} ({'SARIF' if fmt == 'sarif' else 'JSON Lines'} "
           "parts and summary.json)")
    print(report.summary_line(summary))
    return exit_code(args, bool(errors), bool(fails), summary)


def _check_on_first_miss(results: Iterable[FileResult], settings: Settings):
    """The results, with the tokenizer checked (a clear usage error) before the first one
    that the cache did not answer."""
    checked = False
    for r in results:
        if not checked and not getattr(r, "cached", False):
            check_tokenizer(settings)
            checked = True
        yield r


def fix_one(item: tuple[str, Settings]) -> tuple[str, str | None, str | None, list[str], str | None]:
    """(path, old text, new text, fixes applied, error) of one file's verified
    fixes (runs in a worker process with --jobs); nothing is written here."""
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.document.text import Document
    from chunkseam.fix.edits import fix_all

    path, settings = item
    try:
        text = read_source(path, keep_bom=True)  # (a fixed file keeps its BOM)
    except SourceError as exc:
        return path, None, None, [], str(exc)
    from chunkseam.document.notebook import is_notebook

    if is_notebook(path):  # the fixes edit the view; never rewrite a notebook's JSON from it
        return path, text, None, [], None
    try:
        done = fix_all(Document(text, path=path), settings)
    except ChunkerOptionError as exc:
        return path, None, None, [], str(exc)
    except Exception as exc:  # a bug must not stop the run, nor touch the file
        return path, None, None, [], f"internal error while fixing: {type(exc).__name__}: {exc}"
    if not done.changed or done.doc.text == text:
        return path, text, None, [], None
    return path, text, done.doc.text, done.applied, None


def _write_fixed(path: str, new_text: str) -> None:
    """Replace ``path``'s text, keeping its BOM, mode and line endings (the
    fixes insert the file's own), through a temporary file in its directory."""
    import stat
    import tempfile

    from chunkseam.config.confine import refusal

    # only a regular file inside the repository is written: a link (inside the root, to a file
    # inside it) is kept and its target rewritten, never replaced by a plain file
    why = refusal(path)
    if why is not None:
        raise OSError(why)
    p = Path(os.path.realpath(path))
    info = os.lstat(p)
    if not stat.S_ISREG(info.st_mode):
        raise OSError("not a regular file; not written")
    with open(p, "rb") as f:
        bom = f.read(3) == b"\xef\xbb\xbf"
    data = (b"\xef\xbb\xbf" if bom else b"") + new_text.encode("utf-8")
    mode = info.st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".chunkseam", dir=str(p.parent))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _fix_files(args: argparse.Namespace, items: list[tuple[str, Settings]],
               errors: list[dict[str, Any]]) -> int:
    """``--diff``: print the diffs, exit 1 if any; ``--fix``: write the fixed
    files (the report of what remains follows)."""
    import difflib

    fixed_files = fixes_total = 0
    from chunkseam.document.notebook import NOTEBOOK_FIX_REFUSED, is_notebook

    for path, _settings in items:
        if is_notebook(path):
            eprint(f"{path}: {NOTEBOOK_FIX_REFUSED}")
    for path, old, new, applied, error in map_jobs(fix_one, items, args.jobs):
        if error is not None:
            eprint(error_line(path, error))
            errors.append({"path": path, "message": error})
            continue
        if new is None or old is None:
            continue
        fixed_files += 1
        fixes_total += len(applied)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True),
                fromfile=path, tofile=path))
            if not new.endswith(("\n", "\r")):
                sys.stdout.write("\n\\ No newline at end of file\n")
        else:
            try:
                _write_fixed(path, new)
            except OSError as exc:
                message = f"could not write the fixes: {exc.strerror or exc}"
                eprint(error_line(path, message))
                errors.append({"path": path, "message": message})
                fixes_total -= len(applied)
                fixed_files -= 1
    noun = f"{fixes_total} fix{'es' if fixes_total != 1 else ''} in {fixed_files} file{'s' if fixed_files != 1 else ''}"
    if args.diff:
        eprint(f"would apply {noun}" if fixes_total else "no fixes would be applied")
        if errors:
            return EXIT_ERROR
        return EXIT_ISSUES if fixes_total else EXIT_OK
    eprint(f"applied {noun}" if fixes_total else "no fixes applied")
    return EXIT_OK
