"""The public library API in chunkseam/__init__.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chunkseam

FIXTURE = Path(__file__).parents[1] / "fixtures" / "database.md"


def test_validate_stays_a_function_across_calls():
    # importing the chunkseam.validate submodule must not shadow chunkseam.validate()
    code = (
        "import chunkseam\n"
        f"p = {str(FIXTURE)!r}\n"
        "a = chunkseam.validate(p, settings=chunkseam.Settings(chunker='fixed', unit='chars', size=200))\n"
        "b = chunkseam.validate(p, settings=chunkseam.Settings(chunker='fixed', unit='chars', size=200))\n"
        "assert callable(chunkseam.validate)\n"
        "assert [i.code for i in a] == [i.code for i in b] and a\n"
        "print(len(a))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 0


def test_chunk_and_merge_from_the_package():
    chunks = chunkseam.chunk(str(FIXTURE), "recursive", size=60, overlap=10)
    text = FIXTURE.read_text()
    assert chunks and all(c.text == text[c.start:c.end] for c in chunks)
    hits = [{"doc_id": "db", "start_index": c.start, "page_content": c.text, "score": 0.5 + i / 10}
            for i, c in enumerate(chunks[:2])]
    merged = chunkseam.merge_adjacent(hits)
    assert len(merged) == 1 and merged[0].text == text[chunks[0].start:chunks[1].end]
