/** How many times a crashed server is restarted before the client gives up. Pure. */

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    /** Restarts allowed within `windowMs`. */
    readonly maxRestarts = 4,
    readonly windowMs = 3 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Record a crash; true when the server should be restarted, false when it
   * has crashed more than `maxRestarts` times within the window.
   */
  crashed(): boolean {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    return this.crashes.length <= this.maxRestarts;
  }

  /** Crashes recorded in the current window. */
  get recent(): number {
    const t = this.now();
    return this.crashes.filter((c) => t - c < this.windowMs).length;
  }

  /** Forget past crashes (after a deliberate restart). */
  reset(): void {
    this.crashes = [];
  }
}
