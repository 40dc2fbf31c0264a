import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { ToxicityMetric } from "../metrics/toxicity/toxicity-metric.ts";
import { MockJudge, type MockJudgeCall } from "../testing/mock-judge.ts";
import { assertTest } from "./assert-test.ts";
import "./index.ts";
import { trackTestContext } from "./test-context.ts";

function answer(call: MockJudgeCall) {
  const rude = call.prompt.includes("idiot");
  if (call.kind === "opinions") return { opinions: [rude ? "You are an idiot." : "Friendly."] };
  if (call.kind === "verdicts") return { verdicts: [{ verdict: rude ? "yes" : "no" }] };
  return { reason: "The output calls the user an idiot." };
}

const options = { cache: false as const, env: {} };
const metrics = () => [new ToxicityMetric({ model: new MockJudge({ answers: answer }) })];

/** Resolves once `count` tests have arrived: they are then all running at the same time. */
function barrier(count: number) {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    arrived += 1;
    if (arrived === count) open();
    return opened;
  };
}

describe("with verdict's test context, concurrent tests", () => {
  trackTestContext();
  const together = barrier(2);

  it.concurrent("file each result under the test that asked (the first started)", async ({
    task,
  }) => {
    await together();
    await assertTest({ input: "Hi", actualOutput: "Hello there." }, metrics(), options);
    expect(task.meta.verdict?.map((record) => record.result?.actualOutput)).toEqual([
      "Hello there.",
    ]);
  });

  it.concurrent("file each result under the test that asked (the last started)", async ({
    task,
  }) => {
    await together();
    const error = await assertTest(
      { input: "Hey", actualOutput: "You are an idiot." },
      metrics(),
      options,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect(task.meta.verdict?.map((record) => [record.outcome, record.result?.input])).toEqual([
      ["failed", "Hey"],
    ]);
  });
});

describe("without verdict's test context, concurrent tests", () => {
  const together = barrier(2);
  let secondDone: () => void = () => undefined;
  const secondFinished = new Promise<void>((resolve) => {
    secondDone = resolve;
  });

  it.concurrent("assert normally once they run alone", async ({ task }) => {
    await together();
    await secondFinished;
    await assertTest({ input: "Hi", actualOutput: "Hello there." }, metrics(), options);
    expect(task.meta.verdict).toHaveLength(1);
  });

  it.concurrent("refuse to guess while several run, naming the fixes", async ({
    task,
    onTestFinished,
  }) => {
    onTestFinished(() => secondDone());
    await together();
    const error = await assertTest(
      { input: "Hi", actualOutput: "Hello there." },
      metrics(),
      options,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /2 tests of src\/vitest\/test-context\.test\.ts run at once/,
    );
    expect((error as Error).message).toContain('"verdict/vitest/setup"');
    expect((error as Error).message).toContain("{ task }");
    await expect(
      expect({ input: "Hi", actualOutput: "Hello there." }).toPass(metrics(), options),
    ).rejects.toThrow(/toPass cannot tell which test/);
    // The context's own task still works.
    await assertTest({ input: "Hi", actualOutput: "Hello there." }, metrics(), {
      ...options,
      task,
    });
    expect(task.meta.verdict).toHaveLength(1);
  });
});

describe("without verdict's test context, the context's expect", () => {
  const together = barrier(2);
  let firstDone: () => void = () => undefined;
  const firstFinished = new Promise<void>((resolve) => {
    firstDone = resolve;
  });

  it.concurrent("files the result under its own test while a later one runs", async ({
    task,
    expect: own,
    onTestFinished,
  }) => {
    onTestFinished(() => firstDone());
    await together();
    await own({ input: "Hi", actualOutput: "Hello there." }).toPass(metrics(), options);
    expect(task.meta.verdict?.map((record) => record.testName)).toEqual([task.fullTestName]);
  });

  it.concurrent("(the later test, still running meanwhile)", async ({ task }) => {
    await together();
    await firstFinished;
    expect(task.meta.verdict).toBeUndefined();
  });
});
