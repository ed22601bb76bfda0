"""Rule selection through validate(): select, ignore, severities, per-file ignores."""

from __future__ import annotations

from cutkit import marked

from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

TEXT = "Edit the configu✂ration file. Set the ✂timeout to 30.\n\n```\na\n✂b\n```\n"


def got(settings: Settings, path: str | None = None) -> list[tuple[str, str]]:
    doc, chunks, _ = marked(TEXT, path=path)
    return [(i.code, i.severity) for i in validate(doc, chunks, settings) if i.cut is not None]


def test_defaults():
    assert got(Settings()) == [("CS001", "error"), ("CS002", "warning"), ("CS003", "error")]


def test_select_by_code_prefix_and_name():
    # the mid-word cut is mid-sentence too: with CS001 off it reports CS002
    assert got(Settings(select=("CS002",))) == [("CS002", "warning"), ("CS002", "warning")]
    assert got(Settings(select=("split-code-fence", "mid-word"))) == [("CS001", "error"), ("CS003", "error")]
    assert got(Settings(select=("CS00",))) == got(Settings())
    assert got(Settings(select=("CS1",))) == []


def test_ignore_and_specificity():
    assert got(Settings(ignore=("mid-word",))) == [("CS002", "warning"), ("CS002", "warning"),
                                                   ("CS003", "error")]
    # a more specific select beats a broader ignore
    assert got(Settings(ignore=("CS0",), extend_select=("CS003",))) == [("CS003", "error")]
    # equal specificity: ignore wins
    assert got(Settings(select=("CS002",), ignore=("mid-sentence",))) == []


def test_severity_overrides_and_off():
    assert got(Settings(severity={"mid-word": "info", "CS003": "off"})) == [
        ("CS001", "info"), ("CS002", "warning")]
    assert got(Settings(severity={"CS0": "hint", "CS002": "error"})) == [
        ("CS001", "hint"), ("CS002", "error"), ("CS003", "hint")]


def test_per_file_ignores_by_glob():
    s = Settings(per_file_ignores={"docs/legacy/*": ("CS002",), "*.txt": ("ALL",)}, config_root="/repo")
    assert ("CS002", "warning") not in got(s, "/repo/docs/legacy/a.md")
    assert ("CS002", "warning") in got(s, "/repo/docs/new/a.md")
    assert got(s, "notes.txt") == []
