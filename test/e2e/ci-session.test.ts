// A pull request's CI session, scripted as a GitHub Actions job runs it (GITHUB_ACTIONS=true,
// a job summary file): the main branch's last run; then the pull request, whose one eval file
// of 15 tests has one rude answer, in 2 shards; shard 1 is cancelled with SIGTERM once (as
// GitHub cancels a job) and run again with --resume; the shards are merged and the merged
// run compared with main's. Real processes, the real AI SDK provider, the fake OpenAI server.

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { answers, CI_TESTS, makeCiProject, setAnswers } from "../fixtures/ci-project.ts";
import { judgeIdiots } from "../fixtures/idiot-judge.ts";
import { fakeJudgeEnv, type NodeRun, projectRoot, runNode } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");
const RUDE = 7;
const RUDE_OUTPUT = `Answer ${RUDE}: you are an idiot.`;
const POLITE_OUTPUT = `Answer ${RUDE}: glad to help.`;

let server: FakeOpenAIServer;
let project: string;
beforeAll(async () => {
  // Slow enough, with -n 1, that a SIGTERM after the first case finds others unfinished.
  server = await startFakeOpenAIServer({ respond: judgeIdiots, latencyMs: 150 });
  project = makeCiProject();
});
afterAll(async () => {
  await server?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** `verdict <args>` in the project, as a step of job `job` of GitHub Actions run 77. */
function step(args: string[], job: string): NodeRun {
  const summary = join(project, `summary-${job}.md`);
  return runNode({
    args: [MAIN, ...args],
    cwd: project,
    env: fakeJudgeEnv({
      serverUrl: server.url,
      home: join(project, `.verdict-${job}`),
      extra: {
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_WORKSPACE: project,
        GITHUB_REPOSITORY: "acme/support-bot",
        GITHUB_RUN_ID: job === "main" ? "76" : "77",
      },
    }),
  });
}

function json(file: string): EvaluationResult {
  return JSON.parse(readFileSync(join(project, file), "utf8")) as EvaluationResult;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe("a pull request's CI session", () => {
  it("shards, survives a cancelled job, merges, summarises, annotates and compares", async () => {
    // The main branch's last run, whose JSON report the pull request is compared with.
    const main = await step(["test", "run", "--output", "json=main.json"], "main").finished;
    expect(main.code, main.stderr).toBe(0);

    setAnswers(project, answers([RUDE]));
    for (const job of ["shard-1", "shard-2"]) writeFileSync(join(project, `summary-${job}.md`), "");
    const shardArgs = (shard: 1 | 2) => [
      "test",
      "run",
      "-n",
      "1",
      "--identifier",
      "pr-42",
      "--shard",
      `${shard}/2`,
      "--output",
      `json=shard-${shard}.json`,
      "--output",
      `junit=shard-${shard}.xml`,
    ];

    // Shard 1, cancelled once some cases finished: an interrupted run, its report and JUnit
    // file written, exit 143.
    const cancelled = step(shardArgs(1), "shard-1");
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (/verdict: 1\/8/.test(cancelled.output().stderr)) resolve();
      };
      cancelled.child.stderr?.on("data", check);
      void cancelled.exited.then(() => reject(new Error(cancelled.output().stderr)));
    });
    const requests = server.stats().requests;
    while (server.stats().requests <= requests) await sleep(10);
    cancelled.child.kill("SIGTERM");
    const stopped = await cancelled.finished;
    expect(stopped.code).toBe(143);
    expect(stopped.stdout).toContain("Status: interrupted");
    expect(stopped.stdout).toContain(
      "Resume with: verdict test run --identifier pr-42 --resume (with the same paths and flags).",
    );
    const interrupted = json("shard-1.json");
    expect(interrupted.summary.status).toBe("interrupted");
    const finished = interrupted.testResults.length;
    expect(finished).toBeGreaterThan(0);
    expect(finished).toBeLessThan(8);
    expect(interrupted.summary.testCases).toMatchObject({ total: 8, unscored: 8 - finished });
    const interruptedJUnit = readFileSync(join(project, "shard-1.xml"), "utf8");
    expect(interruptedJUnit).toContain(
      `message="run interrupted: ${8 - finished} of 8 test cases unscored" type="IncompleteRun"`,
    );
    expect(interruptedJUnit).toContain("verdict test run --identifier pr-42 --resume");
    const store = SqliteRunStore.open({ home: join(project, ".verdict-shard-1") });
    try {
      expect((await store.runs.listRuns()).map((run) => run.status)).toEqual(["interrupted"]);
    } finally {
      await store.close();
    }

    // Run again: it resumes the stored run, and the two shards split the file 8 and 7.
    const [first, second] = await Promise.all([
      step([...shardArgs(1), "--resume"], "shard-1").finished,
      step(shardArgs(2), "shard-2").finished,
    ]);
    expect(first.code, first.stderr).toBe(1);
    expect(second.code, second.stderr).toBe(0);
    const shards = [json("shard-1.json"), json("shard-2.json")];
    expect(shards.map((shard) => shard.testResults.length)).toEqual([8, 7]);
    expect(shards[0]?.summary.cacheHits).toBeGreaterThanOrEqual(finished);
    // The failing test, annotated at its file and line; its output in the job summary.
    expect(first.stdout).toMatch(
      new RegExp(
        `^::error file=evals/answers\\.eval\\.ts,line=9,title=verdict%3A answer ${RUDE}::Toxicity: score 1\\.00 > threshold 0\\.50\\..*%0AOutput: ${RUDE_OUTPUT}$`,
        "m",
      ),
    );
    expect(second.stdout).not.toContain("::error");
    const shardSummary = readFileSync(join(project, "summary-shard-1.md"), "utf8");
    expect(shardSummary).toContain(`\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);

    // One merged run: 15 cases in suite order, its summary in the report job's summary, JUnit
    // with each case's file.
    writeFileSync(join(project, "summary-report.md"), "");
    const merged = await step(
      [
        "merge",
        "shard-1.json",
        "shard-2.json",
        "--output",
        "json=pr.json",
        "--output",
        "junit=pr.xml",
      ],
      "report",
    ).finished;
    expect(merged.code, merged.stderr).toBe(1);
    const pr = json("pr.json");
    expect(pr.testResults.map((result) => result.name)).toEqual(
      answers().map((_, index) => `answer ${index + 1}`),
    );
    expect(pr.summary.testCases).toMatchObject({ total: CI_TESTS, passed: 14, failed: 1 });
    const junit = readFileSync(join(project, "pr.xml"), "utf8");
    expect(junit.match(/<testcase [^>]*file="evals\/answers\.eval\.ts"/g)).toHaveLength(CI_TESTS);
    const reportSummary = readFileSync(join(project, "summary-report.md"), "utf8");
    expect(reportSummary).toContain(`## ❌ verdict pr\\-42: 1 of ${CI_TESTS} test cases failed`);
    expect(reportSummary).toContain(`**Output**\n\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);
    // --no-github: the same merge leaves the job summary alone.
    const quiet = await step(
      ["merge", "shard-1.json", "shard-2.json", "--no-github", "-d", "none"],
      "report",
    ).finished;
    expect(quiet.code).toBe(1);
    expect(readFileSync(join(project, "summary-report.md"), "utf8")).toBe(reportSummary);

    // main against the pull request: the changed case by name, with both outputs.
    const compared = await step(
      ["compare", "main.json", "pr.json", "--output", "markdown=compare.md"],
      "report",
    ).finished;
    expect(compared.stderr).toBe("");
    const compare = readFileSync(join(project, "compare.md"), "utf8");
    expect(compare).toContain(`#### ❌ answer ${RUDE}: Toxicity passed → failed`);
    expect(compare).toContain(`**Output in main\\.json**\n\`\`\`text\n${POLITE_OUTPUT}\n\`\`\``);
    expect(compare).toContain(`**Output in pr\\.json**\n\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);
    expect(readFileSync(join(project, "summary-report.md"), "utf8")).toContain(compare);
  }, 180_000);
});
