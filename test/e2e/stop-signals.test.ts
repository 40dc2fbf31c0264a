// SIGTERM (how CI services, Kubernetes and `docker stop` cancel a job) and SIGHUP (a closed
// terminal) stop a run as Ctrl-C does: real signals to real processes, an evaluate() script and
// `verdict test run`, each against a slow fake OpenAI server of its own, in a store of its own.
// Ctrl-C itself is covered by evaluate-http.test.ts and cli-test-run.test.ts.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { STOP_SIGNALS } from "../../src/evaluate/cancel-on-interrupt.ts";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake-openai-server.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import { type NodeRun, projectRoot, runNode } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");
const EVALUATE_CHILD = join(projectRoot, "test/e2e/fixtures/evaluate-child.ts");

/** Eight tests, run one at a time: some finish before the signal, others do not. */
const EIGHT_TESTS = `import { test } from "vitest";
import { ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

for (let number = 1; number <= 8; number++) {
  test(\`answer \${number}\`, async () => {
    await assertTest({ input: \`Question \${number}\`, actualOutput: \`Answer \${number}.\` }, [
      new ToxicityMetric(),
    ]);
  });
}
`;

let project: string;

/** Resolves once `test` holds for what the process printed (checked as it prints). */
function printed(run: NodeRun, test: (output: { stdout: string; stderr: string }) => boolean) {
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      if (test(run.output())) resolve();
    };
    run.child.stdout?.on("data", check);
    run.child.stderr?.on("data", check);
    void run.exited.then(() => reject(new Error(`exited first: ${run.output().stderr}`)));
  });
}

/** `verdict test run --no-concurrent --identifier ci-job …` in the project, on its own store. */
function testRun(options: {
  serverUrl: string;
  home: string;
  args?: string[];
  detached?: boolean;
}) {
  return runNode({
    args: [
      MAIN,
      "test",
      "run",
      "--no-concurrent",
      "--identifier",
      "ci-job",
      ...(options.args ?? []),
    ],
    cwd: project,
    ...(options.detached ? { detached: true } : {}),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: "1",
      OPENAI_BASE_URL: options.serverUrl,
      OPENAI_API_KEY: "sk-fake",
      VERDICT_HOME: options.home,
    },
  });
}

async function storedRuns(home: string) {
  const store = new SqliteRunStore({ path: join(home, "verdict.db") });
  try {
    const runs = await store.runs.listRuns();
    const results = runs[0] ? await store.runs.getTestResults(runs[0].id) : [];
    return { statuses: runs.map((run) => run.status), results: results.length };
  } finally {
    await store.close();
  }
}

describe.concurrent("a run stopped by SIGTERM or SIGHUP", () => {
  beforeAll(() => {
    project = makeLinkedProject({ prefix: "verdict-stop-signals-" });
    mkdirSync(join(project, "evals"));
    writeFileSync(join(project, "evals/answers.eval.ts"), EIGHT_TESTS);
  });
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    const code = STOP_SIGNALS[signal];

    it(`evaluate(): ${signal} stores the run interrupted, says how to resume, exits ${code}`, async ({
      expect,
    }) => {
      const server = await startFakeOpenAIServer({ latencyMs: 60 });
      const home = join(project, `evaluate-${signal}`);
      try {
        const run = runNode({
          args: [EVALUATE_CHILD],
          env: {
            CASES: "12",
            OPENAI_BASE_URL: server.url,
            OPENAI_API_KEY: "sk-fake",
            VERDICT_HOME: home,
          },
        });
        while (server.stats().requests < 3) await new Promise((resolve) => setTimeout(resolve, 20));
        run.child.kill(signal);
        const { code: exitCode, stdout, stderr } = await run.finished;
        expect(exitCode).toBe(code);
        expect(JSON.parse(stdout).status).toBe("interrupted");
        expect(stderr).toMatch(
          /Run interrupted: \d+\/12 test cases finished and stored\. Resume with evaluate\(\{ identifier: "killed-run", resume: true/,
        );
        const stored = await storedRuns(home);
        expect(stored.statuses).toEqual(["interrupted"]);
        expect(stored.results).toBeLessThan(12);
      } finally {
        await server.close();
      }
    });

    it(`verdict test run: ${signal} stores the run interrupted, prints the report, writes --output, exits ${code}`, async ({
      expect,
    }) => {
      const server = await startFakeOpenAIServer({ latencyMs: 300 });
      const home = join(project, `test-run-${signal}`);
      const report = join(project, `report-${signal}.json`);
      try {
        const run = testRun({ serverUrl: server.url, home, args: ["--output", `json=${report}`] });
        await printed(run, ({ stderr }) => /verdict: 1\/\d+/.test(stderr));
        run.child.kill(signal);
        const { code: exitCode, stdout } = await run.finished;
        expect(exitCode).toBe(code);
        expect(stdout).toContain("Status: interrupted");
        expect(stdout).toMatch(
          /Run interrupted: \d+ test cases? finished and stored\. .*Resume with: verdict test run --identifier ci-job --resume/,
        );
        expect(stdout).toContain(`Report written to ${report}`);
        expect(existsSync(report)).toBe(true);
        const written = JSON.parse(readFileSync(report, "utf8")) as EvaluationResult;
        expect(written.summary.status).toBe("interrupted");
        const stored = await storedRuns(home);
        expect(stored.statuses).toEqual(["interrupted"]);
        expect(stored.results).toBe(written.testResults.length);
        expect(stored.results).toBeGreaterThan(0);
        expect(stored.results).toBeLessThan(8);
      } finally {
        await server.close();
      }
    });
  }

  it("verdict test run: SIGTERM to its whole process group (its Vitest workers too) still stores what finished", async ({
    expect,
  }) => {
    const server = await startFakeOpenAIServer({ latencyMs: 300 });
    const home = join(project, "test-run-group");
    try {
      const run = testRun({ serverUrl: server.url, home, detached: true });
      await printed(run, ({ stderr }) => /verdict: 1\/\d+/.test(stderr));
      // Into the second case or later (progress lines are not printed for each case).
      while (server.stats().requests < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      process.kill(-(run.child.pid as number), "SIGTERM");
      const { code, stdout } = await run.finished;
      expect(code).toBe(143);
      expect(stdout).toContain("Status: interrupted");
      const stored = await storedRuns(home);
      expect(stored.statuses).toEqual(["interrupted"]);
      expect(stored.results).toBeGreaterThanOrEqual(1);
      expect(stored.results).toBeLessThan(8);
    } finally {
      await server.close();
    }
  });
});
