"""What the commands share: argument types and option groups, settings per directory, the output file, the worker pool and progress bars, and the end of a run (baseline, report, exit code)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TextIO

from chunkseam.config.loader import (
    Resolved,
    resolve,
    settings_from_mapping,
)
from chunkseam.core.issue import SEVERITIES
from chunkseam.core.settings import Settings
from chunkseam.report.formats import (
    FileResult,
    Summary,
    eprint,
    error_line,
    failing,
    use_color,
)

EXIT_OK, EXIT_ISSUES, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
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


def unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> None:
    """Report unknown arguments with the usage of the subcommand they were given to."""
    options = [a for a in extras if a.startswith("-") and a != "-"]
    message = f"unrecognized arguments: {' '.join(extras)}"
    if options:
        hint = closest_option(parser, options[0])
        if hint:
            message += f" (did you mean {hint}?)"
    parser.error(message)


def positive_int(text: str) -> int:
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


def jobs_count(text: str) -> int:
    from chunkseam.lint.parallel import cpu_count

    v = _nonneg_int(text)
    return v or cpu_count()


def chunking_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("chunking (override the config file)")
    g.add_argument("--chunker", metavar="NAME",
                   help="chunking strategy (default: by file type; see the list below)")
    g.add_argument("--size", type=positive_int, metavar="N", help="chunk size budget (default: 400)")
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


def stdin_option(p: argparse.ArgumentParser) -> None:
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


def reads_stdin(args: argparse.Namespace, given: list[str]) -> bool:
    """``-`` as the input, or (like ruff) ``--stdin-filename`` with no input named."""
    if "-" in given:
        if len(given) > 1:
            raise UsageError("error: '-' (stdin) cannot be combined with other paths")
        return True
    return not given and bool(getattr(args, "stdin_filename", None))


def rule_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rules (override the config file)")
    g.add_argument("--select", metavar="CODES", help="comma-separated rule codes, prefixes or names")
    g.add_argument("--extend-select", metavar="CODES", help="rules to enable on top of the selection")
    g.add_argument("--ignore", metavar="CODES", help="comma-separated rule codes, prefixes or names to skip")
    g.add_argument("--severity", metavar="CODE=LEVEL", type=_severity_pair, action="append",
                   help="re-grade a rule (error, warning, info, hint, off); repeatable")


def report_options(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    p.add_argument("--format", choices=formats, default="text", help="output format (default: text)")
    p.add_argument("--fail-on", choices=SEVERITIES + ("never",), default="warning",
                   help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--max-rate", type=_percent, metavar="PCT",
                   help="also fail when the broken-chunk rate is over PCT percent")
    p.add_argument("--statistics", action="store_true", help="show counts per rule instead of each issue")
    p.add_argument("--baseline", metavar="FILE", help="report and fail only on issues not in this baseline")
    p.add_argument("--write-baseline", metavar="FILE", help="record the current issues as the baseline and exit 0")
    p.add_argument("-j", "--jobs", type=jobs_count, default=1, metavar="N",
                   help="worker processes (0 = all cores; default 1)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print the issues and nothing else: no summary line, no note of the chunker "
                        "simulated, no progress bar (errors still go to stderr; the exit code is unchanged)")


COLOR_HELP = "colour output (auto: on a terminal; NO_COLOR / FORCE_COLOR respected)"


ISOLATED_HELP = ("ignore all configuration files (the project's and the user's): defaults and "
                  "command-line options only; for untrusted checkouts (the Action uses it on pull "
                  "requests from forks)")


def global_options() -> argparse.ArgumentParser:
    """Options accepted before and after the subcommand (``chunkseam lint --color always``)."""
    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("global options")
    # SUPPRESS: given after the subcommand it overrides the top-level value, else leaves it alone
    g.add_argument("--color", choices=("auto", "always", "never"), default=argparse.SUPPRESS,
                   help=COLOR_HELP)
    g.add_argument("--isolated", action="store_true", default=argparse.SUPPRESS, help=ISOLATED_HELP)
    return common


#: output formats of lint and audit
REPORT_FORMATS = ("text", "json", "jsonl", "sarif", "github", "azure", "gitlab", "junit", "markdown")


def split_codes(v: str | None) -> list[str] | None:
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
        v = split_codes(getattr(args, key, None))
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


def check_tokenizer(settings: Settings) -> None:
    from chunkseam.engine.analysis import sizer_for
    from chunkseam.tokens.tiktoken import TokenizerUnavailable

    try:
        sizer_for(settings)
    except TokenizerUnavailable as exc:
        raise UsageError(f"error: {exc}") from None


def open_output(path: str | None) -> TextIO:
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


def finish(args: argparse.Namespace, results: Iterable[FileResult], errors: list[dict[str, Any]],
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
    streaming = args.format in ("text", "github", "azure") and not args.statistics and not args.write_baseline
    stream: Any = None  # json, jsonl, sarif: written as results arrive, kept in temporary files
    summary = Summary()
    kept: list[FileResult] = []
    all_records: list[report.Record] = []
    fails = False
    out = open_output(args.output) if not args.write_baseline else None
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
                elif args.format == "azure":
                    report.write_azure(out, [r], None)
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
            if not getattr(args, "quiet", False):
                for line in (extra_text() if extra_text else []):
                    out.write(line + "\n")
                out.write(style.bold(report.summary_line(summary, noun=noun)) + "\n")
        elif args.format in ("github", "azure") and not nothing_checked:
            if not getattr(args, "quiet", False):
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
    return exit_code(args, bool(errors), bool(fails), summary)


def exit_code(args: argparse.Namespace, errors: bool, fails: bool, summary: Summary) -> int:
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


def map_jobs(func, items, jobs: int):
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


def progress_bar(iterable, total: int | None, args: argparse.Namespace, label: str, *, bytes_total: int | None = None):
    """A progress bar on stderr, only when stderr is a terminal."""
    if (not (sys.stderr.isatty() and (total or 0) > 1) or os.environ.get("CHUNKSEAM_NO_PROGRESS")
            or getattr(args, "quiet", False)):
        yield from iterable
        return
    from rich import progress as rp
    from rich.console import Console
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


def load_doc(path: str, args: argparse.Namespace | None = None, settings: Settings | None = None):
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.document.notebook import NotebookError, open_document

    if args is not None and reads_stdin(args, [path] if path else []):
        name, text = read_stdin(args)
        try:
            return open_document(text, None if name == "-" else name, settings)
        except NotebookError as exc:
            raise UsageError(error_line(name, str(exc))) from None
    try:
        return open_document(read_source(path, keep_bom=True), path, settings)
    except (SourceError, NotebookError) as exc:
        raise UsageError(error_line(path, str(exc))) from None


def settings_path(args: argparse.Namespace, path: str) -> str | None:
    """Where settings are looked up for ``path`` (stdin: the --stdin-filename, else the cwd)."""
    if path == "-":
        return getattr(args, "stdin_filename", None)
    return path


def jsonable(v: Any) -> Any:
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    return v


def close_runner() -> None:
    global _RUNNER
    if _RUNNER is not None:
        _RUNNER.close()
        _RUNNER = None


#: files checked and files answered from the cache by the last lint run
LAST_RUN: dict[str, int] = {"results": 0, "cached": 0}
