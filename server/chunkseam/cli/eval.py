"""``chunkseam eval`` and ``chunkseam tune``: arguments and commands (called from :mod:`chunkseam.cli.app`)."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path
from typing import Any, Callable

FORMATS = ("text", "json", "markdown", "html")


def _list(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def _int_list(text: str) -> list[int]:
    try:
        values = [int(p) for p in _list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers of at least 1, got {text!r}")
    return values


def _overlap_list(text: str) -> list[str]:
    """Overlaps: whole numbers, or percentages of the size (``10%``)."""
    values = _list(text)
    for v in values:
        body = v[:-1] if v.endswith("%") else v
        if not body.isdigit():
            raise argparse.ArgumentTypeError(
                f"expected comma-separated whole numbers or percentages (10%), got {v!r}")
    if not values:
        raise argparse.ArgumentTypeError("expected at least one overlap")
    return values


def _grid_options(p: argparse.ArgumentParser, plural: bool) -> None:
    g = p.add_argument_group("configurations (a grid: every combination; default: the project's configuration)")
    s = "s" if plural else ""
    g.add_argument(f"--chunker{s}", dest="chunkers", type=_list, metavar="LIST",
                   help="comma-separated chunkers; a library adapter's class as NAME:CLASS "
                        "(langchain:MarkdownTextSplitter, llamaindex:SentenceSplitter); "
                        "'auto' = chunkseam's routing by file type")
    g.add_argument(f"--size{s}", dest="sizes", type=_int_list, metavar="LIST", help="comma-separated chunk sizes")
    g.add_argument(f"--overlap{s}", dest="overlaps", type=_overlap_list, metavar="LIST",
                   help="comma-separated overlaps, whole numbers or percentages of the size (10%%)")
    g.add_argument(f"--unit{s}", dest="units", type=_list, metavar="LIST",
                   help="comma-separated size and overlap units: tokens, chars")
    g.add_argument("--encoding", metavar="NAME", help="tiktoken encoding (default cl100k_base)")


def add_parsers(sub: Any, jobs: Callable[[str], int], positive_int: Callable[[str], int]) -> None:
    p = sub.add_parser("eval", help="what the cuts cost retrieval: excerpt integrity, recall@k, MRR and "
                       "token IoU of chunker configurations on questions with reference excerpts",
                       description="Chunk the documents questions point into with each configuration, "
                       "retrieve chunks for each question (BM25; --dense: a locally cached embedding model) "
                       "and score them against the reference excerpts, beside what chunkseam says about the "
                       "cuts that split those excerpts. See docs/eval.md.")
    p.add_argument("questions", metavar="QUESTIONS",
                   help="questions file: .csv (question, references, corpus_id: Chroma's chunking "
                        "evaluation shape) or .jsonl (question, path, references as offsets or quotes)")
    p.add_argument("--corpus", metavar="DIR", default=".",
                   help="directory the questions' documents are relative to (default: .)")
    p.add_argument("--config", dest="configs", action="append", metavar="FILE",
                   help="a configuration file to evaluate (repeatable; each is a configuration, "
                        "crossed with the grid options)")
    _grid_options(p, plural=False)
    p.add_argument("-k", type=positive_int, default=5, metavar="N", help="chunks retrieved per question (default 5)")
    p.add_argument("--dense", action="append", metavar="MODEL",
                   help="also retrieve with this embedding model (sentence-transformers or fastembed), "
                        "loaded from the local cache only unless --allow-download (repeatable)")
    p.add_argument("--no-bm25", dest="bm25", action="store_false", help="skip BM25 (with --dense)")
    p.add_argument("--allow-download", action="store_true",
                   help="let the embedding library download a model that is not cached")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--details", action="store_true",
                   help="JSON: also each split excerpt's cuts and each question's scores")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("-j", "--jobs", type=jobs, default=1, metavar="N", help="worker processes (0 = all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=os.environ.get("DASK_SCHEDULER_ADDRESS"),
                   help="chunk on a Dask cluster: tcp://HOST:8786, or 'local' for a local cluster of --jobs "
                        "workers (default: $DASK_SCHEDULER_ADDRESS; needs chunkseam[dask])")

    p = sub.add_parser("tune", help="search a grid of chunkers, sizes and overlaps: the Pareto set over "
                       "broken-chunk rate, chunk size and (with --questions) retrieval; --write keeps one",
                       description="Chunk the files (or, with --questions, the questions' documents) with "
                       "every configuration of the grid and report those no other beats on every "
                       "objective: lower broken-chunk rate, smaller mean chunk, and with --questions higher "
                       "excerpt integrity, recall@k and token IoU. See docs/eval.md.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    p.add_argument("--questions", metavar="FILE", help="also score retrieval on these questions (see eval)")
    p.add_argument("--corpus", metavar="DIR", default=".", help="with --questions: the documents' directory")
    p.add_argument("--config", dest="config", metavar="FILE",
                   help="the configuration to start from and to --write (default: the project's)")
    _grid_options(p, plural=True)
    p.add_argument("-k", type=positive_int, default=5, metavar="N", help="chunks retrieved per question (default 5)")
    p.add_argument("--all", dest="show_all", action="store_true", help="list every configuration, not only the Pareto set")
    p.add_argument("--write", action="store_true",
                   help="write the chosen configuration into the project's config file "
                        "(chunkseam.toml or [tool.chunkseam]; created when there is none)")
    p.add_argument("--choose", type=positive_int, metavar="N", help="the configuration to write: the N-th of the Pareto set as listed")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("-j", "--jobs", type=jobs, default=1, metavar="N", help="worker processes (0 = all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=os.environ.get("DASK_SCHEDULER_ADDRESS"),
                   help="chunk on a Dask cluster: tcp://HOST:8786, or 'local' for a local cluster of --jobs "
                        "workers (default: $DASK_SCHEDULER_ADDRESS; needs chunkseam[dask])")


# --- configurations --------------------------------------------------------------------------------


def _overlap_value(v: str, size: int) -> int:
    return size * int(v[:-1]) // 100 if v.endswith("%") else int(v)


def configurations(args: argparse.Namespace, config_files: list[str | None]) -> list[tuple[str, Any]]:
    """``(label, Settings)`` of every configuration the options name (errors: ``UsageError``)."""
    from chunkseam import chunkers as registry
    from chunkseam.cli.common import UsageError
    from chunkseam.config.loader import resolve
    from chunkseam.evaluation.run import describe

    known = registry.names()
    chunkers: list[str | None] = list(args.chunkers or [None])
    for c in chunkers:
        if c is None:
            continue
        name = c.split(":", 1)[0]
        if name != "auto" and name not in known:
            raise UsageError(f"error: unknown chunker {name}: expected one of {', '.join(known)}")
        why = registry.unavailable(name) if name != "auto" else None
        if why:
            raise UsageError(f"error: chunker {name}: {why}")
    for u in args.units or ():
        if u not in ("tokens", "chars"):
            raise UsageError(f"error: unit {u!r}: expected tokens or chars")
    out: list[tuple[str, Any]] = []
    seen: set[str] = set()
    skipped = []
    for cfg in config_files:
        base = resolve(Path.cwd(), {}, config_file=cfg).settings
        sizes = list(args.sizes or [base.size])
        for chunker, size, overlap, unit in itertools.product(
                chunkers, sizes, list(args.overlaps or [None]), list(args.units or [None])):
            o: dict[str, Any] = {"size": size}
            if getattr(args, "encoding", None):
                o["encoding"] = args.encoding
            if unit:
                o["unit"] = unit
            o["overlap"] = _overlap_value(overlap, size) if overlap is not None else base.overlap
            if chunker is not None:
                name, _, splitter = chunker.partition(":")
                if name == "auto":
                    o["chunker"] = None
                    o["chunker-options"] = {}
                else:
                    o["chunker"] = name
                    if splitter:
                        o["chunker-options"] = {"splitter": splitter}
                    elif name != base.chunker:
                        o["chunker-options"] = {}
            if o["overlap"] >= size:
                skipped.append(f"{chunker or base.chunker or 'auto'} size {size} overlap {o['overlap']}")
                continue
            try:
                settings = resolve(Path.cwd(), {k: v for k, v in o.items() if v is not None or k != "chunker"},
                                   config_file=cfg).settings
            except Exception as exc:
                raise UsageError(f"error: {exc}") from None
            if o.get("chunker", "") is None:
                from dataclasses import replace

                settings = replace(settings, chunker=None, chunker_options={})
            label = describe(settings)
            if cfg is not None and len(config_files) > 1:
                label = f"{Path(cfg).name}: {label}"
            if label in seen:
                continue
            seen.add(label)
            out.append((label, settings))
    if skipped:
        from chunkseam.report.formats import eprint

        eprint(f"note: skipped {len(skipped)} configuration{'s' if len(skipped) != 1 else ''} whose overlap "
               f"is not below the size ({'; '.join(skipped[:3])}{' …' if len(skipped) > 3 else ''})")
    if not out:
        raise UsageError("error: no configuration to evaluate")
    return out


def mapper(args: argparse.Namespace):
    """Work over the items: in this process, on ``--jobs`` worker processes (as ``lint``), or
    with ``--scheduler`` on a Dask cluster (the workers get each document's text)."""
    from chunkseam.cli.common import map_jobs

    if getattr(args, "scheduler", None):
        return lambda f, items: _on_cluster(f, items, args.scheduler, args.jobs)
    return lambda f, items: map_jobs(f, items, args.jobs)


def _on_cluster(func, items: list, scheduler: str, jobs: int) -> list:
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.cli.common import UsageError
    from chunkseam.cluster.jobs import connect

    texts: dict[str, str | None] = {}
    for path, *_ in items:
        if path not in texts:
            try:
                texts[path] = read_source(path, keep_bom=True)
            except SourceError:
                texts[path] = None  # the worker reports why
    try:
        with connect(scheduler, jobs) as client:
            futures = client.map(func, [(p, s, rel, texts[p]) for p, s, rel, *_ in items], pure=False)
            return list(client.gather(futures))
    except RuntimeError as exc:
        raise UsageError(f"error: {exc}") from None


def eval_progress(args: argparse.Namespace):
    from chunkseam.cli.common import progress_bar as bar

    return lambda it, total, label: bar(it, total, args, label)


def load_questions(file: str, corpus_dir: str):
    from chunkseam.cli.common import UsageError
    from chunkseam.evaluation.questions import Corpus, QuestionsError, load

    if not Path(corpus_dir).is_dir():
        raise UsageError(f"error: --corpus {corpus_dir}: not a directory")
    corpus = Corpus(corpus_dir)
    try:
        return corpus, load(file, corpus)
    except QuestionsError as exc:
        raise UsageError(f"error: {exc}") from None


def _retrievers(args: argparse.Namespace) -> list[str]:
    from chunkseam.cli.common import UsageError

    names = (["bm25"] if getattr(args, "bm25", True) else []) + [f"dense:{m}" for m in (getattr(args, "dense", None) or [])]
    if not names:
        raise UsageError("error: --no-bm25 needs --dense MODEL")
    return names


def run_eval(args: argparse.Namespace) -> int:
    from chunkseam.cli.common import EXIT_ERROR, EXIT_OK, UsageError, open_output
    from chunkseam.evaluation import report
    from chunkseam.evaluation.retrieval import RetrieverUnavailable
    from chunkseam.evaluation.run import evaluate
    from chunkseam.report.formats import eprint, use_color

    corpus, questions = load_questions(args.questions, args.corpus)
    configs = configurations(args, list(args.configs or [None]))
    try:
        results = evaluate(questions, corpus, configs, k=args.k, retrievers=_retrievers(args),
                           allow_download=args.allow_download, mapper=mapper(args), progress=eval_progress(args))
    except RetrieverUnavailable as exc:
        raise UsageError(f"error: {exc}") from None
    out = open_output(args.output)
    try:
        n = len(questions)
        if args.format == "json":
            report.write_json(out, results, questions=n, details=args.details)
        elif args.format == "markdown":
            report.write_markdown(out, results, questions=n)
        elif args.format == "html":
            out.write(report.html_page(results, questions=n))
        else:
            report.write_text(out, results, questions=n, color=use_color(out, args.color))
    finally:
        if out is not sys.stdout:
            out.close()
    errors = [e for r in results for e in r.errors]
    for r in results:
        for e in r.errors:
            eprint(f"{r.label}: error: {e}")
    if args.output and args.output != "-":
        eprint(f"wrote {args.output}: {len(results)} configuration{'s' if len(results) != 1 else ''}, "
               f"{n} question{'s' if n != 1 else ''}")
    return EXIT_ERROR if errors else EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    return run_eval(args)
