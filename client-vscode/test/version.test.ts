import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { checkServerVersion, compareVersions } from "../src/version";

describe("compareVersions", () => {
  const cases: [string, string, number][] = [
    ["0.1.0", "0.1.0", 0],
    ["0.1", "0.1.0", 0],
    ["0.2.0", "0.1.9", 1],
    ["0.10.0", "0.9.0", 1],
    ["1.0.0", "0.99.99", 1],
    ["0.1.0.dev3", "0.1.0", -1],
    ["0.1.0rc1", "0.1.0", -1],
    ["0.1.0-beta.1", "0.1.0", -1],
    ["0.1.0.post1", "0.1.0", 0],
    ["0.1.0+local", "0.1.0", 0],
    ["v0.1.0", "0.1.0", 0],
  ];
  for (const [a, b, sign] of cases) {
    it(`${a} vs ${b}`, () => {
      assert.equal(Math.sign(compareVersions(a, b) ?? NaN), sign);
    });
  }
  it("is undefined for nonsense", () => {
    assert.equal(compareVersions("banana", "0.1.0"), undefined);
  });
});

describe("checkServerVersion", () => {
  it("accepts a new enough server", () => {
    assert.deepEqual(checkServerVersion({ name: "chunkseam", version: "0.1.0" }, "0.1.0", "0.1.0"), { ok: true, version: "0.1.0" });
  });
  it("names both versions when the server is too old", () => {
    const r = checkServerVersion({ name: "chunkseam", version: "0.0.9" }, "0.3.0", "0.2.0");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.reason, "too-old");
      assert.match(r.message, /chunkseam 0\.0\.9 is too old/);
      assert.match(r.message, /extension 0\.3\.0/);
      assert.match(r.message, /0\.2\.0 or newer/);
      assert.match(r.message, /pip install -U chunkseam/);
    }
  });
  it("refuses a server that does not say its version", () => {
    const r = checkServerVersion(undefined, "0.1.0", "0.1.0");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.reason, "unknown");
    }
  });
});
