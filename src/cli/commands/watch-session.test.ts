// The watch session's side of a Vitest watch run, driven through its reporter hooks as Vitest
// calls them, with stand-ins for Vitest and the stop signals; test/e2e/watch-mode.test.ts runs
// the real program on a real project.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { TestModule, TestSpecification, Vitest } from "vitest/node";
import {
  evaluationResult,
  evaluationSummary,
  metricData,
  testResult,
} from "../../../test/fixtures/results.ts";
import type { StopSignal } from "../../evaluate/cancel-on-interrupt.ts";
import type { EvaluationResult, TestResult } from "../../results/evaluation-result.ts";
import type { TestRunStop } from "./test-run-stop.ts";
import type { WatchHeartbeat } from "./watch-heartbeat.ts";
import { WatchSession, watchIdentifier } from "./watch-session.ts";

const ROOT = "/project";

function specification(file: string): TestSpecification {
  return {
    project: { config: { root: ROOT } },
    moduleId: `${ROOT}/${file}`,
  } as unknown as TestSpecification;
}

/** A test file that did not load: an error and no test. */
function brokenModule(file: string): TestModule {
  return {
    relativeModuleId: file,
    errors: () => [{ message: "Transform failed" }],
    children: { allTests: () => [][Symbol.iterator]() },
  } as unknown as TestModule;
}

function toxicityCase(file: string, name: string, score: number, index: number): TestResult {
  return testResult({
    file,
    name,
    index,
    metricsData: [metricData({ name: "Toxicity", score, success: score <= 0.5 })],
  });
}

let runs = 0;
function resultOf(testResults: TestResult[], judgeCalls: number): EvaluationResult {
  const failed = testResults.filter((result) => result.success === false).length;
  runs += 1;
  return evaluationResult({
    testRunId: `run-${runs}`,
    testResults,
    summary: evaluationSummary({
      testCases: {
        total: testResults.length,
        passed: testResults.length - failed,
        failed,
        unscored: 0,
      },
      metrics: [
        {
          name: "Toxicity",
          lowerIsBetter: true,
          meanScore: 0,
          passRate: 1,
          passed: 0,
          failed: 0,
          errored: 0,
          scoreOnly: 0,
        },
      ],
      judgeCalls,
    }),
  });
}

function makeSession(options: { terminal?: boolean } = {}) {
  const stdin = new PassThrough();
  const rawModes: boolean[] = [];
  if (options.terminal) {
    Object.assign(stdin, {
      isTTY: true,
      isRaw: false,
      setRawMode: (raw: boolean) => rawModes.push(raw),
    });
  }
  let printed = "";
  const stdout = {
    write: (text: string) => {
      printed += text;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  let signal: (name: StopSignal) => void = () => {};
  const stop = {
    stopped: new Promise<StopSignal>((resolve) => {
      signal = resolve;
    }),
  } as unknown as TestRunStop;
  let last: EvaluationResult | null = null;
  const calls: string[] = [];
  const vitest = {
    config: { root: ROOT },
    cancelCurrentRun: async () => {
      calls.push("cancel");
    },
    close: async () => {
      calls.push("close");
    },
    waitForTestRunEnd: async () => {},
    globTestSpecifications: async () => [
      specification("evals/a.eval.ts"),
      specification("evals/b.eval.ts"),
    ],
    rerunTestSpecifications: async (specifications: TestSpecification[]) => {
      calls.push(`rerun ${specifications.length} files`);
    },
  } as unknown as Vitest;
  const beats: string[] = [];
  /** The ids of the runs, in order. */
  const ran: string[] = [];
  const heartbeat = {
    follow: (runId: string) => beats.push(`follow ${runId}`),
    pause: async () => {
      beats.push("pause");
    },
    close: async () => {
      beats.push("close");
    },
  } as unknown as WatchHeartbeat;
  const session = new WatchSession({
    identifier: "watch-test",
    lastResult: () => last,
    stop,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout,
    openHeartbeat: async () => heartbeat,
  });
  const hooks = session.reporter as Required<typeof session.reporter>;
  /** A run as Vitest reports it: start, end (with the modules), then back to watching. */
  const run = async (options: {
    files: string[];
    result: EvaluationResult;
    trigger?: string;
    modules?: TestModule[];
  }) => {
    if (options.trigger !== undefined) await hooks.onWatcherRerun(options.files, options.trigger);
    await hooks.onTestRunStart(options.files.map(specification));
    last = options.result;
    ran.push(options.result.testRunId);
    await hooks.onTestRunEnd(options.modules ?? [], [], "passed");
    await hooks.onWatcherStart();
  };
  return {
    session,
    beats,
    ran,
    rawModes,
    vitest,
    stdin,
    calls,
    run,
    signal: (name: StopSignal) => signal(name),
    printed: () => printed,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("WatchSession", () => {
  it("summarises each run against the suite's latest results, and quits with q (exit 0)", async () => {
    const { session, vitest, stdin, calls, run, printed, beats, ran } = makeSession();
    const a = [
      toxicityCase("evals/a.eval.ts", "calm", 0, 0),
      toxicityCase("evals/a.eval.ts", "rude", 0.2, 1),
    ];
    const b = [toxicityCase("evals/b.eval.ts", "polite", 0, 2)];
    await session.listen(vitest);
    await run({ files: ["evals/b.eval.ts", "evals/a.eval.ts"], result: resultOf([...a, ...b], 6) });
    expect(printed()).toContain(
      "Run 1 · 2 files: 3 cases, 3 passed, 0 failed\n  Judge calls: 6 paid",
    );

    const watching = session.watch();
    expect(printed()).toContain('Watching for changes (runs stored as "watch-test"');
    expect(printed()).toContain("type q and Enter to quit");

    // evals/a.eval.ts is saved: only it runs again; "rude" now fails.
    const rerun = [
      toxicityCase("evals/a.eval.ts", "calm", 0, 0),
      toxicityCase("evals/a.eval.ts", "rude", 0.9, 1),
    ];
    await run({
      files: ["evals/a.eval.ts"],
      trigger: "evals/a.eval.ts",
      result: resultOf(rerun, 2),
    });
    const second = printed().slice(printed().indexOf("Run 2"));
    expect(second).toContain(
      "Run 2 · evals/a.eval.ts changed · 1 file re-run: 2 cases, 1 passed, 1 failed",
    );
    expect(second).toContain("  Judge calls: 2 paid");
    expect(second).toContain('  Flipped: "rude" (evals/a.eval.ts) passed → failed');
    // Over the suite, b's case included: (0 + 0.2 + 0) / 3 → (0 + 0.9 + 0) / 3.
    expect(second).toContain("  Means over the suite: Toxicity 0.07 → 0.30");

    // Saved half-edited, the file does not load: its cases are not taken as gone.
    await run({
      files: ["evals/a.eval.ts"],
      trigger: "evals/a.eval.ts",
      result: resultOf([], 0),
      modules: [brokenModule("evals/a.eval.ts")],
    });
    const third = printed().slice(printed().indexOf("Run 3"));
    expect(third).toContain("  Flipped: none");
    expect(third).not.toContain("gone");

    stdin.write("a\n");
    await settle();
    expect(calls).toEqual(["rerun 2 files"]);
    await run({ files: ["evals/a.eval.ts", "evals/b.eval.ts"], result: resultOf([...a, ...b], 0) });
    const fourth = printed().slice(printed().indexOf("Run 4"));
    expect(fourth).toContain("Run 4 · every file re-run (a) · 2 files re-run");
    expect(fourth).toContain('  Flipped: "rude" (evals/a.eval.ts) failed → passed');

    stdin.write("q\n");
    await expect(watching).resolves.toBe(0);
    // A run in progress is cancelled (and stored as interrupted), then Vitest closes.
    expect(calls.slice(1)).toEqual(["cancel", "close"]);
    // Between runs the session beats for the latest one; a run beats for itself.
    expect(ran).toHaveLength(4);
    expect(beats).toEqual([...ran.flatMap((id) => ["pause", `follow ${id}`]), "close"]);
  });

  it("counts the cases of a deleted file as gone in the next run's summary", async () => {
    const { session, vitest, stdin, run, printed } = makeSession();
    const a = [toxicityCase("evals/a.eval.ts", "calm", 0, 0)];
    const b = [toxicityCase("evals/b.eval.ts", "polite", 0.9, 1)];
    await session.listen(vitest);
    await run({ files: ["evals/a.eval.ts", "evals/b.eval.ts"], result: resultOf([...a, ...b], 4) });
    const watching = session.watch();
    await (session.reporter.onTestRemoved as (trigger: string) => void)(`${ROOT}/evals/b.eval.ts`);
    await run({ files: ["evals/a.eval.ts"], trigger: "evals/a.eval.ts", result: resultOf(a, 0) });
    const second = printed().slice(printed().indexOf("Run 2"));
    expect(second).toContain("  Since the last run: 1 case gone");
    expect(second).toContain("  Means over the suite: Toxicity 0.45 → 0.00");
    stdin.write("q\n");
    await expect(watching).resolves.toBe(0);
  });

  it("ends on a stop signal with its exit code, leaving the cancel to TestRunStop", async () => {
    const { session, vitest, calls, signal, run, printed } = makeSession();
    await session.listen(vitest);
    await run({
      files: ["evals/a.eval.ts"],
      result: resultOf([toxicityCase("evals/a.eval.ts", "calm", 0, 0)], 2),
    });
    const watching = session.watch();
    signal("SIGTERM");
    await expect(watching).resolves.toBe(143);
    expect(calls).toEqual(["close"]);
    // A run cut short by the stop gets no summary.
    const before = printed();
    await run({ files: ["evals/a.eval.ts"], result: resultOf([], 0) });
    expect(printed()).toBe(before);
  });

  it("q while the suite's first run goes cancels it, also once its files are queued, and exits 0", async () => {
    const { session, vitest, stdin, calls, run, printed } = makeSession();
    await session.listen(vitest);
    stdin.write("q\n");
    await settle();
    expect(calls).toEqual(["cancel"]);
    // Vitest forgets a cancel that comes before its run began: it is made again.
    (session.reporter.onTestModuleQueued as () => void)();
    expect(calls).toEqual(["cancel", "cancel"]);
    // The cancelled run gets no summary, and no "Watching" line follows.
    await run({ files: ["evals/a.eval.ts"], result: resultOf([], 0) });
    expect(printed()).toBe("");
    await expect(session.watch()).resolves.toBe(0);
    expect(calls).toEqual(["cancel", "cancel", "close"]);
  });

  it("gives the terminal back when the suite could not run", async () => {
    const { session, vitest, rawModes } = makeSession({ terminal: true });
    await session.listen(vitest);
    await session.close();
    await session.close();
    expect(rawModes).toEqual([true, false]);
  });
});

describe("watchIdentifier", () => {
  it("names a session by its local start time, with random digits to tell sessions of the same second apart", () => {
    const started = new Date(2025, 2, 1, 14, 3, 12);
    const first = watchIdentifier(started);
    expect(first).toMatch(/^watch-20250301-140312-[0-9a-f]{4}$/);
    const others = new Set(Array.from({ length: 20 }, () => watchIdentifier(started)));
    expect(others.size).toBeGreaterThan(1);
  });
});
