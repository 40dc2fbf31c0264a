// Fail fast (issue 10, point 2): `verdict test run` over 20 cases in one eval file, against
// a fake OpenAI server that rejects the key (401), with a mistyped model (404
// model_not_found), and, for contrast, with an exhausted quota (429 insufficient_quota, which
// keeps exit 3). Measures the exit code, the wall time, the lines printed, the lines naming the
// fix, and the judge requests the server received.
//   node --conditions=verdict-source bench/fail-fast.ts [--cases 20] [--latency 300] [--concurrent]

import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type FakeResponder, reply, startFakeOpenAIServer } from "verdict/testing";
import { makeLinkedProject } from "../test/fixtures/linked-project.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "20" },
    latency: { type: "string", default: "300" },
    // Tests in the eval file run with test.concurrent: every case's request may be in flight
    // before the first answer comes back.
    concurrent: { type: "boolean", default: false },
  },
});
const cases = Number(values.cases);
const latencyMs = Number(values.latency);

interface Scenario {
  name: string;
  respond: FakeResponder;
  env: NodeJS.ProcessEnv;
  /** What a line naming the fix contains. */
  fixPattern: RegExp;
  goal: { exitCode: number; fixLines: number };
}

const unknownModel: FakeResponder = (request) =>
  request.model === "gpt-4.1" ? undefined : reply.modelNotFound(request.model);

const scenarios: Scenario[] = [
  {
    name: "401 (bad key)",
    respond: () => reply.unauthorized(),
    env: {},
    fixPattern: /OPENAI_API_KEY/,
    goal: { exitCode: 2, fixLines: 1 },
  },
  {
    name: "404 (VERDICT_MODEL=gtp-4.1)",
    respond: unknownModel,
    env: { VERDICT_MODEL: "gtp-4.1" },
    fixPattern: /gtp-4\.1/,
    goal: { exitCode: 2, fixLines: 1 },
  },
  {
    name: "429 insufficient_quota (control)",
    respond: () => reply.quotaExceeded(),
    env: {},
    fixPattern: /billing page/,
    goal: { exitCode: 3, fixLines: 1 },
  },
];

function evalFile(count: number): string {
  const tests = Array.from(
    { length: count },
    (
      _,
      index,
    ) => `${values.concurrent ? "test.concurrent" : "test"}("case ${index + 1}", async () => {
  await assertTest(
    { input: "Question ${index + 1}?", actualOutput: "A polite answer number ${index + 1}." },
    [new ToxicityMetric(), new BiasMetric()],
  );
});
`,
  );
  return `import { test } from "vitest";
import { BiasMetric, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

${tests.join("\n")}`;
}

function makeProject(): string {
  const project = makeLinkedProject({ prefix: "verdict-fail-fast-" });
  mkdirSync(join(project, "evals"));
  writeFileSync(join(project, "evals/support.eval.ts"), evalFile(cases));
  return project;
}

function runCli(options: { project: string; env: NodeJS.ProcessEnv }) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["--conditions=verdict-source", join(root, "src/cli/main.ts"), "test", "run", "--no-cache"],
    { cwd: options.project, env: options.env },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise<{ code: number | null; output: string; seconds: number }>((resolve) => {
    child.on("close", (code) =>
      resolve({ code, output, seconds: (performance.now() - started) / 1000 }),
    );
  });
}

const project = makeProject();
const rows: string[] = [];
let missed = 0;
try {
  for (const scenario of scenarios) {
    const server = await startFakeOpenAIServer({ respond: scenario.respond, latencyMs });
    try {
      const result = await runCli({
        project,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NO_COLOR: "1",
          OPENAI_BASE_URL: server.url,
          OPENAI_API_KEY: "sk-bench-wrong-key",
          VERDICT_HOME: join(project, `.verdict-${rows.length}`),
          ...scenario.env,
        },
      });
      const lines = result.output.split("\n").filter((line) => line.trim() !== "");
      const fixLines = lines.filter((line) => scenario.fixPattern.test(line));
      const pass =
        result.code === scenario.goal.exitCode &&
        fixLines.length === scenario.goal.fixLines &&
        result.seconds < 10;
      if (!pass) missed += 1;
      rows.push(
        `| ${scenario.name} | ${result.code} (goal ${scenario.goal.exitCode}) | ${fixLines.length} (goal ${scenario.goal.fixLines}) | ${lines.length} | ${server.stats().requests} | ${result.seconds.toFixed(1)} s | ${pass ? "✓" : "✗"} |`,
      );
      process.stdout.write(`\n--- ${scenario.name}: output ---\n${result.output}`);
    } finally {
      await server.close();
    }
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}

process.stdout.write(
  [
    "",
    `# Fail fast: verdict test run, ${cases} ${values.concurrent ? "test.concurrent" : "test()"} cases (Toxicity + Bias) in one eval file, judge latency ${latencyMs} ms`,
    "",
    "| server | exit code | lines naming the fix | lines printed | judge requests | wall time | |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n"),
);
process.exitCode = missed === 0 ? 0 : 1;
