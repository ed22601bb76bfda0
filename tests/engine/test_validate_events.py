"""Structured events: JSON lines tagged with document, chunker, params, version, size."""

from __future__ import annotations

import io
import json

from chunkseam import __version__, events
from chunkseam.engine.analysis import analyze
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings

TEXT = "# Setup\n\nSet the timeout to thirty seconds and enable keepalive on the client.\n"


def test_events_for_an_analysis_round_trip_as_json_lines():
    doc = Document(TEXT, path="docs/setup.md")
    a = analyze(doc, Settings(chunker="fixed", size=40, unit="chars", min_tokens=0))
    evs = events.for_analysis(a, run="run-7", time="2024-06-01T00:00:00+00:00")
    issues = [e for e in evs if e["event"] == "chunkseam.issue"]
    summary = evs[-1]
    assert len(issues) == len(a.issues) > 0 and summary["event"] == "chunkseam.summary"
    for e in evs:
        assert e["version"] == __version__ and e["document"] == "docs/setup.md"
        assert e["chunker"] == "fixed" and e["size"] == 40 and e["run"] == "run-7"
        assert e["params"] == {"size": 40, "overlap": 0, "unit": "chars",
                               "encoding": "cl100k_base", "options": {}}
        assert e["time"] == "2024-06-01T00:00:00+00:00"
    first = issues[0]["issue"]
    assert first["code"] == a.issues[0].code and first["line"] >= 1 and first["column"] >= 1
    assert first["rule"] == a.issues[0].name
    assert summary["rate"] == a.stats.rate and summary["stats"]["chunks"] == len(a.chunks)
    buf = io.StringIO()
    assert events.write(buf, evs) == len(evs)
    lines = buf.getvalue().splitlines()
    assert len(lines) == len(evs) and all(json.loads(x) for x in lines)
    assert events.read(buf.getvalue().splitlines()) == json.loads(json.dumps(evs))


def test_chunker_name_falls_back_to_the_chunks_strategy():
    doc = Document(TEXT)
    a = analyze(doc, Settings(chunker="fixed", size=40, unit="chars"))
    evs = events.for_document(doc, a.chunks, a.issues, None)
    assert evs[-1]["chunker"] == "fixed" and evs[-1]["document"] == "<text>"
    assert evs[-1]["params"] == {} and evs[-1]["size"] is None
