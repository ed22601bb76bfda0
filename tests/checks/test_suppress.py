"""Suppression comments: regions, next line, file, Python ignores, and the
CS900/CS901 reports for suppressions that do nothing or name no rule."""

from __future__ import annotations

from cutkit import marked

from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

S = Settings(min_tokens=0)


def run(text, kind="markdown", settings=S):
    doc, chunks, _ = marked(text, kind=kind)
    return [(i.code, i.severity) for i in validate(doc, chunks, settings)]


def test_region_disable_enable():
    text = ("Set the timeout ✂to 30.\n\n<!-- chunkseam-disable CS002 -->\n\nSet the timeout ✂to 30.\n\n"
            "<!-- chunkseam-enable -->\n\nSet the timeout ✂to 30.\n")
    assert run(text) == [("CS002", "warning"), ("CS002", "warning")]


def test_region_by_name_and_several_rules_and_an_enable_for_one_of_them():
    text = ("<!-- chunkseam-disable mid-sentence, CS001 -->\n\nSet the ✂timeout and the configu✂ration.\n\n"
            "<!-- chunkseam-enable CS001 CS002 -->\n\nSet the ✂timeout.\n")
    assert run(text) == [("CS002", "warning")]


def test_disable_without_rules_silences_everything_until_the_end():
    text = "Fine here.\n\n<!-- chunkseam-disable -->\n\nSet the ✂timeout and the configu✂ration.\n"
    assert run(text) == []


def test_disable_next_line_covers_issues_starting_on_that_line():
    text = ("<!-- chunkseam-disable-next-line CS004 -->\n| a | b |\n|---|---|\n| 1 | 2 |\n✂| 3 | 4 |\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n✂| 3 | 4 |\n")
    assert run(text) == [("CS004", "warning")]


def test_disable_next_line_also_covers_a_cut_on_that_line():
    text = "First sentence.\n<!-- chunkseam-disable-next-line CS001 -->\nThe configu✂ration line.\n"
    assert run(text) == []


def test_disable_file_with_and_without_rules():
    body = "Set the ✂timeout and the configu✂ration.\n"
    assert run("<!-- chunkseam-disable-file -->\n\n" + body) == []
    assert run("<!-- chunkseam-disable-file CS001 -->\n\n" + body) == [("CS002", "warning")]
    assert run(body + "\n<!-- chunkseam-disable-file CS0 -->\n") == []


def test_comments_in_code_are_not_suppressions():
    text = ("```\n<!-- chunkseam-disable-file -->\n```\n\nUse `<!-- chunkseam-disable-file -->` to stop.\n\n"
            "Set the ✂timeout.\n")
    assert run(text) == [("CS002", "warning")]


def test_unused_suppressions_are_reported_per_rule():
    text = ("<!-- chunkseam-disable-next-line CS002 CS004 -->\nSet the ✂timeout.\n\n"
            "<!-- chunkseam-disable-file CS201 -->\n")
    doc, chunks, _ = marked(text)
    issues = validate(doc, chunks, S)
    unused = [i for i in issues if i.code == "CS900"]
    assert [i.data["name"] for i in unused] == ["CS004", "CS201"]
    assert all(i.severity == "info" and i.data["fix"] == "remove-suppression" for i in unused)
    assert text[unused[0].start:unused[0].end].startswith("<!-- chunkseam-disable-next-line")
    assert "CS002" not in [i.code for i in issues]


def test_unused_bare_suppression_and_rule_not_enabled():
    text = "<!-- chunkseam-disable-next-line -->\nClean text.\n"
    assert run(text) == [("CS900", "info")]
    doc, chunks, _ = marked("<!-- chunkseam-disable-file CS002 -->\nSet the ✂timeout.\n")
    issues = validate(doc, chunks, Settings(min_tokens=0, ignore=("CS002",)))
    assert [i.code for i in issues] == ["CS900"] and "not enabled" in issues[0].message


def test_unknown_rule_names_are_reported_and_silence_nothing():
    text = "<!-- chunkseam-disable-next-line mid-sentense -->\nSet the ✂timeout.\n"
    doc, chunks, _ = marked(text)
    issues = validate(doc, chunks, S)
    assert sorted(i.code for i in issues) == ["CS002", "CS901"]
    (u,) = [i for i in issues if i.code == "CS901"]
    assert '"mid-sentense"' in u.message and u.data["name"] == "mid-sentense"


def test_reports_about_suppressions_can_be_turned_off():
    text = "<!-- chunkseam-disable-next-line CS004 bogus -->\nClean text.\n"
    assert sorted(run(text)) == [("CS900", "info"), ("CS901", "info")]
    assert run(text, settings=Settings(min_tokens=0, ignore=("CS9",))) == []
    assert run(text + "\n<!-- chunkseam-disable-file CS900 CS901 -->\n") == []


def test_python_line_and_file_ignores():
    src = "def f():\n    a = 1\n✂    return a\n"
    assert run(src, "python") == [("CS201", "warning")]
    # on the def line: every CS201 of the function (its range starts there)
    assert run(src.replace("def f():", "def f():  # chunkseam: ignore[CS201]"), "python") == []
    # on the cut's line
    assert run("def f():\n    a = 1  # chunkseam: ignore[split-definition]\n✂    return a\n", "python") == []
    # bare ignore, and a file-level one
    assert run(src.replace("def f():", "def f():  # chunkseam: ignore"), "python") == []
    assert run("# chunkseam: ignore-file[CS2]\n" + src, "python") == []
    # an unused one
    assert sorted(run("x = 1  # chunkseam: ignore[CS202]\n" + src, "python")) == [
        ("CS201", "warning"), ("CS900", "info")]
    # inside a string it is not a comment
    assert run('S = "# chunkseam: ignore-file"\n' + src, "python") == [("CS201", "warning")]


def test_disable_line_covers_its_own_line():
    text = ("Set the timeout ✂to 30. <!-- chunkseam-disable-line CS002 -->\n\n"
            "Set the timeout ✂to 30.\n")
    assert run(text) == [("CS002", "warning")]
    # naming another rule silences nothing and is reported unused
    text = "Set the timeout ✂to 30. <!-- chunkseam-disable-line CS004 -->\n"
    assert run(text) == [("CS002", "warning"), ("CS900", "info")]


def test_rst_comment_suppressions():
    text = ("Set the timeout ✂to 30.\n\n.. chunkseam-disable CS002\n\nSet the timeout ✂to 30.\n\n"
            ".. chunkseam-enable\n\nSet the timeout ✂to 30.\n")
    assert run(text, kind="text") == [("CS002", "warning"), ("CS002", "warning")]
    text = ".. chunkseam-disable-next-line mid-sentence\nSet the timeout ✂to 30.\n\nSet the ✂timeout.\n"
    assert run(text, kind="text") == [("CS002", "warning")]
    text = "Title\n=====\n\n.. chunkseam-disable-file\n\nSet the timeout ✂to 30.\n"
    assert run(text, kind="text") == []
    text = ".. chunkseam-disable CS9999\n\nSet the timeout ✂to 30.\n"
    assert sorted(run(text, kind="text")) == [("CS002", "warning"), ("CS901", "info")]


def test_rst_suppression_through_the_cli(tmp_path, monkeypatch, capsys):
    from clikit import run as cli

    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    body = "Set the timeout to thirty seconds and enable keepalive on every connection you open.\n"
    (tmp_path / "a.rst").write_text("Guide\n=====\n\n.. chunkseam-disable CS002\n\n" + body, encoding="utf-8")
    (tmp_path / "b.rst").write_text("Guide\n=====\n\n" + body, encoding="utf-8")
    opts = ["--chunker", "fixed", "--unit", "chars", "--size", "40", "--select", "CS002", "--format", "json"]
    import json

    rc, out, _ = cli(capsys, "lint", "a.rst", "b.rst", *opts)
    paths = {i["path"] for i in json.loads(out)["issues"]}
    assert paths == {"b.rst"}
