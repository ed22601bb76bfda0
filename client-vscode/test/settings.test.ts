import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ENGINE_KEYS, Inspected, affectsServer, explicitValue, keepReportWhenCancelled, needsRestart, serverSettings } from "../src/settings";

// package.json is read to check that every engine key is contributed.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require("../../package.json") as {
  contributes: { configuration: { properties: Record<string, { default?: unknown; type?: unknown; description?: string; markdownDescription?: string; enum?: unknown[] }> } };
};

describe("explicitValue", () => {
  it("never returns the default", () => {
    assert.equal(explicitValue({ defaultValue: 400 }, true, false), undefined);
  });
  it("prefers the most specific scope, language values first", () => {
    const i: Inspected<number> = { defaultValue: 1, globalValue: 2, workspaceValue: 3, workspaceFolderValue: 4 };
    assert.equal(explicitValue(i, true, false), 4);
    assert.equal(explicitValue({ ...i, globalLanguageValue: 5 }, true, false), 5);
    assert.equal(explicitValue({ globalValue: 2, workspaceValue: 3 }, true, false), 3);
  });
  it("ignores workspace values of restricted settings in untrusted workspaces", () => {
    const i: Inspected<string[]> = { globalValue: ["mine"], workspaceValue: ["evil_plugin"] };
    assert.deepEqual(explicitValue(i, false, true), ["mine"]);
    assert.deepEqual(explicitValue(i, true, true), ["evil_plugin"]);
    assert.equal(explicitValue({ workspaceValue: ["evil_plugin"] }, false, true), undefined);
    assert.deepEqual(explicitValue({ workspaceValue: [] }, false, false), []);
  });
});

describe("serverSettings", () => {
  const table: Record<string, Inspected> = {
    size: { defaultValue: 400, workspaceValue: 200 },
    unit: { defaultValue: "tokens", globalValue: "chars" },
    chunker: { defaultValue: "auto", workspaceValue: "auto" },
    overlap: { defaultValue: 0 },
    severity: { defaultValue: {}, workspaceValue: { CS002: "error" } },
    danglingWords: { defaultValue: null, globalValue: null },
    plugins: { defaultValue: [], workspaceValue: ["x"] },
    logLevel: { defaultValue: "info", globalValue: "debug" },
    "server.path": { globalValue: "/bin/chunkseam" },
    "bands.enable": { globalValue: false },
  };
  const inspect = (key: string): Inspected | undefined => table[key];

  it("sends only what the user set, only keys the server reads", () => {
    assert.deepEqual(serverSettings(inspect, true), {
      size: 200,
      unit: "chars",
      severity: { CS002: "error" },
      plugins: ["x"],
      logLevel: "debug",
    });
  });
  it("drops restricted workspace values when untrusted", () => {
    assert.equal("plugins" in serverSettings(inspect, false), false);
  });
  it("sends an explicit chunker", () => {
    assert.deepEqual(serverSettings((k) => (k === "chunker" ? { workspaceValue: "fixed" } : undefined), true), { chunker: "fixed" });
  });
});

describe("change classification", () => {
  it("restarts for the settings that choose the process only", () => {
    assert.equal(needsRestart((s) => s === "chunkseam.interpreter"), true);
    assert.equal(needsRestart((s) => s === "chunkseam.server.path"), true);
    assert.equal(needsRestart((s) => s === "chunkseam.size"), false);
    assert.equal(affectsServer((s) => s === "chunkseam.size"), true);
    assert.equal(affectsServer((s) => s === "chunkseam.bands.enable"), false);
  });
});

describe("package.json contributes every server setting", () => {
  const props = manifest.contributes.configuration.properties;
  for (const key of ENGINE_KEYS) {
    it(`chunkseam.${key}`, () => {
      const p = props[`chunkseam.${key}`];
      assert.ok(p, `chunkseam.${key} is contributed`);
      assert.ok("default" in p, "has a default");
      assert.ok(p.type, "has a type");
      assert.ok(p.description || p.markdownDescription, "has a description");
    });
  }
  it("has the client settings", () => {
    for (const key of ["server.path", "interpreter", "trace.server", "bands.enable", "logLevel"]) {
      assert.ok(props[`chunkseam.${key}`], key);
    }
    assert.deepEqual(props["chunkseam.trace.server"].enum, ["off", "messages", "verbose"]);
    // unset (null) by default: the project's file decides
    assert.deepEqual(props["chunkseam.unit"].enum, ["tokens", "chars", null]);
    for (const key of ["chunker", "size", "overlap", "unit", "encoding"]) {
      assert.equal(props[`chunkseam.${key}`].default, null, key);
      assert.match(String(props[`chunkseam.${key}`].markdownDescription), /overrides the project's file in this editor only/, key);
    }
  });
});

describe("keepReportWhenCancelled (no flicker on pull diagnostics)", () => {
  class Cancelled extends Error {}
  const token = { isCancellationRequested: false };
  it("passes the report through when not cancelled", async () => {
    token.isCancellationRequested = false;
    assert.deepEqual(await keepReportWhenCancelled(token, async () => ({ items: [1] }), () => new Cancelled()), { items: [1] });
  });
  it("turns the empty report of a cancelled request into a cancellation (the client keeps the old one)", async () => {
    const t = { isCancellationRequested: false };
    const pending = keepReportWhenCancelled(
      t,
      async () => {
        t.isCancellationRequested = true; // the user typed while the server worked
        return { items: [] };
      },
      () => new Cancelled(),
    );
    await assert.rejects(pending, Cancelled);
  });
  it("turns a failure after cancellation into a cancellation, and keeps other failures", async () => {
    await assert.rejects(
      keepReportWhenCancelled({ isCancellationRequested: true }, async () => Promise.reject(new Error("RequestCancelled")), () => new Cancelled()),
      Cancelled,
    );
    await assert.rejects(
      keepReportWhenCancelled({ isCancellationRequested: false }, async () => Promise.reject(new Error("boom")), () => new Cancelled()),
      /boom/,
    );
  });
});

describe("server-only settings", () => {
  it("sends maxDiagnostics and logLevel", () => {
    const values: Record<string, Inspected> = { maxDiagnostics: { defaultValue: 1000, globalValue: 50 }, logLevel: { defaultValue: "info" } };
    assert.deepEqual(serverSettings((k) => values[k], true), { maxDiagnostics: 50 });
  });
});
