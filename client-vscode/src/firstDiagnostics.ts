/**
 * Diagnostics first. When a document opens, the workbench asks for its code
 * lenses, symbols, folding ranges and code actions at once, and the
 * extension for its chunk list; the server answers them all when its first
 * analysis lands. On a large document those answers (a lens and a chunk per
 * few hundred characters) then compete with the diagnostics for the same
 * cores: the server builds and sends them, the extension host parses and
 * converts them while it converts the diagnostics, the workbench lays them
 * out while it draws the squiggles.
 *
 * This gate holds those requests of a newly opened document until its first
 * diagnostics have been handed to VS Code and drawn (see {@link settleMs}),
 * or the pull failed, or the document closed, and at most `timeoutMs`: a
 * document that is never pulled is not held for longer. After that first
 * time nothing waits.
 */

/** The longest wait of {@link settleMs}. */
export const SETTLE_MAX_MS = 400;
const CHARS_PER_MS = 2500;

/**
 * How long a new document's held requests still wait once its first
 * diagnostics have been handed to VS Code: the workbench draws the squiggles
 * in the next few hundred milliseconds, and on a large document the answers
 * to those requests (a lens and a chunk per few hundred characters) would be
 * built by the server, converted here and laid out by the workbench
 * meanwhile, on the same cores. In proportion to the document's size
 * (`characters`): next to nothing for a small one, {@link SETTLE_MAX_MS} for
 * 1 MB. (In the VS Code e2e's 1 MB open, on a loaded 2-core machine, the
 * first squiggle came 0.08-0.32 s after the diagnostics, median 0.155 s, in
 * 14 runs; without the wait 0.09-0.69 s, median 0.21 s, in 13 runs.)
 */
export function settleMs(characters: number): number {
  return Math.max(0, Math.min(SETTLE_MAX_MS, Math.floor(characters / CHARS_PER_MS)));
}

export class FirstDiagnosticsGate {
  private readonly held = new Map<string, { promise: Promise<void>; release: () => void }>();

  constructor(
    private readonly timeoutMs: number,
    private readonly timers: {
      set: (fn: () => void, ms: number) => unknown;
      clear: (handle: unknown) => void;
    } = {
      set: (fn, ms) => setTimeout(fn, ms),
      clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
    },
  ) {}

  /** A document opened (`key`: its URI): its other requests wait for its first diagnostics. */
  opened(key: string): void {
    if (this.held.has(key)) {
      return;
    }
    let release!: () => void;
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    const timer = this.timers.set(() => this.delivered(key), this.timeoutMs);
    this.held.set(key, {
      promise,
      release: () => {
        this.timers.clear(timer);
        release();
      },
    });
  }

  /** Its diagnostics were handed over (or will not come): what waits goes ahead. */
  delivered(key: string): void {
    const entry = this.held.get(key);
    if (entry) {
      this.held.delete(key);
      entry.release();
    }
  }

  /** Whether requests of `key` are held now. */
  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Resolves when the requests of `key` may be sent (at once unless held). */
  ready(key: string): Promise<void> {
    return this.held.get(key)?.promise ?? Promise.resolve();
  }

  /** Release everything (the client stops). */
  dispose(): void {
    for (const key of [...this.held.keys()]) {
      this.delivered(key);
    }
  }
}
