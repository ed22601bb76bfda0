"""``chunkseam rule``: a rule's documentation."""

from __future__ import annotations

import argparse
import json
import sys

from chunkseam.cli.common import EXIT_OK, UsageError


def cmd_rule(args: argparse.Namespace) -> int:
    from chunkseam.report.formats import rule_attr, rules_table

    rules = rules_table()
    if not rules:
        raise UsageError("error: the rule registry (chunkseam.checks.registry) is not available in this version")
    if args.code:
        want = args.code.strip()
        rule = rules.get(want.upper()) or next(
            (r for r in rules.values() if rule_attr(r, "name") == want.lower()), None)
        if rule is None:
            raise UsageError(f"error: unknown rule {want!r}: see `chunkseam rule` for the list")
        if args.format == "json":
            json.dump({k: rule_attr(rule, k) for k in ("code", "name", "severity", "summary", "doc")},
                      sys.stdout, indent=2, ensure_ascii=False)
            sys.stdout.write("\n")
            return EXIT_OK
        sys.stdout.write(f"{rule_attr(rule, 'code')} [{rule_attr(rule, 'name')}] "
                         f"(default: {rule_attr(rule, 'severity')})\n\n")
        sys.stdout.write((rule_attr(rule, "doc") or rule_attr(rule, "summary") or "").rstrip() + "\n")
        return EXIT_OK
    if args.format == "json":
        json.dump([{k: rule_attr(r, k) for k in ("code", "name", "severity", "summary")}
                   for _, r in sorted(rules.items())], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    for code, r in sorted(rules.items()):
        sys.stdout.write(f"{code}  {rule_attr(r, 'name', ''):<24} {rule_attr(r, 'severity', ''):<8} "
                         f"{rule_attr(r, 'summary', '')}\n")
    return EXIT_OK
