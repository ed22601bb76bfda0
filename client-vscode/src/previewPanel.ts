/** `chunkseam.previewDocument`: the chunks of a document in a webview, kept live. */

import * as crypto from "node:crypto";
import * as path from "node:path";
import * as vscode from "vscode";

import { ChunkStore } from "./chunkStore";
import { PreviewIssue, renderPreviewHtml } from "./preview";

function severityName(s: vscode.DiagnosticSeverity): PreviewIssue["severity"] {
  switch (s) {
    case vscode.DiagnosticSeverity.Error:
      return "error";
    case vscode.DiagnosticSeverity.Warning:
      return "warning";
    case vscode.DiagnosticSeverity.Information:
      return "info";
    default:
      return "hint";
  }
}

export function chunkseamIssues(uri: vscode.Uri): PreviewIssue[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.source === "chunkseam")
    .map((d) => ({
      code: typeof d.code === "object" ? String(d.code.value) : String(d.code ?? ""),
      message: d.message,
      severity: severityName(d.severity),
      range: {
        start: { line: d.range.start.line, character: d.range.start.character },
        end: { line: d.range.end.line, character: d.range.end.character },
      },
    }));
}

export class PreviewPanels implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: ChunkStore) {
    this.disposables.push(
      store.onDidChange((uri) => {
        const panel = this.panels.get(uri.toString());
        if (panel) {
          void this.render(uri, panel);
        }
      }),
    );
  }

  async open(document: vscode.TextDocument): Promise<void> {
    const key = document.uri.toString();
    const existing = this.panels.get(key);
    if (existing) {
      existing.reveal(vscode.ViewColumn.Beside, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      "chunkseam.preview",
      `Chunks: ${path.posix.basename(document.uri.path)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: false },
    );
    this.panels.set(key, panel);
    panel.onDidDispose(() => this.panels.delete(key));
    panel.webview.onDidReceiveMessage(async (msg: { type?: string; line?: number; character?: number }) => {
      if (msg.type === "reveal" && typeof msg.line === "number") {
        const pos = new vscode.Position(msg.line, msg.character ?? 0);
        const editor = await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One, preserveFocus: false });
        editor.selection = new vscode.Selection(pos, pos);
        editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    });
    panel.webview.html = `<!DOCTYPE html><html><body><p>Asking the chunkseam server for the chunks…</p></body></html>`;
    await this.store.ensure(document);
    await this.render(document.uri, panel);
  }

  private async render(uri: vscode.Uri, panel: vscode.WebviewPanel): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const cached = this.store.get(uri);
    if (!doc || !cached) {
      panel.webview.html =
        `<!DOCTYPE html><html><body><p>No chunks: the chunkseam server is not running ` +
        `or the document was closed.</p></body></html>`;
      return;
    }
    panel.webview.html = renderPreviewHtml({
      title: vscode.workspace.asRelativePath(uri),
      text: doc.getText(),
      chunks: cached.result.chunks,
      issues: chunkseamIssues(uri),
      unit: cached.result.unit ?? vscode.workspace.getConfiguration("chunkseam", uri).get<string>("unit", "tokens"),
      chunker: cached.result.chunker,
      stats: cached.statsFromChunks ? undefined : cached.stats,
      nonce: crypto.randomBytes(16).toString("base64"),
      cspSource: panel.webview.cspSource,
    });
  }

  dispose(): void {
    for (const p of this.panels.values()) {
      p.dispose();
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
