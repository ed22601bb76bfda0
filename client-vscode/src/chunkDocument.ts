/**
 * Read-only virtual documents showing one chunk's text exactly as the
 * embedder receives it (`chunkseam.showChunk`).
 */

import * as path from "node:path";
import * as vscode from "vscode";

import { ShowChunkResult, sizeLabel } from "./protocol";

export const CHUNK_SCHEME = "chunkseam-chunk";

export class ChunkDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CHUNK_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "";
  }

  /** Open the chunk beside the source editor. */
  async show(source: vscode.Uri, chunk: ShowChunkResult, languageId?: string): Promise<vscode.TextEditor> {
    const base = path.posix.basename(source.path) || "untitled";
    const n = chunk.index + 1;
    const total = chunk.total ? `/${chunk.total}` : "";
    // The tab title: "README.md · chunk 4 of 12 · 387 tokens" (or "· 1200 chars": the
    // configured unit); the query keeps URIs unique per source.
    const name = `${base} · chunk ${n}${total.replace("/", " of ")} · ${sizeLabel(chunk.tokens, chunk.unit)}`;
    const uri = vscode.Uri.from({
      scheme: CHUNK_SCHEME,
      path: `/${name}`,
      query: new URLSearchParams({ source: source.toString(), chunk: String(chunk.index) }).toString(),
    });
    this.contents.set(uri.toString(), chunk.text);
    this.emitter.fire(uri);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (languageId && doc.languageId !== languageId) {
      doc = await vscode.languages.setTextDocumentLanguage(doc, languageId);
    }
    return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.emitter.dispose();
  }
}
