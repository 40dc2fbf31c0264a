// Shards by case (issue 23, part 3): a one-file eval suite under `verdict test run --shard i/n`
// against the fake OpenAI server with a fixed latency. A CI matrix runs each shard on a machine
// of its own; this machine has two cores, so the shards run here one after another, each timed
// alone, and the matrix's wall time is the slowest shard's. Prints, for each n, the cases each
// shard ran, the slowest shard's time and the sum. Before shards were dealt by case, Vitest's
// --shard gave a one-file suite's whole file to shard 1: the wall time of any n was that of 1.
//   node --conditions=verdict-source bench/shards.ts [--cases 40] [--latency 300] [-n 2]
//     [--shards 1,2,4] [--repeats 3]

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeOpenAIServer } from "verdict/testing";
import { makeLinkedProject } from "../test/fixtures/linked-project.ts";
import { realisticJudge } from "./realistic-judge.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "40" },
    latency: { type: "string", default: "300" },
    n: { type: "string", short: "n", default: "2" },
    shards: { type: "string", default: "1,2,4" },
    repeats: { type: "string", default: "3" },
  },
});
const cases = Number(values.cases);
const latencyMs = Number(values.latency);
const shardCounts = values.shards.split(",").map(Number);
const repeats = Number(values.repeats);

const EVAL_FILE = `import { test } from "vitest";
import { ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

for (let number = 1; number <= ${cases}; number++) {
  test(\`answer \${number}\`, async () => {
    await assertTest(
      { input: \`Question \${number}\`, actualOutput: \`Answer \${number}: we ship in five days.\` },
      [new ToxicityMetric()],
    ).catch(() => undefined);
  });
}
`;

function run(options: { project: string; args: string[]; env: NodeJS.ProcessEnv }) {
  const child = spawn(
    process.execPath,
    ["--conditions=verdict-source", join(root, "src/cli/main.ts"), ...options.args],
    { cwd: options.project, env: options.env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<void>((resolve, reject) =>
    child.on("close", (code) =>
      code === 0 || code === 1 ? resolve() : reject(new Error(`exit ${code}: ${stderr}`)),
    ),
  );
}

const server = await startFakeOpenAIServer({ respond: realisticJudge, latencyMs });
const project = makeLinkedProject({ prefix: "verdict-bench-shards-" });
try {
  mkdirSync(join(project, "evals"));
  writeFileSync(join(project, "evals/answers.eval.ts"), EVAL_FILE);
  const rows: string[] = [];
  for (const count of shardCounts) {
    const slowest: number[] = [];
    const sums: number[] = [];
    let sizes: number[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      const durations: number[] = [];
      for (let index = 0; index < count; index++) {
        const started = performance.now();
        await run({
          project,
          args: [
            "test",
            "run",
            "--no-cache",
            "-d",
            "none",
            "-n",
            values.n,
            ...(count > 1 ? ["--shard", `${index + 1}/${count}`] : []),
            "--output",
            `json=reports/${count}-${index + 1}.json`,
          ],
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            NO_COLOR: "1",
            OPENAI_BASE_URL: server.url,
            OPENAI_API_KEY: "sk-fake",
            VERDICT_HOME: join(project, `.verdict-${count}-${index + 1}-${repeat}`),
          },
        });
        durations.push(performance.now() - started);
      }
      slowest.push(Math.max(...durations));
      sums.push(durations.reduce((sum, duration) => sum + duration, 0));
      sizes = Array.from(
        { length: count },
        (_, index) =>
          (
            JSON.parse(
              readFileSync(join(project, `reports/${count}-${index + 1}.json`), "utf8"),
            ) as { testResults: unknown[] }
          ).testResults.length,
      );
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(2)} s`;
    rows.push(
      `| ${count} | ${sizes.join(" / ")} | ${seconds(median(slowest))} (${seconds(Math.min(...slowest))}–${seconds(Math.max(...slowest))}) | ${seconds(median(sums))} |`,
    );
  }
  console.log(
    `One eval file of ${cases} tests, judge latency ${latencyMs} ms, -n ${values.n} per shard, median of ${repeats}:\n`,
  );
  console.log(
    "| shards | cases per shard | slowest shard (the matrix's wall time), range | all shards' time |",
  );
  console.log("|---|---|---|---|");
  for (const row of rows) console.log(row);
} finally {
  await server.close();
  rmSync(project, { recursive: true, force: true });
}
