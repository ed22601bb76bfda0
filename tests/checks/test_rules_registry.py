"""The rule table: codes, names, docs, lookups and selection semantics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkseam.checks import registry
from chunkseam.checks.registry import OPT_IN, RULES, Rule, get_rule, match, resolve_selection
from chunkseam.core.issue import SEVERITIES
from chunkseam.core.settings import Settings


def test_table_is_consistent():
    names = set()
    for code, rule in RULES.items():
        assert isinstance(rule, Rule) and rule.code == code
        assert re.fullmatch(r"CS\d{3}", code)
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name) and rule.name not in names
        names.add(rule.name)
        assert rule.severity in SEVERITIES and rule.family in registry.FAMILIES
        assert rule.summary and not rule.summary.endswith(".")
    families = {c[:3]: r.family for c, r in RULES.items()}
    assert families == {"CS0": "cut", "CS1": "chunk", "CS2": "code", "CS3": "input",
                        "CS4": "text-only", "CS9": "suppression"}


def test_the_issue_catalogue_is_all_there():
    for code in ["CS001", "CS002", "CS003", "CS004", "CS005", "CS006", "CS007", "CS008",
                 "CS101", "CS102", "CS103", "CS104", "CS201", "CS202"]:
        assert code in RULES


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_has_a_doc_with_what_why_and_examples(code):
    doc = RULES[code].doc
    assert doc.startswith(f"# {code} {RULES[code].name}\n")
    assert f"Default severity: **{RULES[code].severity}**" in doc
    for section in ("## What it does", "## Why it matters", "## Example"):
        assert section in doc, section
    assert doc.count("~~~") >= 2  # examples in fences
    example = doc[doc.index("## Example"):]
    assert "bad" in example and "good" in example


def test_lookups():
    assert get_rule("CS002") is RULES["CS002"] and get_rule("cs002") is RULES["CS002"]
    assert get_rule("mid-sentence") is RULES["CS002"] and get_rule("Mid-Sentence") is RULES["CS002"]
    assert get_rule("nope") is None and get_rule(None) is None  # type: ignore[arg-type]
    assert [r.code for r in match("CS00")] == [f"CS00{i}" for i in range(1, 9)]
    assert len(match("ALL")) == len(RULES) and match("CS7") == []
    assert registry.unknown_selectors(Settings(select=("CS7", "mid-word"), ignore=("bogus",),
                                               severity={"CS002": "info"})) == ["CS7", "bogus"]


def test_resolve_selection_defaults_and_ruff_like_precedence():
    on = resolve_selection(Settings())
    assert on == {c: r.severity for c, r in RULES.items() if c not in registry.OPT_IN}
    on = resolve_selection(Settings(select=("CS0",), ignore=("CS002",), extend_select=("CS101",)))
    assert "CS002" not in on and "CS001" in on and "CS101" in on and "CS201" not in on
    on = resolve_selection(Settings(ignore=("CS0",), select=("CS002",)))
    assert list(on) == ["CS002"]
    on = resolve_selection(Settings(ignore=("ALL",)))
    assert on == {}
    on = resolve_selection(Settings(severity={"ALL": "hint", "CS0": "info", "mid-word": "error",
                                              "CS104": "off", "CS102": "bogus"}))
    assert on["CS001"] == "error" and on["CS002"] == "info" and on["CS101"] == "hint"
    assert "CS104" not in on and on["CS102"] == "hint"


@pytest.mark.parametrize("path,pattern,hit", [
    # gitignore-style, anchored at the configuration file's directory (/repo here)
    ("/repo/docs/legacy/a.md", "docs/legacy/*", True),
    ("/repo/docs/legacy/a.md", "docs/legacy/", True),
    ("/repo/docs/legacy/sub/a.md", "docs/legacy/", True),
    ("/repo/docs/legacy/sub/a.md", "docs/legacy/*", True),  # the directory matched covers its files
    ("/repo/docs/new/a.md", "docs/legacy/*", False),
    ("/repo/pkg/docs/legacy/a.md", "docs/legacy/*", False),  # anchored: not a tail match
    ("/repo/docs/a.md", "*.md", True),
    ("/repo/CHANGELOG.md", "CHANGELOG.md", True),
    ("/repo/pkg/CHANGELOG.md", "CHANGELOG.md", True),  # no slash: any depth
    ("/repo/pkg/CHANGELOG.md", "/CHANGELOG.md", False),
    ("/repo/docs/CHANGELOG.md", "README.md", False),
    ("/repo/docs/api/v1/ref.md", "docs/**/ref.md", True),
    ("/elsewhere/CHANGELOG.md", "CHANGELOG.md", True),  # outside: by name
    ("/elsewhere/docs/a.md", "docs/*.md", False),
    ("C:\\repo\\docs\\a.md", "docs/*.md", True),
    (None, "*", False),
])
def test_per_file_glob_matching(path, pattern, hit):
    base = "C:\\Repo" if path and path.startswith("C:") else "/repo"
    assert registry.path_matches(path, pattern, base) is hit
    on = resolve_selection(Settings(per_file_ignores={pattern: ("CS002",)}, config_root=base), path)
    assert ("CS002" not in on) is hit


def test_opt_in_rules_run_only_when_selected():
    from chunkseam.checks.registry import OPT_IN, resolve_selection

    assert "CS104" in OPT_IN
    default = resolve_selection(Settings())
    assert "CS104" not in default and "CS002" in default
    for selector in (("CS104",), ("no-context",), ("CS1",), ("ALL",)):
        assert "CS104" in resolve_selection(Settings(extend_select=selector)), selector
    assert "CS104" in resolve_selection(Settings(select=("CS104",)))
    assert "CS104" not in resolve_selection(Settings(extend_select=("CS1",), ignore=("CS104",)))


def test_the_readme_rule_table_lists_every_rule():
    """Every rule's code, name and default severity is in the README's rule table
    (a range row such as ``CS301–CS304`` names its rules' names)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    rows = [ln for ln in readme.splitlines() if ln.startswith("| CS")]
    for code, rule in RULES.items():
        row = next((r for r in rows if r.startswith(f"| {code} |") or code in r.split("|")[1]
                    or _in_range(code, r.split("|")[1])), None)
        assert row is not None, f"{code} is not in the README's rule table"
        assert rule.name in row, f"{code}: the README's row does not name {rule.name}"
        if row.startswith(f"| {code} |"):
            assert rule.severity in row.split("|")[3], f"{code}: the README says another severity"
            assert (code in OPT_IN) == ("opt-in" in row), f"{code}: opt-in or not, the README differs"


def _in_range(code: str, cell: str) -> bool:
    m = re.search(r"CS(\d{3})–CS(\d{3})", cell)
    return bool(m) and int(m.group(1)) <= int(code[2:]) <= int(m.group(2))
