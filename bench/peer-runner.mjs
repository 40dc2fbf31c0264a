#!/usr/bin/env node
// verdict as a target of the shared peer harness (shared/bench/run-peers.mjs --extra
// bench/peer-target.json). Scores the harness's cases with one evaluate() call:
//   node --conditions=verdict-source bench/peer-runner.mjs --cases cases.jsonl --c 10
//        [--metric trio|toxicity|bias|answer-relevancy] [--in-flight-per-case 1]
// Env (set by the harness): OPENAI_BASE_URL (the mock, …/v1), OPENAI_API_KEY, BENCH_CASES,
// BENCH_CONCURRENCY, BENCH_OUT (where {ok, errors, scoring_ms, mean_score, first_error} goes).
// maxConcurrent = C × --in-flight-per-case judge requests in flight (verdict limits requests,
// not cases; deepeval-ts:trio runs C cases × 3 metrics, i.e. up to 3C requests, at a time).
// No store, no cache (store: false), like the peers' runs. Loads verdict's sources, so it
// runs on Node ≥ 22.18 (type stripping); it re-runs itself with --conditions=verdict-source.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

if (!import.meta.resolve("verdict").endsWith("/src/index.ts")) {
  const child = spawn(
    process.execPath,
    ["--conditions=verdict-source", fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  await run();
}

async function run() {
  const started = performance.now();
  const { values } = parseArgs({
    options: {
      cases: { type: "string", default: process.env.BENCH_CASES },
      c: { type: "string", default: process.env.BENCH_CONCURRENCY ?? "10" },
      metric: { type: "string", default: "trio" },
      "in-flight-per-case": { type: "string", default: "1" },
      model: { type: "string", default: "gpt-4.1" },
    },
  });
  if (!values.cases) throw new Error("peer-runner.mjs needs --cases FILE or BENCH_CASES.");
  if (!process.env.OPENAI_BASE_URL) throw new Error("OPENAI_BASE_URL must point at the mock.");
  const { AnswerRelevancyMetric, BiasMetric, evaluate, ToxicityMetric } = await import("verdict");
  const model = values.model;
  const factories = {
    toxicity: () => [new ToxicityMetric({ model })],
    bias: () => [new BiasMetric({ model })],
    "answer-relevancy": () => [new AnswerRelevancyMetric({ model })],
    trio: () => [
      new ToxicityMetric({ model }),
      new BiasMetric({ model }),
      new AnswerRelevancyMetric({ model }),
    ],
  };
  const makeMetrics = factories[values.metric];
  if (!makeMetrics) {
    throw new Error(`--metric must be one of ${Object.keys(factories).join(", ")}.`);
  }
  const testCases = readFileSync(values.cases, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const row = JSON.parse(line);
      return {
        name: row.id,
        input: row.input,
        actualOutput: row.output,
        expectedOutput: row.expected,
        context: row.context,
      };
    });
  const maxConcurrent = Number(values.c) * Number(values["in-flight-per-case"]);
  const scoringStarted = performance.now();
  const result = await evaluate({
    testCases,
    metrics: makeMetrics(),
    maxConcurrent,
    store: false,
    ignoreErrors: true,
    display: "none",
    showProgress: false,
    handleInterrupt: false,
  });
  const scoringMs = performance.now() - scoringStarted;
  const scored = result.testResults.filter((testResult) =>
    testResult.metricsData.every((metric) => metric.error === null),
  );
  const scores = result.testResults.flatMap((testResult) =>
    testResult.metricsData.flatMap((metric) => (metric.score === null ? [] : [metric.score])),
  );
  const firstError = result.testResults
    .flatMap((testResult) => testResult.metricsData)
    .find((metric) => metric.error !== null)?.error;
  const summary = {
    ok: scored.length,
    errors: testCases.length - scored.length,
    scoring_ms: scoringMs,
    mean_score: scores.length
      ? scores.reduce((sum, score) => sum + score, 0) / scores.length
      : null,
    first_error: firstError ?? null,
    judge_calls: result.summary.judgeCalls,
    shared_calls: result.summary.sharedCalls,
    max_concurrent: maxConcurrent,
    process_ms: performance.now() - started,
  };
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(summary));
  console.log(JSON.stringify(summary));
}
