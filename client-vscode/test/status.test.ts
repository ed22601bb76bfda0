import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { formatConfigErrors, formatSettings, formatStatus, percent, settingName } from "../src/status";

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
  it("says which chunker is simulated and where that came from", () => {
    const v = formatStatus({
      chunks: 3, chunks_with_issues: 0, rate: 0, per_rule: {},
      simulated: "simulating chunker llamaindex, size 512 cl100k_base tokens (from /p/chunkseam.toml)",
    });
    assert.ok(v.tooltip.includes("simulating chunker llamaindex, size 512 cl100k\\_base tokens"));
    assert.ok(v.tooltip.includes("/p/chunkseam\\.toml"));
    assert.doesNotMatch(formatStatus({ chunks: 3, chunks_with_issues: 0, rate: 0, per_rule: {} }).tooltip, /simulating/);
  });
  it("rounds percentages", () => {
    assert.equal(percent(1, 3), 33);
    assert.equal(percent(2, 3), 67);
    assert.equal(percent(0, 0), 0);
  });
});

describe("formatConfigErrors", () => {
  it("an unusable config file: an error state, never the counts of a silent default", () => {
    const v = formatConfigErrors(["chunkseam.toml: not valid TOML: Expected '=' (at line 2, column 6)"], true);
    assert.equal(v.text, "$(error) ⧉ config error");
    assert.match(v.tooltip, /not analysed/);
    assert.match(v.tooltip, /not valid TOML/);
    assert.doesNotMatch(v.text, /chunks/);
  });
  it("bad values: the counts, marked", () => {
    const counts = formatStatus({ chunks: 6, chunks_with_issues: 0, rate: 0, per_rule: {} });
    const v = formatConfigErrors(["chunkseam.toml: size = \"big\": expected a positive integer"], false, counts);
    assert.equal(v.text, "$(warning) ⧉ 6 chunks · 0 broken (0%) · config error");
    assert.match(v.tooltip, /left out/);
  });
});

describe("settings and their layers", () => {
  const layers = [
    { key: "chunker", value: "fixed", source: "/w/chunkseam.toml" },
    { key: "size", value: 128, source: "editor", overrides: "/w/chunkseam.toml" },
    { key: "overlap", value: 0, source: "default" },
    { key: "min-tokens", value: 8, source: "editor" },
  ];
  const layerOf = (key: string) => (key === "size" ? "user setting" : key === "min-tokens" ? "workspace setting" : undefined);
  it("names the layer of each value", () => {
    const text = formatSettings(layers, layerOf).join("\n");
    assert.match(text, /\| chunker \| fixed \| chunkseam\\\.toml \|/);
    assert.match(text, /\| size \| 128 \| user setting ⚠ overrides chunkseam\\\.toml \|/);
    assert.match(text, /\| overlap \| 0 \| default \|/);
    assert.match(text, /\| min\\-tokens \| 8 \| workspace setting \|/);
    assert.match(text, /An editor setting overrides chunkseam\\\.toml: `chunkseam lint`, pre-commit and CI read the file and will not see it\./);
  });
  it("marks an override in the status bar's text, and says nothing without layers", () => {
    const v = formatStatus({ chunks: 2, chunks_with_issues: 0, rate: 0, per_rule: {}, settings: layers }, {}, layerOf);
    assert.equal(v.text, "⧉ 2 chunks · 0 broken (0%) · ⚠ override");
    assert.deepEqual(formatSettings(undefined, layerOf), []);
    assert.equal(formatStatus({ chunks: 2, chunks_with_issues: 0, rate: 0, per_rule: {} }).text, "⧉ 2 chunks · 0 broken (0%)");
  });
  it("maps chunkseam.toml keys to the editor's setting names", () => {
    assert.equal(settingName("min-tokens"), "minTokens");
    assert.equal(settingName("extend-select"), "extendSelect");
    assert.equal(settingName("size"), "size");
  });
});
