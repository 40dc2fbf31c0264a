// `verdict test run --dry-run` and `--max-cost` as a user runs them: the program in a child
// process, in a project of its own, against the fake OpenAI server (gpt-4.1's price), with a
// store (VERDICT_HOME) per scenario.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import { readingJudge } from "../fixtures/reading-judge.ts";
import { fakeJudgeEnv, projectRoot, runNode } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");

/** Thirty answers, each judged for toxicity and relevancy; every fifth one rude. */
const ANSWERS_EVAL = `import { test } from "vitest";
import { AnswerRelevancyMetric, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

for (let number = 1; number <= 30; number++) {
  const rude = number % 5 === 0;
  test(\`answer \${number}\`, async () => {
    const actualOutput = rude
      ? \`Plan \${number} is nasty. It was filed in May.\`
      : \`Plan \${number} is great. It was filed in June. It costs little.\`;
    await assertTest({ input: \`What about plan \${number}?\`, actualOutput }, [
      new ToxicityMetric({ threshold: 1 }),
      new AnswerRelevancyMetric({ threshold: 0 }),
    ]);
  });
}
`;

let project: string;
let server: FakeOpenAIServer;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ respond: readingJudge });
  project = makeLinkedProject({ prefix: "verdict-budget-cli-" });
  mkdirSync(join(project, "evals"), { recursive: true });
  writeFileSync(join(project, "evals/answers.eval.ts"), ANSWERS_EVAL);
});

afterAll(async () => {
  await server?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs `verdict test run evals …` with a store of its own; counts the judge requests it made (one run at a time). */
function verdict(args: string[], home: string) {
  const before = server.stats().requests;
  return runNode({
    args: [MAIN, "test", "run", "evals", ...args],
    cwd: project,
    env: fakeJudgeEnv({ serverUrl: server.url, home: join(project, "homes", home) }),
  }).finished.then((result) => ({ ...result, requests: server.stats().requests - before }));
}

async function storedRun(home: string, identifier: string) {
  const store = SqliteRunStore.open({ home: join(project, "homes", home) });
  try {
    return await store.runs.getRun(identifier);
  } finally {
    await store.close();
  }
}

describe("verdict test run with a budget", () => {
  it("--dry-run asks no judge and prints the expected spend, with the budget's share", async ({
    expect,
  }) => {
    const result = await verdict(["--dry-run", "--max-cost", "1"], "dry");
    expect(result.stderr).not.toMatch(/error|warning/i);
    expect(result.code).toBe(0);
    expect(result.requests).toBe(0);
    expect(result.stdout).toContain("Dry run: no judge was called. What 30 test cases × 2 metrics");
    expect(result.stdout).toMatch(/\| Toxicity +\| +\d+ \|/);
    expect(result.stdout).toMatch(/\| Answer Relevancy +\| +\d+ \|/);
    expect(result.stdout).toMatch(/\| range +\| +30–90 \|/);
    expect(result.stdout).toMatch(/\| total +\| +\d+ \| +[\d,]+ \| +[\d,]+ \| +\$0\.\d{4} \|/);
    expect(result.stdout).toMatch(/Budget \$1\.0000: the expected cost is \d+% of it/);
    expect(await storedRun("dry", "anything")).toBeNull();
  });

  it("stops at 40% of the cost without passing it (exit 4), then --resume with more finishes, paying nothing twice", async ({
    expect,
  }) => {
    const full = await verdict(["--identifier", "full"], "full");
    expect(full.code).toBe(0);
    const fullRun = await storedRun("full", "full");
    const fullCost = fullRun?.summary?.costUsd ?? Number.NaN;
    expect(fullRun?.summary?.judgeCalls).toBe(full.requests);
    const maxCost = (fullCost * 0.4).toFixed(6);

    const first = await verdict(["--identifier", "nightly", "--max-cost", maxCost], "budget");
    expect(first.code).toBe(4);
    const stopped = await storedRun("budget", "nightly");
    expect(stopped?.status).toBe("budget-exhausted");
    const spent = stopped?.summary?.budget?.spentCostUsd ?? Number.NaN;
    expect(spent).toBeLessThanOrEqual(Number(maxCost));
    expect(stopped?.summary?.costUsd).toBeLessThanOrEqual(Number(maxCost));
    const lines = first.stdout
      .split("\n")
      .filter((line) => line.startsWith("Stopped by the budget"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Stopped by the budget: spent \$0\.\d{4} of \$0\.\d{4}, and the next judge call could have passed it\. \d+\/30 test cases finished and stored, \d+ left unscored\. Resume with a larger budget: verdict test run --identifier nightly --resume --max-cost [\d.]+ \(with the same paths and flags\)\.$/,
    );

    const second = await verdict(
      ["--identifier", "nightly", "--resume", "--max-cost", String(fullCost * 2)],
      "budget",
    );
    expect(second.code).toBe(0);
    const finished = await storedRun("budget", "nightly");
    expect(finished?.status).toBe("completed");
    expect(finished?.summary?.testCases.total).toBe(30);
    // Nothing paid twice: the two parts asked the judge what one whole run asks, and the
    // budget, which counts the cases the first part cut short too, spent what it costs.
    expect(first.requests + second.requests).toBe(full.requests);
    expect(finished?.summary?.budget?.spentCostUsd).toBeCloseTo(fullCost, 10);
  });

  it("refuses a budget it cannot keep, and a dry run with a report, with one line (exit 2)", async ({
    expect,
  }) => {
    const zero = await verdict(["--max-cost", "0"], "refused");
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--max-cost takes dollars above 0, e.g. --max-cost 2.50.");
    const report = await verdict(["--dry-run", "--output", "json"], "refused");
    expect(report.code).toBe(2);
    expect(report.stderr).toContain("--dry-run writes no report, it prints the estimate");
  });
});
