/**
 * Diagnostics of notebook cells. The server analyses a Jupyter notebook as one
 * view of its cells (the language client keeps it in sync through the
 * server's `notebookDocumentSync`) and answers `textDocument/diagnostic` for
 * each cell's URI. vscode-languageclient 9 pulls diagnostics only for
 * documents shown in a text editor tab, never for the cells of a notebook
 * editor (vscode-languageserver-node#1464, fixed in 10.x): this pulls them,
 * for every analysed cell of every open notebook, after the notebook opens or
 * changes, when the server asks for a new pull (`workspace/diagnostic/refresh`,
 * sent when an analysis of a notebook lands) and when the server (re)starts or
 * the settings change, into a collection of its own.
 */

import * as vscode from "vscode";
import { DocumentDiagnosticReportKind, DocumentDiagnosticRequest, LanguageClient } from "vscode-languageclient/node";
import type { Diagnostic as LspDiagnostic } from "vscode-languageclient/node";

import { isAnalysedCell, isAnalysedNotebook } from "./analysed";
import { ServerManager } from "./server";

export class NotebookDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection("chunkseam-notebooks");
  private readonly updated = new vscode.EventEmitter<readonly vscode.Uri[]>();
  /** Fires with the cells given a new report (their chunks may have changed too). */
  readonly onDidUpdate = this.updated.event;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inflight = new Map<string, vscode.CancellationTokenSource>();
  /** Cell URIs given diagnostics, per notebook URI (to clear removed cells). */
  private readonly shown = new Map<string, Set<string>>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The client whose refresh requests are followed, and the subscription. */
  private refreshOf: LanguageClient | undefined;
  private refreshSubscription: vscode.Disposable | undefined;

  constructor(private readonly server: ServerManager) {
    this.disposables.push(
      this.collection,
      this.updated,
      vscode.workspace.onDidOpenNotebookDocument((nb) => this.schedule(nb, 150)),
      vscode.workspace.onDidChangeNotebookDocument((e) => this.schedule(e.notebook, this.editDelay())),
      vscode.workspace.onDidCloseNotebookDocument((nb) => this.forget(nb)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("chunkseam")) {
          this.scheduleAll(this.editDelay());
        }
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        // a cell's text: its notebook's change event comes too, but not always first
        if (e.contentChanges.length > 0 && isAnalysedCell(e.document)) {
          const nb = vscode.workspace.notebookDocuments.find((n) => n.getCells().some((c) => c.document === e.document));
          if (nb) {
            this.schedule(nb, this.editDelay());
          }
        }
      }),
      server.onDidChangeStatus((status) => {
        if (status === "running") {
          this.scheduleAll(150);
        } else if (status !== "starting") {
          this.collection.clear();
          this.shown.clear();
        }
      }),
    );
  }

  /** A little after the server's debounce, when the new analysis is under way. */
  private editDelay(): number {
    const debounce = vscode.workspace.getConfiguration("chunkseam").get<number>("debounceMs", 300);
    return Math.max(0, debounce) + 150;
  }

  private scheduleAll(delayMs: number): void {
    for (const nb of vscode.workspace.notebookDocuments) {
      this.schedule(nb, delayMs);
    }
  }

  private schedule(nb: vscode.NotebookDocument, delayMs: number): void {
    if (!isAnalysedNotebook(nb)) {
      return;
    }
    const key = nb.uri.toString();
    const old = this.timers.get(key);
    if (old) {
      clearTimeout(old);
    }
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.pull(nb);
      }, delayMs),
    );
  }

  private async pull(nb: vscode.NotebookDocument, attempt = 0): Promise<void> {
    const client = this.server.running;
    if (!client || nb.isClosed) {
      return;
    }
    const key = nb.uri.toString();
    this.inflight.get(key)?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight.set(key, cts);
    const version = nb.version;
    const cells = nb.getCells().filter((c) => isAnalysedCell(c.document));
    if (cells.length > 0) {
      this.followRefresh(client, cells[0].document);
    }
    try {
      const reports = await Promise.all(
        cells.map(async (cell) => {
          const report = await client.sendRequest(
            DocumentDiagnosticRequest.type,
            { textDocument: { uri: client.code2ProtocolConverter.asUri(cell.document.uri) } },
            cts.token,
          );
          const items: LspDiagnostic[] = report.kind === DocumentDiagnosticReportKind.Full ? report.items : [];
          return [cell.document.uri, await client.protocol2CodeConverter.asDiagnostics(items, cts.token)] as const;
        }),
      );
      if (cts.token.isCancellationRequested) {
        return;
      }
      if (nb.version !== version) {
        // changed while the server answered: its change event pulls again
        return;
      }
      const now = new Set<string>();
      for (const [uri, diagnostics] of reports) {
        this.collection.set(uri, diagnostics);
        now.add(uri.toString());
      }
      for (const gone of this.shown.get(key) ?? []) {
        if (!now.has(gone)) {
          this.collection.delete(vscode.Uri.parse(gone));
        }
      }
      this.shown.set(key, now);
      this.updated.fire(reports.map(([uri]) => uri));
    } catch (e) {
      if (cts.token.isCancellationRequested || isCancelled(e)) {
        return;
      }
      // The notebook's cells may not have reached the server yet: ask again (bounded).
      if (attempt < 5) {
        await new Promise((r) => setTimeout(r, 300));
        return this.pull(nb, attempt + 1);
      }
      this.server.output.warn(`Diagnostics of the cells of ${nb.uri.fsPath || key} failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      if (this.inflight.get(key) === cts) {
        this.inflight.delete(key);
      }
      cts.dispose();
    }
  }

  /**
   * The server's `workspace/diagnostic/refresh` reaches the client's
   * diagnostic provider, which pulls the text documents again; the cells are
   * pulled here on the same event.
   */
  private followRefresh(client: LanguageClient, cell: vscode.TextDocument): void {
    if (this.refreshOf === client) {
      return;
    }
    const provider = client.getFeature(DocumentDiagnosticRequest.method)?.getProvider(cell);
    if (!provider) {
      return;
    }
    this.refreshSubscription?.dispose();
    this.refreshOf = client;
    this.refreshSubscription = provider.onDidChangeDiagnosticsEmitter.event(() => this.scheduleAll(30));
  }

  private forget(nb: vscode.NotebookDocument): void {
    const key = nb.uri.toString();
    this.inflight.get(key)?.cancel();
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t);
      this.timers.delete(key);
    }
    for (const uri of this.shown.get(key) ?? []) {
      this.collection.delete(vscode.Uri.parse(uri));
    }
    this.shown.delete(key);
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    for (const c of this.inflight.values()) {
      c.cancel();
    }
    for (const d of this.disposables) {
      d.dispose();
    }
    this.refreshSubscription?.dispose();
  }
}

function isCancelled(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: number }).code === -32800;
}
