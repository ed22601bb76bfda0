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
import os
import sys
from typing import Any, Sequence

from chunkseam.cli.audit import cmd_audit
from chunkseam.cli.chunks import cmd_chunks
from chunkseam.cli.common import (
    COLOR_HELP,
    EXIT_ERROR,
    EXIT_OK,
    ISOLATED_HELP,
    REPORT_FORMATS,
    Parser,
    UsageError,
    chunking_options,
    close_runner,
    global_options,
    jobs_count,
    positive_int,
    report_options,
    rule_options,
    stdin_option,
    unrecognized,
)
from chunkseam.cli.compare import cmd_compare
from chunkseam.cli.completion import add_completers, cmd_completion
from chunkseam.cli.config import cmd_config
from chunkseam.cli.eval import cmd_eval
from chunkseam.cli.init import cmd_init
from chunkseam.cli.lint import cmd_clean, cmd_lint
from chunkseam.cli.preview import cmd_preview
from chunkseam.cli.rule import cmd_rule
from chunkseam.cli.server import cmd_server
from chunkseam.cli.tune import cmd_tune
from chunkseam.config.loader import (
    ConfigError,
)
from chunkseam.core.version import __version__
from chunkseam.engine.analysis import ChunkerOptionError
from chunkseam.report.formats import (
    eprint,
)

_EXAMPLES = """examples:
  chunkseam lint docs/
      check every Markdown, text and Python file under docs/ (400 tokens, no overlap)
  chunkseam lint --chunker recursive --size 512 --overlap 64 --format github README.md
      simulate a RecursiveCharacterTextSplitter(512, 64) and annotate a pull request"""


def chunkers_help() -> str:
    """The chunkers of this installation, for ``--help`` (library-backed ones say what they need)."""
    import textwrap

    from chunkseam import chunkers
    from chunkseam.core.settings import DEFAULT_ROUTES

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


def _help_with_chunkers(parser: argparse.ArgumentParser) -> None:
    """Add the chunker list and the examples to the ``--help`` of a chunking subcommand."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = chunkers_help() + "\n\n" + _EXAMPLES


def build_parser(help_requested: bool = False) -> argparse.ArgumentParser:
    parser = Parser(prog="chunkseam",
                     description="See where a RAG chunker cuts your documents, and which cuts break meaning.")
    parser.add_argument("--version", action="version", version=f"chunkseam {__version__}")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help=COLOR_HELP)
    parser.add_argument("--isolated", action="store_true", default=False, help=ISOLATED_HELP)
    common = global_options()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
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
    stdin_option(p)
    chunking_options(p)
    rule_options(p)
    report_options(p, REPORT_FORMATS)
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
    stdin_option(p)
    chunking_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text")

    p = sub.add_parser("preview", help="show a file's chunks in the terminal or as an HTML page")
    p.add_argument("file", metavar="FILE", help="the file ('-' reads stdin)")
    stdin_option(p)
    chunking_options(p)
    rule_options(p)
    p.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML page instead")
    p.add_argument("--width", type=positive_int, help="terminal width")

    p = sub.add_parser("compare", help="compare chunking strategies on the same files")
    p.add_argument("paths", nargs="+", metavar="FILE")
    p.add_argument("--chunkers", metavar="LIST", help="comma-separated strategies "
                   "(default: fixed,recursive,sentence,markdown)")
    chunking_options(p)
    rule_options(p)
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
    chunking_options(p)
    rule_options(p)
    report_options(p, REPORT_FORMATS)

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
    chunking_options(p)
    rule_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text")

    p = sub.add_parser("init", help="write the configuration from the chunking pipeline found "
                       "in the project's Python code (read, never run)")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="the project (default: .)")
    p.add_argument("--choose", type=positive_int, metavar="N",
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

    _add_eval_parsers(sub, jobs_count, positive_int)  # eval, tune
    add_completers(sub.choices)
    if help_requested:  # listing the chunkers imports them: only for --help
        for name in ("lint", "chunks", "preview", "compare", "audit", "config"):
            _help_with_chunkers(sub.choices[name])
        parser.epilog = chunkers_help() + "\n\n" + _EXAMPLES
    return parser


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
        unrecognized(sub or parser, extras)
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
        close_runner()


def _config_message(exc: ConfigError) -> str:
    """A configuration error; one that comes from a flag names the flag (``--chunker langchain: …``)."""
    text = str(exc)
    if exc.file == "command line" and exc.key and "." not in exc.key:
        from chunkseam.config.loader import normalize_key, toml_repr

        body = text[len("command line: "):]
        head = f"{exc.key} = {toml_repr(exc.value)}"
        flag = "--" + normalize_key(exc.key).replace("_", "-")
        value = ",".join(map(str, exc.value)) if isinstance(exc.value, (list, tuple)) else str(exc.value)
        if body.startswith(head):
            return f"{flag} {value}{body[len(head):]}"
    return text


def entry() -> None:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
