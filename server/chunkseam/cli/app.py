"""The ``chunkseam`` command line.

Subcommands: ``lint``, ``chunks``, ``preview``, ``compare``, ``audit``,
``rule``, ``config --show``, ``server``. Exit codes (like ruff): 0 nothing at
or above ``--fail-on``; 1 issues found (or ``--max-rate`` exceeded); 2 usage,
configuration or I/O error (unreadable files are reported on stderr as
``path: error: …``, skipped, and make the run end with 2).

Nothing here writes to the files being checked, except ``lint --fix`` (the
verified fixes of :mod:`chunkseam.fix.edits`); the other files written are the
ones named by ``--html``, ``--output`` and ``--write-baseline``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TextIO

from chunkseam.core.version import __version__
from chunkseam.engine.analysis import ChunkerOptionError
from chunkseam.core.budget import BudgetExceeded
from chunkseam.chunkers.adapters.common import LibraryError
from chunkseam.config.loader import ConfigError, Resolved, describe, resolve, settings_from_mapping
from chunkseam.core.issue import SEVERITIES
from chunkseam.report.formats import FileResult, Summary, eprint, error_line, failing, plural, summarize, use_color
from chunkseam.core.settings import Settings

EXIT_OK, EXIT_ISSUES, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


# --- argument parsing -----------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 like ruff, message on stderr
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


#: option names users bring from other tools (LangChain, ruff, markdownlint) -> ours
_FOREIGN_OPTIONS = {
    "--chunk-size": "--size",
    "--chunk_size": "--size",
    "--chunk-overlap": "--overlap",
    "--chunk_overlap": "--overlap",
    "--output-format": "--format",
    "--output-file": "--output",
    "--splitter": "--chunker",
    "--strategy": "--chunker",
    "--disable": "--ignore",
    "--enable": "--extend-select",
}


def closest_option(parser: argparse.ArgumentParser, given: str) -> str | None:
    """The option of ``parser`` closest to the unknown ``given`` (for "did you mean")."""
    import difflib

    name = given.split("=", 1)[0]
    known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    alias = _FOREIGN_OPTIONS.get(name)
    if alias in known:
        return alias
    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return match[0] if match else None


def _unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> None:
    """Report unknown arguments with the usage of the subcommand they were given to."""
    options = [a for a in extras if a.startswith("-") and a != "-"]
    message = f"unrecognized arguments: {' '.join(extras)}"
    if options:
        hint = closest_option(parser, options[0])
        if hint:
            message += f" (did you mean {hint}?)"
    parser.error(message)


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _nonneg_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return v


def _percent(text: str) -> float:
    try:
        v = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage (0-100), got {text!r}") from None
    if not 0 <= v <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage (0-100), got {text!r}")
    return v


def _severity_pair(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected CODE=LEVEL (e.g. CS002=error), got {text!r}")
    code, level = (p.strip() for p in text.split("=", 1))
    if not code or level.lower() not in SEVERITIES + ("off",):
        raise argparse.ArgumentTypeError(
            f"expected CODE=LEVEL with LEVEL one of {', '.join(SEVERITIES + ('off',))}, got {text!r}")
    return code, level.lower()


def _jobs(text: str) -> int:
    from chunkseam.lint.parallel import cpu_count

    v = _nonneg_int(text)
    return v or cpu_count()


def _chunking_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("chunking (override the config file)")
    g.add_argument("--chunker", metavar="NAME",
                   help="chunking strategy (default: by file type; see the list below)")
    g.add_argument("--size", type=_positive_int, metavar="N", help="chunk size budget (default: 400)")
    g.add_argument("--overlap", type=_nonneg_int, metavar="N",
                   help="overlap between neighbours (default: 0)")
    g.add_argument("--unit", choices=("tokens", "chars"), help="size unit (default: tokens)")
    g.add_argument("--language", metavar="CODE",
                   help="the documents' language, for sentence rules (pysbd: de, fr, ja, hi …; default: en)")
    g.add_argument("--encoding", metavar="NAME", help="tiktoken encoding (default cl100k_base)")
    g.add_argument("--tiktoken-file", metavar="FILE", help="a local .tiktoken encoding file")
    g.add_argument("--approximate-tokens", action="store_true", default=None,
                   help="count tokens approximately when no exact encoding can be had")
    g.add_argument("--config", metavar="FILE", help="use this config file instead of the nearest one")


def _stdin_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdin-filename", metavar="PATH",
                   help="the path of the text read from stdin ('-'): picks the chunker, the config "
                        "file and per-file settings, and names it in messages")


def read_stdin(args: argparse.Namespace) -> tuple[str, str]:
    """(display path, text) of the document piped on stdin."""
    from chunkseam.audit.dump import SourceError, decode_source, read_bounded

    name = getattr(args, "stdin_filename", None) or "-"
    try:
        if hasattr(sys.stdin, "buffer"):
            data = read_bounded(sys.stdin.buffer)
        else:
            from io import BytesIO

            data = read_bounded(BytesIO(sys.stdin.read().encode("utf-8")))
        return name, decode_source(data, keep_bom=True)
    except SourceError as exc:
        raise UsageError(error_line(name, str(exc))) from None
    except OSError as exc:
        raise UsageError(error_line(name, exc.strerror or str(exc))) from None


def _reads_stdin(args: argparse.Namespace, given: list[str]) -> bool:
    """``-`` as the input, or (like ruff) ``--stdin-filename`` with no input named."""
    if "-" in given:
        if len(given) > 1:
            raise UsageError("error: '-' (stdin) cannot be combined with other paths")
        return True
    return not given and bool(getattr(args, "stdin_filename", None))


def _rule_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rules (override the config file)")
    g.add_argument("--select", metavar="CODES", help="comma-separated rule codes, prefixes or names")
    g.add_argument("--extend-select", metavar="CODES", help="rules to enable on top of the selection")
    g.add_argument("--ignore", metavar="CODES", help="comma-separated rule codes, prefixes or names to skip")
    g.add_argument("--severity", metavar="CODE=LEVEL", type=_severity_pair, action="append",
                   help="re-grade a rule (error, warning, info, hint, off); repeatable")


def _report_options(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    p.add_argument("--format", choices=formats, default="text", help="output format (default: text)")
    p.add_argument("--fail-on", choices=SEVERITIES + ("never",), default="warning",
                   help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--max-rate", type=_percent, metavar="PCT",
                   help="also fail when the broken-chunk rate is over PCT percent")
    p.add_argument("--statistics", action="store_true", help="show counts per rule instead of each issue")
    p.add_argument("--baseline", metavar="FILE", help="report and fail only on issues not in this baseline")
    p.add_argument("--write-baseline", metavar="FILE", help="record the current issues as the baseline and exit 0")
    p.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                   help="worker processes (0 = all cores; default 1)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")


_COLOR_HELP = "colour output (auto: on a terminal; NO_COLOR / FORCE_COLOR respected)"
_ISOLATED_HELP = ("ignore all configuration files (the project's and the user's): defaults and "
                  "command-line options only; for untrusted checkouts (the Action uses it on pull "
                  "requests from forks)")


def _global_options() -> argparse.ArgumentParser:
    """Options accepted before and after the subcommand (``chunkseam lint --color always``)."""
    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("global options")
    # SUPPRESS: given after the subcommand it overrides the top-level value, else leaves it alone
    g.add_argument("--color", choices=("auto", "always", "never"), default=argparse.SUPPRESS,
                   help=_COLOR_HELP)
    g.add_argument("--isolated", action="store_true", default=argparse.SUPPRESS, help=_ISOLATED_HELP)
    return common


_EXAMPLES = """examples:
  chunkseam lint docs/
      check every Markdown, text and Python file under docs/ (400 tokens, no overlap)
  chunkseam lint --chunker recursive --size 512 --overlap 64 --format github README.md
      simulate a RecursiveCharacterTextSplitter(512, 64) and annotate a pull request"""


def chunkers_help() -> str:
    """The chunkers of this installation, for ``--help`` (library-backed ones say what they need)."""
    from chunkseam import chunkers
    from chunkseam.core.settings import DEFAULT_ROUTES

    import textwrap

    rows = chunkers.describe_all()
    width = max((len(n) for n, _, _ in rows), default=8)
    by_name: dict[str, list[str]] = {}
    for glob, name in DEFAULT_ROUTES.items():
        by_name.setdefault(name, []).append(glob)
    routes = "; ".join(f"{', '.join(g)} -> {n}" for n, g in by_name.items())
    lines = textwrap.wrap(f"chunkers (--chunker NAME; default: by file type: {routes}):", 88,
                          subsequent_indent="  ")
    for name, desc, why in rows:
        text = desc + (f" [unavailable: {why}]" if why else "")
        lines.extend(textwrap.wrap(text, 88, initial_indent=f"  {name:<{width}}  ",
                                   subsequent_indent=" " * (width + 4)))
    return "\n".join(lines)


def _complete_chunker(prefix: str, **_: Any) -> list[str]:
    from chunkseam import chunkers

    return [n for n in chunkers.names() if n.startswith(prefix)]


def _complete_rules(prefix: str, **_: Any) -> list[str]:
    """Rule codes and names for comma-separated selector lists (completes the last item)."""
    from chunkseam.checks.registry import RULES

    head, _, last = prefix.rpartition(",")
    head = head + "," if head else ""
    words = ["ALL", *RULES, *(r.name for r in RULES.values())]
    return [head + w for w in words if w.lower().startswith(last.lower())]


def _completers(subparsers: dict[str, argparse.ArgumentParser]) -> None:
    """Value completion for shell completion (argcomplete reads ``action.completer``)."""
    for p in subparsers.values():
        for action in p._actions:
            if "--chunker" in action.option_strings:
                action.completer = _complete_chunker  # type: ignore[attr-defined]
            elif {"--select", "--extend-select", "--ignore"} & set(action.option_strings):
                action.completer = _complete_rules  # type: ignore[attr-defined]


def cmd_completion(args: argparse.Namespace) -> int:
    try:
        import argcomplete
    except ImportError as exc:  # pragma: no cover - a dependency
        raise UsageError(f"error: shell completion needs argcomplete: {exc}") from None
    sys.stdout.write(argcomplete.shellcode(["chunkseam"], shell=args.shell))
    return EXIT_OK


def _help_with_chunkers(parser: argparse.ArgumentParser) -> None:
    """Add the chunker list and the examples to the ``--help`` of a chunking subcommand."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = chunkers_help() + "\n\n" + _EXAMPLES


#: output formats of lint and audit
REPORT_FORMATS = ("text", "json", "jsonl", "sarif", "github", "gitlab", "junit", "markdown")


def build_parser(help_requested: bool = False) -> argparse.ArgumentParser:
    parser = _Parser(prog="chunkseam",
                     description="See where a RAG chunker cuts your documents, and which cuts break meaning.")
    parser.add_argument("--version", action="version", version=f"chunkseam {__version__}")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help=_COLOR_HELP)
    parser.add_argument("--isolated", action="store_true", default=False, help=_ISOLATED_HELP)
    common = _global_options()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add = sub.add_parser

    def add_parser(name: str, **kw: Any) -> argparse.ArgumentParser:
        if kw.get("add_help", True):
            kw.setdefault("parents", [common])
        return _add(name, **kw)

    sub.add_parser = add_parser  # type: ignore[method-assign]
    parser.set_defaults(_subparsers=sub.choices)
    parser.epilog = _EXAMPLES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser("lint", help="check files for cuts that break meaning")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files, directories or globs (default: .); '-' reads stdin")
    _stdin_option(p)
    _chunking_options(p)
    _rule_options(p)
    _report_options(p, REPORT_FORMATS)
    p.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                   help="also lint files that .gitignore excludes")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="where results are kept between runs (default: $CHUNKSEAM_CACHE_DIR, "
                        "else the user cache directory)")
    p.add_argument("--no-cache", action="store_true",
                   default=os.environ.get("CHUNKSEAM_NO_CACHE", "").lower() in ("1", "true", "yes"),
                   help="neither read nor write the cache (also: CHUNKSEAM_NO_CACHE=1)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=os.environ.get("DASK_SCHEDULER_ADDRESS"),
                   help="lint on a Dask cluster: tcp://HOST:8786, or 'local' for a local cluster of "
                        "--jobs workers (default: $DASK_SCHEDULER_ADDRESS; needs chunkseam[dask])")
    p.add_argument("--output-dir", metavar="DIR",
                   help="with --scheduler: write the full records to parts (part-NNNNN.jsonl or .sarif) "
                        "and summary.json in DIR (a path or an fsspec URL) instead of the report")
    fx = p.add_mutually_exclusive_group()
    fx.add_argument("--fix", action="store_true",
                    help="apply the fixes that are verified to remove their issue without adding "
                         "errors or warnings, then report what remains")
    fx.add_argument("--diff", action="store_true",
                    help="print the verified fixes as a unified diff instead of applying them "
                         "(exit 1 if there are any, 0 if none); writes nothing")

    p = sub.add_parser("chunks", help="dump the chunks of a file")
    p.add_argument("file", metavar="FILE", help="the file ('-' reads stdin)")
    _stdin_option(p)
    _chunking_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text")

    p = sub.add_parser("preview", help="show a file's chunks in the terminal or as an HTML page")
    p.add_argument("file", metavar="FILE", help="the file ('-' reads stdin)")
    _stdin_option(p)
    _chunking_options(p)
    _rule_options(p)
    p.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML page instead")
    p.add_argument("--width", type=_positive_int, help="terminal width")

    p = sub.add_parser("compare", help="compare chunking strategies on the same files")
    p.add_argument("paths", nargs="+", metavar="FILE")
    p.add_argument("--chunkers", metavar="LIST", help="comma-separated strategies "
                   "(default: fixed,recursive,sentence,markdown)")
    _chunking_options(p)
    _rule_options(p)
    p.add_argument("--format", choices=("text", "json", "html"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")

    p = sub.add_parser("audit", help="validate the chunks of an existing index (a JSONL or JSON dump)")
    p.add_argument("dump", metavar="DUMP", help="JSON Lines (one chunk per line) or a JSON array of chunks: "
                   "records, LangChain Documents or LlamaIndex TextNodes ('-' for stdin)")
    p.add_argument("--source-root", metavar="DIR", help="directory that chunk 'source' paths are relative to")
    p.add_argument("--allow-outside-root", action="store_true",
                   help="read 'source' files outside --source-root (default: only files inside it, "
                        "or inside the current directory without --source-root)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=os.environ.get("DASK_SCHEDULER_ADDRESS"),
                   help="audit on a Dask cluster: tcp://HOST:8786, or 'local' for a local cluster of "
                        "--jobs workers (default: $DASK_SCHEDULER_ADDRESS; needs chunkseam[dask])")
    p.add_argument("--report", metavar="OUT.html",
                   help="also write one self-contained HTML page: broken-chunk rate per folder, "
                        "chunk sizes against the size and embedding limit, top rules")
    p.add_argument("--output-dir", metavar="DIR",
                   help="with --scheduler: where the parts (part-NNNNN.jsonl or .sarif) and "
                        "summary.json go (a path or an fsspec URL)")
    _chunking_options(p)
    _rule_options(p)
    _report_options(p, REPORT_FORMATS)

    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh or fish)",
                       description="Print the completion script for a shell. Install it with e.g.\n"
                                   "  chunkseam completion bash > ~/.local/share/bash-completion/completions/chunkseam\n"
                                   "  chunkseam completion zsh > \"${fpath[1]}/_chunkseam\"\n"
                                   "  chunkseam completion fish > ~/.config/fish/completions/chunkseam.fish",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shell", choices=("bash", "zsh", "fish"))

    p = sub.add_parser("rule", help="list the rules, or show one rule's documentation")
    p.add_argument("code", nargs="?", metavar="CODE", help="rule code or name")
    p.add_argument("--format", choices=("text", "json"), default="text")

    p = sub.add_parser("config", help="show the resolved settings for a file and where each came from")
    p.add_argument("--show", action="store_true", help="print the resolved settings (default action)")
    p.add_argument("file", nargs="?", metavar="FILE", help="file or directory (default: .)")
    _chunking_options(p)
    _rule_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text")

    p = sub.add_parser("init", help="write the configuration from the chunking pipeline found "
                       "in the project's Python code (read, never run)")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="the project (default: .)")
    p.add_argument("--choose", type=_positive_int, metavar="N",
                   help="with several pipelines found: use the N-th (as listed)")
    p.add_argument("--preset", metavar="NAME",
                   help="with no pipeline found: the library defaults to write (see the list)")
    p.add_argument("--file", dest="config_target", choices=("pyproject", "chunkseam.toml"),
                   help="write [tool.chunkseam] in pyproject.toml, or chunkseam.toml "
                   "(default: pyproject.toml when the project has one)")
    p.add_argument("--force", action="store_true", help="replace an existing chunkseam.toml")
    p.add_argument("--dry-run", action="store_true", help="print the configuration, write nothing")

    p = sub.add_parser("clean", help="remove the lint cache")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the cache to remove (default: $CHUNKSEAM_CACHE_DIR, else the user cache directory)")

    from chunkseam.trend import add_arguments as _trend_arguments

    _trend_arguments(sub.add_parser("trend", help="the broken-chunk rate per indexing run from the "
                                    "guards' events, and the run where it stepped"))

    sub.add_parser("server", help="start the language server (stdio; see `chunkseam server --help`)",
                   add_help=False)
    from chunkseam.cli.eval import add_parsers as _add_eval_parsers

    _add_eval_parsers(sub, _jobs, _positive_int)  # eval, tune
    _completers(sub.choices)
    if help_requested:  # listing the chunkers imports them: only for --help
        for name in ("lint", "chunks", "preview", "compare", "audit", "config"):
            _help_with_chunkers(sub.choices[name])
        parser.epilog = chunkers_help() + "\n\n" + _EXAMPLES
    return parser


# --- settings --------------------------------------------------------------------------------------


def _split(v: str | None) -> list[str] | None:
    if v is None:
        return None
    return [p.strip() for p in v.split(",") if p.strip()]


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    o: dict[str, Any] = {}
    for key in ("chunker", "size", "overlap", "unit", "language", "encoding", "tiktoken_file", "approximate_tokens"):
        v = getattr(args, key, None)
        if v is not None:
            o[key.replace("_", "-")] = v
    from chunkseam.checks import registry

    for key in ("select", "extend_select", "ignore"):
        v = _split(getattr(args, key, None))
        if v is not None:
            for sel in v:
                if not registry.is_known(sel):  # a gate that checks nothing must not pass
                    raise UsageError(f"error: --{key.replace('_', '-')} {sel}: {registry.describe_unknown(sel)}")
            o[key.replace("_", "-")] = v
    for code, _level in getattr(args, "severity", None) or ():
        if not registry.is_known(code):
            raise UsageError(f"error: --severity {code}: {registry.describe_unknown(code)}")
    return o


class SettingsCache:
    """Resolved settings per directory (config files apply per directory)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.overrides = overrides_from_args(args)
        self.severity = dict(getattr(args, "severity", None) or [])
        self.config_file = getattr(args, "config", None)
        self.isolated = bool(getattr(args, "isolated", False))
        if self.isolated and self.config_file:
            raise UsageError("error: --isolated ignores every configuration file; it cannot be combined with --config")
        self._cache: dict[str, Resolved] = {}

    def resolved(self, path: str | Path | None) -> Resolved:
        p = Path(path) if path is not None else Path.cwd()
        key = str((p if p.is_dir() else p.parent).absolute()) if self.config_file is None else ""
        r = self._cache.get(key)
        if r is None:
            r = resolve(p, self.overrides, config_file=self.config_file, isolated=self.isolated)
            if self.severity:
                merged = {**r.settings.severity, **self.severity}
                s, _ = settings_from_mapping({"severity": merged}, source="command line", base=r.settings)
                r = Resolved(s, {**r.sources, "severity": "command line"}, r.config_file, r.errors)
            for w in r.errors:
                eprint(("warning: " if w.warning else "error: ") + str(w))
            self._cache[key] = r
        return r

    def settings(self, path: str | Path | None) -> Settings:
        return self.resolved(path).settings


def _check_tokenizer(settings: Settings) -> None:
    from chunkseam.engine.analysis import sizer_for
    from chunkseam.tokens.tiktoken import TokenizerUnavailable

    try:
        sizer_for(settings)
    except TokenizerUnavailable as exc:
        raise UsageError(f"error: {exc}") from None


def _open_output(path: str | None) -> TextIO:
    if not path or path == "-":
        return sys.stdout
    from chunkseam.config.confine import write_refusal

    why = write_refusal(path)
    if why is not None:
        raise UsageError(error_line(path, f"cannot write the output: {why}"))
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(error_line(path, f"cannot write the output: {exc.strerror or exc}")) from None


# --- lint ---------------------------------------------------------------------------------------------


def lint_one(item: tuple[str, Settings]) -> FileResult:
    """Read, chunk and validate one file (runs in a worker process with --jobs)."""
    from chunkseam.engine.analysis import analyze
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.report.baseline import fingerprint
    from chunkseam.document.notebook import NotebookError, open_document
    from chunkseam.report.formats import record_from_issue

    path, settings, *given = item
    try:
        text = given[0] if given else read_source(path, keep_bom=True)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    try:
        doc = open_document(text, path, settings)
    except NotebookError as exc:
        return FileResult(path=path, error=str(exc))
    try:
        analysis = analyze(doc, settings)
    except (ChunkerOptionError, BudgetExceeded, LibraryError) as exc:  # bad settings, over the budget,
        return FileResult(path=path, error=str(exc))  # a pipeline library that failed on the file
    except Exception as exc:  # a bug in a chunker or a check must not stop the run
        return FileResult(path=path, error=f"internal error while checking: {type(exc).__name__}: {exc}")
    stats = analysis.stats
    records = [record_from_issue(doc, i, path, fingerprint=fingerprint(doc.text, i.code, i.start, i.end, i.cut))
               for i in sorted(analysis.issues, key=lambda i: (i.start, i.end, i.code))]
    if doc.notebook is not None and records:
        from chunkseam.document.notebook import file_line, source_lines

        lines = source_lines(text)  # the .ipynb's own lines, for SARIF and GitHub annotations
        for rec in records:
            rec.extra["file_line"] = file_line(lines, rec.extra["cell"], rec.line)
            rec.extra["end_file_line"] = file_line(lines, rec.extra["end_cell"], rec.end_line)
    sizer_approx = bool(getattr(settings, "approximate_tokens", False))
    return FileResult(path=path, chunker=analysis.chunker, chunks=stats.chunks,
                      chunks_with_issues=stats.chunks_with_issues, per_rule=dict(stats.per_rule),
                      records=records, approximate=sizer_approx and settings.unit == "tokens")


#: files checked and files answered from the cache by the last lint run
LAST_RUN: dict[str, int] = {"results": 0, "cached": 0}


def lint_cached(item: tuple[str, Settings, str, str]) -> FileResult:
    """:func:`lint_one` through the persistent cache (runs in a worker process with --jobs)."""
    from chunkseam.audit.dump import SourceError, decode_source, read_source_bytes
    from chunkseam.lint.resultcache import ResultCache

    path, settings, cache_dir, skey = item
    try:
        data = read_source_bytes(path)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    cache = ResultCache(cache_dir)
    key = cache.key(path, data, skey)
    hit = cache.get(key)
    if hit is not None:
        hit.cached = True  # type: ignore[attr-defined]
        return hit
    try:
        text = decode_source(data, keep_bom=True)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    result = lint_one((path, settings, text))
    if result.error is None:
        cache.put(key, result)
    return result


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


def _finish(args: argparse.Namespace, results: Iterable[FileResult], errors: list[dict[str, Any]],
            noun: str = "file", on_result: Callable[[FileResult], None] | None = None,
            extra_text: Callable[[], list[str]] | None = None, **json_extra: Any) -> int:
    """Baseline, output and exit code, shared by lint and audit.

    Text and GitHub output stream: each file's (or document's) issues are
    written as soon as its result arrives and then dropped, so memory stays flat
    on huge inputs; JSON and SARIF are one document and are written at the end.
    """
    from chunkseam.report import formats as report
    from chunkseam.report.baseline import Baseline, BaselineError

    base = None
    if args.write_baseline and not Path(args.write_baseline).absolute().parent.is_dir():
        raise UsageError(error_line(args.write_baseline, "cannot write the baseline: "
                                    "its directory does not exist"))
    if args.baseline and not args.write_baseline:
        try:
            base = Baseline.load(args.baseline)
        except BaselineError as exc:
            raise UsageError(str(exc)) from None
    streaming = args.format in ("text", "github") and not args.statistics and not args.write_baseline
    stream: Any = None  # json, jsonl, sarif: written as results arrive, kept in temporary files
    summary = Summary()
    kept: list[FileResult] = []
    all_records: list[report.Record] = []
    fails = False
    out = _open_output(args.output) if not args.write_baseline else None
    color = use_color(out, args.color) if out is not None else False
    style = report.Style(color)
    if out is not None:
        stream = {"json": report.JsonStream, "jsonl": report.JsonLinesStream,
                  "sarif": report.SarifStream}.get(args.format)
        stream = stream(out) if stream is not None else None
    try:
        LAST_RUN.update(results=0, cached=0)
        for r in results:
            LAST_RUN["results"] += 1
            LAST_RUN["cached"] += bool(getattr(r, "cached", False))
            if r.error is not None:
                eprint(error_line(r.path, r.error))
                errors.append({"path": r.path, "message": r.error})
            if base is not None:
                r.records, known = base.filter(r.records)
                summary.baselined += known
                if known:  # the broken-chunk count follows the issues still shown
                    r.chunks_with_issues = report.broken_chunks(r.records)
            summary.add(r)
            fails = fails or failing(r.records, args.fail_on)
            if on_result is not None:
                on_result(r)
            if args.write_baseline:
                all_records.extend(r.records)
            elif stream is not None:
                stream.add(r)
                r.records = []
            elif streaming:
                if args.format == "text":
                    report.write_text_records(out, r.records, style)
                else:
                    report.write_github(out, [r], None)
                r.records = []
            else:
                kept.append(r)
        if args.write_baseline:
            try:
                n = Baseline.write(args.write_baseline, all_records)
            except BaselineError as exc:
                raise UsageError(str(exc)) from None
            eprint(f"wrote {n} issue{'s' if n != 1 else ''} to the baseline {args.write_baseline}")
            return EXIT_ERROR if errors else EXIT_OK
        # nothing could be checked (`lint nope.md`): the errors on stderr are the whole answer
        nothing_checked = bool(errors) and summary.files == 0
        if args.format == "text" and not nothing_checked:
            if args.statistics:
                report.write_statistics(out, summary, style)
            for line in (extra_text() if extra_text else []):
                out.write(line + "\n")
            out.write(style.bold(report.summary_line(summary, noun=noun)) + "\n")
        elif args.format == "github" and not nothing_checked:
            out.write(report.summary_line(summary, noun=noun) + "\n")
        elif args.format in ("json", "jsonl"):
            stream.close(summary, errors, **json_extra)
        elif args.format == "sarif":
            stream.close(summary, errors)
        elif args.format == "gitlab":
            report.write_gitlab(out, kept)
        elif args.format == "junit":
            report.write_junit(out, kept, summary, errors, noun=noun)
        elif args.format == "markdown":
            report.write_markdown(out, kept, summary, noun=noun)
    finally:
        if out is not None and out is not sys.stdout:
            out.close()
    return _exit_code(args, bool(errors), bool(fails), summary)


def _exit_code(args: argparse.Namespace, errors: bool, fails: bool, summary: Summary) -> int:
    """2 when something could not be checked, 1 for issues at ``--fail-on`` or a rate over
    ``--max-rate``, else 0 (ruff's exit codes)."""
    if errors:
        return EXIT_ERROR
    if fails:
        return EXIT_ISSUES
    if args.max_rate is not None and summary.rate * 100 > args.max_rate:
        eprint(f"error: broken-chunk rate {summary.rate * 100:.1f}% is over --max-rate {args.max_rate:g}%")
        return EXIT_ISSUES
    return EXIT_OK


def cmd_lint(args: argparse.Namespace) -> int:
    from chunkseam.config.discover import discover

    if args.scheduler:
        _refuse_on_cluster(args)
    if _reads_stdin(args, args.paths):
        # settings, routing and per-file ignores as for the file --stdin-filename names
        cache = SettingsCache(args)
        name, text = read_stdin(args)
        settings = cache.settings(args.stdin_filename or None)
        _check_tokenizer(settings)
        return _finish(args, [lint_one((name, settings, text))], [])
    cache = SettingsCache(args)
    top = cache.settings(None)
    if args.no_cache or getattr(args, "fix", False) or getattr(args, "diff", False):
        _check_tokenizer(top)
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

    if items and args.format == "text":  # which chunker is simulated for these files, and why
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
    results = _map(func, work, args.jobs)
    if func is lint_cached:
        results = _check_on_first_miss(results, top)
    return _finish(args, _progress(results, len(items), args, "linting"), errors)


def _refuse_on_cluster(args: argparse.Namespace) -> None:
    """``lint --scheduler``: the options a cluster run cannot honour, refused before any work."""
    if _reads_stdin(args, args.paths):
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
    from chunkseam.report import formats as report
    from chunkseam.cluster.jobs import connect, lint_on_cluster, make_output_dir, merge, write_summary

    _check_tokenizer(top)
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
                return _finish(args, _progress(results, len(items), args, "linting"), errors)
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
    return _exit_code(args, bool(errors), bool(fails), summary)


def _check_on_first_miss(results: Iterable[FileResult], settings: Settings):
    """The results, with the tokenizer checked (a clear usage error) before the first one
    that the cache did not answer."""
    checked = False
    for r in results:
        if not checked and not getattr(r, "cached", False):
            _check_tokenizer(settings)
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
    for path, old, new, applied, error in _map(fix_one, items, args.jobs):
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


#: the run's worker pool (one per run, shared by `lint --fix` and the lint after it)
_RUNNER: Any = None


def _weigh(item: Any) -> int:
    """Bytes of work in one lint item or audit job (batches close by bytes)."""
    group = getattr(item, "group", None)
    if group is not None:
        return sum(len(c.text) for c in getattr(group, "chunks", ())) or 1
    if len(item) == 3 and isinstance(item[2], str):  # (path, settings, text)
        return len(item[2])
    try:
        return os.path.getsize(item[0])
    except (OSError, TypeError, ValueError):
        return 1


def _map(func, items, jobs: int):
    """``func`` over ``items`` in order, on the run's pool when ``jobs > 1``
    (work in batches by bytes, results streamed back in input order)."""
    global _RUNNER
    from chunkseam.lint.parallel import Runner

    sized = hasattr(items, "__len__")
    if sized:
        items = list(items)
        jobs = min(jobs, max(1, len(items)))
    if jobs <= 1:
        return map(func, items)
    if _RUNNER is None or _RUNNER.jobs != jobs:
        if _RUNNER is not None:
            _RUNNER.close()
        _RUNNER = Runner(jobs)
    total = sum(_weigh(i) for i in items) if sized else None
    return _RUNNER.map(func, items, weigh=_weigh, total_bytes=total)


def _progress(iterable, total: int | None, args: argparse.Namespace, label: str, *, bytes_total: int | None = None):
    """A progress bar on stderr, only when stderr is a terminal."""
    if not (sys.stderr.isatty() and (total or 0) > 1) or os.environ.get("CHUNKSEAM_NO_PROGRESS"):
        yield from iterable
        return
    from rich.console import Console
    from rich import progress as rp
    from rich.text import Text

    class Rate(rp.ProgressColumn):
        def render(self, task) -> Text:
            return Text(f"{task.speed:,.0f} files/s" if task.speed else "… files/s")

    columns = (rp.TextColumn("{task.description}"), rp.BarColumn(), rp.MofNCompleteColumn(), Rate(),
               rp.TimeRemainingColumn())
    with rp.Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task(label, total=total)
        for item in iterable:
            bar.advance(task)
            yield item


# --- chunks -----------------------------------------------------------------------------------------


def _load_doc(path: str, args: argparse.Namespace | None = None, settings: Settings | None = None):
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.document.notebook import NotebookError, open_document

    if args is not None and _reads_stdin(args, [path] if path else []):
        name, text = read_stdin(args)
        try:
            return open_document(text, None if name == "-" else name, settings)
        except NotebookError as exc:
            raise UsageError(error_line(name, str(exc))) from None
    try:
        return open_document(read_source(path, keep_bom=True), path, settings)
    except (SourceError, NotebookError) as exc:
        raise UsageError(error_line(path, str(exc))) from None


def _settings_path(args: argparse.Namespace, path: str) -> str | None:
    """Where settings are looked up for ``path`` (stdin: the --stdin-filename, else the cwd)."""
    if path == "-":
        return getattr(args, "stdin_filename", None)
    return path


def cmd_chunks(args: argparse.Namespace) -> int:
    from chunkseam.engine.analysis import make_chunks, sizer_for

    settings = SettingsCache(args).settings(_settings_path(args, args.file))
    doc = _load_doc(args.file, args, settings)
    _check_tokenizer(settings)
    from chunkseam.core import budget
    try:  # within the budget of an analysis, as lint is
        budget.check_document(len(doc.text))
        with budget.limits(budget.default_seconds(len(doc.text))):
            sizer = sizer_for(settings)
            name, chunks = make_chunks(doc, settings, sizer)
    except budget.BudgetExceeded as exc:
        raise UsageError(error_line(args.file, str(exc))) from None
    out = sys.stdout
    if args.format == "json":
        rows = []
        for c in chunks:
            d = c.to_dict()
            start_cell, d["start_line"], d["start_column"] = doc.location(c.start)
            end_cell, d["end_line"], d["end_column"] = doc.location(c.end)
            if start_cell is not None:  # a notebook: lines and columns in the cells' sources
                d["start_cell"], d["end_cell"] = start_cell, end_cell
            d["unit"] = settings.unit
            rows.append(d)
        json.dump(rows, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_OK
    from chunkseam.report.preview import _first_words, line_range

    unit = "tok" if settings.unit == "tokens" else "ch"
    width = len(str(len(chunks)))  # chunks are numbered from 1 here (JSON: 0-based "index")
    for c in chunks:
        if doc.notebook is not None:
            first_cell, first, _ = doc.location(c.start)
            last_cell, last, _ = doc.location(max(c.start, c.end - 1))
            where = (f"cell {first_cell}:{first}-{last}" if first_cell == last_cell
                     else f"cell {first_cell}:{first}-cell {last_cell}:{last}")
        else:
            first, last = line_range(doc, c)
            where = f"L{first}-{last}"
        path = " › ".join(c.heading_path)
        flag = (" OVERSIZE" if c.oversize else "") + (" APPROXIMATE" if c.approximate else "")
        out.write(f"#{c.index + 1:<{width}}  {where}  {c.tokens} {unit}{flag}"
                  f"{'  ' + path if path else ''}  \"{_first_words(c.text, 50)}\"\n")
    out.write(f"{doc.path or '-'}: {plural(len(chunks), 'chunk')} ({name}, size {settings.size} {settings.unit}, "
              f"overlap {settings.overlap})"
              + ("; offsets approximate" if any(c.approximate for c in chunks) else "")
              + (f"; fell back to {chunks[0].meta['fallback']}: {chunks[0].meta.get('reason')}"
                 if chunks and chunks[0].meta.get("fallback") else "") + "\n")
    return EXIT_OK


# --- preview ----------------------------------------------------------------------------------------


def cmd_preview(args: argparse.Namespace) -> int:
    from chunkseam.engine.analysis import analyze
    from chunkseam.report.preview import html_page, print_terminal, too_many_to_draw

    resolved = SettingsCache(args).resolved(_settings_path(args, args.file))
    settings = resolved.settings
    doc = _load_doc(args.file, args, settings)
    _check_tokenizer(settings)
    a = analyze(doc, settings)
    from chunkseam.engine.analysis import describe_chunker

    simulated = describe_chunker(settings, resolved.sources)
    if args.html:
        page = html_page(doc, a.chunks, a.issues, chunker=a.chunker, settings=settings)
        from chunkseam.config.confine import write_refusal

        why = write_refusal(args.html)
        if why is not None:
            raise UsageError(error_line(args.html, why))
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as exc:
            raise UsageError(error_line(args.html, exc.strerror or str(exc))) from None
        eprint(f"wrote {args.html}: {plural(len(a.chunks), 'chunk')}, {plural(len(a.issues), 'issue')}; "
               f"{simulated}")
        note = too_many_to_draw(a.chunks)
        if note is not None:
            eprint(f"{args.html}: {note}")
        return EXIT_OK
    sys.stdout.write(simulated + "\n")
    print_terminal(doc, a.chunks, a.issues, out=sys.stdout, color=use_color(sys.stdout, args.color),
                   unit=settings.unit, chunker=a.chunker, width=args.width)
    return EXIT_OK


# --- compare ------------------------------------------------------------------------------------------


def cmd_compare(args: argparse.Namespace) -> int:
    from chunkseam import chunkers as registry
    from chunkseam.engine import compare
    from chunkseam.config.discover import discover

    cache = SettingsCache(args)
    top = cache.settings(None)
    _check_tokenizer(top)
    known = registry.names()
    if args.chunkers:
        strategies = _split(args.chunkers) or []
        unknown = [s for s in strategies if s not in known]
        if unknown:
            raise UsageError(f"error: unknown chunker {', '.join(unknown)}: expected one of {', '.join(known)}")
        for s in strategies:
            why = registry.unavailable(s)
            if why:
                raise UsageError(f"error: --chunkers {s}: {why}")
    else:
        strategies = [s for s in compare.DEFAULT_STRATEGIES if s in known]
        missing = [s for s in compare.DEFAULT_STRATEGIES if s not in known]
        if missing:
            eprint(f"note: {', '.join(missing)} not available in this installation; comparing {', '.join(strategies)}")
    disc = discover(args.paths, top.include, top.exclude)
    errors = 0
    for path, msg in disc.errors:
        eprint(error_line(path, msg))
        errors += 1
    if not disc.files and errors:  # `compare nope.md`: the error and nothing else
        return EXIT_ERROR
    stats = [compare.StrategyStats(s) for s in strategies]
    per_file: list[dict[str, Any]] = []
    html_files = []
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.document.notebook import NotebookError, open_document

    for f in disc.files:
        try:
            doc = open_document(read_source(f, keep_bom=True), str(f), cache.settings(f))
        except (SourceError, NotebookError) as exc:
            eprint(error_line(str(f), str(exc)))
            errors += 1
            continue
        settings = cache.settings(f)
        row: dict[str, Any] = {"path": str(f), "strategies": {}}
        columns = []
        for st in stats:
            try:
                chunks, issues = compare.run_strategy(doc, settings, st.strategy)
            except Exception as exc:
                eprint(error_line(str(f), f"{st.strategy}: {type(exc).__name__}: {exc}"))
                st.error = str(exc)
                errors += 1
                continue
            st.add(chunks, issues)
            one = compare.StrategyStats(st.strategy)
            one.add(chunks, issues)
            row["strategies"][st.strategy] = one.to_dict()
            columns.append((st.strategy, chunks, issues))
        per_file.append(row)
        if args.format == "html":
            html_files.append((doc, columns))
    out = _open_output(args.output)
    try:
        if args.format == "json":
            compare.write_json(out, stats, per_file, top)
        elif args.format == "html":
            from chunkseam.report.preview import compare_page

            out.write(compare_page(html_files, settings=top, table_html=compare.table_html(stats, top.unit)))
        else:
            compare.write_text(out, stats, unit=top.unit, color=use_color(out, args.color), files=len(per_file))
    finally:
        if out is not sys.stdout:
            out.close()
    return EXIT_ERROR if errors else EXIT_OK


# --- audit ----------------------------------------------------------------------------------------------


def cmd_audit(args: argparse.Namespace) -> int:
    from chunkseam.audit.dump import AuditJob, DumpError, audit_group, read_groups

    cache = SettingsCache(args)
    root = args.source_root
    settings = cache.settings(root or None)
    _check_tokenizer(settings)
    if root and not Path(root).is_dir():
        raise UsageError(error_line(root, "--source-root is not a directory"))
    errors: list[dict[str, Any]] = []
    dump_name = "<stdin>" if args.dump == "-" else args.dump
    if args.dump != "-":
        from chunkseam.config.confine import refusal

        why = refusal(args.dump)
        if why is not None:  # a dump linked out of the repository is not read
            raise UsageError(error_line(args.dump, why))
    if args.scheduler:
        return _audit_on_cluster(args, settings, dump_name)

    def on_error(e: DumpError) -> None:
        msg = f"line {e.line}: {e.message}"
        eprint(f"{dump_name}:{e.line}: error: {e.message}")
        errors.append({"path": dump_name, "line": e.line, "message": msg})

    if args.dump == "-":
        stream: Any = sys.stdin
        total_bytes = None
    else:
        try:
            if not Path(args.dump).is_file():
                raise UsageError(error_line(args.dump, "No such file" if not Path(args.dump).exists()
                                            else "not a regular file"))
            stream = open(args.dump, encoding="utf-8", errors="surrogateescape", newline="")
            total_bytes = os.path.getsize(args.dump)
        except OSError as exc:
            raise UsageError(error_line(args.dump, exc.strerror or str(exc))) from None
    show_bar = sys.stderr.isatty() and not os.environ.get("CHUNKSEAM_NO_PROGRESS") and total_bytes
    bar = task = None
    if show_bar:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn("auditing"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                       console=Console(file=sys.stderr), transient=True)
        bar.start()
        task = bar.add_task("audit", total=total_bytes)

    def on_progress(n: int) -> None:
        if bar is not None:
            bar.advance(task, n)

    modes = {"source-aware": 0, "text-only": 0}
    listed: list[FileResult] = []  # the first documents, for the text report
    text_only: list[FileResult] = []

    def on_result(r: FileResult) -> None:
        modes[r.mode or "text-only"] = modes.get(r.mode or "text-only", 0) + 1
        slim = FileResult(path=r.path, mode=r.mode, mode_reason=r.mode_reason, extra={"label": r.extra.get("label")})
        if len(listed) <= 50:
            listed.append(slim)
        if r.mode != "source-aware" and len(text_only) <= 50:
            text_only.append(slim)

    def extra_text() -> list[str]:
        total = sum(modes.values())
        shown = listed if total <= 50 else text_only
        lines = [f"{r.extra.get('label')}: {r.mode} ({r.mode_reason})" for r in shown[:50]]
        if total > 50:
            lines.append(f"(documents checked source-aware are not listed when there are more than 50; "
                         f"see --format json)")
        lines.append(f"{modes['source-aware']} document{'s' if modes['source-aware'] != 1 else ''} checked "
                     f"source-aware, {modes['text-only']} text-only")
        return lines

    collector = None
    if args.report:
        from chunkseam.audit.page import ReportCollector
        from chunkseam.tokens.models import model_limit

        if not Path(args.report).absolute().parent.is_dir():
            raise UsageError(error_line(args.report, "cannot write the report: its directory does not exist"))
        collector = ReportCollector(settings.size, settings.unit, model_limit(settings))
        counted = on_result

        def on_result(r: FileResult) -> None:
            collector.add(r)  # before _finish drops the records of a streamed result
            counted(r)

    groups = read_groups(_dump_items(stream, on_error, dump_name), on_error, on_progress)
    jobs = (AuditJob(g, dump_name, root, settings, allow_outside_root=args.allow_outside_root,
                     sizes=collector is not None) for g in groups)
    try:
        code = _finish(args, _map(audit_group, jobs, args.jobs), errors, noun="document",
                       on_result=on_result, extra_text=extra_text, modes=modes)
        if collector is not None:
            _write_report(args.report, collector, dump_name)
        return code
    finally:
        if bar is not None:
            bar.stop()
        if stream is not sys.stdin:
            stream.close()


def _write_report(path: str, collector: Any, dump_name: str) -> None:
    from chunkseam.report.formats import Summary

    summary = Summary()
    for d, c, b in collector.groups.values():
        summary.files += d
        summary.chunks += c
        summary.chunks_with_issues += b
    summary.issues = sum(collector.rules.values())
    from chunkseam.config.confine import write_refusal

    why = write_refusal(path)
    if why is not None:
        raise UsageError(error_line(path, f"cannot write the report: {why}"))
    try:
        Path(path).write_text(collector.page(summary, f"chunkseam audit of {dump_name}"), encoding="utf-8")
    except OSError as exc:
        raise UsageError(error_line(path, f"cannot write the report: {exc.strerror or exc}")) from None
    eprint(f"wrote the report to {path}")


def _audit_on_cluster(args: argparse.Namespace, settings: Settings, dump_name: str) -> int:
    """``audit --scheduler``: byte ranges of the dump on Dask workers, parts in --output-dir."""
    from chunkseam.report import formats as report
    from chunkseam.cluster.jobs import run

    if args.dump == "-":
        raise UsageError("error: --scheduler reads the dump from a path or URL, not stdin")
    if not args.output_dir:
        raise UsageError("error: --scheduler needs --output-dir DIR (the full records are written there)")
    if args.format not in ("text", "jsonl", "sarif"):
        raise UsageError(f"error: --scheduler writes JSON Lines or SARIF parts; --format {args.format} "
                         "is not available with it (use text, jsonl or sarif)")
    if args.baseline or args.write_baseline or args.report:
        raise UsageError("error: --baseline, --write-baseline and --report are not available with --scheduler")
    if "://" not in args.dump and not Path(args.dump).is_file():
        raise UsageError(error_line(args.dump, "No such file" if not Path(args.dump).exists()
                                    else "not a regular file"))
    try:
        summary, modes, errors, fails, _ = run(
            args.dump, dump_name, args.scheduler, args.jobs, settings, args.source_root,
            args.allow_outside_root, args.output_dir, "sarif" if args.format == "sarif" else "jsonl",
            args.fail_on, on_shuffle=lambda: eprint(
                f"warning: {dump_name}: the dump is not grouped by document (a document's chunks are not "
                "consecutive lines): shuffling it by doc_id so that each document is audited whole; this "
                "moves every chunk between workers once more (sort the dump by doc_id to avoid it)"))
    except (ValueError, RuntimeError, OSError) as exc:
        raise UsageError(f"error: {exc}") from None
    for e in errors:
        eprint(f"{e['path']}:{e['line']}: error: {e['message'].split(': ', 1)[-1]}" if "line" in e
               else error_line(e["path"], e["message"]))
    eprint(f"wrote the records to {args.output_dir} ({'SARIF' if args.format == 'sarif' else 'JSON Lines'} "
           "parts and summary.json)")
    print(report.summary_line(summary, noun="document"))
    print(f"{modes.get('source-aware', 0)} documents checked source-aware, {modes.get('text-only', 0)} text-only")
    return _exit_code(args, bool(errors), bool(fails), summary)


def _dump_items(stream, on_error, dump_name: str):
    """JSON Lines, streamed; or the elements of a JSON array file (read whole)."""
    from chunkseam.audit.dump import DumpError, array_items

    lines = _utf8_lines(stream, on_error, dump_name)
    head: list[str] = []
    for raw in lines:
        head.append(raw)
        if raw.strip():
            break
    if head and head[-1].lstrip().startswith("["):
        yield from array_items("".join(head) + "".join(lines), on_error)
        return
    yield from head
    yield from lines


def _utf8_lines(stream, on_error, dump_name: str):
    """Lines of the dump; a line that is not UTF-8 is reported and skipped."""
    from chunkseam.audit.dump import DumpError

    for n, raw in enumerate(stream, 1):
        if n == 1 and raw.startswith("\ufeff"):  # a UTF-8 byte order mark
            raw = raw[1:]
        if any("\udc80" <= ch <= "\udcff" for ch in raw):
            on_error(DumpError(n, "not UTF-8"))
            yield "\n"  # keep line numbers aligned
            continue
        yield raw


# --- rule / config / server ----------------------------------------------------------------------------


def cmd_rule(args: argparse.Namespace) -> int:
    from chunkseam.report.formats import _rule_attr, rules_table

    rules = rules_table()
    if not rules:
        raise UsageError("error: the rule registry (chunkseam.checks.registry) is not available in this version")
    if args.code:
        want = args.code.strip()
        rule = rules.get(want.upper()) or next(
            (r for r in rules.values() if _rule_attr(r, "name") == want.lower()), None)
        if rule is None:
            raise UsageError(f"error: unknown rule {want!r}: see `chunkseam rule` for the list")
        if args.format == "json":
            json.dump({k: _rule_attr(rule, k) for k in ("code", "name", "severity", "summary", "doc")},
                      sys.stdout, indent=2, ensure_ascii=False)
            sys.stdout.write("\n")
            return EXIT_OK
        sys.stdout.write(f"{_rule_attr(rule, 'code')} [{_rule_attr(rule, 'name')}] "
                         f"(default: {_rule_attr(rule, 'severity')})\n\n")
        sys.stdout.write((_rule_attr(rule, "doc") or _rule_attr(rule, "summary") or "").rstrip() + "\n")
        return EXIT_OK
    if args.format == "json":
        json.dump([{k: _rule_attr(r, k) for k in ("code", "name", "severity", "summary")}
                   for _, r in sorted(rules.items())], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    for code, r in sorted(rules.items()):
        sys.stdout.write(f"{code}  {_rule_attr(r, 'name', ''):<24} {_rule_attr(r, 'severity', ''):<8} "
                         f"{_rule_attr(r, 'summary', '')}\n")
    return EXIT_OK


def _fmt_value(v: Any) -> str:
    from chunkseam.config.loader import _toml_repr

    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml_repr(x)}' for k, x in v.items()) + " }" if v else "{}"
    return _toml_repr(v)


def cmd_config(args: argparse.Namespace) -> int:
    target = args.file or "."
    if args.file and not Path(args.file).exists():
        raise UsageError(error_line(args.file, "No such file or directory"))
    r = SettingsCache(args).resolved(target)
    rows = [_effective_chunker(row, r, target) if row[0] == "chunker" else row for row in describe(r)]
    if args.format == "json":
        json.dump({"file": target, "config_file": str(r.config_file) if r.config_file else None,
                   "settings": {k: {"value": _jsonable(v), "source": s} for k, v, s in rows}},
                  sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    out = sys.stdout
    out.write(f"# settings for {target}\n")
    out.write(f"# config file: {r.config_file if r.config_file else '(none found; built-in defaults)'}\n")
    width = max(len(k) for k, _, _ in rows)
    for key, value, source in rows:
        text = f"{key:<{width}} = {_fmt_value(value)}"
        out.write(f"{text:<60} # {source}\n" if len(text) < 60 else f"{text}  # {source}\n")
    return EXIT_OK


def _effective_chunker(row: tuple[str, Any, str], r: Resolved, target: str) -> tuple[str, Any, str]:
    """The ``chunker`` row of ``config --show``: the chunker that will actually be used, and why."""
    key, value, source = row
    if value is not None:
        return row
    if Path(target).is_dir():
        return key, "(by file type)", "routed per file: see `chunkers` and `chunkseam config FILE`"
    from chunkseam.chunkers import explain_route
    from chunkseam.document.text import kind_for

    name, why = explain_route(target, kind_for(target), r.settings.chunkers, r.settings.config_root)
    if why.startswith("chunkers ") and r.sources.get("chunkers") not in (None, "default"):
        why += f" in {r.sources['chunkers']}"
    return key, name, why


def cmd_init(args: argparse.Namespace) -> int:
    from chunkseam.init import scaffold as init
    root = Path(args.dir)
    if not root.is_dir():
        raise UsageError(error_line(args.dir, "not a directory"))
    found = init.distinct(init.find_pipelines(root))
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    comments: list[str]
    if found:
        print(f"found {len(found)} chunking pipeline{'s' if len(found) != 1 else ''} "
              f"(read statically, nothing run):")
        for n, f in enumerate(found, 1):
            print(init.comment_text(f"  {n}. {f.where}  {f.call}  -> chunker {f.library}"))
            for note in f.notes:
                print(init.comment_text(f"       note: {note}"))
            for why in f.refused:
                print(init.comment_text(f"       not supported: {why}"))
        if len(found) == 1:
            pick = found[0]
        elif args.choose:
            if args.choose > len(found):
                raise UsageError(f"error: --choose {args.choose}: only {len(found)} pipelines found")
            pick = found[args.choose - 1]
        elif interactive:
            pick = found[_ask_number("which one does chunkseam simulate? ", len(found)) - 1]
        else:
            raise UsageError("error: several pipelines found: choose one with --choose N")
        if pick.refused:
            raise UsageError(init.comment_text(
                f"error: {pick.where}: chunkseam cannot simulate this pipeline: "
                f"{'; '.join(pick.refused)}; nothing written"))
        settings = pick.settings
        comments = [f"written by `chunkseam init` from {pick.where}: {pick.call}"]
        comments += [f"note: {n}" for n in pick.notes]
    else:
        print("no chunking pipeline found in the Python code; library defaults:")
        names = list(init.PRESETS)
        for n, name in enumerate(names, 1):
            print(f"  {n}. {name:<14} {init.PRESETS[name][0]}")
        if args.preset:
            if args.preset not in init.PRESETS:
                raise UsageError(f"error: --preset {args.preset}: expected one of {', '.join(names)}")
            name = args.preset
        elif interactive:
            name = names[_ask_number("which defaults? ", len(names)) - 1]
        else:
            raise UsageError("error: no pipeline found: pick defaults with --preset NAME")
        settings = init.PRESETS[name][1]
        comments = [f"written by `chunkseam init`: {init.PRESETS[name][0]} (no pipeline found)"]
    path, table = init.target_file(root, args.config_target)
    if args.dry_run:
        text = init.render(settings, comments, table=table)
        try:
            init.check(text, settings, table, path)
        except init.InitError as exc:
            raise UsageError(f"error: {exc}") from None
        sys.stdout.write(f"# {init.comment_text(str(path))}\n" + text)
        return EXIT_OK
    try:
        written = init.write(root, settings, comments, prefer=args.config_target, force=args.force)
    except init.InitError as exc:
        raise UsageError(f"error: {exc}") from None
    print(f"wrote {'[tool.chunkseam] in ' if table else ''}{written}")
    return EXIT_OK


def _ask_number(prompt: str, count: int) -> int:
    while True:
        answer = input(prompt).strip()
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer)
        print(f"a number from 1 to {count}, please")


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def cmd_server(argv: list[str]) -> int:
    try:
        from chunkseam.lsp.server import main as server_main  # imported lazily: pygls is slow to import
    except ImportError as exc:
        eprint(f"error: the language server is not available: {exc}")
        return EXIT_ERROR
    rc = server_main(argv)
    return int(rc or 0)


# --- entry point -------------------------------------------------------------------------------------------


def cmd_eval(args: argparse.Namespace) -> int:
    from chunkseam.cli.eval import run_eval

    return run_eval(args)


def cmd_tune(args: argparse.Namespace) -> int:
    from chunkseam.cli.eval import run_tune

    return run_tune(args)


COMMANDS = {
    "eval": cmd_eval,
    "tune": cmd_tune,
    "lint": cmd_lint,
    "chunks": cmd_chunks,
    "preview": cmd_preview,
    "compare": cmd_compare,
    "audit": cmd_audit,
    "rule": cmd_rule,
    "completion": cmd_completion,
    "config": cmd_config,
    "init": cmd_init,
    "clean": cmd_clean,
    "trend": lambda args: __import__("chunkseam.trend", fromlist=["command"]).command(args),
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `chunkseam [--color X] server …`: everything after `server` belongs to the server
    head = [a for a in argv[: argv.index("server")]] if "server" in argv else None
    if head is not None and all(a.startswith("--color") or a in ("auto", "always", "never") for a in head):
        return cmd_server(argv[argv.index("server") + 1:])
    parser = build_parser(help_requested=any(a in ("-h", "--help") for a in argv))
    if "_ARGCOMPLETE" in os.environ:  # a shell asking for completions (see `chunkseam completion`)
        import argcomplete

        argcomplete.autocomplete(parser)  # exits after answering
    args, extras = parser.parse_known_args(argv)
    if extras:
        sub = (getattr(args, "_subparsers", None) or {}).get(getattr(args, "command", None))
        _unrecognized(sub or parser, extras)
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return COMMANDS[args.command](args)
    except ConfigError as exc:
        eprint(f"error: {_config_message(exc)}")
        return EXIT_ERROR
    except UsageError as exc:
        eprint(str(exc))
        return EXIT_ERROR
    except ChunkerOptionError as exc:
        eprint(f"error: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        eprint("interrupted")
        return 130
    except BrokenPipeError:  # `chunkseam lint | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except Exception as exc:  # never a traceback (exit 1 would read as "issues found")
        if os.environ.get("CHUNKSEAM_DEBUG"):
            import traceback

            traceback.print_exc()
        eprint(f"error: {type(exc).__name__}: {exc}"[:2000]
               + " (an internal error; set CHUNKSEAM_DEBUG=1 to see the traceback)")
        return EXIT_ERROR
    finally:
        _close_runner()


def _close_runner() -> None:
    global _RUNNER
    if _RUNNER is not None:
        _RUNNER.close()
        _RUNNER = None


def _config_message(exc: ConfigError) -> str:
    """A configuration error; one that comes from a flag names the flag (``--chunker langchain: …``)."""
    text = str(exc)
    if exc.file == "command line" and exc.key and "." not in exc.key:
        from chunkseam.config.loader import _toml_repr, normalize_key

        body = text[len("command line: "):]
        head = f"{exc.key} = {_toml_repr(exc.value)}"
        flag = "--" + normalize_key(exc.key).replace("_", "-")
        value = ",".join(map(str, exc.value)) if isinstance(exc.value, (list, tuple)) else str(exc.value)
        if body.startswith(head):
            return f"{flag} {value}{body[len(head):]}"
    return text


def _entry() -> None:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
