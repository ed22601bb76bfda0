"""The pre-commit hook, run by real pre-commit (`pre-commit try-repo`).

`try-repo` clones the hook repository at a commit. Run against the working
copy it would only pick up *tracked* changes (it stages them with `git add -u`),
so new, uncommitted files would be missing. The test therefore snapshots the
repository as it is on disk (tracked and untracked, minus .gitignore'd files)
into a temporary git repository with one commit, and points try-repo at that.
pre-commit then builds the hook's environment with pip from that clone
(dependencies from the package index: ~10 s here).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_tool

ROOT = Path(__file__).resolve().parents[2]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "chunkseam tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "chunkseam tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}

BROKEN = """# Timeouts

To prevent stale reads after a deploy, set the timeout to 30 seconds and enable keepalive on every connection. The worker pool reuses connections, so a short timeout also frees sockets held by idle workers.
"""
FIXED = """# Timeouts

Set the timeout to 30 seconds and enable keepalive.
"""
BROKEN_RST = """Retries
=======

Each request is retried three times with exponential backoff before the client gives up and reports the last error to the caller, so a flaky network or a restarting upstream service rarely surfaces as a failure in the logs of the application.
"""
FIXED_RST = """Retries
=======

Each request is retried three times.
"""
BROKEN_MDX = """import Tabs from '@theme/Tabs';

# Caching

Responses are cached for five minutes per key, and a write to the same key invalidates the entry at once, so readers never see a value older than the last successful write.
"""


def notebook(markdown: str) -> str:
    """A Jupyter notebook (nbformat 4) of one Markdown cell."""
    import json

    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "c1", "metadata": {},
         "source": markdown.splitlines(keepends=True)}]}, indent=1) + "\n"


BROKEN_NB = notebook("""# Batching

Requests are batched in groups of sixty-four before they are sent to the embedding service, which keeps the number of round trips low while the latency of a single request stays well under a second.
""")
FIXED_NB = notebook("""# Batching

Requests are batched in groups of sixty-four.
""")
FIXED_MDX = """import Tabs from '@theme/Tabs';

# Caching

Responses are cached for five minutes.
"""


def git(*args: str, cwd: Path) -> str:
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                       env={**os.environ, **GIT_ENV, "HOME": str(cwd)})
    assert p.returncode == 0, p.stderr
    return p.stdout


def snapshot_repo(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for raw in files:
        if not raw:
            continue
        rel = Path(os.fsdecode(raw))
        src = ROOT / rel
        if not src.is_file() or rel.parts[0] in ("client-vscode", "test-artifacts"):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    assert (dest / ".pre-commit-hooks.yaml").is_file()
    if not (dest / "README.md").exists():  # pyproject names it as the readme
        (dest / "README.md").write_text("# chunkseam\n", encoding="utf-8")
    git("init", "-q", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", "snapshot", cwd=dest)
    return dest


def pre_commit_cmd() -> list[str]:
    exe = shutil.which("pre-commit") or shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if exe:
        return [exe]
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        require_tool("pre-commit")
    return [sys.executable, "-m", "pre_commit"]


def test_hook_manifest_is_valid_and_as_documented() -> None:
    cmd = pre_commit_cmd()
    p = subprocess.run([*cmd, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    import yaml  # a dependency of pre-commit

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "chunkseam")
    assert hook["entry"] == "chunkseam lint"
    assert hook["language"] == "python"
    # every kind `chunkseam lint` checks by default, in pre-commit's (identify's) tags
    from identify import identify  # a dependency of pre-commit

    kinds = set(hook["types_or"])
    for name in ("a.md", "a.markdown", "a.mdx", "a.rst", "a.ipynb", "a.py", "a.pyi", "a.js", "a.jsx",
                 "a.mjs", "a.ts", "a.tsx", "a.go", "a.rs", "a.java"):
        assert identify.tags_from_filename(name) & kinds, name
    assert not identify.tags_from_filename("requirements.txt") & kinds
    assert hook["require_serial"] is False
    assert hook.get("pass_filenames", True) is True


def test_pre_commit_try_repo_fails_then_passes(tmp_path: Path) -> None:
    require_tool("git")
    cmd = pre_commit_cmd()
    hook_repo = snapshot_repo(tmp_path / "hook-repo")
    user = tmp_path / "user"
    user.mkdir()
    git("init", "-q", cwd=user)
    # the project's own config: a plain 200-character window, as many pipelines have
    (user / "chunkseam.toml").write_text('chunker = "fixed"\nunit = "chars"\nsize = 200\n', encoding="utf-8")
    (user / "docs").mkdir()
    doc = user / "docs" / "timeouts.md"
    doc.write_text(BROKEN, encoding="utf-8")
    rst, mdx = user / "docs" / "retries.rst", user / "docs" / "caching.mdx"
    rst.write_text(BROKEN_RST, encoding="utf-8")
    mdx.write_text(BROKEN_MDX, encoding="utf-8")
    nb = user / "docs" / "batching.ipynb"
    nb.write_text(BROKEN_NB, encoding="utf-8")
    git("add", "-A", cwd=user)
    env = {**os.environ, **GIT_ENV, "HOME": str(tmp_path), "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
           "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run([*cmd, "try-repo", str(hook_repo), "chunkseam", "--verbose",
                               "--files", "docs/timeouts.md", "docs/retries.rst", "docs/caching.mdx",
                               "docs/batching.ipynb"],
                              cwd=user, capture_output=True, text=True, env=env, timeout=900)

    first = try_repo()
    out = first.stdout + first.stderr
    assert first.returncode == 1, out
    assert "chunkseam" in out and "Failed" in out
    assert "docs/timeouts.md:" in out and ("CS001" in out or "CS002" in out), out
    # reStructuredText, MDX and notebooks are checked too (pre-commit passes them to the hook)
    for name in ("docs/retries.rst:", "docs/caching.mdx:", "docs/batching.ipynb:"):
        issues = [line for line in out.splitlines() if line.startswith(name)]
        assert any("CS001" in line or "CS002" in line for line in issues), (name, out)
    assert "chunks broken" in out
    before = doc.read_bytes()

    doc.write_text(FIXED, encoding="utf-8")
    rst.write_text(FIXED_RST, encoding="utf-8")
    mdx.write_text(FIXED_MDX, encoding="utf-8")
    nb.write_text(FIXED_NB, encoding="utf-8")
    git("add", "-A", cwd=user)
    second = try_repo()
    out2 = second.stdout + second.stderr
    assert second.returncode == 0, out2
    assert "Passed" in out2
    assert before == BROKEN.encode()  # the hook never rewrote the file
