"""``chunkseam completion``: shell completion (argcomplete)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from chunkseam.cli.common import EXIT_OK, UsageError


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


def add_completers(subparsers: dict[str, argparse.ArgumentParser]) -> None:
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
