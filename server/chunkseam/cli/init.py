"""``chunkseam init``: a configuration file from the pipeline the project already has."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from chunkseam.cli.common import EXIT_OK, UsageError
from chunkseam.report.formats import (
    error_line,
)


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
