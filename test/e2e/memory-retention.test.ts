import { describe, expect, it } from "vitest";
import { runNode } from "./run-node.ts";

// Garbage collection is only there to be asked for in a process of its own (--expose-gc).
describe("what a judge call leaves behind", () => {
  it("keeps nothing of an answered call alive through the run's abort signal", async () => {
    const { code, stdout, stderr } = await runNode({
      args: ["--expose-gc", "test/e2e/fixtures/retention-probe.ts"],
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    }).finished;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ abortListenerKeepsAnswer: false });
  });
});
