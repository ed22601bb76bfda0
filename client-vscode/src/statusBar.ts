/** The status bar item: `⧉ 12 chunks · 2 broken (17%)` for the active document. */

import * as vscode from "vscode";

import { hasChunks } from "./analysed";
import { ChunkStore } from "./chunkStore";
import { ServerManager } from "./server";
import { formatConfigErrors, formatStatus } from "./status";

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: ChunkStore,
    private readonly server: ServerManager,
  ) {
    this.item = vscode.window.createStatusBarItem("chunkseam.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "chunkseam";
    this.item.command = "chunkseam.previewDocument";
    this.disposables.push(
      this.item,
      store.onDidChange(() => this.update()),
      server.onDidChangeStatus(() => this.update()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.update();
        if (editor && hasChunks(editor.document) && !store.get(editor.document.uri)) {
          void store.ensure(editor.document);
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("chunkseam.statusBar")) {
          this.update();
        }
      }),
    );
    this.update();
  }

  update(): void {
    const editor = vscode.window.activeTextEditor;
    const enabled = vscode.workspace.getConfiguration("chunkseam").get<boolean>("statusBar.enable", true);
    if (!enabled || !editor || !hasChunks(editor.document)) {
      this.item.hide();
      return;
    }
    const status = this.server.status;
    if (status !== "running") {
      const problem = status === "unavailable" || status === "incompatible" || status === "crashed";
      if (!problem) {
        this.item.hide();
        return;
      }
      this.item.text = "$(warning) chunkseam";
      this.item.tooltip =
        status === "incompatible"
          ? "The chunkseam server is too old for this extension. See the chunkseam output."
          : status === "crashed"
            ? "The chunkseam server stopped. Click to show its output."
            : "chunkseam was not found. Click to show the output.";
      this.item.command = "chunkseam.showOutput";
      this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
      this.item.show();
      return;
    }
    const cached = this.store.get(editor.document.uri);
    if (!cached) {
      this.item.hide();
      return;
    }
    if (cached.result.enabled === false) {
      this.item.text = "⧉ off";
      this.item.tooltip = "chunkseam is disabled for this document (setting chunkseam.enable).";
      this.item.command = "chunkseam.previewDocument";
      this.item.backgroundColor = undefined;
      this.item.show();
      return;
    }
    const configErrors = cached.result.configErrors ?? [];
    if (configErrors.length > 0) {
      const unusable = !!cached.result.error;
      const view = formatConfigErrors(configErrors, unusable, unusable ? undefined : formatStatus(cached.stats));
      this.item.text = view.text;
      const tooltip = new vscode.MarkdownString(view.tooltip);
      tooltip.supportThemeIcons = false;
      this.item.tooltip = tooltip;
      this.item.command = "chunkseam.showOutput";
      this.item.backgroundColor = new vscode.ThemeColor(unusable ? "statusBarItem.errorBackground" : "statusBarItem.warningBackground");
      this.item.show();
      return;
    }
    if (cached.result.error) {
      this.item.text = "$(warning) ⧉ error";
      this.item.tooltip = `chunkseam could not analyse this document: ${cached.result.error}`;
      this.item.command = "chunkseam.showOutput";
      this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
      this.item.show();
      return;
    }
    const view = formatStatus(cached.stats);
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip);
    tooltip.supportThemeIcons = false;
    this.item.tooltip = tooltip;
    this.item.command = "chunkseam.previewDocument";
    this.item.backgroundColor = undefined;
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
