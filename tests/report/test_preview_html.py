"""`chunkseam preview --html`: one self-contained page, checked in real headless Chromium.

Chromium (Debian packages `chromium` and `chromium-driver`) loads the page from
a file with the network disabled; `--dump-dom` gives the DOM after the page's
script ran, `--screenshot` a picture saved under test-artifacts/ (gitignored)
for a person to look at.
"""

from __future__ import annotations

import html
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from chunkseam import chunkers
from chunkseam.engine.analysis import analyze
from chunkseam.core.chunk import Chunk
from chunkseam.cli.app import main
from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.report.preview import html_page
from chunkseam.core.settings import Settings
from conftest import require_tool

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
FIXTURE = ROOT / "tests" / "fixtures" / "database.md"

HOSTILE = ("# Title with <b>tags</b> & \"quotes\"\n\nA paragraph with </script><script>alert(1)</script> "
           "and <img src=x onerror=alert(2)> inside, then an emoji 🍰 and CJK 中文.\n\n```html\n<div>\n```\n")


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parse(page: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Collect()
    p.feed(page)
    return p.tags


def bands(tags) -> list[int]:
    return [int(a["data-chunk"]) for t, a in tags if "cs-band" in (a.get("class") or "").split() and "data-chunk" in a]


def chromium(*args: str, tmp: Path, timeout: int = 120) -> subprocess.CompletedProcess:
    exe = require_tool("chromium")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars", "--force-color-profile=srgb",
           f"--user-data-dir={tmp / 'chromium-profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def sample(tmp_path: Path) -> tuple[Document, list[Chunk], list[Issue], str]:
    """A document with overlap, a mid-sentence cut and a per-chunk issue, independent of the
    validator's judgement (the validator is tested elsewhere)."""
    text = FIXTURE.read_text(encoding="utf-8")
    doc = Document(text, path=str(FIXTURE))
    starts = [0, 180, 330, 560]
    ends = [200, 350, 600, len(text)]
    chunks = [Chunk(s, e, i, text, (e - s) // 4, "fixed") for i, (s, e) in enumerate(zip(starts, ends))]
    s_start = text.rfind("\n", 0, 200) + 1
    issues = [
        Issue("CS002", "mid-sentence", "warning", 'chunk 0 ends mid-sentence: "…' + text[190:200] + '"',
              s_start, text.find("\n\n", 200), 0, 1, 200),
        Issue("CS001", "mid-word", "error", "chunk 1 ends mid-word", 345, 352, 1, 2, 350),
        Issue("CS102", "fragment", "info", "chunk 3 is small <tiny> & lonely", 560, 600, 3),
    ]
    page = html_page(doc, chunks, issues, chunker="fixed", settings=Settings(size=50, overlap=20, unit="tokens"))
    return doc, chunks, issues, page


def test_page_is_self_contained_and_escaped(tmp_path: Path) -> None:
    doc = Document(HOSTILE, path="hostile.md")
    c = [Chunk(0, 60, 0, HOSTILE, 10), Chunk(50, len(HOSTILE), 1, HOSTILE, 30)]
    page = html_page(doc, c, [Issue("CS002", "mid-sentence", "warning", "<script>x</script>", 40, 70, 0, 1, 60)],
                     chunker="fixed", settings=Settings())
    assert page.count("<script") == 2  # our JSON data block and our script, nothing from the document
    assert "<img" not in page and "alert(1)</script>" not in page
    assert html.escape("<b>tags</b>") in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(http" not in page
    assert "Content-Security-Policy" in page
    tags = parse(page)
    assert bands(tags) == [0, 1]
    assert any("cs-ov" in (a.get("class") or "") for _, a in tags)  # overlap striped


def test_page_structure_without_browser(tmp_path: Path) -> None:
    _, chunks, issues, page = sample(tmp_path)
    tags = parse(page)
    assert sorted(bands(tags)) == [c.index for c in chunks]
    cuts = [a for t, a in tags if "cs-cut" in (a.get("class") or "").split()]
    assert len(cuts) >= len(chunks) - 1
    assert sum(1 for a in cuts if "cs-bad" in (a.get("class") or "")) == 2
    items = [a for t, a in tags if "cs-item" in (a.get("class") or "").split()]
    assert [int(a["data-chunk"]) for a in items] == [0, 1, 2, 3]


def test_chromium_renders_bands_tooltips_and_screenshot(tmp_path: Path) -> None:
    require_tool("chromium")
    _, chunks, issues, page = sample(tmp_path)
    f = tmp_path / "preview.html"
    f.write_text(page, encoding="utf-8")
    dom = chromium("--virtual-time-budget=3000", "--dump-dom", f.as_uri(), tmp=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    tags = parse(dom.stdout)
    assert ("html", {"lang": "en", "data-ready": "1"}) in tags, "the page's script did not run to the end"
    assert sorted(bands(tags)) == [c.index for c in chunks]
    tips = [a for t, a in tags if (a.get("class") or "") == "cs-tip"]
    items = [a for t, a in tags if (a.get("class") or "") == "cs-tip-item"]
    assert tips and all(a.get("role") == "tooltip" for a in tips)
    assert len(items) == len(issues)  # every issue is in a tooltip, once
    assert "chunk 3 is small &lt;tiny&gt; &amp; lonely" in dom.stdout
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "preview.png"
    if shot.exists():
        shot.unlink()
    r = chromium("--window-size=1400,900", "--virtual-time-budget=3000", f"--screenshot={shot}", f.as_uri(),
                 tmp=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert shot.is_file() and shot.stat().st_size > 20_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_preview_html_in_chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    require_tool("chromium")
    name = "markdown" if "markdown" in chunkers.names() else "recursive"
    out = tmp_path / "db.html"
    rc = main(["preview", str(FIXTURE), "--chunker", name, "--size", "60", "--overlap", "10" if name != "markdown" else "0",
               "--html", str(out)])
    assert rc == 0
    a = analyze(Document(FIXTURE.read_text(encoding="utf-8"), path=str(FIXTURE)),
                Settings(chunker=name, size=60, overlap=10 if name != "markdown" else 0))
    dom = chromium("--virtual-time-budget=3000", "--dump-dom", out.as_uri(), tmp=tmp_path)
    tags = parse(dom.stdout)
    assert len(bands(tags)) == len(a.chunks) > 1
    items = [x for t, x in tags if (x.get("class") or "") == "cs-tip-item"]
    assert len(items) == len(a.issues)
    ARTIFACTS.mkdir(exist_ok=True)
    chromium("--window-size=1400,900", "--virtual-time-budget=3000",
             f"--screenshot={ARTIFACTS / 'preview-cli.png'}", out.as_uri(), tmp=tmp_path)
