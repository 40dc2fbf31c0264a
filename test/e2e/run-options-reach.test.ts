import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { calibrate } from "../../src/calibrate/calibrate.ts";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import {
  RUN_OPTION_NAMES,
  type RunOptions,
  SCHEDULER_OPTION_NAMES,
} from "../../src/evaluate/run-options.ts";
import type { RunPlan } from "../../src/evaluate/run-session.ts";
import { JudgeScheduler } from "../../src/evaluate/scheduler.ts";
import { evaluateCheckpoints } from "../../src/finetune/evaluate-checkpoints.ts";
import { createEvaluationCallback } from "../../src/finetune/evaluation-callback.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { emptySpending } from "../../src/results/spending.ts";
import { summarizeRun } from "../../src/results/summarize-run.ts";
import { MemoryRunStore } from "../../src/store/memory-run-store.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { MockJudge } from "../../src/testing/mock-judge.ts";
import {
  answerFineTuningJudge,
  FINETUNE_GOLDENS,
  FINETUNE_JOB_ID,
  riseAndFallCheckpoints,
} from "../fixtures/finetune-job.ts";
import { answer } from "../fixtures/judge-answers.ts";

// The engine's entry: every front-end ends here. Mocked to keep the options it was given
// (here, not beside the code: unit tests share workers and may not mock modules).
const received: RunOptions[] = [];
vi.mock("../../src/evaluate/run-session.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/evaluate/run-session.ts")>();
  return {
    ...original,
    runSession: async (plan: RunPlan) => {
      received.push(plan.options);
      return {
        testRunId: "run-reach",
        identifier: plan.options.identifier ?? null,
        testResults: [],
        summary: summarizeRun({
          status: "completed",
          testResults: [],
          total: plan.total,
          spending: emptySpending(),
          durationMs: 0,
        }),
      };
    },
  };
});

let server: FakeOpenAIServer;
beforeEach(async () => {
  received.length = 0;
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

/** Every run option set to a value no default has, so that its arrival can be told. */
function everyRunOption(env: NodeJS.ProcessEnv) {
  const controller = new AbortController();
  const options: Required<Omit<RunOptions, "scheduler">> = {
    maxConcurrent: 7,
    throttleMs: 3,
    ignoreErrors: true,
    skipOnMissingParams: true,
    cache: false,
    repeat: 2,
    verbose: true,
    display: "failing",
    showProgress: true,
    identifier: "reach",
    resume: true,
    shard: "1/2",
    metadata: { reach: 1 },
    store: new MemoryRunStore(),
    keepResults: false,
    keepJudgeText: "hash",
    onProgress: () => {},
    reporters: [{ onEvent: () => {} }],
    signal: controller.signal,
    retry: { maxAttempts: 2 },
    handleInterrupt: false,
    env,
    batch: { collectMs: 5 },
    budget: { maxTokens: 1_000_000 },
  };
  return options;
}

/** The same options with a scheduler in place of those it brings. */
function withAScheduler(options: RunOptions): RunOptions {
  const given: Record<string, unknown> = { ...options };
  for (const name of SCHEDULER_OPTION_NAMES) delete given[name];
  return { ...(given as RunOptions), scheduler: new JudgeScheduler({ maxConcurrent: 3 }) };
}

/**
 * Checks that each run option the user gave arrived as given, but those the front-end sets
 * itself by design (`own`), which must still arrive with a value.
 */
function expectReached(options: {
  given: RunOptions;
  arrived: RunOptions | undefined;
  own?: ReadonlyArray<keyof RunOptions>;
  /** Options the front-end's own scheduler brings: they must not arrive beside it. */
  replaced?: ReadonlyArray<keyof RunOptions>;
}): void {
  const { given, arrived } = options;
  expect(arrived).toBeDefined();
  const replaced = options.replaced ?? [];
  for (const name of replaced) expect(arrived?.[name], name).toBeUndefined();
  const own = new Set([...(options.own ?? []), ...replaced]);
  const lost = RUN_OPTION_NAMES.filter(
    (name) => given[name] !== undefined && !own.has(name) && arrived?.[name] !== given[name],
  );
  expect(lost, "run options that did not reach the engine as given").toEqual([]);
  for (const name of options.own ?? []) expect(arrived?.[name], name).toBeDefined();
}

const judge = () => new MockJudge({ answers: answer });
const env = () => ({ OPENAI_API_KEY: "sk-reach-0001", OPENAI_BASE_URL: server.url });

describe("every run option reaches the engine from every front-end", () => {
  it("evaluate()", async () => {
    for (const given of [everyRunOption(env()), withAScheduler(everyRunOption(env()))]) {
      received.length = 0;
      await evaluate({
        ...given,
        testCases: [{ input: "q", actualOutput: "a" }],
        metrics: [new ToxicityMetric({ model: judge() })],
      });
      expectReached({ given, arrived: received[0] });
    }
  });

  it("calibrate()", async () => {
    // calibrate() has no repeat nor display: its report is its own.
    for (const all of [everyRunOption(env()), withAScheduler(everyRunOption(env()))]) {
      // keepResults: false is refused there (a calibration compares every row's result).
      const { repeat: _repeat, display: _display, keepResults: _keep, ...given } = all;
      received.length = 0;
      await calibrate({
        ...given,
        metric: new ToxicityMetric({ model: judge() }),
        data: [
          { input: "q", actual_output: "a", label: 1 },
          { input: "q", actual_output: "b", label: 0 },
        ],
      }).catch(() => {});
      expectReached({ given, arrived: received[0], own: ["display"] });
    }
  });

  it("createEvaluationCallback()", async () => {
    for (const all of [everyRunOption(env()), withAScheduler(everyRunOption(env()))]) {
      // The callback names its runs itself (identifier) and starts each epoch afresh.
      const { identifier: _identifier, resume: _resume, ...given } = all;
      received.length = 0;
      const callback = createEvaluationCallback({
        ...given,
        goldens: [{ input: "q" }],
        metrics: [new ToxicityMetric({ model: judge() })],
        generate: async () => "answer",
        print: () => {},
      });
      await callback.onEpochEnd(0, {});
      expectReached({ given, arrived: received[0], own: ["identifier", "metadata"] });
      expect(received[0]?.metadata).toMatchObject({ reach: 1, training: { logs: {} } });
    }
  });

  it("evaluateCheckpoints()", async () => {
    server.addFineTuningJob({ id: FINETUNE_JOB_ID, checkpoints: riseAndFallCheckpoints() });
    // The watch resumes and names each checkpoint's run itself, and brings its own scheduler,
    // made from the scheduler's own options, and its own signal, tied to the one given.
    const { identifier: _identifier, resume: _resume, ...given } = everyRunOption(env());
    const watchJudge = new MockJudge({ answers: (call) => answerFineTuningJudge(call) });
    await evaluateCheckpoints({
      ...given,
      cache: true,
      batch: false,
      job: FINETUNE_JOB_ID,
      goldens: FINETUNE_GOLDENS,
      metrics: [new ToxicityMetric({ model: watchJudge })],
      pollIntervalMs: 1000,
      sleep: async () => {},
      print: () => {},
    }).catch(() => {});
    expectReached({
      given: { ...given, cache: true, batch: false },
      arrived: received[0],
      own: ["identifier", "resume", "scheduler", "metadata", "signal", "handleInterrupt"],
      replaced: SCHEDULER_OPTION_NAMES,
    });
    expect(received[0]?.scheduler).toBeInstanceOf(JudgeScheduler);
    expect(received[0]?.metadata).toMatchObject({ reach: 1 });
  });

  it("refuses a scheduler given with the options it brings, instead of ignoring them", async () => {
    for (const name of SCHEDULER_OPTION_NAMES) {
      const run = evaluate({
        testCases: [{ input: "q", actualOutput: "a" }],
        metrics: [new ToxicityMetric({ model: judge() })],
        scheduler: new JudgeScheduler(),
        [name]: everyRunOption(env())[name],
        store: false,
        handleInterrupt: false,
      });
      await expect(run).rejects.toThrow(`${name} is the scheduler's when a scheduler is given`);
    }
    expect(received).toEqual([]);
  });
});
