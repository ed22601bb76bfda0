/**
 * Finding the chunkseam server to run. The decisions are pure; the effects
 * (running a Python, looking at the file system) are injected, so the order
 * and the messages are unit-tested without VS Code.
 *
 * Order:
 *  1. `chunkseam.server.path`: a `chunkseam` executable, run as `PATH server`;
 *  2. `chunkseam.interpreter`: a Python with chunkseam, run as `python -m chunkseam server`;
 *  3. the Python extension's active interpreter, if it has chunkseam;
 *  4. `chunkseam` on PATH.
 * Settings the user wrote win over what the Python extension picked; a setting
 * that points at something unusable is reported, not silently skipped.
 */

import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the output channel and messages. */
  source: "server.path" | "interpreter" | "python-extension" | "PATH";
  /** chunkseam version found by probing, when known. */
  version?: string;
}

export type ProbeResult =
  | { kind: "ok"; version: string }
  | { kind: "no-python"; detail: string }
  | { kind: "no-chunkseam"; detail: string }
  | { kind: "error"; detail: string };

export interface DiscoveryEnv {
  serverPath?: string | null;
  interpreter?: string | null;
  /** The Python extension's interpreter for the workspace, if it is installed. */
  pythonExtension?: () => Promise<string | undefined>;
  /** Probe a Python: does it exist, and which chunkseam does it import? */
  probe: (python: string) => Promise<ProbeResult>;
  /** Is this an executable file? */
  isExecutable: (file: string) => Promise<boolean>;
  /** The PATH value and platform, for the PATH lookup. */
  pathEnv?: string;
  platform?: NodeJS.Platform;
  /** Expand `~` and `${workspaceFolder}` in settings. */
  expand?: (value: string) => string;
}

export type Discovery =
  | { ok: true; server: ServerCommand; notes: string[] }
  | { ok: false; problem: "no-python" | "no-chunkseam" | "bad-setting"; message: string; notes: string[] };

export const INSTALL_URL = "https://github.com/chunkseam/chunkseam#install";

/** Find `name` on PATH (with PATHEXT on Windows). */
export async function which(
  name: string,
  pathEnv: string,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => Promise<boolean>,
): Promise<string | undefined> {
  const sep = platform === "win32" ? ";" : ":";
  const exts = platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of pathEnv.split(sep)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (await isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** One sentence about a failed probe; `where` is like "the selected Python interpreter". */
function describeProbe(python: string, where: string, probe: ProbeResult): string {
  const it = `${where} (${python})`;
  switch (probe.kind) {
    case "no-python":
      return `${capitalize(it)} cannot be run (${probe.detail}).`;
    case "no-chunkseam":
      return `chunkseam is not installed in ${it}; install it with "pip install chunkseam".`;
    case "error":
      return `${capitalize(it)} could not import chunkseam: ${probe.detail.replace(/\.?$/, ".")}`;
    default:
      return "";
  }
}

export async function discoverServer(env: DiscoveryEnv): Promise<Discovery> {
  const expand = env.expand ?? ((v: string) => v);
  const notes: string[] = [];

  const serverPath = env.serverPath?.trim();
  if (serverPath) {
    const exe = expand(serverPath);
    if (await env.isExecutable(exe)) {
      return { ok: true, server: { command: exe, args: ["server"], source: "server.path" }, notes };
    }
    return {
      ok: false,
      problem: "bad-setting",
      message: `The setting chunkseam.server.path is ${exe}, which is not an executable file.`,
      notes,
    };
  }

  const interpreter = env.interpreter?.trim();
  if (interpreter) {
    const python = expand(interpreter);
    const probe = await env.probe(python);
    if (probe.kind === "ok") {
      return {
        ok: true,
        server: { command: python, args: ["-m", "chunkseam", "server"], source: "interpreter", version: probe.version },
        notes,
      };
    }
    return {
      ok: false,
      problem: probe.kind === "no-python" ? "no-python" : "no-chunkseam",
      message: describeProbe(python, "the Python of the setting chunkseam.interpreter", probe),
      notes,
    };
  }

  let pythonProblem: ProbeResult | undefined;
  let extPython: string | undefined;
  if (env.pythonExtension) {
    try {
      extPython = await env.pythonExtension();
    } catch (e) {
      notes.push(`The Python extension did not give an interpreter: ${String(e)}`);
    }
    if (extPython) {
      const probe = await env.probe(extPython);
      if (probe.kind === "ok") {
        return {
          ok: true,
          server: {
            command: extPython,
            args: ["-m", "chunkseam", "server"],
            source: "python-extension",
            version: probe.version,
          },
          notes,
        };
      }
      pythonProblem = probe;
      notes.push(describeProbe(extPython, "the selected Python interpreter", probe));
    }
  }

  const onPath = await which("chunkseam", env.pathEnv ?? "", env.platform ?? "linux", env.isExecutable);
  if (onPath) {
    return { ok: true, server: { command: onPath, args: ["server"], source: "PATH" }, notes };
  }

  if (extPython && pythonProblem) {
    return {
      ok: false,
      problem: pythonProblem.kind === "no-python" ? "no-python" : "no-chunkseam",
      message:
        describeProbe(extPython, "the selected Python interpreter", pythonProblem) +
        " No chunkseam was found on PATH either.",
      notes,
    };
  }
  return {
    ok: false,
    problem: "no-chunkseam",
    message:
      "chunkseam was not found: no Python interpreter is selected (the Python extension is not installed, " +
      "and chunkseam.interpreter is not set) and there is no chunkseam on PATH.",
    notes,
  };
}

/** Classify the outcome of running `python -c <PROBE_SCRIPT>`. */
export function classifyProbe(
  error: { code?: string | number | null; message?: string } | null,
  stdout: string,
  stderr: string,
): ProbeResult {
  if (error && (error.code === "ENOENT" || error.code === "EACCES")) {
    return { kind: "no-python", detail: error.code === "ENOENT" ? "no such file" : "permission denied" };
  }
  const out = stdout.trim();
  if (!error && /^\d/.test(out)) {
    return { kind: "ok", version: out.split(/\s+/)[0] };
  }
  if (/No module named '?chunkseam/.test(stderr)) {
    return { kind: "no-chunkseam", detail: "ModuleNotFoundError" };
  }
  const lastLine = stderr.trim().split(/\r?\n/).pop() ?? "";
  return { kind: "error", detail: lastLine || error?.message || "unknown error" };
}

export const PROBE_SCRIPT = "import sys, chunkseam; sys.stdout.write(chunkseam.__version__)";
