import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { compareCommandLine, defaultStrategiesFor, settingFlags, webviewSafe } from "../src/compareArgs";

describe("compare command line", () => {
  it("reuses the server's interpreter or executable", () => {
    assert.deepEqual(
      compareCommandLine({ command: "/venv/bin/python", args: ["-m", "chunkseam", "server"], source: "interpreter" }, "/d/a.md", ["fixed", "markdown"]),
      { command: "/venv/bin/python", args: ["-m", "chunkseam", "compare", "/d/a.md", "--chunkers", "fixed,markdown", "--format", "html"] },
    );
    assert.deepEqual(
      compareCommandLine({ command: "/usr/bin/chunkseam", args: ["server"], source: "PATH" }, "a.md", ["code"]).args,
      ["compare", "a.md", "--chunkers", "code", "--format", "html"],
    );
  });
  it("passes the editor's settings as flags", () => {
    assert.deepEqual(
      settingFlags({ size: 44, unit: "tokens", ignore: ["CS104"], severity: { CS002: "error" }, approximateTokens: true, chunker: "x", enable: true }),
      ["--size", "44", "--unit", "tokens", "--approximate-tokens", "--ignore", "CS104", "--severity", "CS002=error"],
    );
    assert.deepEqual(
      compareCommandLine({ command: "chunkseam", args: ["server"], source: "PATH" }, "a.md", ["fixed"], { overlap: 8 }).args,
      ["compare", "a.md", "--chunkers", "fixed", "--overlap", "8", "--format", "html"],
    );
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
