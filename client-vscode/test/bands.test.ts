import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { chunkAt, firstChunkEndingAtOrAfter, overlapBetween, planBands, windowFor } from "../src/bands";
import { ChunkInfo } from "../src/protocol";
import { chunk, r } from "./helpers";

describe("planBands", () => {
  it("alternates bands by chunk index and marks every cut but the first", () => {
    const chunks = [chunk(0, r(0, 0, 2, 5)), chunk(1, r(3, 0, 5, 0)), chunk(2, r(5, 0, 7, 3))];
    const plan = planBands(chunks, undefined, 100);
    assert.deepEqual(plan.even, [r(0, 0, 2, 5), r(5, 0, 7, 3)]);
    assert.deepEqual(plan.odd, [r(3, 0, 5, 0)]);
    assert.deepEqual(plan.overlap, []);
    assert.deepEqual(
      plan.cuts.map((c) => [c.chunkNumber, c.position.line, c.position.character, c.atLineStart]),
      [
        [2, 3, 0, true],
        [3, 5, 0, true],
      ],
    );
    assert.equal(plan.painted, 3);
    assert.equal(plan.truncated, false);
  });

  it("marks a mid-line cut as not at line start", () => {
    const chunks = [chunk(0, r(0, 0, 1, 17)), chunk(1, r(1, 17, 2, 0))];
    const plan = planBands(chunks, undefined, 10);
    assert.equal(plan.cuts.length, 1);
    assert.equal(plan.cuts[0].atLineStart, false);
    assert.deepEqual(plan.cuts[0].position, { line: 1, character: 17 });
  });

  it("paints overlaps separately and keeps them out of both bands", () => {
    // chunk 1 starts at 1:10 inside chunk 0, which ends at 2:4
    const chunks = [chunk(0, r(0, 0, 2, 4)), chunk(1, r(1, 10, 4, 0))];
    const plan = planBands(chunks, undefined, 10);
    assert.deepEqual(plan.overlap, [r(1, 10, 2, 4)]);
    assert.deepEqual(plan.even, [r(0, 0, 1, 10)]);
    assert.deepEqual(plan.odd, [r(2, 4, 4, 0)]);
  });

  it("uses the server's overlap_previous when given", () => {
    const chunks = [chunk(0, r(0, 0, 2, 4)), chunk(1, r(1, 10, 4, 0), { overlap_previous: r(1, 10, 2, 4) })];
    assert.deepEqual(overlapBetween(chunks[0], chunks[1]), r(1, 10, 2, 4));
    assert.deepEqual(overlapBetween(undefined, chunks[1]), r(1, 10, 2, 4));
    assert.equal(overlapBetween(chunks[0], chunk(1, r(2, 4, 3, 0))), null, "touching chunks do not overlap");
  });

  it("drops a band entirely covered by overlaps", () => {
    const chunks = [chunk(0, r(0, 0, 3, 0)), chunk(1, r(1, 0, 2, 0)), chunk(2, r(1, 0, 5, 0))];
    const plan = planBands(chunks, undefined, 10);
    assert.deepEqual(plan.odd, [], "chunk 1 lies inside the overlaps of its neighbours");
    for (const band of [...plan.even, ...plan.odd]) {
      assert.ok(band.start.line < band.end.line || band.start.character < band.end.character, "no empty band");
    }
  });

  it("paints only the chunks that touch the window, and at most the cap", () => {
    const chunks: ChunkInfo[] = [];
    for (let i = 0; i < 10_000; i++) {
      chunks.push(chunk(i, r(i * 3, 0, i * 3 + 2, 10)));
    }
    const plan = planBands(chunks, { start: 300, end: 359 }, 1000);
    // lines 300..359 are chunks 100..119
    assert.equal(plan.painted, 20);
    assert.equal(plan.even.length + plan.odd.length, 20);
    assert.equal(plan.cuts[0].chunkNumber, 101);
    const capped = planBands(chunks, { start: 0, end: 30_000 }, 50);
    assert.equal(capped.painted, 50);
    assert.equal(capped.truncated, true);
    assert.equal(capped.even.length + capped.odd.length, 50);
  });

  it("paints a chunk that spans the whole window", () => {
    const chunks = [chunk(0, r(0, 0, 10, 0)), chunk(1, r(10, 0, 50_000, 0)), chunk(2, r(50_000, 0, 50_010, 0))];
    const plan = planBands(chunks, { start: 20_000, end: 20_040 }, 10);
    assert.equal(plan.painted, 1);
    assert.deepEqual(plan.odd, [r(10, 0, 50_000, 0)]);
  });

  it("handles no chunks and a zero cap", () => {
    assert.equal(planBands([], undefined, 10).painted, 0);
    assert.equal(planBands([chunk(0, r(0, 0, 1, 0))], undefined, 0).painted, 0);
  });
});

describe("windowFor", () => {
  it("unions visible ranges, widens by the margin and clamps", () => {
    assert.deepEqual(windowFor([{ start: 100, end: 140 }, { start: 300, end: 320 }], 1000, 50), { start: 50, end: 370 });
    assert.deepEqual(windowFor([{ start: 10, end: 40 }], 45, 50), { start: 0, end: 44 });
    assert.equal(windowFor([], 10, 5), undefined);
  });
});

describe("chunk lookup", () => {
  const chunks = [chunk(0, r(0, 0, 2, 5)), chunk(1, r(2, 5, 6, 0)), chunk(2, r(8, 0, 9, 0))];
  it("finds the first chunk ending at or after a line", () => {
    assert.equal(firstChunkEndingAtOrAfter(chunks, 0), 0);
    assert.equal(firstChunkEndingAtOrAfter(chunks, 3), 1);
    assert.equal(firstChunkEndingAtOrAfter(chunks, 7), 2);
    assert.equal(firstChunkEndingAtOrAfter(chunks, 10), 3);
  });
  it("finds the chunk at a position, the later one at a shared boundary", () => {
    assert.equal(chunkAt(chunks, { line: 1, character: 3 })?.index, 0);
    assert.equal(chunkAt(chunks, { line: 2, character: 5 })?.index, 1);
    assert.equal(chunkAt(chunks, { line: 7, character: 0 }), undefined);
    assert.equal(chunkAt(chunks, { line: 8, character: 4 })?.index, 2);
  });
});
