import { afterEach, describe, expect, it, vi } from "vitest";
import type { EvaluationResult, RunStatus } from "../results/evaluation-result.ts";
import type { RunnerEvent, RunStartEvent, TestCaseEndEvent } from "../results/runner-events.ts";
import { createProgressReporter } from "./progress-reporter.ts";

/** Collects what the reporter writes; `columns` makes it look like a terminal of that width. */
function fakeStream(options: { columns?: number; failing?: boolean } = {}) {
  const writes: string[] = [];
  const stream = {
    columns: options.columns,
    write(chunk: string) {
      if (options.failing) throw new Error("EPIPE");
      writes.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { stream, writes };
}

/** A clock the test moves by hand. */
function fakeClock(startMs = 1_000_000) {
  let current = startMs;
  return {
    now: () => current,
    advance: (milliseconds: number) => {
      current += milliseconds;
    },
  };
}

function runStart(totalTestCases: number, resumedTestCases = 0): RunnerEvent {
  return {
    type: "run-start",
    runId: "run-1",
    identifier: null,
    totalTestCases,
    resumedTestCases,
    metricNames: ["Toxicity", "Bias"],
    startedAt: "2025-01-01T00:00:00.000Z",
  };
}

function caseEnd(finished: number, judgeCalls: number, costUsd: number | null): RunnerEvent {
  return {
    type: "test-case-end",
    runId: "run-1",
    result: {
      name: `case-${finished}`,
      index: finished - 1,
      success: true,
      input: "",
      actualOutput: null,
      expectedOutput: null,
      images: [],
      metricsData: [],
      trials: [],
      passedTrials: 1,
    },
    fingerprint: `fingerprint-${finished}`,
    finished,
    judgeCalls,
    costUsd,
  };
}

function runEnd(options: {
  judgeCalls: number;
  costUsd: number | null;
  durationMs: number;
  status?: RunStatus;
}): RunnerEvent {
  const result: EvaluationResult = {
    testRunId: "run-1",
    identifier: null,
    testResults: [],
    summary: {
      status: options.status ?? "completed",
      metrics: [],
      testCases: { total: 0, passed: 0, failed: 0, unscored: 0 },
      judgeCalls: options.judgeCalls,
      cacheHits: 0,
      sharedCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: options.costUsd,
      saved: { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
      durationMs: options.durationMs,
    },
  };
  return { type: "run-end", runId: "run-1", result, message: null };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createProgressReporter on a terminal", () => {
  it("redraws one line in place with counts, rate, time, judge calls and cost, then ends it", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({ stream, isTTY: true, now: clock.now });

    progress.onEvent(runStart(4));
    clock.advance(2000);
    progress.onEvent(caseEnd(1, 6, 0.0021));
    clock.advance(2000);
    progress.onEvent(caseEnd(2, 12, null));

    expect(writes).toHaveLength(3);
    for (const write of writes) {
      expect(write.startsWith("\r")).toBe(true);
      expect(write).not.toContain("\n");
    }
    expect(writes[1]).toContain("[#####---------------] 1/4 test cases (25%)");
    expect(writes[1]).toContain("0.5/s · 0:02 elapsed · ETA 0:06 · 6 judge calls · $0.0021");
    expect(writes[2]).toContain("2/4 test cases (50%) · 0.5/s · 0:04 elapsed · ETA 0:04");
    expect(writes[2]).toContain("12 judge calls · cost unknown");

    clock.advance(2000);
    progress.onEvent(caseEnd(3, 18, 0.0063));
    clock.advance(2000);
    progress.onEvent(caseEnd(4, 24, 0.0084));
    progress.onEvent(runEnd({ judgeCalls: 24, costUsd: 0.0084, durationMs: 8000 }));
    const last = writes.at(-1) ?? "";
    const final = writes.at(-2) ?? "";
    expect(last).toBe("\n");
    expect(final).toContain("[####################] 4/4 test cases (100%) in 8.0s · 0.5/s");
    expect(final).not.toContain("ETA");
    expect(writes.join("").split("\n")).toHaveLength(2);
  });

  it("draws at most one frame per 100 ms, but always the last case", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({ stream, isTTY: true, now: clock.now });
    progress.onEvent(runStart(3));
    clock.advance(10);
    progress.onEvent(caseEnd(1, 1, 0));
    progress.onEvent(caseEnd(2, 2, 0));
    progress.onEvent(caseEnd(3, 3, 0));
    expect(writes).toHaveLength(2);
    expect(writes[1]).toContain("3/3 test cases");
  });

  it("keeps the line narrower than the terminal, so that \\r redraws all of it", () => {
    const { stream, writes } = fakeStream({ columns: 40 });
    const progress = createProgressReporter({ stream, isTTY: true, now: fakeClock().now });
    progress.onEvent(runStart(10));
    const line = (writes[0] ?? "").replace("\r", "").replace("\u001b[K", "");
    expect(line.length).toBeLessThan(40);
    expect(line.endsWith("…")).toBe(true);
  });

  it("refreshes the elapsed time while waiting, on an unref'd timer stopped at run-end", () => {
    vi.useFakeTimers();
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({ stream, isTTY: true, now: clock.now });
    progress.onEvent(runStart(2));
    clock.advance(3000);
    vi.advanceTimersByTime(1000);
    expect(writes.at(-1)).toContain("0:03 elapsed");
    progress.onEvent(
      runEnd({ judgeCalls: 0, costUsd: 0, durationMs: 3000, status: "interrupted" }),
    );
    expect(writes.at(-1)).toBe(" · interrupted\n");
    const count = writes.length;
    vi.advanceTimersByTime(10_000);
    expect(writes).toHaveLength(count);
  });

  it("ends an open line on stop() and ignores later events", () => {
    const { stream, writes } = fakeStream();
    const progress = createProgressReporter({ stream, isTTY: true, now: fakeClock().now });
    progress.onEvent(runStart(2));
    progress.stop();
    expect(writes.at(-1)).toBe("\n");
    progress.onEvent(caseEnd(1, 1, 0));
    progress.onEvent(runEnd({ judgeCalls: 1, costUsd: 0, durationMs: 10 }));
    expect(writes).toHaveLength(2);
  });
});

describe("createProgressReporter in CI logs", () => {
  it("prints plain lines, at most one per intervalMs, and a last line at run-end", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({
      stream,
      isTTY: false,
      intervalMs: 5000,
      now: clock.now,
    });

    progress.onEvent(runStart(500, 20));
    expect(writes).toEqual(["verdict: evaluating 500 test cases (20 resumed) with 2 metrics\n"]);
    for (let finished = 1; finished <= 120; finished += 1) {
      clock.advance(1000 / 3);
      progress.onEvent(caseEnd(finished, finished * 2, finished * 0.0007));
    }
    // The first case at once, then 40 s of progress at a 5 s interval: 7 more lines, however
    // many cases finished.
    expect(writes).toHaveLength(9);
    expect(writes[1]).toMatch(/^verdict: 1\/500 test cases \(0%\) · 3\.0\/s · ETA /);
    expect(writes[2]).toBe(
      "verdict: 16/500 test cases (3%) · 3.0/s · ETA 2:41 · 32 judge calls · $0.0112\n",
    );
    expect(writes.every((write) => !write.includes("\r") && write.endsWith("\n"))).toBe(true);

    progress.onEvent(runEnd({ judgeCalls: 240, costUsd: 0.084, durationMs: 40_000 }));
    expect(writes.at(-1)).toBe(
      "verdict: 120/500 test cases (24%) in 40.0s · 3.0/s · 240 judge calls · $0.0840\n",
    );
  });

  it("never shows more cases finished than in all (a test asserting twice is two cases)", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({
      stream,
      isTTY: false,
      intervalMs: 5000,
      now: clock.now,
    });
    progress.onEvent(runStart(3));
    for (let finished = 1; finished <= 4; finished += 1) {
      clock.advance(100);
      progress.onEvent(caseEnd(finished, finished, 0));
    }
    progress.onEvent(runEnd({ judgeCalls: 4, costUsd: 0, durationMs: 400 }));
    expect(writes.at(-1)).toMatch(/^verdict: 4\/4 test cases \(100%\) in /);
    expect(writes.join("")).not.toContain("4/3");
  });

  it("counts resumed cases as finished but not in the rate", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({
      stream,
      isTTY: false,
      intervalMs: 0,
      now: clock.now,
    });
    progress.onEvent(runStart(10, 4));
    clock.advance(2000);
    progress.onEvent(caseEnd(5, 3, 0.001));
    expect(writes[1]).toBe(
      "verdict: 5/10 test cases (50%) · 0.5/s · ETA 0:10 · 3 judge calls · $0.0010\n",
    );
  });

  it("reports the last cases of a burst once the interval has passed", () => {
    vi.useFakeTimers();
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({
      stream,
      isTTY: false,
      intervalMs: 5000,
      now: clock.now,
    });
    progress.onEvent(runStart(10));
    clock.advance(1000);
    progress.onEvent(caseEnd(1, 1, null));
    progress.onEvent(caseEnd(2, 2, null));
    progress.onEvent(caseEnd(3, 3, null));
    // The first case is shown at once; the next wait for the interval.
    expect(writes).toHaveLength(2);
    clock.advance(5000);
    vi.advanceTimersByTime(5000);
    expect(writes).toHaveLength(3);
    expect(writes[2]).toContain("3/10 test cases (30%)");
    expect(writes[2]).toContain("cost unknown");
  });

  it("shows a total still growing as '+', updated by later cases, final at run-end", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({
      stream,
      isTTY: false,
      intervalMs: 0,
      now: clock.now,
    });
    progress.onEvent({ ...(runStart(4) as RunStartEvent), totalFinal: false });
    expect(writes[0]).toBe(
      "verdict: evaluating 4 test cases so far (more as files are collected) with 2 metrics\n",
    );
    clock.advance(1000);
    progress.onEvent(caseEnd(1, 2, 0.001));
    expect(writes[1]).toBe("verdict: 1/4+ test cases · 1.0/s · ETA – · 2 judge calls · $0.0010\n");
    clock.advance(1000);
    progress.onEvent({
      ...(caseEnd(2, 4, 0.002) as TestCaseEndEvent),
      totalTestCases: 10,
      totalFinal: true,
    });
    expect(writes[2]).toBe(
      "verdict: 2/10 test cases (20%) · 1.0/s · ETA 0:08 · 4 judge calls · $0.0020\n",
    );
  });

  it("prints one line for a run of 0 test cases", () => {
    for (const isTTY of [true, false]) {
      const { stream, writes } = fakeStream();
      const progress = createProgressReporter({ stream, isTTY, now: fakeClock().now });
      progress.onEvent(runStart(0));
      progress.onEvent(runEnd({ judgeCalls: 0, costUsd: 0, durationMs: 1 }));
      expect(writes).toEqual(["verdict: no test cases to evaluate\n"]);
    }
  });
});

describe("createProgressReporter safety", () => {
  it("does not throw when the stream does", () => {
    const { stream } = fakeStream({ failing: true });
    const progress = createProgressReporter({ stream, isTTY: true });
    expect(() => {
      progress.onEvent(runStart(2));
      progress.onEvent(caseEnd(1, 1, 0));
      progress.onEvent(runEnd({ judgeCalls: 1, costUsd: 0, durationMs: 10 }));
      progress.stop();
    }).not.toThrow();
  });

  it("does not keep the process alive while a run is in progress", () => {
    const timers = () => process.getActiveResourcesInfo().filter((type) => type === "Timeout");
    const before = timers().length;
    const { stream } = fakeStream();
    const terminal = createProgressReporter({ stream, isTTY: true });
    const ci = createProgressReporter({ stream, isTTY: false, intervalMs: 60_000 });
    terminal.onEvent(runStart(2));
    ci.onEvent(runStart(2));
    ci.onEvent(caseEnd(1, 1, 0));
    expect(timers()).toHaveLength(before);
    terminal.stop();
    ci.stop();
  });
});

describe("provider batches in progress", () => {
  const batchEvent = (
    event: "submitted" | "status" | "ended" | "direct",
    providerStatus: string | null,
    counts: { total: number; completed: number; failed: number } | null = null,
  ): RunnerEvent => ({
    type: "judge-batch",
    runId: "run-1",
    judge: "openai:gpt-4.1",
    provider: "openai.batch",
    batchId: event === "direct" ? null : "batch_abc",
    event,
    providerStatus,
    lines: 2000,
    counts,
    ...(event === "direct"
      ? { message: "Batch batch_abc (expired): 14 requests are sent directly." }
      : {}),
  });

  it("shows each batch's status and counts on the terminal line until it ends", () => {
    const { stream, writes } = fakeStream({ columns: 200 });
    const clock = fakeClock();
    const progress = createProgressReporter({ stream, isTTY: true, now: clock.now });
    progress.onEvent(runStart(2000));
    progress.onEvent(batchEvent("submitted", "validating"));
    progress.onEvent(
      batchEvent("status", "in_progress", { total: 2000, completed: 1200, failed: 3 }),
    );
    expect(writes.at(-1)).toContain("batch_abc in_progress 1,200/2,000 done, 3 failed");
    progress.onEvent(batchEvent("ended", "completed", { total: 2000, completed: 2000, failed: 0 }));
    expect(writes.at(-1)).not.toContain("batch_abc");
    progress.stop();
  });

  it("prints a log line when a batch is submitted, changes status, ends or falls back, not for every check", () => {
    const { stream, writes } = fakeStream();
    const clock = fakeClock();
    const progress = createProgressReporter({ stream, isTTY: false, now: clock.now });
    progress.onEvent(runStart(2000));
    progress.onEvent(batchEvent("submitted", "validating"));
    progress.onEvent(
      batchEvent("status", "in_progress", { total: 2000, completed: 10, failed: 0 }),
    );
    progress.onEvent(
      batchEvent("status", "in_progress", { total: 2000, completed: 20, failed: 0 }),
    );
    progress.onEvent(batchEvent("ended", "expired", { total: 2000, completed: 1986, failed: 14 }));
    progress.onEvent(batchEvent("direct", null));
    expect(writes.slice(1)).toEqual([
      "verdict: batch submitted: batch_abc validating 2,000 requests (openai:gpt-4.1)\n",
      "verdict: batch: batch_abc in_progress 10/2,000 done (openai:gpt-4.1)\n",
      "verdict: batch ended: batch_abc expired 1,986/2,000 done, 14 failed (openai:gpt-4.1)\n",
      "verdict: Batch batch_abc (expired): 14 requests are sent directly.\n",
    ]);
  });
});
