/**
 * The chunks and statistics of open documents, fetched from the server with
 * `chunkseam/chunks` and `chunkseam/stats`, refreshed after edits and after
 * the server reports new diagnostics (its own: see diagnosticsChanged).
 * Bands, the status bar and the preview all read from here.
 */

import * as vscode from "vscode";

import { CHUNKS_REQUEST, ChunksResult, STATS_REQUEST, StatsResult, parseChunksResult, parseStatsResult } from "./protocol";
import { hasChunks } from "./analysed";
import { ServerManager } from "./server";

export interface DocumentChunks {
  uri: string;
  /** Document version the chunks belong to. */
  version: number;
  result: ChunksResult;
  stats: StatsResult;
  /** True when the stats were computed here because the server has no `chunkseam/stats`. */
  statsFromChunks: boolean;
}

/** Statistics from the chunks and diagnostics, when the server does not answer `chunkseam/stats`. */
export function statsFromChunks(result: ChunksResult, diagnostics: readonly vscode.Diagnostic[]): StatsResult {
  const perRule: Record<string, number> = {};
  for (const d of diagnostics) {
    const code = typeof d.code === "object" ? String(d.code.value) : String(d.code ?? "");
    if (d.source === "chunkseam" && code) {
      perRule[code] = (perRule[code] ?? 0) + 1;
    }
  }
  const broken = result.chunks.filter((c) => c.issues > 0).length;
  return { chunks: result.chunks.length, chunks_with_issues: broken, rate: result.chunks.length ? broken / result.chunks.length : 0, per_rule: perRule };
}

export class ChunkStore implements vscode.Disposable {
  private readonly cache = new Map<string, DocumentChunks>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inflight = new Map<string, vscode.CancellationTokenSource>();
  /**
   * The fetch under way for a document, with the version it asked for. The
   * band painter, the status bar and the arrival of diagnostics all ask for
   * a document's chunks when it opens: they share one request (a large
   * document's chunk list is built and sent once, not cancelled and asked
   * again while the server is still busy with its first analysis).
   */
  private readonly pending = new Map<string, { version: number; promise: Promise<DocumentChunks | undefined> }>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];
  private statsUnsupported = false;

  /** Fires with a document's URI when its chunks changed (or were cleared). */
  readonly onDidChange = this.emitter.event;

  constructor(private readonly server: ServerManager) {
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && hasChunks(e.document)) {
          this.schedule(e.document, this.editDelay());
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.forget(doc.uri)),
      server.onDidChangeStatus((status) => {
        if (status === "running") {
          this.statsUnsupported = false;
          this.pending.clear(); // (asked of a server that is gone)
          // A moment's delay: the client opens the documents on the server
          // right after it reports running.
          for (const editor of vscode.window.visibleTextEditors) {
            if (hasChunks(editor.document)) {
              this.schedule(editor.document, 150);
            }
          }
        } else if (status !== "starting") {
          this.clearAll();
        }
      }),
    );
  }

  /**
   * The server's diagnostics of these documents changed (a new analysis: the
   * chunks may have changed too). Called by the language client's middleware
   * for chunkseam's own reports, and by the notebook cells' diagnostics,
   * never on the workbench's every diagnostics event (they came five times
   * a second, for files whose chunkseam diagnostics had not changed, while a
   * 1 MB Markdown file was open: each asked for a whole chunk list again).
   */
  diagnosticsChanged(uris: readonly vscode.Uri[]): void {
    for (const uri of uris) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (doc && hasChunks(doc)) {
        this.schedule(doc, 30);
      }
    }
  }

  /** Refresh a little after the server's debounce, so the new analysis is ready. */
  private editDelay(): number {
    const debounce = vscode.workspace.getConfiguration("chunkseam").get<number>("debounceMs", 300);
    return Math.max(0, debounce) + 150;
  }

  get(uri: vscode.Uri): DocumentChunks | undefined {
    return this.cache.get(uri.toString());
  }

  /** The chunks of `doc`, fetching them if needed (undefined when the server is not running). */
  async ensure(doc: vscode.TextDocument): Promise<DocumentChunks | undefined> {
    const cached = this.cache.get(doc.uri.toString());
    if (cached && cached.version === doc.version) {
      return cached;
    }
    return this.fetch(doc);
  }

  schedule(doc: vscode.TextDocument, delayMs: number): void {
    const key = doc.uri.toString();
    const old = this.timers.get(key);
    if (old) {
      clearTimeout(old);
    }
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.fetch(doc);
      }, delayMs),
    );
  }

  private fetch(doc: vscode.TextDocument): Promise<DocumentChunks | undefined> {
    const key = doc.uri.toString();
    const pending = this.pending.get(key);
    if (pending && pending.version === doc.version) {
      // Its answer is the analysis of this version (or a later one of the
      // same text, after a settings change): the one these callers want.
      return pending.promise;
    }
    const promise = this.request(doc).finally(() => {
      if (this.pending.get(key)?.promise === promise) {
        this.pending.delete(key);
      }
    });
    this.pending.set(key, { version: doc.version, promise });
    return promise;
  }

  private async request(doc: vscode.TextDocument, attempt = 0): Promise<DocumentChunks | undefined> {
    const key = doc.uri.toString();
    if (!this.server.running || doc.isClosed) {
      return undefined;
    }
    this.inflight.get(key)?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight.set(key, cts);
    // a new document's chunk list after its diagnostics (see firstDiagnostics.ts)
    await this.server.firstDiagnostics(doc.uri);
    if (cts.token.isCancellationRequested || !this.server.running || doc.isClosed) {
      if (this.inflight.get(key) === cts) {
        this.inflight.delete(key);
      }
      cts.dispose();
      return undefined;
    }
    const version = doc.version;
    const params = { textDocument: { uri: this.server.running.code2ProtocolConverter.asUri(doc.uri) } };
    try {
      const raw = await this.server.sendRequest<unknown>(CHUNKS_REQUEST, params, cts.token);
      if (cts.token.isCancellationRequested || raw === undefined) {
        return undefined;
      }
      const result = parseChunksResult(raw);
      // (a cell's answer carries its notebook's version, not the cell's)
      const stale = result.version !== null && !result.notebook && result.version !== doc.version;
      if (doc.version !== version || stale) {
        // The server answered for another version: ask again soon (bounded).
        if (attempt < 5) {
          await new Promise((r) => setTimeout(r, 150));
          return this.request(doc, attempt + 1);
        }
        return undefined;
      }
      let stats: StatsResult | undefined;
      let fromChunks = false;
      if (!this.statsUnsupported) {
        try {
          stats = parseStatsResult(await this.server.sendRequest<unknown>(STATS_REQUEST, params, cts.token));
        } catch (e) {
          if (isMethodNotFound(e)) {
            this.statsUnsupported = true;
          } else {
            throw e;
          }
        }
      }
      if (!stats) {
        stats = statsFromChunks(result, vscode.languages.getDiagnostics(doc.uri));
        fromChunks = true;
      }
      const entry: DocumentChunks = { uri: key, version, result, stats, statsFromChunks: fromChunks };
      this.cache.set(key, entry);
      this.emitter.fire(doc.uri);
      return entry;
    } catch (e) {
      if (!cts.token.isCancellationRequested && !isCancelled(e)) {
        this.server.output.warn(`chunkseam/chunks for ${doc.uri.fsPath || key} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      return undefined;
    } finally {
      if (this.inflight.get(key) === cts) {
        this.inflight.delete(key);
      }
      cts.dispose();
    }
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.inflight.get(key)?.cancel();
    this.pending.delete(key);
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t);
      this.timers.delete(key);
    }
    if (this.cache.delete(key)) {
      this.emitter.fire(uri);
    }
  }

  private clearAll(): void {
    this.pending.clear();
    const uris = [...this.cache.keys()];
    this.cache.clear();
    for (const u of uris) {
      this.emitter.fire(vscode.Uri.parse(u));
    }
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
    this.emitter.dispose();
  }
}

function isMethodNotFound(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: number }).code === -32601;
}

function isCancelled(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: number }).code === -32800;
}
