// A new user's first eval suite (issue 10, points 1 and 3): the same cases as Vitest `test()`s
// under `verdict test run`, and through `evaluate()` in a script, both as child processes in a
// fresh project against the fake OpenAI server with a fixed latency. Prints the wall times,
// their ratio, and when the progress output first showed a finished case.
//   node --conditions=verdict-source bench/first-hour.ts [--cases 20] [--latency 300] [--files 1]
//     [--repeats 3] [--packed]
// The project links `verdict` to this checkout (the "verdict-source" condition loads src/); with
// --packed it is a fresh project with the `npm pack` tarball and Vitest installed by npm, as a
// user has it (dist/, no source condition).

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeOpenAIServer } from "verdict/testing";
import { makeLinkedProject } from "../test/fixtures/linked-project.ts";
import { realisticJudge } from "./realistic-judge.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "20" },
    latency: { type: "string", default: "300" },
    files: { type: "string", default: "1" },
    repeats: { type: "string", default: "3" },
    packed: { type: "boolean", default: false },
  },
});
const cases = Number(values.cases);
const latencyMs = Number(values.latency);
const files = Number(values.files);
const repeats = Number(values.repeats);
const packed = values.packed;
const conditions = packed ? [] : ["--conditions=verdict-source"];

const answers = [
  "Our return window is 30 days from delivery.",
  "You are an idiot for asking that.",
  "Shipping to Canada takes five to seven business days.",
  "We offer a full refund if the item is unused.",
];
function caseAt(index: number) {
  return {
    input: `Customer question number ${index + 1} about returns and shipping?`,
    actualOutput: answers[index % answers.length] as string,
  };
}
const METRICS = "[new AnswerRelevancyMetric({ threshold: 0.7 }), new ToxicityMetric()]";

function evalFile(indices: number[]): string {
  const tests = indices.map(
    (index) => `test("case ${index + 1}", async () => {
  const testCase = new LLMTestCase(${JSON.stringify(caseAt(index))});
  await assertTest(testCase, ${METRICS}).catch(() => undefined);
});`,
  );
  return `import { test } from "vitest";
import { AnswerRelevancyMetric, LLMTestCase, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

${tests.join("\n\n")}
`;
}

function evaluateScript(): string {
  const all = Array.from({ length: cases }, (_, index) => caseAt(index));
  return `import { AnswerRelevancyMetric, evaluate, ToxicityMetric } from "verdict";
await evaluate({ testCases: ${JSON.stringify(all)}, metrics: ${METRICS}, cache: false, display: "none" });
`;
}

/** Runs a command; resolves with its wall time and when stderr first showed a finished case. */
function timed(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const started = performance.now();
  const child = spawn(process.execPath, [...conditions, ...args], { cwd, env });
  let firstCaseMs: number | null = null;
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (firstCaseMs === null && /verdict.*\b[1-9]\d*\/\d+\+? test cases/.test(stderr)) {
      firstCaseMs = performance.now() - started;
    }
  });
  child.stdout.resume();
  return new Promise<{ wallMs: number; firstCaseMs: number | null; code: number | null }>(
    (resolve) => {
      child.on("close", (code) =>
        resolve({ wallMs: performance.now() - started, firstCaseMs, code }),
      );
    },
  );
}

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[numbers.length >> 1] ?? 0;

const server = await startFakeOpenAIServer({ latencyMs, respond: realisticJudge });
/** A fresh project with the packed tarball and the checkout's Vitest version installed by npm. */
function installedProject(): string {
  const folder = mkdtempSync(join(tmpdir(), "verdict-first-hour-packed-"));
  writeFileSync(join(folder, "package.json"), '{ "name": "first-hour", "type": "module" }\n');
  const npm = (args: string[], cwd: string) =>
    execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const [manifest] = JSON.parse(
    npm(["pack", "--json", "--silent", "--pack-destination", folder], root),
  ) as [{ filename: string }];
  const vitest = JSON.parse(readFileSync(join(root, "node_modules/vitest/package.json"), "utf8"))
    .version as string;
  npm(
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      join(folder, manifest.filename),
      `vitest@${vitest}`,
    ],
    folder,
  );
  return folder;
}

const project = packed ? installedProject() : makeLinkedProject({ prefix: "verdict-first-hour-" });
try {
  mkdirSync(join(project, "evals"));
  for (let file = 0; file < files; file++) {
    const indices = Array.from({ length: cases }, (_, index) => index).filter(
      (index) => index % files === file,
    );
    writeFileSync(join(project, `evals/support-${file + 1}.eval.ts`), evalFile(indices));
  }
  writeFileSync(join(project, "evaluate.ts"), evaluateScript());
  const main = packed
    ? join(project, "node_modules/verdict/bin/verdict.js")
    : join(root, "src/cli/main.ts");
  const env = (home: string): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: "sk-fake",
    VERDICT_HOME: join(project, home),
  });
  const kinds = {
    "evaluate()": ["evaluate.ts"],
    "verdict test run": [main, "test", "run", "--no-cache"],
    "verdict test run --no-concurrent": [main, "test", "run", "--no-cache", "--no-concurrent"],
  };
  // The first Vitest run of a project also fills Vite's caches: timed apart, not counted.
  const cold = await timed(kinds["verdict test run"], project, env("home-cold"));
  const measured: Record<string, Array<{ wallMs: number; firstCaseMs: number | null }>> = {};
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const [name, args] of Object.entries(kinds)) {
      const run = await timed(args, project, env(`home-${repeat}-${name.length}`));
      if (run.code === null || run.code > 1) throw new Error(`${name} exited ${run.code}.`);
      measured[name] = [...(measured[name] ?? []), run];
    }
  }
  const evaluateMs = median(measured["evaluate()"]?.map((run) => run.wallMs) ?? []);
  console.log(
    `${cases} cases (AnswerRelevancy + Toxicity) in ${files} file(s), ${latencyMs} ms judge latency, median of ${repeats}, ${packed ? "packed tarball installed by npm" : "linked checkout (sources)"}:\n`,
  );
  console.log(
    `The project's first (cold) verdict test run: ${(cold.wallMs / 1000).toFixed(2)} s.\n`,
  );
  console.log("| command | wall time | × evaluate() | first finished case shown |");
  console.log("|---|---|---|---|");
  for (const [name, runs] of Object.entries(measured)) {
    const wallMs = median(runs.map((run) => run.wallMs));
    const firsts = runs.map((run) => run.firstCaseMs).filter((ms) => ms !== null);
    const first =
      firsts.length === runs.length
        ? `${(median(firsts) / 1000).toFixed(2)} s (${Math.round((median(firsts) / wallMs) * 100)}% of the run)`
        : "–";
    console.log(
      `| ${name} | ${(wallMs / 1000).toFixed(2)} s | ${(wallMs / evaluateMs).toFixed(2)} | ${first} |`,
    );
  }
} finally {
  await server.close();
  rmSync(project, { recursive: true, force: true });
}
