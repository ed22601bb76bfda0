import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { EarlyDiagnostics } from "../src/earlyDiagnostics";

/** A collection of diagnostics by uri, recording what was done to it. */
function sink() {
  const shown = new Map<string, readonly string[]>();
  return {
    shown,
    set: (uri: string, d: readonly string[]) => void shown.set(uri, d),
    delete: (uri: string) => void shown.delete(uri),
    clear: () => shown.clear(),
  };
}

describe("EarlyDiagnostics (a file's diagnostics from disk before it opens)", () => {
  it("shows an offer until the document's own diagnostics come, then ignores later offers", () => {
    const s = sink();
    const early = new EarlyDiagnostics<string>(s);
    assert.equal(early.offer("file:///a.md", ["x"]), true);
    assert.deepEqual(s.shown.get("file:///a.md"), ["x"]);
    early.settle("file:///a.md");
    assert.equal(s.shown.has("file:///a.md"), false);
    assert.equal(early.offer("file:///a.md", ["late"]), false);
    assert.equal(s.shown.has("file:///a.md"), false);
  });
  it("ignores an offer that comes after the document's own diagnostics", () => {
    const s = sink();
    const early = new EarlyDiagnostics<string>(s);
    early.settle("file:///a.md");
    assert.equal(early.offer("file:///a.md", ["x"]), false);
    assert.equal(s.shown.size, 0);
  });
  it("forgets a closed document: it may be offered again when it reopens", () => {
    const s = sink();
    const early = new EarlyDiagnostics<string>(s);
    early.offer("file:///a.md", ["x"]);
    early.settle("file:///a.md");
    early.forget("file:///a.md");
    assert.equal(early.offer("file:///a.md", ["y"]), true);
    assert.deepEqual(s.shown.get("file:///a.md"), ["y"]);
    early.forget("file:///a.md");
    assert.equal(s.shown.has("file:///a.md"), false);
  });
  it("keeps documents apart and clears everything when the server stops", () => {
    const s = sink();
    const early = new EarlyDiagnostics<string>(s);
    early.offer("file:///a.md", ["a"]);
    early.offer("file:///b.md", ["b"]);
    early.settle("file:///a.md");
    assert.deepEqual([...s.shown.keys()], ["file:///b.md"]);
    assert.deepEqual(s.shown.get("file:///b.md"), ["b"]);
    early.clear();
    assert.equal(s.shown.size, 0);
    assert.equal(early.isSettled("file:///a.md"), false);
    assert.equal(early.offer("file:///a.md", ["again"]), true);
  });
});
