// Keeps docs/custom-metrics.md honest, as a new user would follow it (its TypeScript examples
// type-check with every page's in test/docs/code-blocks.test.ts): the files it tells you to write run under `verdict test run`
// against a judge over HTTP (the fake OpenAI server), the end report and the JSON report show
// the GEval metric, the dashboard's case page shows its steps; the from-scratch metric is at
// most 30 lines and passes the exported metric contract; `verdict calibrate` takes it by module.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import type { CaseDetail } from "../../src/view/case-views.ts";
import { createViewServer } from "../../src/view/server/view-server.ts";
import { projectRoot } from "../e2e/run-node.ts";
import { makeAppFolder } from "../fixtures/dashboard-runs.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import { readCodeBlocks } from "../fixtures/markdown-code-blocks.ts";

const PAGE = "docs/custom-metrics.md";
const page = readFileSync(join(projectRoot, PAGE), "utf8");
const MAIN = join(projectRoot, "src/cli/main.ts");

// Its TypeScript blocks type-check with every page's: test/docs/code-blocks.test.ts.
const tsBlocks = readCodeBlocks(PAGE, page).filter((block) => block.language === "ts");
const fileBlocks = tsBlocks.filter((block) => block.file !== null);

function firstProperty(request: FakeOpenAIRequest): string {
  return Object.keys((request.jsonSchema?.properties ?? {}) as Record<string, unknown>)[0] ?? "";
}

let server: FakeOpenAIServer;
let project: string;
const home = () => join(project, ".verdict-home");

function verdict(args: string[]) {
  const child = spawn(process.execPath, ["--conditions=verdict-source", MAIN, ...args], {
    cwd: project,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: "1",
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-fake",
      VERDICT_HOME: home(),
    },
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

beforeAll(async () => {
  // The judge: evaluation steps, then 8 of 10 for the refund policy; politeness 9 for polite
  // replies (rows whose id is even), 2 for the others.
  server = await startFakeOpenAIServer({
    respond: (request) => {
      if (firstProperty(request) === "steps") {
        return reply.json({
          steps: [
            "Find the purchase date.",
            "Apply the 30-day rule.",
            "Check refund and credit are not both offered.",
          ],
        });
      }
      if (request.prompt.includes("Rate how polite")) {
        return reply.json({
          reason: "Tone judged.",
          score: request.prompt.includes("thanks") ? 9 : 2,
        });
      }
      return reply.json({
        reason: "It offers store credit after 30 days, as the policy says.",
        score: 8,
      });
    },
  });
  project = makeLinkedProject({ prefix: "verdict-docs-custom-" });
  for (const block of fileBlocks) {
    const target = join(project, block.file as string);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${block.code}\n`);
  }
});

afterAll(async () => {
  await server?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe(PAGE, () => {
  it("has the TypeScript examples it tells you to save as files", () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(4);
    expect(fileBlocks.map((block) => block.file)).toEqual(
      expect.arrayContaining(["metrics/politeness.ts", "evals/refund-policy.eval.ts"]),
    );
  });

  it("writes a metric from scratch in at most 30 lines", () => {
    const scratch = fileBlocks.find((block) => block.file === "metrics/politeness.ts");
    expect(scratch?.code.split("\n").length).toBeLessThanOrEqual(30);
  });

  it("runs the GEval eval file under verdict test run, with reports and the dashboard", async () => {
    const run = await verdict([
      "test",
      "run",
      "evals/",
      "--output",
      "json",
      "--output-file",
      "report.json",
    ]);
    expect(run.stderr).not.toMatch(/error|warning/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Refund policy [GEval]");
    const report = JSON.parse(readFileSync(join(project, "report.json"), "utf8"));
    const metric = report.testResults[0].metricsData[0];
    expect(metric).toMatchObject({ name: "Refund policy [GEval]", score: 0.8, success: true });
    // 1 steps call and 1 scoring call.
    expect(server.requests).toHaveLength(2);

    const store = SqliteRunStore.open({ home: home() });
    const appFolder = makeAppFolder();
    const view = createViewServer({ store, appFolder, projectRoot: project, log: () => {} });
    await new Promise<void>((resolve) => view.listen(0, "127.0.0.1", () => resolve()));
    try {
      const base = `http://127.0.0.1:${(view.address() as AddressInfo).port}`;
      const runs = (await (await fetch(`${base}/api/runs`)).json()) as {
        runs: Array<{ id: string }>;
      };
      const runId = runs.runs[0]?.id as string;
      const cases = (await (await fetch(`${base}/api/runs/${runId}/cases`)).json()) as {
        cases: Array<{ key: string }>;
      };
      const detail = (await (
        await fetch(`${base}/api/runs/${runId}/cases/${cases.cases[0]?.key}`)
      ).json()) as CaseDetail;
      const shown = detail.metrics[0];
      expect(shown?.name).toBe("Refund policy [GEval]");
      expect(JSON.stringify(shown?.steps)).toContain("Apply the 30-day rule.");
      expect(JSON.stringify(shown?.steps)).toContain("Evaluation steps");
    } finally {
      view.closeAllConnections();
      await new Promise<void>((resolve) => view.close(() => resolve()));
      await store.close();
      rmSync(appFolder, { recursive: true, force: true });
    }
  });

  it("runs the metric contract on the from-scratch metric", async () => {
    const run = await verdict(["test", "run", "metrics/politeness.test.ts"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it("calibrates the from-scratch metric by its module path", async () => {
    writeFileSync(
      join(project, "labels.jsonl"),
      ["polite, thanks for waiting", "do it yourself", "thanks a lot", "no"]
        .map((text, index) =>
          JSON.stringify({
            id: `row-${index}`,
            input: "Where is my parcel?",
            actual_output: text,
            label: index % 2 === 0 ? 1 : 0,
          }),
        )
        .join("\n"),
    );
    const run = await verdict([
      "calibrate",
      "--metric",
      "./metrics/politeness.ts#Politeness",
      "--data",
      "labels.jsonl",
    ]);
    expect(run.stderr).not.toMatch(/error|warning/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Politeness");
    expect(run.stdout).toMatch(/accuracy\s+100/i);
  });
});
