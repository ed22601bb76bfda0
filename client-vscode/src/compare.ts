/**
 * `chunkseam.compareStrategies`: pick strategies, run the CLI's
 * `chunkseam compare FILE --chunkers … --format html` with the same chunkseam
 * the server runs, and show its side-by-side report in a webview.
 */

import { execFile } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";

import { STRATEGIES, compareCommandLine, defaultStrategiesFor, webviewSafe } from "./compareArgs";
import { ServerCommand } from "./discovery";
import { currentServerSettings } from "./server";

function run(command: string, args: string[], cwd: string, token: vscode.CancellationToken): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { cwd, maxBuffer: 256 * 1024 * 1024, timeout: 5 * 60_000, env: { ...process.env, PYTHONIOENCODING: "utf-8", NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === "number" ? ((error as { code: number }).code) : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && !stdout ? error.message : "")) });
      },
    );
    token.onCancellationRequested(() => child.kill());
  });
}

export async function compareStrategies(
  server: ServerCommand | undefined,
  output: vscode.LogOutputChannel,
  document: vscode.TextDocument | undefined,
): Promise<void> {
  if (!document) {
    void vscode.window.showInformationMessage("chunkseam: open a Markdown, Python or text file to compare strategies.");
    return;
  }
  if (!server) {
    void vscode.window.showWarningMessage("chunkseam: the chunkseam server was not found, so there is no chunkseam to compare with.");
    return;
  }
  if (document.uri.scheme !== "file") {
    void vscode.window.showInformationMessage("chunkseam: save the document to a file first; the comparison reads it from disk.");
    return;
  }
  const defaults = new Set(defaultStrategiesFor(document.languageId));
  const picked = await vscode.window.showQuickPick(
    STRATEGIES.map((s) => ({ label: s.name, detail: s.detail, picked: defaults.has(s.name) })),
    { canPickMany: true, title: "chunkseam: strategies to compare", placeHolder: "Pick two or more strategies" },
  );
  if (!picked || picked.length === 0) {
    return;
  }
  if (document.isDirty) {
    void vscode.window.showInformationMessage("chunkseam: comparing the saved version of the file (it has unsaved changes).");
  }
  const file = document.uri.fsPath;
  const { command, args } = compareCommandLine(server, file, picked.map((p) => p.label), currentServerSettings(document.uri));
  output.info(`Running ${[command, ...args].join(" ")}`);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "chunkseam: comparing strategies…", cancellable: true },
    (_progress, token) => run(command, args, path.dirname(file), token),
  );
  if (result.code !== 0 && result.code !== 1) {
    output.error(`chunkseam compare exited with ${result.code}: ${result.stderr}`);
    const last = result.stderr.trim().split(/\r?\n/).pop() ?? "";
    void vscode.window.showErrorMessage(`chunkseam compare failed: ${last || `exit code ${result.code}`}`, "Show Output").then((c) => c && output.show());
    return;
  }
  const panel = vscode.window.createWebviewPanel(
    "chunkseam.compare",
    `Compare: ${path.basename(file)}`,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: true, localResourceRoots: [] },
  );
  panel.webview.html = webviewSafe(result.stdout);
}
