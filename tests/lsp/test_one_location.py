"""One location and one rate everywhere.

The same document, chunked the same way, gives each issue the same line and
column in ``lint`` text, JSON, SARIF and GitHub output, in ``preview`` and in
the language server's diagnostics (the real server over stdio); two cuts in one
code block are two issues at two places; the broken-chunk rate and the chunk
numbers agree across ``lint``, ``preview`` (terminal and HTML), ``compare``,
``chunks`` and the library.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import pytest_lsp
from clikit import run
from lsp_support import CONFIG, initialize, open_doc, shutdown, wait_published
from pytest_lsp import LanguageClient

import chunkseam
from chunkseam.engine.analysis import analyze
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import statistics

TEXT = """# Setup

This paragraph explains the setup in one long sentence so that a cut lands inside it somewhere.

```python
def one():
    return 1

def two():
    return 2

def three():
    return 3
```

| name | value |
| ---- | ----- |
| a    | 1     |
| b    | 2     |
| c    | 3     |

The closing paragraph has a few more words in it.
"""
FLAGS = ["--chunker", "fixed", "--unit", "chars", "--size", "45"]
SETTINGS = Settings(chunker="fixed", unit="chars", size=45)
LSP_SETTINGS = {"chunker": "fixed", "unit": "chars", "size": 45, "debounceMs": 0}


@pytest.fixture()
def doc_path(tmp_path: Path) -> Path:
    p = tmp_path / "setup.md"
    p.write_text(TEXT, encoding="utf-8")
    return p


def expected(path: Path) -> list[tuple[str, int, int]]:
    a = analyze(Document(TEXT, path=str(path)), SETTINGS)
    out = []
    for i in a.issues:
        line, col = a.doc.line_col(i.start)
        out.append((i.code, line, col))
    return sorted(out)


def test_two_cuts_in_one_code_block_are_two_issues_at_two_places(doc_path):
    a = analyze(Document(TEXT, path=str(doc_path)), SETTINGS)
    fence = [i for i in a.issues if i.code == "CS003"]
    assert len(fence) >= 2
    assert len({i.unit for i in fence}) == 1  # one code block ...
    lines = [a.doc.line_col(i.start)[0] for i in fence]
    assert len(set(lines)) == len(lines)  # ... each cut reported on its own line
    for i in a.issues:
        if i.cut is not None:
            # the range is at the cut, never the whole unit
            assert i.start <= max(i.cut, i.start) and (i.unit is None or i.end - i.start < i.unit[1] - i.unit[0]
                                                        or i.code in ("CS001", "CS007"))


def test_the_same_line_and_column_in_every_cli_format(capsys, doc_path):
    want = expected(doc_path)
    assert {c for c, _, _ in want} >= {"CS002", "CS003", "CS004"}

    rc, out, _ = run(capsys, "lint", str(doc_path), *FLAGS, "--format", "json", "--fail-on", "never")
    data = json.loads(out)
    assert sorted((r["code"], r["line"], r["column"]) for r in data["issues"]) == want
    for r in data["issues"]:
        if r["code"] in ("CS003", "CS004"):
            unit = r["unit"]  # the documented field: the whole broken unit
            assert unit["line"] <= r["line"] and unit["end_offset"] >= r["end_offset"]

    rc, out, _ = run(capsys, "lint", str(doc_path), *FLAGS, "--format", "text", "--fail-on", "never",
                     "--color", "never")
    got = sorted((m.group(3), int(m.group(1)), int(m.group(2)))
                 for m in re.finditer(r"^.*?:(\d+):(\d+): (CS\d{3}) ", out, re.M))
    assert got == want

    rc, out, _ = run(capsys, "lint", str(doc_path), *FLAGS, "--format", "sarif", "--fail-on", "never")
    sarif = json.loads(out)
    got = []
    for res in sarif["runs"][0]["results"]:
        region = res["locations"][0]["physicalLocation"]["region"]
        got.append((res["ruleId"], region["startLine"], region["startColumn"]))
        if res["ruleId"] == "CS003":
            assert res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] < region["startLine"]
    assert sorted(got) == want

    rc, out, _ = run(capsys, "lint", str(doc_path), *FLAGS, "--format", "github", "--fail-on", "never")
    got = sorted((m.group(3), int(m.group(1)), int(m.group(2)))
                 for m in re.finditer(r"^::\w+ file=[^,]*,line=(\d+),col=(\d+),.*?::(CS\d{3}) ", out, re.M))
    assert got == want

    rc, out, _ = run(capsys, "preview", str(doc_path), *FLAGS, "--width", "400", "--color", "never")
    got = sorted((m.group(1), int(m.group(2)), int(m.group(3)))
                 for m in re.finditer(r"(CS\d{3}) \[[\w-]+\] (\d+):(\d+) ", out))
    assert got == want


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


@pytest.mark.asyncio
async def test_the_same_line_and_column_in_the_editor(client: LanguageClient, doc_path):
    want = expected(doc_path)
    await initialize(client, init_options={"settings": LSP_SETTINGS})
    uri = doc_path.as_uri()
    open_doc(client, uri, TEXT)
    published = await wait_published(client, uri, version=1)
    got = sorted((d.code, d.range.start.line + 1, d.range.start.character + 1)
                 for d in published.diagnostics)
    assert got == want
    fence = [d for d in published.diagnostics if d.code == "CS003"]
    for d in fence:
        infos = d.related_information or []
        # the whole code block is related information, the squiggle is only the line(s) at the cut
        assert any(r.location.range.start.line < d.range.start.line for r in infos)
        assert d.range.end.line - d.range.start.line <= 1


def test_one_broken_chunk_rate_and_numbering_everywhere(capsys, doc_path, tmp_path):
    a = analyze(Document(TEXT, path=str(doc_path)), SETTINGS)
    stats = statistics(a.chunks, a.issues)
    assert 0 < stats.chunks_with_issues < len(a.chunks)  # a rate worth comparing
    # an info issue on a chunk does not make it broken (the way lint counts)
    assert stats.chunks_with_issues == len({
        (i.other_chunk if (i.data or {}).get("side") == "start" else i.chunk)
        for i in a.issues if i.severity in ("error", "warning")} - {None})
    n, broken = len(a.chunks), stats.chunks_with_issues
    pct = f"{stats.rate * 100:.1f}%"

    rc, out, _ = run(capsys, "lint", str(doc_path), *FLAGS, "--format", "json", "--fail-on", "never")
    data = json.loads(out)
    assert (data["summary"]["chunks"], data["summary"]["chunks_with_issues"]) == (n, broken)
    assert data["files"][0]["chunks_with_issues"] == broken
    rc, out, _ = run(capsys, "lint", str(doc_path), *FLAGS, "--fail-on", "never", "--color", "never")
    assert f"{broken} of {n} chunks broken ({pct})" in out

    rc, out, _ = run(capsys, "preview", str(doc_path), *FLAGS, "--width", "400", "--color", "never")
    assert f"{broken} of {n} chunks broken ({pct})" in out
    panels = [int(k) for k in re.findall(r"chunk (\d+) ", "\n".join(
        ln for ln in out.splitlines() if ln.startswith("╭")))]
    assert panels == list(range(1, n + 1))

    html = tmp_path / "p.html"
    rc, _, _ = run(capsys, "preview", str(doc_path), *FLAGS, "--html", str(html))
    page = html.read_text(encoding="utf-8")
    assert f"{broken} of {n} chunks broken ({pct})" in page
    assert re.findall(r'class="cs-title">#(\d+) ', page) == [str(k) for k in range(1, n + 1)]

    rc, out, _ = run(capsys, "compare", str(doc_path), "--chunkers", "fixed", "--unit", "chars", "--size", "45",
                     "--format", "json")
    strategies = json.loads(out)["strategies"]
    (fixed,) = [s for s in strategies if s["strategy"] == "fixed"]
    assert (fixed["chunks"], fixed["chunks_with_issues"]) == (n, broken)
    assert abs(fixed["rate"] - stats.rate) < 1e-6

    rc, out, _ = run(capsys, "chunks", str(doc_path), *FLAGS)
    assert [int(k) for k in re.findall(r"^#(\d+)\s", out, re.M)] == list(range(1, n + 1))
    rc, out, _ = run(capsys, "chunks", str(doc_path), *FLAGS, "--format", "json")
    assert [c["index"] for c in json.loads(out)] == list(range(n))  # JSON: 0-based, documented

    # messages number chunks from one: the first cut is at the end of chunk 1
    first_cut = min((i for i in a.issues if i.cut is not None), key=lambda i: i.cut)
    assert f"chunk {first_cut.chunk + 1} " in first_cut.message
    assert chunkseam.validate(Document(TEXT), a.chunks, SETTINGS)  # the library gives the same issues
