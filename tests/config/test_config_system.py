"""Configuration as one system: one glob dialect (gitignore-style, anchored at the configuration
file's directory) for include/exclude, per-file-ignores and chunker routes; `extend`; the
user-level configuration file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import run

RUNON = "# T\n\nHello world, this is a sentence that runs on and on and on for a while.\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    for rel in ["docs/legacy/a.md", "docs/new/b.md", "pkg/docs/legacy/c.md", "CHANGELOG.md",
                "pkg/CHANGELOG.md", "notes/n.txt"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(RUNON, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    return tmp_path


def lint_json(capsys, *args: str) -> dict:
    rc, out, err = run(capsys, "lint", *args, "--format", "json")
    assert rc in (0, 1), err
    return json.loads(out)


def files(doc: dict) -> dict[str, str]:
    return {f["path"]: f["chunker"] for f in doc["files"]}


def issue_paths(doc: dict) -> set[str]:
    return {i["path"] for i in doc["issues"]}


BASE = 'size = 20\nunit = "chars"\nchunker = "fixed"\n'


def test_one_dialect_for_exclude_per_file_ignores_and_routes(repo: Path, capsys) -> None:
    (repo / "chunkseam.toml").write_text(
        'size = 20\nunit = "chars"\n'
        'exclude = ["docs/legacy/"]\n'                        # anchored: not pkg/docs/legacy
        'per-file-ignores = { "CHANGELOG.md" = ["ALL"] }\n'   # no slash: any depth
        'chunkers = { "docs/**" = "fixed", "*.txt" = "fixed", "/CHANGELOG.md" = "recursive" }\n',
        encoding="utf-8")
    doc = lint_json(capsys, ".")
    seen = files(doc)
    assert "docs/legacy/a.md" not in seen and "pkg/docs/legacy/c.md" in seen
    assert seen["docs/new/b.md"] == "fixed" and seen["notes/n.txt"] == "fixed"
    assert seen["CHANGELOG.md"] == "recursive"                # "/CHANGELOG.md": the top one only
    assert seen["pkg/CHANGELOG.md"] == "markdown"
    assert not {"CHANGELOG.md", "pkg/CHANGELOG.md"} & issue_paths(doc)
    assert "docs/new/b.md" in issue_paths(doc)


def test_patterns_are_anchored_at_the_config_file_not_the_current_directory(repo: Path, capsys, monkeypatch) -> None:
    (repo / "chunkseam.toml").write_text(
        BASE + 'per-file-ignores = { "docs/new/*" = ["ALL"] }\nexclude = ["docs/legacy/"]\n', encoding="utf-8")
    monkeypatch.chdir(repo / "docs")
    doc = lint_json(capsys, ".")
    assert set(files(doc)) == {"new/b.md"} and doc["issues"] == []
    rc, out, _ = run(capsys, "lint", "legacy/a.md")  # excluded even when named, as for pre-commit
    assert rc == 0


def test_extend_shares_settings_across_a_monorepo(repo: Path, capsys) -> None:
    (repo / "chunkseam.toml").write_text(BASE + 'ignore = ["CS102"]\nper-file-ignores = { "legacy/*" = ["ALL"] }\n',
                                          encoding="utf-8")
    (repo / "pkg" / "chunkseam.toml").write_text('extend = "../chunkseam.toml"\nsize = 30\n', encoding="utf-8")
    rc, out, _ = run(capsys, "config", "pkg/docs/legacy/c.md", "--format", "json")
    settings = json.loads(out)["settings"]
    assert settings["size"]["value"] == 30 and settings["size"]["source"].endswith(str(Path("pkg") / "chunkseam.toml"))
    assert settings["chunker"]["value"] == "fixed" and settings["chunker"]["source"] == str(repo / "chunkseam.toml")
    assert settings["ignore"]["value"] == ["CS102"]
    doc = lint_json(capsys, "pkg")
    # patterns from the extended file are anchored at the extending file's directory (pkg/)
    assert "pkg/docs/legacy/c.md" in files(doc)
    assert "pkg/docs/legacy/c.md" in issue_paths(doc)
    (repo / "pkg" / "chunkseam.toml").write_text(
        'extend = "../chunkseam.toml"\nper-file-ignores = { "docs/legacy/*" = ["ALL"] }\n', encoding="utf-8")
    assert "pkg/docs/legacy/c.md" not in issue_paths(lint_json(capsys, "pkg"))


@pytest.mark.parametrize("target, message", [
    ('"missing.toml"', "expected a path to an existing configuration file"),
    ("3", "expected a path to a configuration file"),
    ('"chunkseam.toml"', "loops back"),
])
def test_bad_extend_names_the_file_and_the_key(repo: Path, capsys, target: str, message: str) -> None:
    (repo / "chunkseam.toml").write_text(f"extend = {target}\n", encoding="utf-8")
    rc, out, err = run(capsys, "lint", "docs")
    assert rc == 2 and out == ""
    assert "chunkseam.toml" in err and "extend" in err and message in err


def test_the_user_level_config_applies_when_the_project_has_none(repo: Path, capsys) -> None:
    user = repo / "user-config" / "chunkseam"
    user.mkdir(parents=True)
    (user / "chunkseam.toml").write_text(BASE, encoding="utf-8")
    rc, out, _ = run(capsys, "config", "docs/new/b.md", "--format", "json")
    doc = json.loads(out)
    assert doc["config_file"] == str(user / "chunkseam.toml")
    assert doc["settings"]["size"]["value"] == 20
    # a project file wins over it (like ruff)
    (repo / "chunkseam.toml").write_text("size = 99\n", encoding="utf-8")
    rc, out, _ = run(capsys, "config", "docs/new/b.md", "--format", "json")
    doc = json.loads(out)
    assert doc["settings"]["size"]["value"] == 99 and doc["settings"]["chunker"]["source"] != str(user / "chunkseam.toml")


def test_the_unified_matcher_skips_patterns_over_the_glob_bounds() -> None:
    from chunkseam.core import globs
    hostile = "*a" * 40 + "*b"  # over discover's wildcard bound: never compiled
    assert globs.matches("/repo/" + "a" * 200 + ".md", [hostile], "/repo") is False
    assert globs.matches("/repo/docs/x.md", [hostile, "docs/"], "/repo") is True
