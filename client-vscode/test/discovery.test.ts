import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import {
  DiscoveryEnv,
  LAUNCH_SCRIPT,
  PROBE_SCRIPT,
  PYTHON_SERVER_ARGS,
  ProbeResult,
  classifyProbe,
  discoverServer,
  pythonEnv,
  which,
} from "../src/discovery";

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

  it("runs chunkseam's server module (without the working directory on sys.path) for chunkseam.interpreter", async () => {
    const d = await discoverServer(env({ interpreter: "/venv/bin/python", pythons: { "/venv/bin/python": { kind: "ok", version: "0.1.0" } } }));
    assert.ok(d.ok);
    if (d.ok) {
      assert.deepEqual([d.server.command, ...d.server.args], ["/venv/bin/python", "-c", LAUNCH_SCRIPT, "server"]);
      assert.ok(!d.server.args.includes("-m"), "-m puts the working directory first on sys.path");
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
  it("never searches the working directory (empty or relative PATH entries)", async () => {
    const asked: string[] = [];
    const found = await which("chunkseam", ".:bin::./x:/usr/bin", "linux", async (f) => {
      asked.push(f);
      return true;
    });
    assert.equal(found, "/usr/bin/chunkseam");
    assert.deepEqual(asked, ["/usr/bin/chunkseam"]);
    assert.equal(await which("chunkseam", ".;C:\\tools", "win32", async (f) => f.startsWith(".")), undefined);
  });
});

describe("untrusted workspaces", () => {
  const inside = (f: string): boolean => f.startsWith("/repo/");
  it("do not run a server or interpreter from inside the workspace", async () => {
    const server = await discoverServer(
      env({ serverPath: "/repo/bin/chunkseam", executables: ["/repo/bin/chunkseam"], trusted: false, insideWorkspace: inside }),
    );
    assert.equal(server.ok, false);
    if (!server.ok) {
      assert.equal(server.problem, "bad-setting");
      assert.match(server.message, /chunkseam\.server\.path: \/repo\/bin\/chunkseam is inside the workspace, which is not trusted/);
    }
    let probed = false;
    const interp = await discoverServer(
      env({
        interpreter: "${workspaceFolder}/.venv/bin/python",
        expand: (v) => v.replace("${workspaceFolder}", "/repo"),
        probe: async () => {
          probed = true;
          return { kind: "ok", version: "1" };
        },
        trusted: false,
        insideWorkspace: inside,
      }),
    );
    assert.equal(interp.ok, false);
    assert.equal(probed, false, "a workspace interpreter must not even be probed");
  });
  it("skip the Python extension's interpreter when it is the workspace's, and fall back to PATH", async () => {
    const d = await discoverServer(
      env({
        pythonExtension: async () => "/repo/.venv/bin/python",
        pythons: { "/repo/.venv/bin/python": { kind: "ok", version: "1" } },
        executables: ["/usr/bin/chunkseam"],
        trusted: false,
        insideWorkspace: inside,
      }),
    );
    assert.ok(d.ok);
    if (d.ok) {
      assert.equal(d.server.source, "PATH");
      assert.match(d.notes.join(" "), /not trusted/);
    }
  });
  it("trusted: the workspace's own virtual environment is fine", async () => {
    const d = await discoverServer(
      env({
        pythonExtension: async () => "/repo/.venv/bin/python",
        pythons: { "/repo/.venv/bin/python": { kind: "ok", version: "1" } },
        trusted: true,
        insideWorkspace: inside,
      }),
    );
    assert.ok(d.ok);
    if (d.ok) {
      assert.deepEqual(d.server.args, [...PYTHON_SERVER_ARGS]);
    }
  });
});

/**
 * The scripts themselves, run by a real Python in a directory full of shadow
 * modules that would write a marker file if imported. CHUNKSEAM_PYTHON is a
 * Python with chunkseam installed (the test driver sets it); skipped without.
 */
describe("Python never imports from its working directory", () => {
  const python = process.env.CHUNKSEAM_PYTHON;
  const run = (args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(python as string, args, { cwd, env: { ...pythonEnv(process.env), PYTHONSAFEPATH: "" }, timeout: 120_000 }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
    });
  const shadowDir = (): { dir: string; marker: string } => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkseam-shadow-"));
    const marker = path.join(dir, "IMPORTED");
    for (const mod of ["chunkseam", "tiktoken", "markdown_it", "runpy"]) {
      fs.writeFileSync(
        path.join(dir, `${mod}.py`),
        `open(${JSON.stringify(marker)}, "a").write(${JSON.stringify(mod + "\n")})\nraise SystemExit("shadow ${mod} imported")\n`,
      );
    }
    fs.writeFileSync(path.join(dir, "doc.md"), "# Title\n\nSome text that is long enough to be chunked. It goes on.\n");
    return { dir, marker };
  };

  it("the probe", { skip: !python && "CHUNKSEAM_PYTHON is not set" }, async () => {
    const { dir, marker } = shadowDir();
    try {
      const r = await run(["-X", "importtime", "-c", PROBE_SCRIPT], dir);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(classifyProbe(null, r.stdout, r.stderr).kind, "ok");
      // the version is read from the package's files, not by importing it (a cold start's 0.4 s)
      assert.doesNotMatch(r.stderr, /\|\s*chunkseam(\.|\s*$)/m, "the probe imported chunkseam");
      assert.equal(fs.existsSync(marker), false, fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the launcher, running a command that imports the tokenizer and the Markdown parser", { skip: !python && "CHUNKSEAM_PYTHON is not set" }, async () => {
    const { dir, marker } = shadowDir();
    try {
      const launcher = PYTHON_SERVER_ARGS.slice(0, -1); // without "server"
      const r = await run([...launcher, "lint", "--approximate-tokens", "doc.md"], dir);
      assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr}`);
      assert.equal(fs.existsSync(marker), false, fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");
      // …and the same directory does shadow them under `-m` (the test can fail)
      const unsafe = await run(["-m", "chunkseam", "lint", "doc.md"], dir);
      assert.notEqual(unsafe.code, 0);
      assert.equal(fs.existsSync(marker), true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
