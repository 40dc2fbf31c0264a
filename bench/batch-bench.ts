// Batch judging figures (issue 13, point 4): N cases × 3 metrics through direct calls and
// through the fake server's batch endpoints — HTTP requests, wall time with a configured
// batch completion delay, cost — then a batch run killed (SIGKILL) while it waits and resumed.
//
//   node --conditions=verdict-source bench/batch-bench.ts [--cases 2000] [--latency 50]
//        [--completion-ms 2000] [--poll-ms 250] [--concurrency 20] [--out bench/results]
//
// Real parts: the AI SDK's OpenAI provider over HTTP to verdict's fake server (in this
// process), node:sqlite for the killed-and-resumed run, child processes for that run.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  type EvaluationResult,
  evaluate,
  MemoryRunStore,
  SqliteRunStore,
  ToxicityMetric,
} from "verdict";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import { type FaultFigures, renderFaultFigures } from "./fault-figures.ts";
import { realisticJudge } from "./realistic-judge.ts";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "2000" },
    latency: { type: "string", default: "50" },
    "completion-ms": { type: "string", default: "2000" },
    "poll-ms": { type: "string", default: "250" },
    concurrency: { type: "string", default: "20" },
    out: { type: "string", default: join(projectRoot, "bench", "results") },
  },
});
const cases = Number(values.cases);
const latencyMs = Number(values.latency);
const completionMs = Number(values["completion-ms"]);
const pollMs = Number(values["poll-ms"]);
const maxConcurrent = Number(values.concurrency);

const metrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new BiasMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
];
const scoresOf = (result: EvaluationResult) =>
  JSON.stringify(result.testResults.map((test) => test.metricsData.map((metric) => metric.score)));
const scored = (result: EvaluationResult) =>
  result.summary.testCases.total - result.summary.testCases.unscored;

interface Leg {
  wallMs: number;
  httpRequests: number;
  byEndpoint: Record<string, number>;
  result: EvaluationResult;
}

async function leg(server: FakeOpenAIServer, batch: boolean): Promise<Leg> {
  server.reset();
  const startedAt = performance.now();
  const result = await evaluate({
    testCases: generateCases(cases),
    metrics: metrics(),
    env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" },
    // A fresh cache each: a request asked again (cases that repeat a text) is paid once, in
    // both legs, so they pay for the same requests.
    store: new MemoryRunStore(),
    maxConcurrent,
    ...(batch ? { batch: { pollIntervalMs: pollMs, maxPollIntervalMs: pollMs * 4 } } : {}),
    display: "none",
    handleInterrupt: false,
  });
  const stats = server.stats();
  return {
    wallMs: performance.now() - startedAt,
    httpRequests: stats.requests,
    byEndpoint: stats.byEndpoint,
    result,
  };
}

function runChild(env: NodeJS.ProcessEnv) {
  const child = spawn(
    process.execPath,
    ["--conditions=verdict-source", join(projectRoot, "bench", "batch-child.ts")],
    { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  return { child, exited, stdout: () => stdout };
}

/** A batch run in a child process killed while it waits for its first batch, then resumed. */
async function killAndResume(server: FakeOpenAIServer) {
  server.reset();
  server.setBatchOptions({ completionDelayMs: 3_600_000 });
  const home = mkdtempSync(join(tmpdir(), "verdict-batch-bench-"));
  try {
    const env = {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-bench",
      VERDICT_HOME: home,
      CASES: String(cases),
      POLL_MS: String(pollMs),
    };
    const first = runChild(env);
    while ((server.batches()[0]?.retrievals ?? 0) < 1) {
      await new Promise((done) => setTimeout(done, 20));
    }
    first.child.kill("SIGKILL");
    await first.exited;
    const killedBatch = server.batches()[0];
    const store = new SqliteRunStore({ path: join(home, "verdict.db") });
    const recorded = (await store.judgeBatches.listOpen()).map((batch) => batch.id);
    await store.close();
    const createdBeforeResume = server.batches().length;
    server.setBatchOptions({ completionDelayMs: completionMs });
    const second = runChild({ ...env, RESUME: "1" });
    const code = await second.exited;
    const figures = JSON.parse(second.stdout()) as {
      status: string;
      scored: number;
      judgeCalls: number;
    };
    const firstStepLines = server.requests.filter((request) => {
      const properties = (request.jsonSchema?.properties as object | undefined) ?? {};
      return "opinions" in properties || "statements" in properties;
    });
    return {
      code,
      figures,
      killedBatch: killedBatch?.id ?? null,
      killedBatchLines: killedBatch?.lines ?? 0,
      recorded,
      createdBeforeResume,
      createdAfterResume: server.batches().length - createdBeforeResume,
      firstStepBatches: [...new Set(firstStepLines.map((request) => request.batchId))],
      directCalls: server.stats().byEndpoint.responses ?? 0,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const server = await startFakeOpenAIServer({
  respond: realisticJudge,
  latencyMs,
  batches: { completionDelayMs: completionMs },
});
try {
  // The direct run has the server's latency on every call; batch endpoints answer at once but
  // each batch ends only `completionMs` after it was made.
  const direct = await leg(server, false);
  server.setLatency(0);
  const batched = await leg(server, true);
  const batches = server.batches();
  const resumed = await killAndResume(server);

  const costRatio =
    (batched.result.summary.costUsd ?? Number.NaN) / (direct.result.summary.costUsd ?? Number.NaN);
  const figures: FaultFigures = {
    title: `Batch judging: ${cases.toLocaleString("en-US")} cases × 3 metrics (direct latency ${latencyMs} ms, batch completion ${completionMs} ms, poll ${pollMs} ms, maxConcurrent ${maxConcurrent})`,
    rows: [
      {
        figure: "cases scored, direct / batch",
        goal: `${cases} / ${cases}`,
        measured: `${scored(direct.result)} / ${scored(batched.result)}`,
        pass: scored(direct.result) === cases && scored(batched.result) === cases,
      },
      {
        figure: "scores, batch vs direct",
        goal: "identical",
        measured: scoresOf(batched.result) === scoresOf(direct.result) ? "identical" : "differ",
        pass: scoresOf(batched.result) === scoresOf(direct.result),
      },
      {
        figure: "judge calls paid, direct / batch",
        goal: "equal",
        measured: `${direct.result.summary.judgeCalls} / ${batched.result.summary.judgeCalls}`,
        pass: direct.result.summary.judgeCalls === batched.result.summary.judgeCalls,
      },
      {
        figure: "HTTP requests, direct / batch",
        goal: "batch: a few per step",
        measured: `${direct.httpRequests} / ${batched.httpRequests} (${JSON.stringify(batched.byEndpoint)})`,
        pass: batched.httpRequests < direct.httpRequests,
      },
      {
        figure: "batches, lines each",
        goal: "one per step",
        measured: batches.map((batch) => `${batch.lines}`).join(", "),
        pass: batches.length >= 2 && batches.length <= 3,
      },
      {
        figure: "cost, direct / batch",
        goal: "batch = 50% of direct",
        measured: `$${(direct.result.summary.costUsd ?? 0).toFixed(4)} / $${(batched.result.summary.costUsd ?? 0).toFixed(4)} (${(costRatio * 100).toFixed(2)}%)`,
        pass: Math.abs(costRatio - 0.5) < 1e-9,
      },
      {
        figure: "wall time, direct / batch",
        goal: "measured",
        measured: `${(direct.wallMs / 1000).toFixed(1)} s / ${(batched.wallMs / 1000).toFixed(1)} s`,
        pass: true,
      },
      {
        figure: "killed while waiting: batch recorded in the store",
        goal: "the submitted batch, open",
        measured: `${resumed.recorded.join(", ") || "none"} (submitted ${resumed.killedBatch}, ${resumed.killedBatchLines} lines)`,
        pass: resumed.recorded.length === 1 && resumed.recorded[0] === resumed.killedBatch,
      },
      {
        figure: "resumed: step-1 lines in batches other than the killed one",
        goal: "0",
        measured: String(
          resumed.firstStepBatches.filter((id) => id !== resumed.killedBatch).length,
        ),
        pass:
          resumed.firstStepBatches.length === 1 &&
          resumed.firstStepBatches[0] === resumed.killedBatch,
      },
      {
        figure: "resumed run: status, cases scored, batches created, direct calls",
        goal: `completed, ${cases}, later steps only, 0`,
        measured: `${resumed.figures.status}, ${resumed.figures.scored}, ${resumed.createdAfterResume}, ${resumed.directCalls}`,
        pass:
          resumed.code === 0 &&
          resumed.figures.status === "completed" &&
          resumed.figures.scored === cases &&
          resumed.directCalls === 0,
      },
    ],
  };
  const markdown = renderFaultFigures(figures);
  process.stdout.write(`${markdown}\n`);
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "batch.md"), `${markdown}\n`);
  writeFileSync(
    join(out, "batch.json"),
    `${JSON.stringify({ cases, latencyMs, completionMs, pollMs, maxConcurrent, figures, batches, resumed }, null, 2)}\n`,
  );
  if (figures.rows.some((row) => !row.pass)) process.exitCode = 1;
} finally {
  await server.close();
}
