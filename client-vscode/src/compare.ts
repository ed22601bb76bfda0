/**
 * `chunkseam.compareStrategies`: pick two or more strategies; the server
 * chunks the document's current text (unsaved edits included) with each, with
 * every other setting as it resolves them for the document, and answers a
 * side-by-side report, shown in a webview. Nothing is run here: no program,
 * no working directory, no file read from disk.
 */

import * as path from "node:path";
import * as vscode from "vscode";

import { COMPARE_REQUEST, defaultStrategiesFor, parseCompareResult, strategyItems, validatePick, webviewSafe } from "./compareArgs";
import { analysed } from "./analysed";
import { describeKinds } from "./languages";
import { ServerManager } from "./server";

export async function compareStrategies(
  server: ServerManager,
  output: vscode.LogOutputChannel,
  document: vscode.TextDocument | undefined,
): Promise<void> {
  if (!document) {
    void vscode.window.showInformationMessage(`chunkseam: open a ${describeKinds(analysed())} to compare strategies.`);
    return;
  }
  const client = server.running;
  if (!client) {
    void vscode.window.showWarningMessage("chunkseam: the chunkseam server is not running, so there is nothing to compare with.");
    return;
  }
  const textDocument = { uri: client.code2ProtocolConverter.asUri(document.uri) };
  let available: string[] | undefined;
  try {
    available = parseCompareResult(await server.sendRequest<unknown>(COMPARE_REQUEST, { textDocument }))?.available;
  } catch (e) {
    output.warn(`${COMPARE_REQUEST} (available strategies) failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const defaults = new Set(defaultStrategiesFor(document.languageId));
  let picked: string[] | undefined;
  for (;;) {
    const items = await vscode.window.showQuickPick(
      strategyItems(available).map((s) => ({ label: s.name, detail: s.detail, picked: defaults.has(s.name) })),
      { canPickMany: true, title: "chunkseam: strategies to compare", placeHolder: "Pick two or more strategies" },
    );
    if (!items || items.length === 0) {
      return;
    }
    picked = items.map((i) => i.label);
    const problem = validatePick(picked);
    if (!problem) {
      break;
    }
    const again = await vscode.window.showWarningMessage(`chunkseam: ${problem}`, "Pick Again");
    if (again !== "Pick Again") {
      return;
    }
    defaults.clear();
    picked.forEach((p) => defaults.add(p));
  }
  const strategies = picked;
  output.info(`Comparing ${strategies.join(", ")} on ${document.uri.toString()} (version ${document.version})`);
  let raw: unknown;
  try {
    raw = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "chunkseam: comparing strategies…", cancellable: true },
      (_progress, token) => server.sendRequest<unknown>(COMPARE_REQUEST, { textDocument, strategies }, token),
    );
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    output.error(`${COMPARE_REQUEST} failed: ${message}`);
    void vscode.window.showErrorMessage(`chunkseam: the comparison failed: ${message}`, "Show Output").then((c) => c && output.show());
    return;
  }
  const result = parseCompareResult(raw);
  if (!result) {
    return; // cancelled, or the server stopped
  }
  for (const [name, error] of Object.entries(result.errors)) {
    output.warn(`compare: ${name}: ${error}`);
    void vscode.window.showWarningMessage(`chunkseam: the ${name} strategy failed: ${error}`);
  }
  if (!result.html) {
    return;
  }
  const name = path.posix.basename(document.uri.path) || "untitled";
  const panel = vscode.window.createWebviewPanel(
    "chunkseam.compare",
    `Compare: ${name}`,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: true, localResourceRoots: [] },
  );
  panel.webview.html = webviewSafe(result.html);
}
