import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { formatStatus, percent } from "../src/status";

describe("formatStatus", () => {
  it("formats the status bar text", () => {
    const v = formatStatus({ chunks: 12, chunks_with_issues: 2, rate: 2 / 12, per_rule: { CS002: 1, CS003: 2 } });
    assert.equal(v.text, "⧉ 12 chunks · 2 broken (17%)");
    assert.equal(v.warning, true);
    // most frequent rule first
    assert.ok(v.tooltip.indexOf("CS003") < v.tooltip.indexOf("CS002"));
    assert.match(v.tooltip, /\| CS003 \| 2 \|/);
  });
  it("singular, zero and empty documents", () => {
    assert.equal(formatStatus({ chunks: 1, chunks_with_issues: 0, rate: 0, per_rule: {} }).text, "⧉ 1 chunk · 0 broken (0%)");
    const empty = formatStatus({ chunks: 0, chunks_with_issues: 0, rate: 0, per_rule: { CS001: 0 } });
    assert.equal(empty.text, "⧉ 0 chunks · 0 broken (0%)");
    assert.match(empty.tooltip, /No issues/);
    assert.equal(empty.warning, false);
  });
  it("names rules when names are known and escapes markdown", () => {
    const v = formatStatus({ chunks: 3, chunks_with_issues: 1, rate: 1 / 3, per_rule: { CS002: 1 } }, { CS002: "mid-sentence" });
    assert.match(v.tooltip, /CS002 mid\\-sentence/);
  });
  it("rounds percentages", () => {
    assert.equal(percent(1, 3), 33);
    assert.equal(percent(2, 3), 67);
    assert.equal(percent(0, 0), 0);
  });
});
