"""`chunkseam completion bash|zsh|fish`: the bash script driven by a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import run

BIN = Path(sys.executable).parent


def complete(script: Path, line: str, cwd: Path) -> list[str]:
    """COMPREPLY for ``line`` (cursor at the end), as bash computes it on <Tab>."""
    driver = (
        f'source "{script}"\n'
        'COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}\n'
        'read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=("")\n'
        'COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n'
        '_python_argcomplete chunkseam\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = subprocess.run(["bash", "-c", driver, "bash", line], capture_output=True, text=True, env=env,
                         cwd=cwd, timeout=120)
    assert out.returncode == 0, out.stderr
    return [w.strip() for w in out.stdout.splitlines() if w.strip()]


@pytest.mark.skipif(shutil.which("bash") is None or not (BIN / "chunkseam").exists(),
                    reason="needs bash and the chunkseam console script")
def test_bash_completion(tmp_path: Path, capsys) -> None:
    rc, script, _ = run(capsys, "completion", "bash")
    assert rc == 0
    path = tmp_path / "chunkseam.bash"
    path.write_text(script, encoding="utf-8")
    (tmp_path / "guide.md").write_text("# G\n", encoding="utf-8")
    assert complete(path, "chunkseam li", tmp_path) == ["lint"]
    assert "--stdin-filename" in complete(path, "chunkseam lint --std", tmp_path)
    assert set(complete(path, "chunkseam lint --format ", tmp_path)) >= {"gitlab", "junit", "markdown", "sarif"}
    assert set(complete(path, "chunkseam lint --chunker ", tmp_path)) >= {"fixed", "markdown", "recursive"}
    assert set(complete(path, "chunkseam lint --select CS001,mid-", tmp_path)) == {
        "CS001,mid-word", "CS001,mid-sentence"}
    assert complete(path, "chunkseam completion f", tmp_path) == ["fish"]


@pytest.mark.parametrize("shell, marker", [("zsh", "compdef"), ("fish", "complete --command chunkseam")])
def test_zsh_and_fish_scripts(capsys, shell: str, marker: str) -> None:
    rc, script, _ = run(capsys, "completion", shell)
    assert rc == 0 and marker in script


def test_unknown_shell_is_a_usage_error(capsys) -> None:
    rc, out, err = run(capsys, "completion", "tcsh")
    assert rc == 2 and out == "" and "invalid choice: 'tcsh'" in err
