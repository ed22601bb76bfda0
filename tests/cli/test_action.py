"""action.yml: the GitHub Action's own scripts, run by bash as the runner would run them."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
RUNON = "# T\n\nHello world, this is a sentence that runs on and on.\n"


def step(name: str) -> dict:
    return next(s for s in ACTION["runs"]["steps"] if s.get("name") == name)


def render(env: dict[str, str], inputs: dict[str, str], github: dict[str, str]) -> dict[str, str]:
    """The step's env with ${{ inputs.x }} / ${{ github.x }} substituted as the runner does."""
    defaults = {k: v.get("default", "") for k, v in ACTION["inputs"].items()}
    values = {**defaults, **inputs}

    def sub(v: str) -> str:
        v = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: values[m.group(1)], str(v))
        # github.event.* that an event does not carry is empty, as on the runner
        return re.sub(r"\$\{\{\s*github\.([\w.]+)\s*\}\}", lambda m: github.get(m.group(1), ""), v)

    return {k: sub(v) for k, v in env.items()}


def run_step(name: str, inputs: dict[str, str], tmp: Path, extra_env: dict[str, str], path: str,
             github: dict[str, str] | None = None):
    s = step(name)
    assert s["shell"] == "bash"
    env = {**os.environ, **extra_env, "PATH": path,
           **render(s.get("env", {}), inputs, {"action_path": str(ROOT), **(github or {})})}
    return subprocess.run(["bash", "-e", "-c", s["run"]], env=env, cwd=tmp, capture_output=True, text=True,
                          timeout=300)


def test_metadata() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"args", "version", "python-version", "summary"} <= set(ACTION["inputs"])
    for s in ACTION["runs"]["steps"]:
        if "run" in s:  # inputs reach scripts through env, never spliced into the script
            assert "${{" not in s["run"]


def test_lint_step_annotates_fails_and_writes_the_summary(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(RUNON, encoding="utf-8")
    summary = tmp_path / "summary.md"
    bindir = str(Path(sys.executable).parent)
    path = bindir + os.pathsep + os.environ.get("PATH", "")
    out = run_step("chunkseam lint", {"args": "docs --chunker fixed --size 20 --unit chars"}, tmp_path,
                   {"GITHUB_STEP_SUMMARY": str(summary)}, path)
    assert out.returncode == 1, out.stderr
    assert re.search(r"^::error file=docs/a\.md,line=3,col=\d+", out.stdout, flags=re.M)
    body = summary.read_text(encoding="utf-8")
    assert body.startswith("## chunkseam") and "| Rule | Name | Issues |" in body
    # a clean tree passes
    (tmp_path / "docs" / "a.md").write_text("# T\n\nShort.\n", encoding="utf-8")
    out = run_step("chunkseam lint", {"args": "docs", "summary": "false"}, tmp_path, {}, path)
    assert out.returncode == 0 and "No issues in 1 file" in out.stdout


@pytest.mark.parametrize("inputs, expected", [
    ({}, "{root}"),
    ({"extras": "langchain"}, "{root}[langchain]"),
    ({"version": "0.1.0", "extras": "langchain"}, "chunkseam[langchain]==0.1.0"),
])
def test_install_step(tmp_path: Path, inputs: dict[str, str], expected: str) -> None:
    # a `python` that records its arguments instead of installing
    shim = tmp_path / "bin"
    shim.mkdir()
    log = tmp_path / "args.txt"
    (shim / "python").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{log}"\n', encoding="utf-8")
    (shim / "python").chmod(stat.S_IRWXU)
    path = str(shim) + os.pathsep + os.path.dirname(shutil.which("bash") or "/bin/bash")
    out = run_step("Install chunkseam", inputs, tmp_path, {}, path)
    assert out.returncode == 0, out.stderr
    args = log.read_text(encoding="utf-8").splitlines()
    assert args[:3] == ["-m", "pip", "install"]
    assert args[-1] == expected.format(root=ROOT)


FORK = {"event.pull_request.head.repo.fork": "true", "event.pull_request.head.repo.full_name": "them/x",
        "event.pull_request.base.repo.full_name": "us/x"}
RENAMED_FORK = {"event.pull_request.head.repo.fork": "false", "event.pull_request.head.repo.full_name": "them/x",
                "event.pull_request.base.repo.full_name": "us/x"}
SAME_REPO = {"event.pull_request.head.repo.fork": "false", "event.pull_request.head.repo.full_name": "us/x",
             "event.pull_request.base.repo.full_name": "us/x"}


@pytest.mark.parametrize("github, inputs, isolated", [
    (FORK, {}, True), (RENAMED_FORK, {}, True), (SAME_REPO, {}, False), ({}, {}, False),
    (SAME_REPO, {"isolated": "true"}, True), (FORK, {"isolated": "false"}, False),
])
def test_a_pull_request_from_a_fork_lints_without_the_repository_config(tmp_path: Path, github, inputs,
                                                                          isolated) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(RUNON, encoding="utf-8")
    # a fork's config: its plugin would be imported, its extend would read the runner's environment
    (tmp_path / "chunkseam.toml").write_text(
        'plugins = ["this_plugin_must_not_be_imported"]\nextend = "/proc/self/environ"\n', encoding="utf-8")
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    out = run_step("chunkseam lint", {"args": "docs", "summary": "false", **inputs}, tmp_path, {}, path, github)
    if isolated:
        assert out.returncode == 0 and "No issues in 1 file" in out.stdout, out.stderr
        assert "chunkseam.toml" not in out.stdout + out.stderr
        assert ("a pull request from a fork" in out.stderr) == ("isolated" not in inputs)
    else:  # the config is read: extend out of the repository is a configuration error naming file and key
        assert out.returncode == 2
        assert "chunkseam.toml: extend = \"/proc/self/environ\": outside the repository root" in out.stderr
    assert "PATH=" not in out.stdout + out.stderr  # nothing of /proc/self/environ


@pytest.mark.parametrize("extras, ok", [
    ("langchain,hf", "{root}[langchain,hf]"), (" langchain , hf ", "{root}[langchain,hf]"),
    ("x @ https://example.invalid/x.whl", None), ("langchain] @ https://example.invalid/x.whl", None),
    ("*", None), ("nope", None), ("langchain,", "{root}[langchain]"),
])
def test_extras_are_chunkseams_own(tmp_path: Path, extras: str, ok: str | None) -> None:
    shim = tmp_path / "bin"
    shim.mkdir()
    log = tmp_path / "args.txt"
    (shim / "python").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{log}"\n', encoding="utf-8")
    (shim / "python").chmod(stat.S_IRWXU)
    path = str(shim) + os.pathsep + os.environ.get("PATH", "")
    out = run_step("Install chunkseam", {"extras": extras}, tmp_path, {}, path)
    if ok is None:
        assert out.returncode == 2 and not log.exists(), out.stderr  # pip never ran
        assert "::error title=chunkseam::the extras input must be" in out.stderr
        assert "example.invalid" not in out.stderr
    else:
        assert out.returncode == 0, out.stderr
        assert log.read_text(encoding="utf-8").splitlines()[-1] == ok.format(root=ROOT)
