import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { parseChunksResult, parseShowChunkResult, parseStatsResult, sizeLabel } from "../src/protocol";
import { r } from "./helpers";

describe("parseChunksResult", () => {
  it("keeps well-formed chunks, sorted by start, and drops the rest", () => {
    const res = parseChunksResult({
      version: 3,
      chunks: [
        { index: 1, range: r(5, 0, 9, 0), tokens: 40, heading_path: ["A", "B"], issues: 2, overlap_previous: r(5, 0, 6, 0) },
        { index: 0, range: r(0, 0, 6, 0), tokens: 50, heading_path: ["A"], issues: 0 },
        { index: 2 },
        "junk",
        null,
      ],
    });
    assert.equal(res.version, 3);
    assert.deepEqual(
      res.chunks.map((c) => c.index),
      [0, 1],
    );
    assert.deepEqual(res.chunks[1].heading_path, ["A", "B"]);
    assert.deepEqual(res.chunks[1].overlap_previous, r(5, 0, 6, 0));
    assert.equal(res.chunks[0].overlap_previous, null);
  });
  it("tolerates nonsense", () => {
    assert.deepEqual(parseChunksResult(null), { version: null, chunks: [] });
    assert.deepEqual(parseChunksResult({ chunks: "x" }), { version: null, chunks: [] });
    assert.equal(parseChunksResult({ chunks: [{ index: 0, range: r(0, 0, 1, 0), issues: [{}, {}] }] }).chunks[0].issues, 2);
  });
  it("keeps the notebook of a cell's answer (its version is the notebook's)", () => {
    const res = parseChunksResult({ version: 7, notebook: "file:///nb.ipynb", cellUri: "vscode-notebook-cell:/nb.ipynb#W1", chunks: [] });
    assert.equal(res.notebook, "file:///nb.ipynb");
    assert.equal(parseChunksResult({ version: 7, chunks: [] }).notebook, undefined);
  });
});

describe("parseStatsResult", () => {
  it("reads the stats and derives a missing rate", () => {
    assert.deepEqual(parseStatsResult({ chunks: 4, chunks_with_issues: 1, per_rule: { CS002: 1, bad: "x" } }), {
      chunks: 4,
      chunks_with_issues: 1,
      rate: 0.25,
      per_rule: { CS002: 1 },
    });
    assert.equal(parseStatsResult({}), undefined);
    assert.equal(parseStatsResult("x"), undefined);
  });
});

describe("the server's camelCase spelling", () => {
  it("reads chunkseam/chunks as the server sends it", () => {
    const res = parseChunksResult({
      uri: "file:///a.md",
      version: 7,
      chunker: "fixed",
      unit: "chars",
      enabled: true,
      error: null,
      chunks: [
        { index: 0, range: r(0, 0, 3, 4), startOffset: 0, endOffset: 90, tokens: 90, unit: "chars", headingPath: ["Setup"], overlapPrevious: 0, issues: 1, title: "Chunk 1/2" },
        { index: 1, range: r(3, 4, 5, 0), tokens: 50, headingPath: [], overlapPrevious: 12, issues: 0 },
      ],
    });
    assert.equal(res.chunker, "fixed");
    assert.equal(res.unit, "chars");
    assert.equal(res.enabled, true);
    assert.equal(res.error, undefined);
    assert.deepEqual(res.chunks[0].heading_path, ["Setup"]);
    // overlapPrevious is a size here, not a range: the bands compute the range.
    assert.equal(res.chunks[1].overlap_previous, null);
  });
  it("reads chunkseam/stats and showChunk", () => {
    assert.deepEqual(parseStatsResult({ chunks: 12, chunksWithIssues: 2, rate: 0.1667, perRule: { CS002: 2 }, perSeverity: {} }), {
      chunks: 12,
      chunks_with_issues: 2,
      rate: 0.1667,
      per_rule: { CS002: 2 },
    });
    const shown = parseShowChunkResult({ text: "abc", index: 3, range: r(1, 0, 2, 0), tokens: 3, headingPath: ["A"], count: 12, startOffset: 5, endOffset: 8 });
    assert.deepEqual(shown, { text: "abc", index: 3, start: 5, end: 8, tokens: 3, heading_path: ["A"], range: r(1, 0, 2, 0), total: 12 });
    assert.equal(parseShowChunkResult({ index: 1 }), undefined);
  });
});

describe("the unit of a chunk's size", () => {
  it("says chars when the unit is chars (the chunk view's title)", () => {
    const shown = parseShowChunkResult({ text: "x", index: 0, tokens: 300, unit: "chars" });
    assert.equal(shown?.unit, "chars");
    assert.equal(sizeLabel(300, shown?.unit), "300 chars");
    assert.equal(sizeLabel(1, "chars"), "1 char");
    assert.equal(sizeLabel(387, "tokens"), "387 tokens");
    assert.equal(sizeLabel(1, undefined), "1 token");
  });
});
