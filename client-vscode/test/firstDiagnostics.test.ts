import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { FirstDiagnosticsGate, SETTLE_MAX_MS, settleMs } from "../src/firstDiagnostics";

/** Timers run by hand. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  return {
    pending,
    set: (fn: () => void) => {
      pending.set(++next, fn);
      return next;
    },
    clear: (handle: unknown) => void pending.delete(handle as number),
    fireAll: () => {
      for (const [k, fn] of [...pending]) {
        pending.delete(k);
        fn();
      }
    },
  };
}

/** Whether `p` has settled after the microtasks queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe("FirstDiagnosticsGate (lenses, symbols and chunks after a new document's diagnostics)", () => {
  it("does not hold a document that was not opened", async () => {
    const gate = new FirstDiagnosticsGate(1000, manualTimers());
    assert.equal(await settled(gate.ready("file:///a.md")), true);
  });
  it("holds an opened document's requests until its diagnostics are delivered, then never again", async () => {
    const timers = manualTimers();
    const gate = new FirstDiagnosticsGate(1000, timers);
    gate.opened("file:///big.md");
    const lenses = gate.ready("file:///big.md");
    assert.equal(gate.holds("file:///big.md"), true);
    assert.equal(await settled(lenses), false);
    assert.equal(await settled(gate.ready("file:///other.md")), true, "other documents are not held");
    gate.delivered("file:///big.md");
    assert.equal(await settled(lenses), true);
    assert.equal(timers.pending.size, 0, "the time limit is cleared");
    assert.equal(await settled(gate.ready("file:///big.md")), true);
    gate.opened("file:///big.md"); // opened again (closed and reopened): held again
    assert.equal(await settled(gate.ready("file:///big.md")), false);
  });
  it("lets requests go after the time limit when no diagnostics come", async () => {
    const timers = manualTimers();
    const gate = new FirstDiagnosticsGate(1000, timers);
    gate.opened("file:///never-pulled.md");
    const symbols = gate.ready("file:///never-pulled.md");
    assert.equal(await settled(symbols), false);
    timers.fireAll();
    assert.equal(await settled(symbols), true);
    assert.equal(gate.holds("file:///never-pulled.md"), false);
  });
  it("releases everything when disposed (the client stops)", async () => {
    const gate = new FirstDiagnosticsGate(1000, manualTimers());
    gate.opened("file:///a.md");
    gate.opened("file:///b.md");
    const both = Promise.all([gate.ready("file:///a.md"), gate.ready("file:///b.md")]);
    gate.dispose();
    assert.equal(await settled(both), true);
  });
});

describe("settleMs (how long the held requests wait once the first diagnostics are drawn)", () => {
  it("is next to nothing for a small document and grows with the size", () => {
    assert.equal(settleMs(0), 0);
    assert.ok(settleMs(5_000) <= 2);
    assert.ok(settleMs(100_000) < settleMs(500_000));
  });
  it("is at most SETTLE_MAX_MS, reached at 1 MB", () => {
    assert.equal(settleMs(1_000_000), SETTLE_MAX_MS);
    assert.equal(settleMs(50_000_000), SETTLE_MAX_MS);
    assert.ok(SETTLE_MAX_MS <= 500);
  });
});
