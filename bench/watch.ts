// The inner loop (issue 24, part 1): `verdict test run --watch` on a suite of several eval files,
// each save changing one case's output in one file. For each save: the time from the write to
// the printed summary, the cases the re-run ran, and the judge calls it paid (the fake server's
// count, and the summary's). Then the same change checked by hand: a whole `verdict test run`
// with the cache on, as one would re-run without --watch.
//   node --conditions=verdict-source bench/watch.ts [--files 5] [--cases 20] [--latency 300]
//     [--saves 3]
// Prints a Markdown table and writes it to bench/results/watch.md.

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeOpenAIServer } from "verdict/testing";
import { fakeJudgeEnv } from "../test/e2e/run-node.ts";
import { makeLinkedProject } from "../test/fixtures/linked-project.ts";
import { startWatch } from "../test/fixtures/watch-session.ts";
import { realisticJudge } from "./realistic-judge.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5" },
    cases: { type: "string", default: "20" },
    latency: { type: "string", default: "300" },
    saves: { type: "string", default: "3" },
  },
});
const files = Number(values.files);
const casesPerFile = Number(values.cases);
const latencyMs = Number(values.latency);
const saves = Number(values.saves);

const answers = [
  "Our return window is 30 days from delivery.",
  "Shipping to Canada takes five to seven business days.",
  "We offer a full refund if the item is unused.",
  "Gift cards cannot be exchanged for cash.",
];

/** An eval file of `casesPerFile` tests, each scored for relevancy and toxicity. */
function evalFile(file: number): string {
  const tests = Array.from({ length: casesPerFile }, (_, index) => {
    const number = file * casesPerFile + index + 1;
    const testCase = {
      input: `Customer question ${number} about returns and shipping?`,
      actualOutput: `${answers[number % answers.length]} (answer ${number})`,
    };
    return `test("case ${number}", async () => {
  await assertTest(${JSON.stringify(testCase)}, [new AnswerRelevancyMetric({ threshold: 0.7 }), new ToxicityMetric()]).catch(() => undefined);
});`;
  });
  return `import { test } from "vitest";
import { AnswerRelevancyMetric, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

${tests.join("\n\n")}
`;
}

const server = await startFakeOpenAIServer({ latencyMs, respond: realisticJudge });
const project = makeLinkedProject({ prefix: "verdict-watch-bench-" });
const home = join(project, ".verdict");
const rows: string[] = [];
try {
  mkdirSync(join(project, "evals"));
  for (let file = 0; file < files; file++) {
    writeFileSync(join(project, `evals/support-${file + 1}.eval.ts`), evalFile(file));
  }
  const started = performance.now();
  const watch = startWatch({
    project,
    home,
    serverUrl: server.url,
    terminal: false,
    args: ["--display", "none"],
  });
  await watch.waitFor(/Watching for changes/, { timeoutMs: 600_000 });
  const firstRunMs = performance.now() - started;
  const firstCalls = server.stats().requests;

  for (let save = 1; save <= saves; save++) {
    // Save after save, a different file, the output of its first case changes.
    const file = join(project, `evals/support-${((save - 1) % files) + 1}.eval.ts`);
    const text = readFileSync(file, "utf8");
    const requestsBefore = server.stats().requests;
    const mark = watch.output().length;
    const saved = performance.now();
    writeFileSync(file, text.replace(/\(answer (\d+)\)/, `(answer $1, edited ${save})`));
    await watch.waitFor(/Means over the suite[^\n]*\n/, { from: mark, timeoutMs: 600_000 });
    const summaryMs = performance.now() - saved;
    const summary = watch.output().slice(mark);
    const ran = /re-run: (\d+) cases/.exec(summary)?.[1] ?? "?";
    const paid = /Judge calls: (\d+) paid/.exec(summary)?.[1] ?? "?";
    rows.push(
      `| save ${save}: one case changed | --watch re-run | ${(summaryMs / 1000).toFixed(2)} s (save → summary) | ${ran} | ${paid} (server: ${server.stats().requests - requestsBefore}) |`,
    );
  }
  watch.type("q\n");
  const code = await watch.exited;
  if (code !== 0) throw new Error(`The watch session exited ${code}:\n${watch.output()}`);

  // Without --watch: the same suite run again by hand after one more change (cache on).
  const file = join(project, "evals/support-1.eval.ts");
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace(/\(answer (\d+)[^)]*\)/, "(answer $1, by hand)"),
  );
  const requestsBefore = server.stats().requests;
  const byHand = performance.now();
  const output = await new Promise<string>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=verdict-source",
        join(root, "src/cli/main.ts"),
        "test",
        "run",
        "-d",
        "failing",
      ],
      { cwd: project, env: fakeJudgeEnv({ serverUrl: server.url, home }) },
    );
    let printed = "";
    child.stdout.on("data", (chunk) => {
      printed += chunk;
    });
    child.stderr.resume();
    child.on("close", () => resolve(printed));
  });
  const byHandMs = performance.now() - byHand;
  const byHandCases = /(\d+) total\)/.exec(output)?.[1] ?? "?";
  const byHandPaid = /Judge calls: (\d+) paid/.exec(output)?.[1] ?? "?";
  rows.push(
    `| one case changed | whole \`verdict test run\` by hand (cache on) | ${(byHandMs / 1000).toFixed(2)} s (start → exit) | ${byHandCases} | ${byHandPaid} (server: ${server.stats().requests - requestsBefore}) |`,
  );

  const table = [
    `${files} eval files × ${casesPerFile} cases (Answer Relevancy + Toxicity), realistic fake judge, ${latencyMs} ms latency, linked checkout (sources).`,
    "",
    `First run of the session (start → watching): ${(firstRunMs / 1000).toFixed(2)} s, ${firstCalls} judge calls.`,
    "",
    "| change | what ran | time | cases run | judge calls paid |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
  console.log(table);
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(join(root, "bench/results/watch.md"), `# verdict test run --watch\n\n${table}\n`);
} finally {
  await server.close();
  rmSync(project, { recursive: true, force: true });
}
