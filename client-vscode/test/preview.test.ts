import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { chunkTitle, clip, escapeHtml, issuesByChunk, renderPreviewHtml } from "../src/preview";
import { chunk, r } from "./helpers";

const text = "# Setup\n\nSet the timeout to\n30 seconds <b>now</b>.\n";
const chunks = [
  chunk(0, r(0, 0, 2, 18), { heading_path: ["Setup"], tokens: 9, issues: 1 }),
  chunk(1, r(2, 8, 3, 22), { heading_path: ["Setup"], tokens: 8, overlap_previous: r(2, 8, 2, 18) }),
];

describe("renderPreviewHtml", () => {
  const html = renderPreviewHtml({
    title: "doc.md",
    text,
    chunks,
    issues: [{ code: "CS002", message: "chunk 1 ends mid-sentence", severity: "warning", range: r(2, 17, 2, 18) }],
    nonce: "N0NCE",
    cspSource: "vscode-resource:",
  });
  it("has one section per chunk with its title", () => {
    assert.equal((html.match(/<section class="chunk/g) ?? []).length, 2);
    assert.match(html, /Chunk 1\/2 · 9 tokens · Setup · 1 issue/);
    assert.match(html, /2 chunks · 1 broken \(50%\)/);
  });
  it("escapes the document text and marks the overlap", () => {
    assert.ok(!html.includes("<b>now</b>"));
    assert.ok(html.includes("&lt;b&gt;now&lt;/b&gt;"));
    assert.match(html, /<mark class="overlap">timeout to<\/mark>/);
  });
  it("lists issues under their chunk and sets a strict CSP", () => {
    assert.match(html, /<span class="code">CS002<\/span>/);
    assert.match(html, /default-src 'none'/);
    assert.match(html, /<script nonce="N0NCE">/);
  });
});

describe("summary", () => {
  it("takes the broken count from the server's stats when given", () => {
    const html = renderPreviewHtml({
      title: "d", text, chunks: [chunk(0, r(0, 0, 1, 0), { issues: 1 }), chunk(1, r(1, 0, 2, 0), { issues: 1 })],
      issues: [], nonce: "n", cspSource: "c", stats: { chunks: 2, chunks_with_issues: 1 },
    });
    assert.match(html, /2 chunks · 1 broken \(50%\)/);
  });
});

describe("helpers", () => {
  it("clips long chunks keeping both ends", () => {
    const c = clip("a".repeat(50) + "MIDDLE" + "z".repeat(50), 20);
    assert.equal(c.head, "a".repeat(12));
    assert.equal(c.tail, "z".repeat(8));
    assert.equal(c.omitted, 86);
    assert.deepEqual(clip("short", 20), { head: "short", tail: "", omitted: 0 });
  });
  it("assigns an issue to the chunk containing its start", () => {
    const m = issuesByChunk(chunks, [
      { code: "X", message: "", severity: "hint", range: r(3, 0, 3, 1) },
      { code: "Y", message: "", severity: "hint", range: r(9, 0, 9, 1) },
    ]);
    assert.deepEqual([...m.keys()], [1]);
  });
  it("titles and escapes", () => {
    assert.equal(chunkTitle(chunk(3, r(0, 0, 1, 0), { tokens: 387, heading_path: ["Setup", "Database"] }), 12), "Chunk 4/12 · 387 tokens · Setup › Database");
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});
