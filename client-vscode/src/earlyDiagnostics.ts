/**
 * A file's diagnostics before it opens. When a file's tab appears the
 * extension tells the server (`chunkseam/willOpen`), which analyses the file
 * from disk while the workbench loads it; asked with `diagnostics: true`, it
 * sends that analysis's diagnostics (`chunkseam/headStartDiagnostics`) if
 * they are ready before the document opens. Shown at once (or when they come
 * just after the opening, if the document is still the file's text), they
 * are there when the editor first draws the file (a 1 MB file's own
 * diagnostics come a second later: the extension host is busy with the
 * opening).
 *
 * They are of the text on disk, so they go as soon as the document's own
 * diagnostics arrive (pulled or pushed) or its text changes, and offers that
 * come later are ignored until the document closes; a tab closed before its
 * document opened takes them away too.
 */

/** Where diagnostics are shown (a `vscode.DiagnosticCollection` by uri string). */
export interface DiagnosticSink<D> {
  set(uri: string, diagnostics: readonly D[]): void;
  delete(uri: string): void;
  clear(): void;
}

export class EarlyDiagnostics<D> {
  private readonly shown = new Set<string>();
  private readonly settled = new Set<string>();

  constructor(private readonly sink: DiagnosticSink<D>) {}

  /** The head start's diagnostics of `uri`: shown unless the document's own came first. */
  offer(uri: string, diagnostics: readonly D[]): boolean {
    if (this.settled.has(uri)) {
      return false;
    }
    this.sink.set(uri, diagnostics);
    this.shown.add(uri);
    return true;
  }

  /** Whether a later offer for `uri` would be ignored. */
  isSettled(uri: string): boolean {
    return this.settled.has(uri);
  }

  /** The document's own diagnostics are in, or its text changed: the early ones go. */
  settle(uri: string): void {
    this.settled.add(uri);
    if (this.shown.delete(uri)) {
      this.sink.delete(uri);
    }
  }

  /** The document closed, or its tab went before it opened: nothing is kept of it. */
  forget(uri: string): void {
    this.settled.delete(uri);
    if (this.shown.delete(uri)) {
      this.sink.delete(uri);
    }
  }

  /** The server stopped: all go. */
  clear(): void {
    this.settled.clear();
    this.shown.clear();
    this.sink.clear();
  }
}
