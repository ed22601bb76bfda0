import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { LineIndex } from "../src/lineIndex";

describe("LineIndex", () => {
  it("maps positions and offsets across LF, CRLF and CR", () => {
    const text = "ab\r\ncd\ne\rf";
    const idx = new LineIndex(text);
    assert.equal(idx.lineCount, 4);
    assert.equal(idx.offsetAt({ line: 1, character: 1 }), 5);
    assert.equal(idx.offsetAt({ line: 3, character: 0 }), 9);
    assert.equal(text[idx.offsetAt({ line: 2, character: 0 })], "e");
    assert.deepEqual(idx.positionAt(5), { line: 1, character: 1 });
    assert.deepEqual(idx.positionAt(9), { line: 3, character: 0 });
  });
  it("clamps characters past the end of a line (before the line break)", () => {
    const idx = new LineIndex("ab\r\ncd");
    assert.equal(idx.offsetAt({ line: 0, character: 99 }), 2);
    assert.equal(idx.offsetAt({ line: 9, character: 0 }), 6);
    assert.equal(idx.offsetAt({ line: -1, character: 0 }), 0);
  });
  it("counts UTF-16 code units like LSP's default encoding", () => {
    const text = "😀x\nz";
    const idx = new LineIndex(text);
    assert.equal(text.slice(idx.offsetAt({ line: 0, character: 2 }), idx.offsetAt({ line: 0, character: 3 })), "x");
  });
});
