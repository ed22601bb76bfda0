import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { RestartPolicy } from "../src/restartPolicy";

describe("RestartPolicy", () => {
  it("allows a bounded number of restarts within the window", () => {
    let t = 0;
    const p = new RestartPolicy(3, 60_000, () => t);
    assert.equal(p.crashed(), true);
    t += 1000;
    assert.equal(p.crashed(), true);
    t += 1000;
    assert.equal(p.crashed(), true);
    t += 1000;
    assert.equal(p.crashed(), false, "the fourth crash within a minute gives up");
    assert.equal(p.recent, 4);
  });
  it("forgets crashes outside the window and on reset", () => {
    let t = 0;
    const p = new RestartPolicy(1, 10_000, () => t);
    assert.equal(p.crashed(), true);
    t += 20_000;
    assert.equal(p.crashed(), true);
    assert.equal(p.crashed(), false);
    p.reset();
    assert.equal(p.crashed(), true);
  });
});
