/** The Python side: the Python extension's interpreter, and probing a Python for chunkseam. */

import { execFile } from "node:child_process";
import { promises as fs, constants as fsConstants, realpathSync } from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";

import * as path from "node:path";

import { PROBE_SCRIPT, ProbeResult, classifyProbe, pythonEnv } from "./discovery";

/** The subset of the Python extension's API (ms-python.python) used here. */
interface PythonExtensionApi {
  environments?: {
    /** Every environment the Python extension knows of. */
    known?: readonly { id: string; path: string }[];
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
      { executable: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION_ID = "ms-python.python";

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  const api = ext.isActive ? ext.exports : await ext.activate();
  return api?.environments ? api : undefined;
}

export function hasPythonExtension(): boolean {
  return vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
}

/** The active interpreter of the Python extension for `resource`, if the extension is installed. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonApi();
  if (!api?.environments) {
    return undefined;
  }
  const envPath = api.environments.getActiveEnvironmentPath(resource);
  const resolved = await api.environments.resolveEnvironment(envPath);
  return resolved?.executable.uri?.fsPath ?? envPath.path;
}

/** The interpreters the Python extension knows of (none when it is absent). */
async function knownInterpreters(): Promise<string[]> {
  try {
    const api = await pythonApi();
    const known = api?.environments?.known ?? [];
    const paths: string[] = [];
    for (const env of known) {
      const resolved = await api?.environments?.resolveEnvironment(env).catch(() => undefined);
      const file = resolved?.executable.uri?.fsPath ?? env.path;
      if (file && !paths.includes(file)) {
        paths.push(file);
      }
    }
    return paths;
  } catch {
    return [];
  }
}

/**
 * Let the user choose the Python that has chunkseam: the Python extension's
 * environments in a quick pick (with "Browse…"), else a file dialog. The
 * choice is written where the current value is set (the workspace's or the
 * folder's settings when it is set there, else the user's): a value left in a
 * layer above would still win. Returns the chosen path, or undefined.
 */
export async function pickInterpreter(): Promise<string | undefined> {
  const browse = "$(folder-opened) Browse…";
  let chosen: string | undefined;
  const candidates = await knownInterpreters();
  if (candidates.length > 0) {
    const pick = await vscode.window.showQuickPick([...candidates, browse], {
      title: "chunkseam: the Python interpreter that has chunkseam installed",
      placeHolder: "An environment of the Python extension, or browse for an interpreter",
    });
    if (!pick) {
      return undefined;
    }
    chosen = pick === browse ? undefined : pick;
  }
  if (!chosen) {
    const files = await vscode.window.showOpenDialog({
      title: "chunkseam: the Python interpreter that has chunkseam installed",
      openLabel: "Use This Interpreter",
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
    });
    chosen = files?.[0]?.fsPath;
  }
  if (!chosen) {
    return undefined;
  }
  const config = vscode.workspace.getConfiguration("chunkseam");
  const inspected = config.inspect<string | null>("interpreter");
  const target =
    inspected?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : inspected?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await config.update("interpreter", chosen, target);
  return chosen;
}

/** Subscribe to interpreter changes of the Python extension (no-op when it is absent). */
export async function onPythonInterpreterChanged(listener: () => void): Promise<vscode.Disposable> {
  try {
    const api = await pythonApi();
    if (api?.environments) {
      return api.environments.onDidChangeActiveEnvironmentPath(() => listener());
    }
  } catch {
    // The Python extension failed to activate: nothing to listen to.
  }
  return new vscode.Disposable(() => undefined);
}

/**
 * Probe `python` for chunkseam. `cwd` must not be a workspace folder (see
 * safeWorkingDirectory): the probe never imports from its working directory,
 * and runs where there is nothing to import anyway.
 */
export function probePython(python: string, cwd: string): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(
      python,
      ["-c", PROBE_SCRIPT],
      { timeout: 30_000, cwd, windowsHide: true, env: pythonEnv(process.env) },
      (error, stdout, stderr) => {
        const err = error as (NodeJS.ErrnoException & { code?: string | number | null }) | null;
        resolve(classifyProbe(err ? { code: err.code, message: err.message } : null, String(stdout), String(stderr)));
      },
    );
  });
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Expand `~`, `${userHome}` and `${workspaceFolder}` in a path setting. */
export function expandPath(value: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  return value
    .replace(/^~(?=$|[\\/])/, os.homedir())
    .replace(/\$\{userHome\}/g, os.homedir())
    .replace(/\$\{workspaceFolder\}/g, folder);
}

/**
 * A working directory for the programs the extension runs that is not a
 * workspace folder: an empty directory in the extension's global storage
 * (never a shared one like /tmp, where anyone could drop a module), else the
 * extension's own directory.
 */
export async function safeWorkingDirectory(context: vscode.ExtensionContext): Promise<string> {
  const dir = path.join(context.globalStorageUri.fsPath, "cwd");
  try {
    await fs.mkdir(dir, { recursive: true });
    return dir;
  } catch {
    return context.extensionPath;
  }
}

function within(file: string, folder: string): boolean {
  const rel = path.relative(folder, file);
  return rel === "" || (!!rel && !rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Is `file` (or what it links to) inside one of the workspace folders? */
export function insideWorkspace(file: string): boolean {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  const candidates = [path.resolve(file)];
  try {
    candidates.push(realpathSync(file));
  } catch {
    // does not exist (yet): the path itself decides
  }
  return folders.some((folder) => {
    let real = folder;
    try {
      real = realpathSync(folder);
    } catch {
      // keep the path
    }
    return candidates.some((c) => within(c, folder) || within(c, real));
  });
}
