// Keeps docs/ci.md working as written: its GitHub Actions workflow and GitLab CI pipeline are
// taken from the page's code blocks and run in order — every job, matrix entry and step, the
// `verdict` commands exactly as shown — on a project of one 15-test eval file and the fake
// OpenAI server, first on the main branch, then on a branch where one answer turned rude.
// The CI service around them (artifacts, `gh`, the artifacts API) is a stand-in.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { EvaluationResult } from "../../src/results/evaluation-result.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import {
  answers,
  CI_TESTS,
  makeCiProject,
  makeCiService,
  readCiService,
  setAnswers,
} from "../fixtures/ci-project.ts";
import {
  type JobRun,
  runGitHubWorkflow,
  type Workflow,
} from "../fixtures/github-workflow-runner.ts";
import { type Pipeline, runGitLabPipeline } from "../fixtures/gitlab-pipeline-runner.ts";
import { judgeIdiots } from "../fixtures/idiot-judge.ts";
import { projectRoot } from "./run-node.ts";

const page = readFileSync(join(projectRoot, "docs/ci.md"), "utf8");

/** The page's YAML block whose first line names `file`, parsed. */
function yamlBlock(file: string): unknown {
  const blocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
  const block = blocks.find((text) => text.startsWith(`# ${file}\n`));
  if (block === undefined) throw new Error(`docs/ci.md has no yaml block starting "# ${file}"`);
  return parse(block);
}

const RUDE = 7;
/** Two runs of a workflow of about ten verdict commands each, on two cores. */
const TIMEOUT_MS = 300_000;
const RUDE_OUTPUT = `Answer ${RUDE}: you are an idiot.`;
const POLITE_OUTPUT = `Answer ${RUDE}: glad to help.`;

let server: FakeOpenAIServer;
let folder: string;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ respond: judgeIdiots });
  folder = mkdtempSync(join(tmpdir(), "verdict-ci-doc-"));
});
afterAll(async () => {
  await server?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function read(run: JobRun, file: string): string {
  return readFileSync(join(run.workspace, file), "utf8");
}

function shardSizes(runs: JobRun[], file: (run: JobRun) => string): number[] {
  return runs.map(
    (run) => (JSON.parse(read(run, file(run))) as EvaluationResult).testResults.length,
  );
}

function failureOf(runs: JobRun[]) {
  return runs
    .map(
      (run) =>
        `${run.job} ${JSON.stringify(run.matrix)}: ${run.conclusion}\n${run.steps
          .map((step) => `$ ${step.label} → ${step.code}\n${step.stdout}${step.stderr}`)
          .join("\n")}`,
    )
    .join("\n\n");
}

describe.concurrent("docs/ci.md", () => {
  it(
    "GitHub Actions: shards, merge, summary, annotations, and a comparison with main on the pull request",
    async () => {
      const workflow = yamlBlock(".github/workflows/evals.yml") as Workflow;
      const base = join(folder, "github");
      const service = { folder: join(base, "service"), bin: "" };
      service.bin = makeCiService(service.folder);
      const project = makeCiProject();
      try {
        const env = { OPENAI_BASE_URL: server.url };
        const main = await runGitHubWorkflow({
          workflow,
          project,
          folder: join(base, "main"),
          service,
          runId: 1001,
          event: { name: "push", branch: "main" },
          env,
        });
        expect(
          main.map((run) => run.conclusion),
          failureOf(main),
        ).toEqual(Array(main.length).fill("success"));
        const mainReport = main.find((run) => run.job === "report") as JobRun;
        expect(mainReport.summary).toContain(`## ✅ verdict: all ${CI_TESTS} test cases passed`);
        expect(mainReport.steps.filter((step) => !step.ran).map((step) => step.label)).toEqual([
          "Compare with main",
          "Comment on the pull request",
        ]);

        setAnswers(project, answers([RUDE]));
        const pr = await runGitHubWorkflow({
          workflow,
          project,
          folder: join(base, "pr"),
          service,
          runId: 1002,
          event: { name: "pull_request", number: 42, branch: "tone" },
          env,
        });
        const shards = pr.filter((run) => run.job === "evals");
        // One file of 15 tests over the matrix's shards: balanced, every test run once.
        const sizes = shardSizes(shards, (run) => `reports/shard-${run.matrix.shard}.json`);
        expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(CI_TESTS);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        // The shard with the rude answer fails, annotates it at its line, and summarises it.
        const failing = shards.filter((run) => run.conclusion === "failure");
        expect(failing, failureOf(shards)).toHaveLength(1);
        const testStep = failing[0]?.steps.find((step) =>
          step.label.startsWith("npx verdict test run"),
        );
        expect(testStep?.code).toBe(1);
        expect(testStep?.stdout).toMatch(
          new RegExp(
            `^::error file=evals/answers\\.eval\\.ts,line=9,title=verdict%3A answer ${RUDE}::Toxicity: score 1\\.00 > threshold 0\\.50\\. .*%0AOutput: ${RUDE_OUTPUT}$`,
            "m",
          ),
        );
        expect(failing[0]?.summary).toContain(
          `#### ❌ answer ${RUDE} — \`evals/answers.eval.ts:9\``,
        );

        // The report job ran although a shard failed, merged one run, and failed as it would.
        const report = pr.find((run) => run.job === "report") as JobRun;
        expect(report.conclusion).toBe("failure");
        expect(
          existsSync(join(report.workspace, "reports/verdict.json")),
          failureOf([report]),
        ).toBe(true);
        const merged = JSON.parse(read(report, "reports/verdict.json")) as EvaluationResult;
        expect(merged.testResults.map((result) => result.name)).toEqual(
          answers().map((_, index) => `answer ${index + 1}`),
        );
        expect(merged.summary.testCases).toMatchObject({ total: CI_TESTS, passed: 14, failed: 1 });
        expect(read(report, "reports/verdict.xml")).toContain(
          `name="answer ${RUDE} › Toxicity" time=`,
        );
        expect(read(report, "reports/verdict.xml")).toMatch(
          /file="evals\/answers\.eval\.ts" line="9"/,
        );
        expect(report.summary).toContain(`## ❌ verdict: 1 of ${CI_TESTS} test cases failed`);
        expect(report.summary).toContain(`**Output**\n\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);

        // Compared with main's last report: the changed case by name, with both outputs, in the
        // summary and as the pull request's comment.
        const compare = read(report, "reports/compare.md");
        expect(compare).toContain(`answer ${RUDE}: Toxicity passed → failed`);
        expect(compare).toContain(`\`\`\`text\n${POLITE_OUTPUT}\n\`\`\``);
        expect(compare).toContain(`\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);
        expect(report.summary).toContain(compare);
        expect(readCiService(service.folder).comments).toEqual([
          { pullRequest: "42", body: compare },
        ]);
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );

  it(
    "GitLab CI: parallel shards, a merge that runs after a failure, and a comparison with the default branch",
    async () => {
      const pipeline = yamlBlock(".gitlab-ci.yml") as Pipeline;
      const base = join(folder, "gitlab");
      const service = { folder: join(base, "service"), bin: "" };
      service.bin = makeCiService(service.folder);
      const project = makeCiProject();
      try {
        const run = (branch: string, pipelineId: number) =>
          runGitLabPipeline({
            pipeline,
            project,
            folder: join(base, branch),
            service,
            pipelineId,
            branch,
            defaultBranch: "main",
            env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-fake" },
          });
        const main = await run("main", 2001);
        expect(
          main.map((job) => job.conclusion),
          failureOf(main),
        ).toEqual(Array(main.length).fill("success"));

        setAnswers(project, answers([RUDE]));
        const branch = await run("tone", 2002);
        const shards = branch.filter((job) => job.job === "evals");
        const sizes = shardSizes(shards, (job) => `reports/shard-${job.matrix.index}.json`);
        expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(CI_TESTS);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        expect(
          shards.filter((job) => job.conclusion === "failure"),
          failureOf(shards),
        ).toHaveLength(1);
        expect(read(shards[0] as JobRun, "reports/shard-1.xml")).toContain(
          'file="evals/answers.eval.ts"',
        );

        // The report job ran after the failed shard, merged, compared with main's last report
        // (from the artifacts API), and failed with the merge's code.
        const report = branch.find((job) => job.job === "report") as JobRun;
        expect(report.conclusion, failureOf([report])).toBe("failure");
        expect(report.steps.at(-1)?.code).toBe(1);
        const summary = read(report, "reports/verdict.md");
        expect(summary).toContain(`## ❌ verdict: 1 of ${CI_TESTS} test cases failed`);
        expect(summary).toContain(`**Output**\n\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);
        const compare = read(report, "reports/compare.md");
        expect(compare).toContain(`answer ${RUDE}: Toxicity passed → failed`);
        expect(compare).toContain(`\`\`\`text\n${POLITE_OUTPUT}\n\`\`\``);
        expect(compare).toContain(`\`\`\`text\n${RUDE_OUTPUT}\n\`\`\``);
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
