import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { DiscoveryEnv, ProbeResult, classifyProbe, discoverServer, which } from "../src/discovery";

function env(over: Partial<DiscoveryEnv> & { pythons?: Record<string, ProbeResult>; executables?: string[] }): DiscoveryEnv {
  const pythons = over.pythons ?? {};
  const exes = new Set(over.executables ?? []);
  return {
    probe: async (p) => pythons[p] ?? { kind: "no-python", detail: "no such file" },
    isExecutable: async (f) => exes.has(f),
    pathEnv: "/usr/local/bin:/usr/bin",
    platform: "linux",
    ...over,
  };
}

describe("discoverServer", () => {
  it("uses chunkseam.server.path first", async () => {
    const d = await discoverServer(env({ serverPath: "/opt/cs/chunkseam", interpreter: "/py", executables: ["/opt/cs/chunkseam"] }));
    assert.ok(d.ok);
    if (d.ok) {
      assert.deepEqual([d.server.command, ...d.server.args], ["/opt/cs/chunkseam", "server"]);
      assert.equal(d.server.source, "server.path");
    }
  });

  it("reports a server.path that is not executable, without falling through", async () => {
    const d = await discoverServer(env({ serverPath: "/nope", executables: ["/usr/bin/chunkseam"] }));
    assert.equal(d.ok, false);
    if (!d.ok) {
      assert.equal(d.problem, "bad-setting");
      assert.match(d.message, /chunkseam\.server\.path is \/nope/);
    }
  });

  it("runs python -m chunkseam server for chunkseam.interpreter", async () => {
    const d = await discoverServer(env({ interpreter: "/venv/bin/python", pythons: { "/venv/bin/python": { kind: "ok", version: "0.1.0" } } }));
    assert.ok(d.ok);
    if (d.ok) {
      assert.deepEqual([d.server.command, ...d.server.args], ["/venv/bin/python", "-m", "chunkseam", "server"]);
      assert.equal(d.server.version, "0.1.0");
    }
  });

  it("says when the interpreter setting has no chunkseam", async () => {
    const d = await discoverServer(
      env({ interpreter: "/usr/bin/python3", pythons: { "/usr/bin/python3": { kind: "no-chunkseam", detail: "" } } }),
    );
    assert.equal(d.ok, false);
    if (!d.ok) {
      assert.equal(d.problem, "no-chunkseam");
      assert.match(d.message, /chunkseam is not installed in the Python of the setting chunkseam\.interpreter \(\/usr\/bin\/python3\)/);
    }
  });

  it("says when the interpreter setting does not exist", async () => {
    const d = await discoverServer(env({ interpreter: "/gone/python" }));
    assert.equal(d.ok, false);
    if (!d.ok) {
      assert.equal(d.problem, "no-python");
      assert.match(d.message, /^The Python of the setting chunkseam\.interpreter \(\/gone\/python\) cannot be run/);
    }
  });

  it("prefers the Python extension's interpreter over PATH", async () => {
    const d = await discoverServer(
      env({
        pythonExtension: async () => "/proj/.venv/bin/python",
        pythons: { "/proj/.venv/bin/python": { kind: "ok", version: "0.2.0" } },
        executables: ["/usr/bin/chunkseam"],
      }),
    );
    assert.ok(d.ok);
    if (d.ok) {
      assert.equal(d.server.source, "python-extension");
      assert.equal(d.server.command, "/proj/.venv/bin/python");
    }
  });

  it("falls back to PATH when the selected interpreter lacks chunkseam", async () => {
    const d = await discoverServer(
      env({
        pythonExtension: async () => "/usr/bin/python3",
        pythons: { "/usr/bin/python3": { kind: "no-chunkseam", detail: "" } },
        executables: ["/usr/bin/chunkseam"],
      }),
    );
    assert.ok(d.ok);
    if (d.ok) {
      assert.deepEqual([d.server.command, ...d.server.args], ["/usr/bin/chunkseam", "server"]);
      assert.equal(d.server.source, "PATH");
      assert.equal(d.notes.length, 1);
    }
  });

  it("explains what was tried when nothing is found", async () => {
    const none = await discoverServer(env({}));
    assert.equal(none.ok, false);
    if (!none.ok) {
      assert.match(none.message, /chunkseam was not found/);
    }
    const noPkg = await discoverServer(
      env({ pythonExtension: async () => "/usr/bin/python3", pythons: { "/usr/bin/python3": { kind: "no-chunkseam", detail: "" } } }),
    );
    assert.equal(noPkg.ok, false);
    if (!noPkg.ok) {
      assert.equal(noPkg.problem, "no-chunkseam");
      assert.match(noPkg.message, /chunkseam is not installed in the selected Python interpreter \(\/usr\/bin\/python3\)/);
      assert.match(noPkg.message, /pip install chunkseam"\. No chunkseam was found on PATH either\.$/);
    }
  });

  it("expands settings", async () => {
    const d = await discoverServer(
      env({ serverPath: "~/bin/chunkseam", expand: (v) => v.replace("~", "/home/me"), executables: ["/home/me/bin/chunkseam"] }),
    );
    assert.ok(d.ok);
  });
});

describe("which", () => {
  it("searches PATH in order", async () => {
    const found = await which("chunkseam", "/a:/b:/c", "linux", async (f) => f === "/b/chunkseam" || f === "/c/chunkseam");
    assert.equal(found, "/b/chunkseam");
    assert.equal(await which("chunkseam", "", "linux", async () => true), undefined);
  });
});

describe("classifyProbe", () => {
  it("classifies the outcomes of the probe", () => {
    assert.deepEqual(classifyProbe(null, "0.1.0", ""), { kind: "ok", version: "0.1.0" });
    assert.equal(classifyProbe({ code: "ENOENT" }, "", "").kind, "no-python");
    assert.equal(
      classifyProbe({ code: 1 }, "", "Traceback (most recent call last):\nModuleNotFoundError: No module named 'chunkseam'\n").kind,
      "no-chunkseam",
    );
    const err = classifyProbe({ code: 1 }, "", "Traceback…\nImportError: cannot import name 'x'\n");
    assert.deepEqual(err, { kind: "error", detail: "ImportError: cannot import name 'x'" });
  });
});
