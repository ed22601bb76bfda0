"""``chunkseam config --show``: the settings that apply to a path, each with where it comes from."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from chunkseam.cli.common import EXIT_OK, SettingsCache, UsageError, jsonable
from chunkseam.config.loader import (
    Resolved,
    describe,
)
from chunkseam.report.formats import (
    error_line,
)


def _fmt_value(v: Any) -> str:
    from chunkseam.config.loader import toml_repr

    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {toml_repr(x)}' for k, x in v.items()) + " }" if v else "{}"
    return toml_repr(v)


def cmd_config(args: argparse.Namespace) -> int:
    target = args.file or "."
    if args.file and not Path(args.file).exists():
        raise UsageError(error_line(args.file, "No such file or directory"))
    r = SettingsCache(args).resolved(target)
    rows = [_effective_chunker(row, r, target) if row[0] == "chunker" else row for row in describe(r)]
    if args.format == "json":
        json.dump({"file": target, "config_file": str(r.config_file) if r.config_file else None,
                   "settings": {k: {"value": jsonable(v), "source": s} for k, v, s in rows}},
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
