// The dashboard's API over a large store: 1,000 runs, one of them with 10,000 cases. Measures
// what a page waits for (HTTP round trips on 127.0.0.1 to a real server over node:sqlite) and
// the case-table query alone (in memory). Not part of `npm test`.
//
//   node --conditions=verdict-source bench/view-api.ts [--runs 1000] [--cases 10000]
//
// `seedViewBenchStore` is exported for a browser bench of the app over the same store.
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { TestResult } from "../src/results/evaluation-result.ts";
import type { MetricData } from "../src/results/metric-data.ts";
import { spendingOfResults } from "../src/results/spending.ts";
import { summarizeRun } from "../src/results/summarize-run.ts";
import { SqliteRunStore } from "../src/store/sqlite-run-store.ts";
import { LoadedRun } from "../src/view/server/loaded-run.ts";
import { parseCaseQuery } from "../src/view/server/view-query.ts";
import { createViewServer } from "../src/view/server/view-server.ts";

const WORDS = ["answer", "policy", "refund", "weather", "invoice", "garbage", "polite", "summary"];

function text(seed: number, words: number): string {
  return Array.from(
    { length: words },
    (_, index) => WORDS[(seed * 7 + index * 3) % WORDS.length],
  ).join(" ");
}

function metric(name: string, score: number, lowerIsBetter: boolean, seed: number): MetricData {
  const threshold = 0.5;
  const opinions = [text(seed, 8), text(seed + 1, 10)];
  return {
    name,
    threshold,
    success: lowerIsBetter ? score <= threshold : score >= threshold,
    score,
    reason: `The score is ${score.toFixed(2)} because ${text(seed, 20)}.`,
    strictMode: false,
    lowerIsBetter,
    evaluationModel: "openai:gpt-4.1",
    error: null,
    evaluationCost: 0.0021,
    inputTokens: 900,
    outputTokens: 60,
    verboseLogs: `Opinions:\n${JSON.stringify(opinions, null, 2)}`,
    judgeCalls: 3,
    cachedJudgeCalls: 0,
    sharedJudgeCalls: 0,
    steps: [
      { label: "Opinions", value: opinions },
      { label: "Verdicts", value: opinions.map(() => ({ verdict: "no", reason: text(seed, 12) })) },
    ],
    calls: ["generateOpinions", "generateVerdicts", "generateReason"].map((step) => ({
      step,
      model: "openai:gpt-4.1",
      inputTokens: 300,
      outputTokens: 20,
      costUsd: 0.0007,
      latencyMs: 800,
      source: "judge" as const,
    })),
  };
}

function caseResult(index: number): TestResult {
  const toxicity = ((index * 37) % 100) / 100;
  const relevancy = ((index * 53) % 100) / 100;
  const metricsData = [
    metric("Toxicity", toxicity, true, index),
    metric("Answer Relevancy", relevancy, false, index + 1),
  ];
  return {
    name: `case ${index}: ${text(index, 4)}`,
    index,
    success: metricsData.every((data) => data.success),
    input: text(index, 60),
    actualOutput: text(index + 2, 120),
    expectedOutput: text(index + 3, 40),
    images: [],
    metricsData,
    trials: [],
    passedTrials: 1,
    durationMs: 1500,
    file: `evals/suite-${index % 20}.eval.ts`,
    tags: [`area-${index % 7}`],
  };
}

/** Fills a store with `runs` runs of 20 cases, and one run (`"big"`) of `cases` cases. */
export async function seedViewBenchStore(options: {
  path: string;
  runs: number;
  cases: number;
}): Promise<void> {
  const store = new SqliteRunStore({ path: options.path });
  const small = Array.from({ length: 20 }, (_, index) => caseResult(index));
  const smallSummary = summarizeRun({
    status: "completed",
    testResults: small,
    spending: spendingOfResults(small),
    durationMs: 30_000,
  });
  const start = Date.parse("2025-01-01T00:00:00.000Z");
  for (let run = 0; run < options.runs - 1; run++) {
    const id = `run-${String(run).padStart(5, "0")}`;
    await store.runs.startRun({
      id,
      identifier: `suite-${run % 12}`,
      status: "completed",
      startedAt: new Date(start + run * 3_600_000).toISOString(),
      endedAt: new Date(start + run * 3_600_000 + 30_000).toISOString(),
      config: { testCases: 20 },
      summary: smallSummary,
      owner: null,
    });
    for (const result of small) await store.runs.saveTestResult(id, { fingerprint: "f", result });
  }
  const big = Array.from({ length: options.cases }, (_, index) => caseResult(index));
  await store.runs.startRun({
    id: "big",
    identifier: "nightly-big",
    status: "completed",
    startedAt: new Date(start + options.runs * 3_600_000).toISOString(),
    endedAt: null,
    config: { testCases: options.cases },
    summary: summarizeRun({
      status: "completed",
      testResults: big,
      spending: spendingOfResults(big),
      durationMs: 600_000,
    }),
    owner: null,
  });
  for (const result of big) await store.runs.saveTestResult("big", { fingerprint: "f", result });
  await store.close();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "1000" },
      cases: { type: "string", default: "10000" },
    },
  });
  const runs = Number(values.runs);
  const cases = Number(values.cases);
  const folder = mkdtempSync(join(tmpdir(), "verdict-view-bench-"));
  const file = join(folder, "verdict.db");
  try {
    const seeding = performance.now();
    await seedViewBenchStore({ path: file, runs, cases });
    console.log(
      `seeded ${runs} runs (one of ${cases} cases) in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );

    const store = new SqliteRunStore({ path: file });
    const server = createViewServer({ store, appFolder: null, log: () => {} });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (target: string) => {
      const response = await fetch(`${base}${target}`);
      if (response.status !== 200) throw new Error(`${target}: ${response.status}`);
      return response.arrayBuffer();
    };
    const rows: Array<[string, string]> = [];
    const measure = async (label: string, target: string, repeat = 15) => {
      const cold = await timed(() => get(target));
      const warm = [];
      for (let count = 0; count < repeat; count++) warm.push(await timed(() => get(target)));
      const size = (await get(target)).byteLength;
      rows.push([
        label,
        `first ${cold.toFixed(1)} ms, then median ${median(warm).toFixed(1)} ms (${(size / 1024).toFixed(0)} kB)`,
      ]);
    };
    await measure(`GET /api/runs (page of 50 of ${runs})`, "/api/runs");
    await measure(
      "GET /api/runs?q=suite-3&status=completed",
      "/api/runs?q=suite-3&status=completed",
    );
    await measure("GET /api/identifiers", "/api/identifiers");
    await measure("GET /api/trends?identifier=suite-3", "/api/trends?identifier=suite-3");
    await measure(`GET /api/runs/big (${cases} cases: histograms)`, "/api/runs/big");
    await measure("GET cases (run order, 100 rows)", "/api/runs/big/cases");
    await measure(
      "GET cases sort=metric:Toxicity desc",
      "/api/runs/big/cases?sort=metric:Toxicity&dir=desc",
    );
    await measure("GET cases filter=failing", "/api/runs/big/cases?filter=failing");
    await measure("GET cases q=garbage (search all text)", "/api/runs/big/cases?q=garbage");
    await measure("GET cases q=zzz (no match: full scan)", "/api/runs/big/cases?q=zzz");
    await measure("GET cases group=tag", "/api/runs/big/cases?group=tag");
    await measure("GET cases offset=9900", "/api/runs/big/cases?offset=9900");
    await measure("GET case detail", "/api/runs/big/cases/5000");
    await measure("GET export csv", "/api/runs/big/export?format=csv", 3);
    await measure(
      "GET compare (10,000 vs 10,000, same run)",
      "/api/compare?run=big&baseline=big",
      3,
    );

    // The query alone, in memory, after the first load.
    const results = (await store.runs.getTestResults("big")).map((stored) => stored.result);
    const loaded = new LoadedRun({ runId: "big", version: 1, results });
    for (const query of [
      "sort=metric:Toxicity&dir=desc",
      "q=garbage",
      "filter=failing&sort=name",
      "group=tag",
    ]) {
      const parsed = parseCaseQuery(new URLSearchParams(query), loaded.present.metrics);
      const first = await timed(async () => loaded.query(parsed));
      const again: number[] = [];
      for (let count = 0; count < 20; count++)
        again.push(await timed(async () => loaded.query(parsed)));
      rows.push([
        `LoadedRun.query(${query}) in memory`,
        `first ${first.toFixed(2)} ms, then median ${median(again).toFixed(2)} ms`,
      ]);
    }
    const versionTimes: number[] = [];
    for (let count = 0; count < 50; count++) {
      versionTimes.push(await timed(() => store.runs.getTestResultsVersion("big")));
    }
    rows.push([
      "getTestResultsVersion (live poll) on the 10,000-case run",
      `median ${median(versionTimes).toFixed(3)} ms`,
    ]);
    rows.push([
      "server memory (RSS) after the above",
      `${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`,
    ]);

    console.log("\n| measured | time |\n| --- | --- |");
    for (const [label, value] of rows) console.log(`| ${label} | ${value} |`);
    server.closeAllConnections();
    server.close();
    await store.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
