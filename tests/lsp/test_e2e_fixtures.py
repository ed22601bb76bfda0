"""The workbench e2e's fixture files show what its checks look for.

client-vscode/e2e/run-e2e.mjs opens each fixture with the settings below and
waits for a squiggle of one rule and a status bar that differs from the
previous file's. A rule change that makes a fixture clean fails the e2e only
after minutes in a browser; this says so in a second, with the same settings
the e2e gives the extension (recursive, 44 tokens, CS104 ignored).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import run

FIXTURES = Path(__file__).resolve().parents[2] / "client-vscode" / "e2e" / "fixture"
SETTINGS = ("--no-cache", "--chunker", "recursive", "--size", "44", "--unit", "tokens", "--ignore", "CS104",
            "--format", "json")
#: the kinds the e2e opens one after another, with the rule each check waits for
KINDS = [("retry.ts", "CS201"), ("install.rst", "CS003"), ("tabs.mdx", "CS008")]


def lint(capsys, name: str) -> dict:
    rc, out, err = run(capsys, "lint", *SETTINGS, str(FIXTURES / name))
    assert rc == 1, err
    return json.loads(out)


@pytest.mark.parametrize(("name", "code"), KINDS)
def test_each_fixture_shows_the_rule_its_check_waits_for(capsys, name, code):
    codes = [i["code"] for i in lint(capsys, name)["issues"]]
    assert code in codes, f"{name}: {codes}"


def test_each_status_bar_differs_from_the_previous_files(capsys):
    counts = []
    for name, _code in KINDS:
        summary = lint(capsys, name)["summary"]
        counts.append((summary["chunks"], summary["chunks_with_issues"]))
        assert summary["chunks_with_issues"] > 0, name
    assert all(a != b for a, b in zip(counts, counts[1:])), counts
