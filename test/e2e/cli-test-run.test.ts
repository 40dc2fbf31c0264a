// `verdict test run` and `verdict merge` as a user runs them: the program in a child process,
// in a project of its own (with `verdict` and `vitest` installed as links), against the fake
// OpenAI server. The "verdict-source" condition makes the program and the eval files load the
// current sources.
//
// Each run of the program takes a second or two, so the scenarios run at the same time: each
// has a store (VERDICT_HOME) of its own, and the one unsharded run of the whole project is
// shared by the scenarios that need it.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { EvaluationResult, TestResult } from "../../src/results/evaluation-result.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { judgeIdiots as judge } from "../fixtures/idiot-judge.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import {
  postgresMissing,
  postgresSchemaUrl,
  postgresUrl,
} from "../fixtures/postgres-test-store.ts";
import { fakeJudgeEnv, projectRoot } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");

const GREETING_EVAL = `import { expect, test } from "vitest";
import { BiasMetric, LLMTestCase, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

test("greets politely", async () => {
  const testCase = new LLMTestCase({ input: "Hi!", actualOutput: "Hello! How can I help?" });
  await assertTest(testCase, [new ToxicityMetric()]);
});

test("describes Sarah kindly", async () => {
  await expect({ input: "Who is Sarah?", actualOutput: "Sarah is a kind colleague." }).toPass([
    new ToxicityMetric(),
    new BiasMetric(),
  ]);
});
`;

const ANSWER_EVAL = `import { test } from "vitest";
import { AnswerRelevancyMetric } from "verdict";
import { assertTest } from "verdict/vitest";

test("answers the question", async () => {
  await assertTest(
    { input: "What is the capital of France?", actualOutput: "Paris is the capital of France." },
    [new AnswerRelevancyMetric()],
  );
});
`;

const INSULT_EVAL = `import { test } from "vitest";
import { ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

test("stays calm", async () => {
  await assertTest({ input: "Help me", actualOutput: "You are an idiot." }, [new ToxicityMetric()]);
});
`;

/** Eight tests, the 3rd, 5th and 8th rude: run at once by default, each must get its own case. */
const CONCURRENT_EVAL = `import { test } from "vitest";
import { ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

for (let number = 1; number <= 8; number++) {
  const rude = [3, 5, 8].includes(number);
  test(\`answer \${number}\`, async () => {
    const output = rude ? \`Answer \${number}: you are an idiot.\` : \`Answer \${number}: glad to help.\`;
    await assertTest({ input: \`Question \${number}\`, actualOutput: output }, [new ToxicityMetric()]);
  });
}
`;

/** One RAG case, every retrieval metric and Hallucination on it. */
// toPass with no import of verdict/vitest: verdict test run's setup file registers it.
const MATCHER_ONLY_EVAL = `import { expect, test } from "vitest";
import { ToxicityMetric } from "verdict";

test("greets without importing verdict/vitest", async () => {
  await expect({ input: "Hi!", actualOutput: "Hello! How can I help?" }).toPass([
    new ToxicityMetric(),
  ]);
});
`;

const RAG_EVAL = `import { test } from "vitest";
import {
  ContextualPrecisionMetric,
  ContextualRecallMetric,
  ContextualRelevancyMetric,
  HallucinationMetric,
} from "verdict";
import { assertTest } from "verdict/vitest";

test("answers from what was retrieved", async () => {
  await assertTest(
    {
      input: "When can I return shoes?",
      actualOutput: "Within 30 days.",
      expectedOutput: "Returns are accepted within 30 days.",
      context: ["Returns are accepted within 30 days of delivery."],
      retrievalContext: ["Returns are accepted within 30 days of delivery.", "Shipping is free."],
    },
    [
      new ContextualRelevancyMetric(),
      new ContextualPrecisionMetric(),
      new ContextualRecallMetric(),
      new HallucinationMetric(),
    ],
  );
});
`;

const BROKEN_EVAL = `import { test } from "vitest";

test("never collected", async () => {
  const answer = ;
});
`;

let project: string;
let server: FakeOpenAIServer;

/** A store of the scenario's own, so that scenarios running at once count only their runs. */
function storeHome(name: string): string {
  return join(project, "verdict-homes", name);
}

function cliEnv(options: { home: string; extra?: NodeJS.ProcessEnv }): NodeJS.ProcessEnv {
  return fakeJudgeEnv({ serverUrl: server.url, ...options });
}

/** Runs `verdict <args>` in the temporary project; resolves with its exit code and output. */
function verdict(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ["--conditions=verdict-source", MAIN, ...args], {
    cwd: project,
    env,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** How many runs the store in `home` holds (0 when nothing created it). */
async function storedRuns(home: string): Promise<number> {
  if (!existsSync(home)) return 0;
  const store = SqliteRunStore.open({ home });
  try {
    return (await store.runs.listRuns()).length;
  } finally {
    await store.close();
  }
}

function readReport(file: string): EvaluationResult {
  return JSON.parse(readFileSync(join(project, file), "utf8")) as EvaluationResult;
}

/** What must be the same for a merged run and an unsharded one. */
function totals(result: EvaluationResult) {
  return {
    testCases: result.summary.testCases,
    metrics: result.summary.metrics.map(({ name, passed, failed, errored }) => ({
      name,
      passed,
      failed,
      errored,
    })),
    names: result.testResults.map((testResult) => testResult.name),
  };
}

beforeAll(async () => {
  server = await startFakeOpenAIServer({ respond: judge });
  project = makeLinkedProject({ prefix: "verdict-test-run-" });
  mkdirSync(join(project, "evals/polite"), { recursive: true });
  mkdirSync(join(project, "evals/rude"), { recursive: true });
  writeFileSync(join(project, "evals/polite/greeting.eval.ts"), GREETING_EVAL);
  writeFileSync(join(project, "evals/polite/answer.eval.ts"), ANSWER_EVAL);
  writeFileSync(join(project, "evals/rude/insult.eval.ts"), INSULT_EVAL);
  // Not *.eval.ts: run only by the scenarios that name them.
  mkdirSync(join(project, "other/broken"), { recursive: true });
  writeFileSync(join(project, "other/concurrent.check.ts"), CONCURRENT_EVAL);
  writeFileSync(join(project, "other/rag.check.ts"), RAG_EVAL);
  writeFileSync(join(project, "other/matcher-only.check.ts"), MATCHER_ONLY_EVAL);
  writeFileSync(join(project, "other/broken/syntax.check.ts"), BROKEN_EVAL);
});

afterAll(async () => {
  await server?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** The run of the whole project, shared by the scenarios that need it: started once. */
let wholeProjectRun: ReturnType<typeof verdict> | undefined;
const WHOLE_PROJECT_HOME = "whole-project";
function runWholeProject() {
  wholeProjectRun ??= verdict(
    ["test", "run", "--output", "json", "--output-file", "all.json"],
    cliEnv({ home: storeHome(WHOLE_PROJECT_HOME) }),
  );
  return wholeProjectRun;
}

describe.concurrent("verdict test run", () => {
  it("exits 0 when every case passes, and writes every --output asked for", async ({ expect }) => {
    const result = await verdict(
      [
        "test",
        "run",
        "evals/polite",
        "-c",
        "--output",
        "junit",
        "--output",
        "html=out/polite.html",
      ],
      cliEnv({ home: storeHome("polite") }),
    );
    expect(result.stderr).not.toMatch(/error|warning/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Test cases: 3 passed, 0 failed, 0 unscored (3 total)");
    const report = join(project, "verdict-report.xml");
    const html = join(project, "out/polite.html");
    expect(result.stdout).toContain(`Report written to ${report}`);
    expect(result.stdout).toContain(`Report written to ${html}`);
    // One <testcase> per metric a case ran: Toxicity; Toxicity and Bias; Answer Relevancy.
    // No <skipped> for the metrics a test did not assert.
    const xml = readFileSync(report, "utf8");
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).not.toContain("<skipped");
    expect(xml).toMatch(
      /<testcase classname="verdict.Toxicity" name="greets politely › Toxicity" time="\d+\.\d{3}" file="evals\/polite\/greeting\.eval\.ts" line="5">/,
    );
    // Cases are numbered from 1 as the run lists them, never by the internal index.
    const caseNumbers = [...readFileSync(html, "utf8").matchAll(/class="case-meta">#(\d+)/g)];
    expect(caseNumbers.map((match) => Number(match[1])).sort()).toEqual([1, 2, 3]);
  });

  it("stores the judge's prompts and answers of each case, or with --judge-text hash only their hashes", async ({
    expect,
  }) => {
    const stored = async (home: string) => {
      const store = SqliteRunStore.open({ home });
      try {
        const [run] = await store.runs.listRuns();
        const [entry] = await store.runs.getTestResults(run?.id ?? "");
        const calls = entry?.result.metricsData.flatMap((metric) => metric.calls ?? []) ?? [];
        const hashes = calls.flatMap((call) => [call.promptHash ?? "", call.answerHash ?? ""]);
        return { hashes, texts: await store.runs.getJudgeTexts?.(run?.id ?? "", hashes) };
      } finally {
        await store.close();
      }
    };
    const homes = { text: storeHome("judge-text"), hash: storeHome("judge-hash") };
    const [texts, hashes] = await Promise.all([
      verdict(["test", "run", "evals/rude"], cliEnv({ home: homes.text })),
      verdict(["test", "run", "evals/rude", "--judge-text", "hash"], cliEnv({ home: homes.hash })),
    ]);
    expect([texts.code, hashes.code]).toEqual([1, 1]);
    const kept = await stored(homes.text);
    expect(kept.hashes.every((hash) => /^[0-9a-f]{64}$/.test(hash))).toBe(true);
    expect(kept.texts?.map((text) => text.text).join("\n")).toContain('"You are an idiot."');
    const hashed = await stored(homes.hash);
    expect(hashed.hashes).toEqual(kept.hashes);
    expect(hashed.texts).toEqual([]);
    const wrong = await verdict(
      ["test", "run", "--judge-text", "all"],
      cliEnv({ home: homes.hash }),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--judge-text");
  });

  it("exits 1 on a threshold failure, showing the metric, and stores one run", async ({
    expect,
  }) => {
    const home = storeHome(WHOLE_PROJECT_HOME);
    const runsBefore = await storedRuns(home);
    expect(runsBefore).toBe(0);
    const result = await runWholeProject();
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /FAIL +\| Toxicity +\| +1\.00 \| +0\.50 \| The score is 1\.00 because/,
    );
    expect(result.stdout).toContain("Test cases: 3 passed, 1 failed, 0 unscored (4 total)");
    expect(await storedRuns(home)).toBe(runsBefore + 1);
    const report = readReport("all.json") as Omit<EvaluationResult, "testResults"> & {
      testResults: Array<TestResult & { position: number }>;
    };
    expect(report.testResults.map((testResult) => testResult.name)).toEqual([
      "answers the question",
      "greets politely",
      "describes Sarah kindly",
      "stays calm",
    ]);
    expect(report.testResults.map((testResult) => testResult.position)).toEqual([1, 2, 3, 4]);
    for (const testResult of report.testResults) {
      expect(testResult.durationMs).toEqual(expect.any(Number));
    }
  });

  it("exits 2 with one clear line when no judge key is set", async ({ expect }) => {
    const result = await verdict(
      ["test", "run"],
      cliEnv({ home: storeHome("no-key"), extra: { OPENAI_API_KEY: undefined } }),
    );
    expect(result.code).toBe(2);
    const lines = `${result.stdout}${result.stderr}`.split("\n");
    expect(lines.filter((line) => line.includes("OPENAI_API_KEY"))).toHaveLength(1);
    expect(result.stdout).toBe("");
    // No case ran: no empty failed run is stored.
    expect(await storedRuns(storeHome("no-key"))).toBe(0);
  });

  it("exits 2 on a shard that does not exist", async ({ expect }) => {
    const result = await verdict(
      ["test", "run", "--shard", "3/2"],
      cliEnv({ home: storeHome("bad-shard") }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--shard");
  });

  it("exits 3 when the judge's quota is exhausted", async ({ expect }) => {
    const broke = await startFakeOpenAIServer({ respond: () => reply.quotaExceeded() });
    const result = await verdict(
      ["test", "run", "evals/polite", "--no-cache"],
      cliEnv({ home: storeHome("quota"), extra: { OPENAI_BASE_URL: broke.url } }),
    ).finally(() => broke.close());
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("Status: quota-exhausted");
    expect(result.stdout).toContain("3 unscored (3 total)");
    expect(result.stdout).toMatch(/quota/);
  });

  it("merges shards into the same totals as one unsharded run, one stored run per shard", async ({
    expect,
  }) => {
    const home = storeHome("shards");
    const runsBefore = await storedRuns(home);
    expect(runsBefore).toBe(0);
    const [first, second] = await Promise.all(
      ["1/2", "2/2"].map((shard, position) =>
        verdict(
          [
            "test",
            "run",
            "--shard",
            shard,
            "--output",
            "json",
            "--output-file",
            `shard-${position + 1}.json`,
          ],
          cliEnv({ home }),
        ),
      ),
    );
    expect([first?.code, second?.code].sort()).toEqual([0, 1]);
    expect(await storedRuns(home)).toBe(runsBefore + 2);

    const merged = await verdict(
      ["merge", "shard-1.json", "shard-2.json", "--output", "json", "--output-file", "merged.json"],
      cliEnv({ home }),
    );
    expect(merged.code).toBe(1);
    expect(merged.stdout).toContain("Test cases: 3 passed, 1 failed, 0 unscored (4 total)");
    // The unsharded run to compare with (shared with the threshold-failure scenario).
    await runWholeProject();
    expect(totals(readReport("merged.json"))).toEqual(totals(readReport("all.json")));
  });

  it.skipIf(postgresUrl === null)(
    `writes the shards of one build into one run of a team's PostgreSQL store, which merge --run reads whole ${postgresMissing}`,
    async ({ expect }) => {
      const url = postgresSchemaUrl();
      const team = { VERDICT_STORE: url, VERDICT_RUN_GROUP: "build-9" };
      const [first, second] = await Promise.all(
        ["1/2", "2/2"].map((shard, position) =>
          verdict(
            ["test", "run", "--shard", shard, "--identifier", "team-main"],
            cliEnv({ home: storeHome(`pg-machine-${position}`), extra: team }),
          ),
        ),
      );
      expect([first?.code, second?.code].sort()).toEqual([0, 1]);
      // Each machine wrote into the team's store, not into a .verdict/ of its own.
      expect(existsSync(join(storeHome("pg-machine-0"), "verdict.db"))).toBe(false);

      const merged = await verdict(
        ["merge", "--run", "team-main", "--output", "json", "--output-file", "pg-merged.json"],
        cliEnv({ home: storeHome("pg-reader"), extra: { VERDICT_STORE: url } }),
      );
      expect(merged.stderr).toBe("");
      expect(merged.code).toBe(1);
      expect(merged.stdout).toContain("2 shards of 2, 4 test cases.");
      expect(merged.stdout).toContain("Test cases: 3 passed, 1 failed, 0 unscored (4 total)");
      await runWholeProject();
      expect(totals(readReport("pg-merged.json"))).toEqual(totals(readReport("all.json")));
    },
  );

  it("runs a file's tests at once and files each case under its own test", async ({ expect }) => {
    // Slow enough that all eight tests are in flight together.
    const slow = await startFakeOpenAIServer({ respond: judge, latencyMs: 150 });
    const result = await verdict(
      ["test", "run", "other/concurrent.check.ts", "--output", "json", "--output-file", "c.json"],
      cliEnv({ home: storeHome("concurrent"), extra: { OPENAI_BASE_URL: slow.url } }),
    ).finally(() => slow.close());
    expect(result.code).toBe(1);
    expect(slow.stats().peakInFlight).toBeGreaterThan(1);
    expect(result.stdout).toContain("Test cases: 5 passed, 3 failed, 0 unscored (8 total)");
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/outside verdict's metrics/);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/Serialized Error/);
    const report = readReport("c.json");
    expect(
      report.testResults.map((testResult) => [
        testResult.name,
        testResult.input,
        testResult.actualOutput,
        testResult.success,
      ]),
    ).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((number) => {
        const rude = [3, 5, 8].includes(number);
        return [
          `answer ${number}`,
          `Question ${number}`,
          rude ? `Answer ${number}: you are an idiot.` : `Answer ${number}: glad to help.`,
          !rude,
        ];
      }),
    );
  });

  it("runs the RAG metrics in a test file: each metric's score and the case stored", async ({
    expect,
  }) => {
    const result = await verdict(
      ["test", "run", "other/rag.check.ts", "--output", "json", "--output-file", "rag.json"],
      cliEnv({ home: storeHome("rag") }),
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("Test cases: 1 passed, 0 failed, 0 unscored (1 total)");
    const [testResult] = readReport("rag.json").testResults;
    expect(testResult?.metricsData.map((metric) => [metric.name, metric.score])).toEqual([
      ["Contextual Relevancy", 1],
      ["Contextual Precision", 1],
      ["Contextual Recall", 1],
      ["Hallucination", 0],
    ]);
    expect(await storedRuns(storeHome("rag"))).toBe(1);
  });

  it("registers toPass for test files that do not import verdict/vitest", async ({ expect }) => {
    const result = await verdict(
      ["test", "run", "other/matcher-only.check.ts"],
      cliEnv({ home: storeHome("matcher-only") }),
    );
    expect(result.stdout + result.stderr).not.toContain("Invalid Chai property");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("Test cases: 1 passed, 0 failed, 0 unscored (1 total)");
  });

  it("exits 2 when a report it was asked for could not be written, though every case passed", async ({
    expect,
  }) => {
    const result = await verdict(
      // A folder that cannot be made: its parent is a file.
      ["test", "run", "evals/polite", "--output", "junit=package.json/junit.xml"],
      cliEnv({ home: storeHome("unwritten-report") }),
    );
    expect(result.stdout).toContain("3 passed, 0 failed");
    expect(result.stderr).toContain(
      `Error: the junit report was not written to ${join(project, "package.json/junit.xml")}`,
    );
    expect(result.code).toBe(2);
  });

  it("keeps -n the limit across the workers that run the files at once", async ({ expect }) => {
    // Three files run in three workers at once; each worker's scheduler alone would allow
    // one request in flight, three together.
    const slow = await startFakeOpenAIServer({ respond: judge, latencyMs: 200 });
    const result = await verdict(
      ["test", "run", "-n", "1"],
      cliEnv({ home: storeHome("shared-limit"), extra: { OPENAI_BASE_URL: slow.url } }),
    ).finally(() => slow.close());
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("(4 total)");
    expect(slow.stats().requests).toBeGreaterThan(3);
    expect(slow.stats().peakInFlight).toBe(1);
  });

  it("exits 2 naming a file that does not load, storing and reporting no run", async ({
    expect,
  }) => {
    const home = storeHome("syntax-error");
    // No terminal, and no NO_COLOR: a TERM that says colours would do, as a CI log's.
    const env = { ...cliEnv({ home }), NO_COLOR: undefined, TERM: "xterm-256color" };
    const result = await verdict(["test", "run", "other/broken/syntax.check.ts"], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /Error: could not load other\/broken\/syntax\.check\.ts: .*(Unexpected|Expected|Syntax)/,
    );
    expect(result.stdout).not.toMatch(/Status:|Test cases:/);
    // Vitest colours its errors and Vite's parser its own: off a terminal, no colour codes,
    // raw or shown as <U+001B>.
    expect(result.stderr).toContain("[PARSE_ERROR]");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for colour codes
    expect(result.stderr).not.toMatch(/\u001b|<U\+001B>/);
    expect(await storedRuns(home)).toBe(0);
  });

  it("on Ctrl-C, stores the run as interrupted, reports what finished and exits 130", async ({
    expect,
  }) => {
    const slow = await startFakeOpenAIServer({ respond: judge, latencyMs: 400 });
    const home = storeHome("interrupted");
    // One test at a time, so that some finish before the interruption and others do not.
    const child = spawn(
      process.execPath,
      [
        "--conditions=verdict-source",
        MAIN,
        "test",
        "run",
        "other/concurrent.check.ts",
        "--no-concurrent",
      ],
      { cwd: project, env: cliEnv({ home, extra: { OPENAI_BASE_URL: slow.url } }) },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const firstCase = new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        if (/verdict: 1\/\d+/.test(stderr)) resolve();
      });
    });
    await firstCase;
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    await slow.close();
    expect(code).toBe(130);
    expect(stdout).toContain("Status: interrupted");
    expect(stdout).toMatch(
      /Run interrupted: \d+ test cases? finished and stored\. Running it again reuses the cached judge answers/,
    );
    // The tests cut short did not fail: no error says they were left unscored, and the
    // totals count the eight tests, those that never finished as unscored.
    expect(stdout).not.toMatch(/left unscored/);
    expect(stdout).toMatch(/Test cases: \d passed, 0 failed, [1-7] unscored \(8 total\)/);
    const store = SqliteRunStore.open({ home });
    try {
      const runs = await store.runs.listRuns();
      expect(runs.map((run) => run.status)).toEqual(["interrupted"]);
      const stored = (await store.runs.getTestResults(runs[0]?.id ?? "")).length;
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(8);
    } finally {
      await store.close();
    }
  });

  it("merge exits 2 naming a file that is not a report", async ({ expect }) => {
    writeFileSync(join(project, "not-a-report.json"), '{ "hello": 1 }');
    const result = await verdict(
      ["merge", "not-a-report.json"],
      cliEnv({ home: storeHome("bad-merge") }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("not-a-report.json");
  });

  it("runs an empty shard as an empty, passing run, and merge names a missing shard", async ({
    expect,
  }) => {
    const home = storeHome("small-suite");
    // Four tests over four shards, dealt by file rank: answer (1/4), greeting (2/4, 3/4),
    // insult (3/4); shard 4/4 gets none.
    const runs = await Promise.all(
      ["1/4", "2/4", "3/4", "4/4"].map((shard) =>
        verdict(
          ["test", "run", "--shard", shard, "--output", `json=small/shard-${shard[0]}.json`],
          cliEnv({ home }),
        ),
      ),
    );
    const empty = runs[3];
    expect(empty?.stderr).not.toMatch(/error|warning/i);
    expect(empty?.code).toBe(0);
    expect(empty?.stdout).toContain(
      "Shard 4/4 has no test to run (the suite has 4 tests over 4 shards): nothing to evaluate.",
    );
    expect(runs.map((run) => (run.stdout.match(/\(\d+ total\)/) ?? [""])[0])).toEqual([
      "(1 total)",
      "(1 total)",
      "(2 total)",
      "(0 total)",
    ]);
    const emptyReport = JSON.parse(readFileSync(join(project, "small/shard-4.json"), "utf8"));
    expect(emptyReport).toMatchObject({ shard: "4/4", testResults: [] });
    expect(emptyReport.summary.testCases.total).toBe(0);

    const partial = await verdict(
      ["merge", "small/shard-1.json", "small/shard-2.json", "small/shard-4.json"],
      cliEnv({ home }),
    );
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain("shard 3/4 has no report");
    expect(partial.stdout).toBe("");
    const allowed = await verdict(
      [
        "merge",
        "--allow-missing-shards",
        "small/shard-1.json",
        "small/shard-2.json",
        "small/shard-4.json",
      ],
      cliEnv({ home }),
    );
    expect(allowed.stdout).toContain("Incomplete: shard 3/4 has no report.");
    const whole = await verdict(
      ["merge", ...[1, 2, 3, 4].map((shard) => `small/shard-${shard}.json`)],
      cliEnv({ home }),
    );
    expect(whole.stdout).toContain("Test cases: 3 passed, 1 failed, 0 unscored (4 total)");
    expect(whole.code).toBe(1);
  });
});
