// Runs one scenario in a process of its own (forked by evaluate-bench.ts), so that its CPU time
// and peak RSS are its own, and sends a ScenarioResult back over IPC.
//   node --conditions=verdict-source bench/run-scenario.ts --spec '<ScenarioSpec as JSON>'
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  type EvaluationResult,
  evaluate,
  type LLMTestCaseFields,
  ToxicityMetric,
} from "verdict";
import { describeCases, loadCases } from "./bench-cases.ts";
import { type FakeServerChild, startFakeServerChild } from "./fake-server-child.ts";
import {
  cpuSince,
  maxRssMb,
  startGcObserver,
  startLoopDelayMonitor,
  startMemorySampler,
} from "./measure.ts";
import type { RunMeasurement, ScenarioResult, ScenarioSpec } from "./scenarios.ts";

const processCpuStart = process.cpuUsage();
const { values } = parseArgs({ options: { spec: { type: "string" } } });
if (!values.spec) throw new Error("run-scenario.ts needs --spec '<ScenarioSpec JSON>'.");
const spec = JSON.parse(values.spec) as ScenarioSpec;

const judgeModel = "gpt-4.1";
const metrics = () => [
  new ToxicityMetric({ model: judgeModel }),
  new BiasMetric({ model: judgeModel }),
  new AnswerRelevancyMetric({ model: judgeModel }),
];

function databaseBytes(home: string): number {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      total += statSync(join(home, `verdict.db${suffix}`)).size;
    } catch {
      // no WAL file: checkpointed and removed on close
    }
  }
  return total;
}

async function runEvaluate(options: {
  testCases: LLMTestCaseFields[];
  server: FakeServerChild;
  home: string | null;
}): Promise<EvaluationResult> {
  const env: NodeJS.ProcessEnv = {
    OPENAI_BASE_URL: options.server.url,
    OPENAI_API_KEY: "sk-bench",
  };
  if (options.home) env.VERDICT_HOME = options.home;
  return evaluate({
    testCases: options.testCases,
    metrics: metrics(),
    maxConcurrent: spec.maxConcurrent,
    ...(options.home ? {} : { store: false as const }),
    ignoreErrors: true,
    ...(spec.summaryOnly ? { keepResults: false } : {}),
    display: "none",
    showProgress: false,
    handleInterrupt: false,
    env,
  });
}

async function measureRun(options: {
  label: string;
  testCases: LLMTestCaseFields[];
  server: FakeServerChild;
  home: string | null;
}): Promise<RunMeasurement> {
  await options.server.reset();
  // No forced GC before the run: it shrinks the heap, and the run then pays to grow it back.
  const rssBeforeMb = process.memoryUsage().rss / 1024 / 1024;
  const sampler = startMemorySampler({ intervalMs: spec.sampleIntervalMs });
  const loop = startLoopDelayMonitor();
  const gcObserver = startGcObserver();
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const result = await runEvaluate(options);
  const wallMs = performance.now() - wallStart;
  const cpu = cpuSince(cpuStart);
  const loopDelay = loop.stop();
  const gc = await gcObserver.stop();
  const memory = sampler.stop();
  const server = await options.server.stats();
  // What stays live while the caller holds the result: a full GC first (--expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  const heapAfterGcMb = process.memoryUsage().heapUsed / 1024 / 1024;
  const { summary } = result;
  const cases = options.testCases.length;
  const calls = summary.judgeCalls;
  const idealWallMs = (calls * spec.latencyMs) / spec.maxConcurrent;
  const errored = summary.metrics.reduce((sum, metric) => sum + metric.errored, 0);
  return {
    label: options.label,
    cases,
    latencyMs: spec.latencyMs,
    maxConcurrent: spec.maxConcurrent,
    store: spec.store,
    status: summary.status,
    errored,
    judgeCalls: calls,
    cacheHits: summary.cacheHits,
    sharedCalls: summary.sharedCalls,
    inputTokens: summary.inputTokens,
    outputTokens: summary.outputTokens,
    server: {
      requests: server.requests,
      peakInFlight: server.peakInFlight,
      inputTokens: server.inputTokens,
      outputTokens: server.outputTokens,
      byStatus: server.byStatus,
    },
    wallMs,
    cpu,
    memory,
    heapAfterGcMb,
    resultJsonBytesPerCase: Buffer.byteLength(JSON.stringify(result.testResults)) / cases,
    rssBeforeMb,
    maxRssMb: maxRssMb(),
    loopDelay,
    gc,
    dbBytes: options.home ? databaseBytes(options.home) : null,
    derived: {
      judgeCallsPerCase: calls / cases,
      sharedCallsPerCase: summary.sharedCalls / cases,
      sharedSavingsPct:
        calls + summary.sharedCalls > 0
          ? (100 * summary.sharedCalls) / (calls + summary.sharedCalls)
          : null,
      inputTokensPerCase: summary.inputTokens / cases,
      outputTokensPerCase: summary.outputTokens / cases,
      idealWallMs,
      overIdealPct: idealWallMs > 0 ? (100 * (wallMs - idealWallMs)) / idealWallMs : null,
      wallMsPerCall: calls > 0 ? wallMs / calls : null,
      cpuMsPerCall: calls > 0 ? cpu.totalMs / calls : null,
      cpuMsPerCase: cpu.totalMs / cases,
    },
  };
}

/** Profiles only what `body` runs (not imports or warm-up), when the spec asks for it. */
async function profiled<T>(body: () => Promise<T>): Promise<T> {
  if (!spec.profilePath) return body();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    return await body();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(spec.profilePath, JSON.stringify(profile));
    session.disconnect();
  }
}

const log = (text: string) => process.stderr.write(`  [${spec.name}] ${text}\n`);
const loaded = loadCases({ source: spec.source, count: spec.cases });
if (loaded.note) log(loaded.note);
const server = await startFakeServerChild({ latencyMs: spec.latencyMs, judge: spec.judge });
const homes: string[] = [];
const makeHome = () => {
  const home = mkdtempSync(join(tmpdir(), "verdict-bench-"));
  homes.push(home);
  return home;
};
try {
  if (spec.warmupCases > 0) {
    log(`warm-up: ${spec.warmupCases} cases`);
    await runEvaluate({
      testCases: loaded.cases.slice(0, spec.warmupCases),
      server,
      home: spec.store === "sqlite" ? makeHome() : null,
    });
  }
  const runs = await profiled(async () => {
    if (spec.store === "none") {
      log(`measuring: ${spec.cases} cases, ${spec.latencyMs} ms, ${spec.maxConcurrent} at a time`);
      return [await measureRun({ label: "run", testCases: loaded.cases, server, home: null })];
    }
    const home = makeHome();
    log(`measuring: ${spec.cases} cases into a new store, then the same run again`);
    const first = await measureRun({ label: "first run", testCases: loaded.cases, server, home });
    const cached = await measureRun({ label: "cached run", testCases: loaded.cases, server, home });
    return [first, cached];
  });
  const result: ScenarioResult = {
    spec,
    caseSource: loaded.source,
    caseNote: loaded.note,
    ...describeCases(loaded.cases),
    runs,
    processCpuMs: cpuSince(processCpuStart).totalMs,
  };
  await new Promise<void>((resolve, reject) =>
    process.send
      ? process.send({ type: "result", result }, (error: Error | null) =>
          error ? reject(error) : resolve(),
        )
      : reject(new Error("run-scenario.ts must be forked by evaluate-bench.ts (no IPC channel).")),
  );
} finally {
  await server.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}
process.disconnect?.();
