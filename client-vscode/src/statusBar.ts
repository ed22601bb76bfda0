/** The status bar item: `⧉ 12 chunks · 2 broken (17%)` for the active document. */

import * as vscode from "vscode";

import { hasChunks } from "./analysed";
import { ChunkStore } from "./chunkStore";
import { ServerManager } from "./server";
import { SettingLayer } from "./protocol";
import { EditorLayerOf, formatConfigErrors, formatStatus, layerLabel, overrides, settingName } from "./status";

type EditorLayer = { label: string; target: vscode.ConfigurationTarget };

/** Which of the editor's layers holds a chunkseam setting for `scope`, if any. */
function editorLayer(scope: vscode.Uri | undefined, key: string): EditorLayer | undefined {
  const i = vscode.workspace.getConfiguration("chunkseam", scope).inspect(settingName(key));
  const set = (v: unknown): boolean => v !== undefined && v !== null;
  if (!i) {
    return undefined;
  }
  if (set(i.workspaceFolderValue)) {
    return { label: "workspace folder setting", target: vscode.ConfigurationTarget.WorkspaceFolder };
  }
  if (set(i.workspaceValue)) {
    return { label: "workspace setting", target: vscode.ConfigurationTarget.Workspace };
  }
  if (set(i.globalValue)) {
    return { label: "user setting", target: vscode.ConfigurationTarget.Global };
  }
  return undefined;
}

/** The document the status bar speaks of: the active editor's, else the active notebook's first analysed cell. */
function activeDocument(): vscode.TextDocument | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc) {
    return doc;
  }
  const notebook = vscode.window.activeNotebookEditor?.notebook;
  return notebook?.getCells().map((c) => c.document).find((d) => hasChunks(d));
}

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  /** Overrides already told about (once per key, file and layer in a session). */
  private readonly told = new Set<string>();

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
      vscode.window.onDidChangeActiveTextEditor(() => this.activeChanged()),
      // a notebook shows its counts as soon as it is open, not only once a cell has focus
      vscode.window.onDidChangeActiveNotebookEditor(() => this.activeChanged()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("chunkseam.statusBar")) {
          this.update();
        }
      }),
    );
    this.activeChanged();
  }

  private activeChanged(): void {
    this.update();
    const doc = activeDocument();
    if (doc && hasChunks(doc) && !this.store.get(doc.uri)) {
      void this.store.ensure(doc);
    }
  }

  /** Once per override: say that an editor setting replaces the project file's value, with the ways out. */
  private tellOverrides(scope: vscode.Uri, layers: SettingLayer[] | undefined): void {
    for (const layer of overrides(layers)) {
      const where = editorLayer(scope, layer.key);
      const file = layer.overrides ?? "";
      const id = `${layer.key}|${file}|${where?.label ?? ""}`;
      if (this.told.has(id)) {
        continue;
      }
      this.told.add(id);
      const name = file.split(/[\\/]/).pop() || file;
      const label = layerLabel(layer, (k) => editorLayer(scope, k)?.label);
      const open = `Open ${name}`;
      const remove = "Remove Override";
      void vscode.window
        .showWarningMessage(
          `chunkseam: the ${label} chunkseam.${settingName(layer.key)} = ${JSON.stringify(layer.value)} overrides ` +
            `${layer.key} in ${name} in this editor only: chunkseam lint, pre-commit and CI use the file's value.`,
          open,
          remove,
        )
        .then(async (choice) => {
          if (choice === open) {
            await vscode.window.showTextDocument(vscode.Uri.file(file));
          } else if (choice === remove && where) {
            const config = vscode.workspace.getConfiguration("chunkseam", scope);
            await config.update(settingName(layer.key), undefined, where.target);
          }
        });
    }
  }

  update(): void {
    const doc = activeDocument();
    const enabled = vscode.workspace.getConfiguration("chunkseam").get<boolean>("statusBar.enable", true);
    if (!enabled || !doc || !hasChunks(doc)) {
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
    const cached = this.store.get(doc.uri);
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
    const layerOf: EditorLayerOf = (key) => editorLayer(doc.uri, key)?.label;
    const view = formatStatus(cached.stats, {}, layerOf);
    this.tellOverrides(doc.uri, cached.stats.settings);
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
