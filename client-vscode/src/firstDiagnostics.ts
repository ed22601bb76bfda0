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
 * diagnostics have been handed to VS Code (or the pull failed, or the
 * document closed), and at most `timeoutMs`: a document that is never
 * pulled is not held for longer. After that first time nothing waits.
 */

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
