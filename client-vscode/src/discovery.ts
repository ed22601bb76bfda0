/**
 * Finding the chunkseam server to run. The decisions are pure; the effects
 * (running a Python, looking at the file system) are injected, so the order
 * and the messages are unit-tested without VS Code.
 *
 * Order:
 *  1. `chunkseam.server.path`: a `chunkseam` executable, run as `PATH server`;
 *  2. `chunkseam.interpreter`: a Python with chunkseam, run with PYTHON_SERVER_ARGS
 *     (`python -m chunkseam server`, minus the working directory on sys.path);
 *  3. the Python extension's active interpreter, if it has chunkseam;
 *  4. `chunkseam` on PATH.
 * Settings the user wrote win over what the Python extension picked; a setting
 * that points at something unusable is reported, not silently skipped.
 *
 * Opening a folder must never run code from it. `python -m X` and `python -c`
 * put the working directory first on sys.path, so a `chunkseam.py`,
 * `tiktoken.py` or `markdown_it.py` in the folder would be imported. Hence:
 * Python is run with scripts that drop that entry before importing anything
 * (the effect of `-P`, which Python 3.10 lacks), with PYTHONSAFEPATH set, and
 * in a working directory that is not the workspace (the server learns the
 * workspace from `initialize`); relative PATH entries are never searched; and
 * in an untrusted workspace no program inside a workspace folder is run.
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
  /** Is the workspace trusted? (Untrusted: no program inside a workspace folder is run.) */
  trusted?: boolean;
  /** Is this file inside one of the workspace folders? */
  insideWorkspace?: (file: string) => boolean;
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
  const isAbsolute = platform === "win32" ? path.win32.isAbsolute : path.posix.isAbsolute;
  for (const dir of pathEnv.split(sep)) {
    // An empty or relative entry ("", ".", "bin") means the working
    // directory: never look for the server there.
    if (!dir || !isAbsolute(dir)) {
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

/** Why a program must not run in this workspace, or undefined when it may. */
function workspaceProgram(env: DiscoveryEnv, file: string): string | undefined {
  if (env.trusted === false && env.insideWorkspace?.(file)) {
    return `${file} is inside the workspace, which is not trusted; chunkseam does not run programs from an untrusted workspace.`;
  }
  return undefined;
}

export async function discoverServer(env: DiscoveryEnv): Promise<Discovery> {
  const expand = env.expand ?? ((v: string) => v);
  const notes: string[] = [];

  const serverPath = env.serverPath?.trim();
  if (serverPath) {
    const exe = expand(serverPath);
    const refused = workspaceProgram(env, exe);
    if (refused) {
      return { ok: false, problem: "bad-setting", message: `The setting chunkseam.server.path: ${refused}`, notes };
    }
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
    const refused = workspaceProgram(env, python);
    if (refused) {
      return { ok: false, problem: "bad-setting", message: `The setting chunkseam.interpreter: ${refused}`, notes };
    }
    const probe = await env.probe(python);
    if (probe.kind === "ok") {
      return {
        ok: true,
        server: { command: python, args: [...PYTHON_SERVER_ARGS], source: "interpreter", version: probe.version },
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
    const refused = extPython ? workspaceProgram(env, extPython) : undefined;
    if (extPython && refused) {
      notes.push(`Not using the selected Python interpreter: ${refused}`);
      extPython = undefined;
    }
    if (extPython) {
      const probe = await env.probe(extPython);
      if (probe.kind === "ok") {
        return {
          ok: true,
          server: {
            command: extPython,
            args: [...PYTHON_SERVER_ARGS],
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

/**
 * First statement of every script run with `python -c`: drop the entries of
 * sys.path that mean "the working directory" ("" and "."), which `-c` and
 * `-m` put first, before anything is imported (what `-P` does on 3.11+).
 */
export const SAFE_PATH_PRELUDE = "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]";

/**
 * Which chunkseam does this Python import (never one from the working
 * directory)? Its version is read from the package's `core/version.py` (or, in
 * older releases, its `__init__.py`) without running it (importing the package and its engine took ~0.4 s of a cold
 * start, before the server itself was started); a package whose file does not
 * say is imported. A missing package fails as an import would
 * (`No module named 'chunkseam'`); a package that is there but cannot run is
 * reported by the server's start.
 */
export const PROBE_SCRIPT = [
  SAFE_PATH_PRELUDE,
  "import importlib.util, os, re",
  "spec = importlib.util.find_spec('chunkseam')",
  "if spec is None: raise ModuleNotFoundError(\"No module named 'chunkseam'\", name='chunkseam')",
  "found = None",
  "for name in ('core/version.py', '__init__.py'):",
  "    try: found = re.search(r'^__version__ = [\"\\']([^\"\\']+)[\"\\']', open(os.path.join(os.path.dirname(spec.origin), name), encoding='utf-8').read(), re.M)",
  "    except (OSError, TypeError, ValueError): found = None",
  "    if found: break",
  "if found: sys.stdout.write(found.group(1))",
  "else: import chunkseam; sys.stdout.write(chunkseam.__version__)",
].join("\n");

/** `python -m chunkseam`, without the working directory on sys.path. */
export const LAUNCH_SCRIPT = `${SAFE_PATH_PRELUDE}; import runpy; runpy.run_module('chunkseam', run_name='__main__', alter_sys=True)`;

/** Arguments after the interpreter that start the server. */
export const PYTHON_SERVER_ARGS: readonly string[] = ["-c", LAUNCH_SCRIPT, "server"];

/**
 * The environment for every Python the extension runs: PYTHONSAFEPATH keeps
 * the working directory off sys.path on Python 3.11+ (the scripts above do it
 * on any version).
 */
export function pythonEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...base, PYTHONSAFEPATH: "1", PYTHONIOENCODING: "utf-8", PYTHONUNBUFFERED: "1" };
}
