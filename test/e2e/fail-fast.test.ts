// Fail fast on a judge that cannot work: a rejected key (401) or an unknown model (404
// model_not_found) stops the run at the first answer, prints one line naming the fix and
// exits 2 — under `verdict test run` (the program in a child process, real Vitest; a run that
// scored no case is not stored) and from evaluate() (the real AI SDK provider over HTTP to the
// fake server; the run is marked failed). An exhausted quota keeps exit 3
// (cli-test-run.test.ts).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { JudgeCallError } from "../../src/errors/judge-call-error.ts";
import { evaluate } from "../../src/evaluate/evaluate.ts";
import { BiasMetric } from "../../src/metrics/bias/bias-metric.ts";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  type FakeResponder,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import { projectRoot } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");
const CASES = 20;

/** 20 tests in one eval file, each asserting Toxicity and Bias on its own case. */
const SUPPORT_EVAL = `import { test } from "vitest";
import { BiasMetric, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

for (let index = 1; index <= ${CASES}; index++) {
  test(\`answer \${index}\`, async () => {
    await assertTest(
      { input: \`Question \${index}?\`, actualOutput: \`A polite answer number \${index}.\` },
      [new ToxicityMetric(), new BiasMetric()],
    );
  });
}
`;

/** OpenAI's answer to a model it does not have; gpt-4.1 gets the default answer. */
const knowsOnlyGpt41: FakeResponder = (request) =>
  request.model === "gpt-4.1" ? undefined : reply.modelNotFound(request.model);

let project: string;
let rejectingKey: FakeOpenAIServer;
let knowingOneModel: FakeOpenAIServer;

beforeAll(async () => {
  rejectingKey = await startFakeOpenAIServer({ respond: () => reply.unauthorized() });
  knowingOneModel = await startFakeOpenAIServer({ respond: knowsOnlyGpt41 });
  project = makeLinkedProject({ prefix: "verdict-fail-fast-" });
  mkdirSync(join(project, "evals"));
  writeFileSync(join(project, "evals/support.eval.ts"), SUPPORT_EVAL);
});

afterAll(async () => {
  await rejectingKey?.close();
  await knowingOneModel?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/**
 * Runs `verdict test run --no-cache --max-concurrent 1` in the project; resolves with its exit
 * code and output. One request in flight at a time, so that every other one is queued, however
 * concurrently the tests run: exactly one reaches the server.
 */
function testRun(env: NodeJS.ProcessEnv) {
  const child = spawn(
    process.execPath,
    ["--conditions=verdict-source", MAIN, "test", "run", "--no-cache", "--max-concurrent", "1"],
    {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1", ...env },
    },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise<{ code: number | null; lines: string[] }>((resolve) => {
    child.on("close", (code) =>
      resolve({ code, lines: output.split("\n").filter((line) => line.trim() !== "") }),
    );
  });
}

async function storedStatuses(home: string): Promise<string[]> {
  const store = SqliteRunStore.open({ home });
  try {
    return (await store.runs.listRuns()).map((run) => run.status);
  } finally {
    await store.close();
  }
}

describe.concurrent("verdict test run against a judge that cannot work", () => {
  it("exits 2 on a rejected key, with one line naming OPENAI_API_KEY and one request", async ({
    expect,
  }) => {
    const home = join(project, "homes/401");
    const result = await testRun({
      OPENAI_BASE_URL: rejectingKey.url,
      OPENAI_API_KEY: "sk-wrong",
      VERDICT_HOME: home,
    });
    expect(result.code).toBe(2);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(
      /^Judge "openai:gpt-4\.1": the API key was rejected \(HTTP 401\): .*Check OPENAI_API_KEY: set it/,
    );
    // Every other request failed at once, on the worker's stopped judge.
    expect(rejectingKey.stats().requests).toBe(1);
    // No case was scored: no empty failed run clutters the store.
    expect(await storedStatuses(home)).toEqual([]);
  });

  it("exits 2 on a mistyped model, with one line that names the model to use", async ({
    expect,
  }) => {
    const home = join(project, "homes/404");
    const result = await testRun({
      OPENAI_BASE_URL: knowingOneModel.url,
      OPENAI_API_KEY: "sk-fake",
      VERDICT_MODEL: "gtp-4.1",
      VERDICT_HOME: home,
    });
    expect(result.code).toBe(2);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(
      /^Judge "openai:gtp-4\.1": model not found \(HTTP 404\): .*Did you mean "gpt-4\.1"\? Check the model name \(VERDICT_MODEL/,
    );
    expect(knowingOneModel.stats().requests).toBe(1);
    expect(await storedStatuses(home)).toEqual([]);
  });
});

describe("evaluate() against a judge that cannot work", () => {
  it("throws the rejected key once, after few requests, and marks the stored run failed", async ({
    expect,
  }) => {
    const server = await startFakeOpenAIServer({ respond: () => reply.unauthorized() });
    const home = mkdtempSync(join(tmpdir(), "verdict-fail-fast-evaluate-"));
    try {
      const run = evaluate({
        testCases: Array.from({ length: CASES }, (_, index) => ({
          input: "Tell me about it.",
          actualOutput: `Answer number ${index}.`,
        })),
        metrics: [new ToxicityMetric(), new BiasMetric()],
        maxConcurrent: 2,
        // A rejected key is not a metric error: ignoreErrors does not hide it.
        ignoreErrors: true,
        identifier: "bad-key",
        env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-wrong", VERDICT_HOME: home },
        display: "none",
        handleInterrupt: false,
      });
      const error = await run.then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(JudgeCallError);
      expect(error).toMatchObject({ status: 401, kind: "configuration" });
      expect((error as Error).message).toContain("Check OPENAI_API_KEY");
      // The two in flight when the first 401 came back, and none after.
      expect(server.stats().requests).toBeLessThanOrEqual(2);
      expect(await storedStatuses(home)).toEqual(["failed"]);
    } finally {
      await server.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
