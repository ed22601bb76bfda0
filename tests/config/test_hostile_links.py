"""A repository's symbolic links and file names are attacker input (a pull request adds
them): no link that leaves the repository root, or reaches into ``.git``, is read, so no
secret is quoted in a message; ``lint --fix`` writes only regular files inside the root;
file names never forge a line of their own (GitHub Actions workflow commands)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import run

ROOT = Path(__file__).resolve().parents[2]
SECRET = "AUTHORIZATION: basic c2VjcmV0LXRva2VuLWZyb20tdGhlLWNoZWNrb3V0"
# long enough for chunks to be cut and quoted, one sentence running on and on
RUNON = ("# Title\n\nThe value of this setting decides how long a request waits before it gives up "
         "and reports the timeout to the caller with a clear message that names the setting.\n")
CONFIG = ('[core]\n\trepositoryformatversion = 0\n[http "https://github.com/"]\n'
          f"\textraheader = {SECRET}\n")


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The real command line in a fresh process (stdout, stderr and logging all captured)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server") + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "NO_COLOR": "1", "CHUNKSEAM_NO_PROGRESS": "1", "CHUNKSEAM_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-m", "chunkseam", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=240)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout as actions/checkout leaves it: the token in .git/config."""
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    (r / ".git" / "config").write_text(CONFIG, encoding="utf-8")
    (r / "docs").mkdir()
    (r / "docs" / "ok.md").write_text(RUNON, encoding="utf-8")
    return r


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "elsewhere"
    d.mkdir()
    (d / "secret.md").write_text("# Notes\n\n" + SECRET + " is the token of the other project, "
                                 "which must never be printed anywhere at all.\n", encoding="utf-8")
    return d


OPTS = ("--chunker", "fixed", "--size", "24", "--unit", "chars")


def test_the_git_config_attack_prints_no_secret(repo: Path) -> None:
    """``docs/x.md -> ../.git/config`` in a pull request, linted as the Action does."""
    (repo / "docs" / "x.md").symlink_to(Path("..") / ".git" / "config")
    for args in (["docs"], ["docs/x.md", "docs/ok.md"], ["."]):
        p = cli(repo, "lint", *args, *OPTS, "--format", "github")
        assert "c2VjcmV0" not in p.stdout + p.stderr and "extraheader" not in p.stdout + p.stderr
        assert p.returncode == 2, p.stderr
        line = next(l for l in p.stderr.splitlines() if l.startswith("docs/x.md: error:"))
        assert "symbolic link into a version-control directory" in line and "not read" in line
        assert "file=docs/ok.md" in p.stdout  # the rest is still checked


def test_file_directory_and_chained_links_out_of_the_root(repo: Path, outside: Path) -> None:
    docs = repo / "docs"
    (docs / "file.md").symlink_to(outside / "secret.md")  # a file link
    (docs / "dir").symlink_to(outside, target_is_directory=True)  # a directory link
    (docs / "hop.md").symlink_to(outside / "secret.md")
    (docs / "chain.md").symlink_to("hop.md")  # a chain: inside, then out
    (docs / "inside.md").symlink_to("ok.md")  # inside the root: followed
    for args in (["docs"], ["docs/file.md", "docs/chain.md", "docs/dir", "docs/dir/secret.md",
                            "docs/inside.md", "docs/ok.md"]):
        p = cli(repo, "lint", *args, *OPTS, "--format", "json")
        assert "c2VjcmV0" not in p.stdout + p.stderr
        assert p.returncode == 2, p.stderr
        for name in ("docs/file.md", "docs/chain.md", "docs/hop.md", "docs/dir"):
            if name == "docs/hop.md" and args != ["docs"]:
                continue
            assert f"{name}: error: symbolic link to a path outside the repository root; skipped (not read)" \
                in p.stderr, p.stderr
        linted = sorted(f["path"] for f in json.loads(p.stdout)["files"])
        assert linted == ["docs/inside.md", "docs/ok.md"], linted
    # a link the user names from outside the repository is theirs to follow
    p = cli(repo, "lint", str(outside / "secret.md"), *OPTS, "--format", "json", "--fail-on", "never")
    assert p.returncode == 0, p.stderr


def test_baseline_dump_and_audit_sources_through_links(repo: Path, outside: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    (repo / "base.json").symlink_to(outside / "secret.md")
    rc, out, err = run(capsys, "lint", "docs/ok.md", *OPTS, "--baseline", "base.json")
    assert rc == 2 and "base.json: error: symbolic link to a path outside the repository root" in err
    assert "c2VjcmV0" not in out + err
    (outside / "dump.jsonl").write_text(json.dumps({"text": SECRET, "doc_id": "d"}) + "\n", encoding="utf-8")
    (repo / "dump.jsonl").symlink_to(outside / "dump.jsonl")
    rc, out, err = run(capsys, "audit", "dump.jsonl")
    assert rc == 2 and "dump.jsonl: error: symbolic link to a path outside" in err and "c2VjcmV0" not in out + err
    # a dump's source linked into .git, inside the source root: not read
    (repo / "docs" / "git.md").symlink_to(Path("..") / ".git" / "config")
    (repo / "d.jsonl").write_text(json.dumps({"text": "repositoryformatversion", "doc_id": "g",
                                              "source": "docs/git.md"}) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json")
    doc = json.loads(out)["files"][0]
    assert doc["mode"] == "text-only" and "version-control directory" in doc["mode_reason"], doc
    assert "c2VjcmV0" not in out + err


def test_a_config_file_linked_out_of_the_root_is_not_read(repo: Path, outside: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    (outside / "chunkseam.toml").write_text(f'size = "{SECRET}"\n', encoding="utf-8")
    (repo / "chunkseam.toml").symlink_to(outside / "chunkseam.toml")
    rc, out, err = run(capsys, "lint", "docs/ok.md")
    assert rc == 2 and "chunkseam.toml" in err and "outside the repository root" in err
    assert "c2VjcmV0" not in out + err


def test_fix_never_replaces_a_link_nor_writes_outside(repo: Path, outside: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    broken = (Path(__file__).parents[1] / "fixtures" / "streaming.md").read_text(encoding="utf-8")
    (outside / "other.md").write_text(broken, encoding="utf-8")
    (repo / "docs" / "target.md").write_text(broken, encoding="utf-8")
    (repo / "docs" / "out.md").symlink_to(outside / "other.md")
    (repo / "docs" / "in.md").symlink_to("target.md")
    rc, out, err = run(capsys, "lint", "docs/out.md", "docs/in.md", "--fix", "--chunker", "recursive",
                       "--unit", "chars", "--size", "275")
    assert "docs/out.md: error: symbolic link to a path outside the repository root" in err
    assert (outside / "other.md").read_text(encoding="utf-8") == broken  # untouched
    assert (repo / "docs" / "out.md").is_symlink() and (repo / "docs" / "in.md").is_symlink()
    assert os.readlink(repo / "docs" / "in.md") == "target.md"
    # the link inside the root keeps pointing at its target, whose text was fixed
    assert "applied 3 fixes in 1 file" in err and (repo / "docs" / "target.md").read_text(encoding="utf-8") != broken, err


INJECTED = ["a\n::error ::INJECTED.md", "b\n::stop-commands::pwned.md", "::warning ::c.md", "d\r::error ::e.md",
            "  ::error ::f.md", "g\n  ::error ::h.md"]


@pytest.mark.skipif(sys.platform == "win32", reason="control characters in file names")
def test_file_names_forge_no_workflow_command(repo: Path) -> None:
    for n, name in enumerate(INJECTED):
        data = RUNON.encode() if n % 2 == 0 else b"\xff not UTF-8"
        (repo / "docs" / name).write_bytes(data)
    for fmt in ("github", "text"):
        p = cli(repo, "lint", "docs", *OPTS, "--format", fmt)
        assert p.returncode == 2, p.stderr
        for stream in (p.stdout, p.stderr):
            for line in re.split(r"\r\n|\r|\n", stream):
                if line.lstrip().startswith("::"):  # (the runner trims leading whitespace) only our own
                    # annotations, their file= escaped
                    assert fmt == "github" and re.match(r"::(error|warning|notice) file=docs/", line), line
                    assert "stop-commands" not in line.split("::")[1] or "%3A%3Astop-commands" in line
                assert "::stop-commands::" not in line or "%3A" in line or "\\n::stop" in line, line
        assert "docs/b\\n::stop-commands::pwned.md: error: not UTF-8" in p.stderr


def test_no_report_is_written_through_a_link_out_of_the_root(repo: Path, outside: Path, capsys, monkeypatch) -> None:
    """A repository can hold ``chunkseam.sarif -> ~/.bashrc`` where a workflow writes its report."""
    monkeypatch.chdir(repo)
    victim = outside / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    for name in ("out.sarif", "page.html", "report.html"):
        (repo / name).symlink_to(victim)
    (repo / "d.jsonl").write_text(json.dumps({"text": "A chunk.", "doc_id": "a"}) + "\n", encoding="utf-8")
    for args in (["lint", "docs/ok.md", "--format", "sarif", "-o", "out.sarif"],
                 ["preview", "docs/ok.md", "--html", "page.html"],
                 ["audit", "d.jsonl", "--report", "report.html"]):
        rc, out, err = run(capsys, *args)
        assert rc == 2 and "symbolic link to a path outside the repository root; not written" in err, err
    assert victim.read_text(encoding="utf-8") == "keep me\n"


def test_a_glob_does_not_follow_a_link_out_of_the_root(repo: Path, outside: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    (repo / "docs" / "file.md").symlink_to(outside / "secret.md")
    (repo / "docs" / "sub").symlink_to(outside, target_is_directory=True)
    rc, out, err = run(capsys, "lint", "docs/*.md", "docs/**/*.md", *OPTS, "--format", "json")
    assert rc == 2 and "c2VjcmV0" not in out + err
    assert "docs/file.md: error: symbolic link to a path outside the repository root" in err
    assert sorted(f["path"] for f in json.loads(out)["files"]) == ["docs/ok.md"]
