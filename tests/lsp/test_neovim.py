"""A real editor: headless Neovim starts ``chunkseam server``, opens a Markdown
file with a known mid-sentence cut and a split code fence, and reports the
diagnostics, a hover and the code lenses it got."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import require_tool

LUA = Path(__file__).resolve().parents[1] / "nvim" / "lsp_client.lua"

DOC = """# Deploying

Before you deploy, check the settings. To prevent dropped connections, set the timeout to thirty seconds and enable keepalive on every pooled connection.

```bash
export TIMEOUT=30
export KEEPALIVE=1
./deploy.sh --env production
```

After the deploy, watch the logs for errors.
"""


def layout() -> tuple[int, int, int]:
    """Chunk size that cuts "set the timeout to |thirty" and, at twice that, inside the fence."""
    size = DOC.index("thirty seconds")
    fence_start, fence_end = DOC.index("```bash"), DOC.index("```\n\nAfter") + 3
    assert fence_start < 2 * size < fence_end, (size, fence_start, fence_end)
    return size, fence_start, fence_end


def run_nvim(tmp_path: Path, settings: dict, hover: tuple[int, int]) -> list[tuple[str, object]]:
    nvim = require_tool("nvim")
    doc = tmp_path / "deploy.md"
    doc.write_text(DOC)
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        d = tmp_path / var.lower()
        d.mkdir()
        env[var] = str(d)
    env.update(CS_FILE=str(doc), CS_PYTHON=sys.executable, CS_SETTINGS=json.dumps(settings),
               CS_HOVER_LINE=str(hover[0]), CS_HOVER_COL=str(hover[1]))
    proc = subprocess.run([nvim, "--headless", "--clean", "-c", f"luafile {LUA}"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=180)
    out = []
    for line in proc.stdout.splitlines():
        kind, sep, payload = line.partition("\t")
        if sep:
            out.append((kind, json.loads(payload)))
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    return out


def test_neovim_shows_diagnostics_hover_and_code_lenses(tmp_path: Path):
    size, fence_start, fence_end = layout()
    settings = {"chunker": "fixed", "unit": "chars", "size": size, "debounceMs": 0}
    # hover on "export TIMEOUT=30", the first line of the code block (line 5)
    results = run_nvim(tmp_path, settings, hover=(5, 3))
    diagnostics = [v for k, v in results if k == "diagnostic"]
    by_code = {d["code"]: d for d in diagnostics}
    assert "CS002" in by_code, diagnostics  # "…set the timeout to | thirty seconds…"
    assert "CS003" in by_code, diagnostics  # the cut inside the ```bash block
    assert all(d["source"] == "chunkseam" for d in diagnostics)
    mid_sentence = by_code["CS002"]
    assert mid_sentence["lnum"] <= 2 <= mid_sentence["end_lnum"]
    fence = by_code["CS003"]
    assert 4 <= fence["lnum"] <= 8
    assert dict(results)["encoding"] == "utf-16"

    hover = dict(results)["hover"]
    value = hover["contents"]["value"]
    n_chunks = -(-len(DOC) // size)
    assert f"/{n_chunks}**" in value and "export TIMEOUT=30" in value
    assert "Deploying" in value

    lenses = [v for k, v in results if k == "codelens"]
    assert len(lenses) == n_chunks
    assert re.match(rf"(\d+ issues? · )?Chunk 1/{n_chunks} · {size} chars · Deploying", lenses[0]["command"]["title"])
    assert lenses[0]["command"]["command"] == "chunkseam.showChunk"
    assert any("issue" in lens["command"]["title"] for lens in lenses)
    assert dict(results)["codelens_count"] == n_chunks
    # running a lens shows the chunk (here as a message: this Neovim has no showDocument)
    ran = dict(results)["lens_run"]
    assert ran["shown"].startswith(ran["title"] + ": “"), ran


NOTEBOOK_LUA = LUA.parent / "notebook_json.lua"


def test_neovim_opening_a_notebooks_json_gets_a_message_and_no_markdown_diagnostics(tmp_path: Path):
    """Neovim 0.7 has no notebook documents: an ``.ipynb`` is its JSON. The
    server does not analyse that text as Markdown (whose cuts would land in
    the JSON's quoting), says once why it stays silent and how to check the
    notebook, and keeps answering."""
    nvim = require_tool("nvim")
    nb = tmp_path / "rag notes.ipynb"
    prose = DOC.split("```")[0].strip()
    nb.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": prose.splitlines(keepends=True)},
                  {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": ["export_timeout = 30\n", "keepalive = True\n"]}],
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 5}, indent=1))
    settings = {"chunker": "fixed", "unit": "chars", "size": 60, "debounceMs": 0}
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        d = tmp_path / var.lower()
        d.mkdir()
        env[var] = str(d)
    env.update(CS_FILE=str(nb), CS_PYTHON=sys.executable, CS_SETTINGS=json.dumps(settings))
    proc = subprocess.run([nvim, "--headless", "--clean", "-c", f"luafile {NOTEBOOK_LUA}"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    results: dict[str, list] = {}
    for line in proc.stdout.splitlines():
        kind, sep, payload = line.partition("\t")
        if sep:
            results.setdefault(kind, []).append(json.loads(payload))
    assert "error" not in results, results
    # the JSON's cuts are not reported (as Markdown, 60-character windows would cut it everywhere)
    assert results["published"] == [0], results
    (message,) = results["message"]
    assert "rag notes.ipynb is a Jupyter notebook opened as text" in message, message
    assert "chunkseam lint rag notes.ipynb" in message, message
    (hover,) = results["hover"]
    assert hover["answered"] and hover["err"] is None and hover["result"] is None, hover
    (lenses,) = results["codelens"]
    assert lenses["answered"] and lenses["err"] is None and lenses["count"] == 0, lenses
    assert results["running"] == [True]
