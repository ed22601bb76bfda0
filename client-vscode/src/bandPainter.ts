/**
 * Chunk bands in the editor: alternating backgrounds per chunk, a dashed
 * pattern on overlaps, and a thin rule at each cut (a line across the editor
 * when the cut is at a line start, a vertical tick inside a line otherwise,
 * and a mark in the overview ruler). Nothing is inserted into the text: the
 * tick is taken out of the flow, so word wrap and column alignment never
 * change. The chunk number is in the code lens above and in the tick's hover.
 * Only the chunks around the visible range are painted (bounded), so a huge
 * document costs no more than a small one.
 */

import * as vscode from "vscode";

import { hasChunks } from "./analysed";
import { ChunkStore } from "./chunkStore";
import { BandPlan, planBands, windowFor } from "./bands";
import { Range } from "./protocol";

/** Lines painted above and below the visible range. */
const MARGIN_LINES = 150;

function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export class BandPainter implements vscode.Disposable {
  private readonly even: vscode.TextEditorDecorationType;
  private readonly odd: vscode.TextEditorDecorationType;
  private readonly overlap: vscode.TextEditorDecorationType;
  private readonly cutLine: vscode.TextEditorDecorationType;
  private readonly cutLabel: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly pending = new Map<vscode.TextEditor, NodeJS.Timeout>();
  /** What was last painted per editor, for tests and the output channel. */
  readonly painted = new WeakMap<vscode.TextEditor, BandPlan>();

  constructor(private readonly store: ChunkStore) {
    this.even = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor("chunkseam.band.evenBackground"),
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.odd = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor("chunkseam.band.oddBackground"),
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.overlap = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor("chunkseam.band.overlapBackground"),
      borderColor: new vscode.ThemeColor("chunkseam.band.overlapBorder"),
      borderStyle: "dashed",
      borderWidth: "0 0 1px 0",
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.cutLine = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      borderColor: new vscode.ThemeColor("chunkseam.cut.foreground"),
      borderStyle: "solid",
      borderWidth: "1px 0 0 0",
    });
    this.cutLabel = vscode.window.createTextEditorDecorationType({
      before: {
        // An empty, absolutely positioned box: zero width in the line's
        // layout (Monaco does not count injected text when it wraps lines).
        contentText: "",
        color: new vscode.ThemeColor("chunkseam.cut.foreground"),
        textDecoration: "none; position: absolute; height: 100%; width: 0; margin-left: -1px; border-left: 2px solid; pointer-events: none",
      },
      overviewRulerColor: new vscode.ThemeColor("chunkseam.cut.foreground"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedOpen,
    });

    this.disposables.push(
      this.even,
      this.odd,
      this.overlap,
      this.cutLine,
      this.cutLabel,
      store.onDidChange((uri) => {
        for (const editor of vscode.window.visibleTextEditors) {
          if (editor.document.uri.toString() === uri.toString()) {
            this.paint(editor);
          }
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of editors) {
          this.paintOrFetch(editor);
        }
      }),
      vscode.window.onDidChangeTextEditorVisibleRanges((e) => this.schedulePaint(e.textEditor)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("chunkseam.bands")) {
          void vscode.commands.executeCommand("setContext", "chunkseam.bandsEnabled", this.enabled);
          this.paintAll();
        }
      }),
    );
    void vscode.commands.executeCommand("setContext", "chunkseam.bandsEnabled", this.enabled);
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration("chunkseam").get<boolean>("bands.enable", true);
  }

  private get maxPainted(): number {
    return Math.max(10, vscode.workspace.getConfiguration("chunkseam").get<number>("bands.maxPainted", 400));
  }

  paintAll(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      this.paintOrFetch(editor);
    }
  }

  private paintOrFetch(editor: vscode.TextEditor): void {
    if (!hasChunks(editor.document)) {
      return;
    }
    const cached = this.store.get(editor.document.uri);
    if (cached) {
      this.paint(editor);
    } else if (this.enabled) {
      void this.store.ensure(editor.document);
    }
  }

  private schedulePaint(editor: vscode.TextEditor): void {
    if (this.pending.has(editor)) {
      return;
    }
    this.pending.set(
      editor,
      setTimeout(() => {
        this.pending.delete(editor);
        this.paint(editor);
      }, 40),
    );
  }

  paint(editor: vscode.TextEditor): void {
    const cached = this.store.get(editor.document.uri);
    if (!this.enabled || !cached) {
      this.clear(editor);
      return;
    }
    const window = windowFor(
      editor.visibleRanges.map((r) => ({ start: r.start.line, end: r.end.line })),
      editor.document.lineCount,
      MARGIN_LINES,
    );
    const plan = planBands(cached.result.chunks, window, this.maxPainted);
    editor.setDecorations(this.even, plan.even.map(toRange));
    editor.setDecorations(this.odd, plan.odd.map(toRange));
    editor.setDecorations(this.overlap, plan.overlap.map(toRange));
    editor.setDecorations(
      this.cutLine,
      plan.cuts.filter((c) => c.atLineStart).map((c) => new vscode.Range(c.position.line, 0, c.position.line, 0)),
    );
    editor.setDecorations(
      this.cutLabel,
      plan.cuts.map((c) => {
        const pos = new vscode.Position(c.position.line, c.position.character);
        return { range: new vscode.Range(pos, pos), hoverMessage: `chunkseam: chunk ${c.chunkNumber} starts here` };
      }),
    );
    this.painted.set(editor, plan);
  }

  private clear(editor: vscode.TextEditor): void {
    for (const type of [this.even, this.odd, this.overlap, this.cutLine, this.cutLabel]) {
      editor.setDecorations(type, []);
    }
    this.painted.delete(editor);
  }

  /** The toggle command: flip the setting (user level). */
  async toggle(): Promise<void> {
    const config = vscode.workspace.getConfiguration("chunkseam");
    const inspected = config.inspect<boolean>("bands.enable");
    const target =
      inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update("bands.enable", !this.enabled, target);
  }

  dispose(): void {
    for (const t of this.pending.values()) {
      clearTimeout(t);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
