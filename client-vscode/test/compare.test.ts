import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { defaultStrategiesFor, parseCompareResult, strategyItems, validatePick, webviewSafe } from "../src/compareArgs";

describe("compare strategies", () => {
  it("offers what the server has, langchain included, in a stable order", () => {
    const names = strategyItems(["sentence", "recursive", "langchain", "myplugin", "fixed"]).map((s) => s.name);
    assert.deepEqual(names, ["fixed", "recursive", "langchain", "sentence", "myplugin"]);
    assert.ok(strategyItems(undefined).some((s) => s.name === "langchain"));
    assert.match(strategyItems(["myplugin"])[0].detail, /plugin/);
  });
  it("requires two strategies", () => {
    assert.match(validatePick([]) ?? "", /at least two/);
    assert.match(validatePick(["fixed"]) ?? "", /at least two/);
    assert.equal(validatePick(["fixed", "recursive"]), undefined);
  });
  it("reads the server's answer", () => {
    const r = parseCompareResult({ available: ["fixed", 3], strategies: ["fixed"], errors: { langchain: "ImportError" }, html: "<p>x</p>" });
    assert.deepEqual(r, { available: ["fixed"], strategies: ["fixed"], errors: { langchain: "ImportError" }, html: "<p>x</p>" });
    assert.equal(parseCompareResult(null), undefined);
    assert.equal(parseCompareResult({})?.html, null);
  });
  it("picks defaults by language", () => {
    assert.deepEqual(defaultStrategiesFor("python"), ["fixed", "recursive", "code"]);
    assert.ok(defaultStrategiesFor("markdown").includes("markdown"));
  });
  it("puts a no-network CSP into the page", () => {
    const html = webviewSafe("<html><head><title>x</title></head><body>hi</body></html>");
    assert.match(html, /<head><meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    assert.match(webviewSafe("<p>bare</p>"), /^<!DOCTYPE html><html><head><meta http-equiv/);
  });
});
