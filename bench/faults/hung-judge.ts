// Fault figures for issue 19, item 8: how long does a case take to error when the judge accepts
// the connection and never answers? Over real HTTP (evaluate() → AI SDK OpenAI provider → the
// fake server, which hangs on every request) for { timeoutMs: 3000, maxElapsedMs: 5000 } and
// for the default policy scaled down twenty times; and the default policy itself on a virtual
// clock (the real retry loop, its timers and waits run on simulated time: ten real minutes per
// figure would be too long for a bench).
//   node --conditions=verdict-source bench/faults/hung-judge.ts [--cases 10]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AnswerRelevancyMetric, BiasMetric, evaluate, ToxicityMetric } from "verdict";
import { type FakeOpenAIServer, reply, startFakeOpenAIServer } from "verdict/testing";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../src/judge/retry-policy.ts";
import { type Sleep, withRetries } from "../../src/judge/with-retries.ts";
import { generateCases } from "../bench-cases.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

/** The case count of the "many cases at once" row: 2 requests each, within maxConcurrent 20. */
const DEFAULT_CASES = 10;

/** Each case's time from the start of the run to its end, in ms, and their errors. */
interface HungRun {
  caseMs: number[];
  errors: Array<string | null>;
}

/**
 * Measures the time to error of cases whose judge never answers, over HTTP and on a virtual
 * clock, against the bound each retry policy promises.
 */
export async function measureHungJudge(options: { cases?: number } = {}): Promise<FaultFigures> {
  const cases = options.cases ?? DEFAULT_CASES;
  const server = await startFakeOpenAIServer({ respond: () => reply.hang() });
  const rows: FaultFigures["rows"] = [];
  try {
    const example = { timeoutMs: 3000, maxElapsedMs: 5000 };
    const one = await runHung({ server, cases: 1, retry: example });
    rows.push(
      httpRow({ what: "{ timeoutMs: 3000, maxElapsedMs: 5000 }, 1 case", run: one, goalMs: 6000 }),
    );
    const many = await runHung({ server, cases, retry: example });
    rows.push(
      httpRow({
        what: `{ timeoutMs: 3000, maxElapsedMs: 5000 }, ${cases} cases at once (slowest)`,
        run: many,
        goalMs: 6000,
      }),
    );
    const scaled = {
      timeoutMs: DEFAULT_RETRY_POLICY.timeoutMs / 20,
      maxElapsedMs: DEFAULT_RETRY_POLICY.maxElapsedMs / 20,
    };
    const scaledRun = await runHung({ server, cases: 1, retry: scaled });
    rows.push(
      httpRow({
        what: "the defaults ÷ 20 ({ timeoutMs: 6000, maxElapsedMs: 30000 }), 1 case",
        run: scaledRun,
        goalMs: scaled.maxElapsedMs + 1000,
      }),
    );
  } finally {
    await server.close();
  }
  for (const [what, policy, goal] of [
    ["the defaults (README: 10 minutes; was 12.2 minutes)", {}, 600_000],
    [
      "{ timeoutMs: 3000, maxElapsedMs: 5000 } (was 31.9 s)",
      { timeoutMs: 3000, maxElapsedMs: 5000 },
      5000,
    ],
  ] as Array<[string, Partial<RetryPolicy>, number]>) {
    const failedAt = await timeToErrorOnVirtualClock(policy);
    rows.push({
      figure: `virtual clock, ${what}: one request's time to error`,
      goal: `≤ ${formatMs(goal)}`,
      measured: formatMs(failedAt),
      pass: failedAt <= goal,
    });
  }
  const unbounded = await timeToErrorOnVirtualClock({ maxElapsedMs: Number.POSITIVE_INFINITY });
  rows.push({
    figure: "virtual clock, the defaults with maxElapsedMs: Infinity (6 timeouts and backoffs)",
    goal: "reported",
    measured: formatMs(unbounded),
    pass: true,
  });
  return { title: "Judges that never answer: time until the case errors", rows };
}

async function runHung(options: {
  server: FakeOpenAIServer;
  cases: number;
  retry: Partial<RetryPolicy>;
}): Promise<HungRun> {
  const { server } = options;
  server.reset();
  const home = mkdtempSync(join(tmpdir(), "verdict-bench-hung-"));
  const caseMs: number[] = [];
  const started = performance.now();
  try {
    const result = await evaluate({
      testCases: generateCases(options.cases),
      metrics: [
        new ToxicityMetric({ model: "gpt-4.1" }),
        new BiasMetric({ model: "gpt-4.1" }),
        new AnswerRelevancyMetric({ model: "gpt-4.1" }),
      ],
      retry: options.retry,
      ignoreErrors: true,
      display: "none",
      showProgress: false,
      handleInterrupt: false,
      onProgress: (event) => {
        if (event.type === "test-case-end") caseMs.push(performance.now() - started);
      },
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench", VERDICT_HOME: home },
    });
    const errors = result.testResults.flatMap((testResult) =>
      testResult.metricsData.map((metric) => metric.error),
    );
    return { caseMs, errors };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function httpRow(options: { what: string; run: HungRun; goalMs: number }): FaultFigures["rows"][0] {
  const { run } = options;
  const slowest = Math.max(...run.caseMs);
  const errored = run.errors.filter((error) => error !== null).length;
  const first = run.errors.find((error) => error !== null) ?? "none";
  return {
    figure: `over HTTP, ${options.what}: time until the case errors`,
    goal: `≤ ${formatMs(options.goalMs)}, every metric errored`,
    measured:
      `${formatMs(slowest)} (${errored}/${run.errors.length} metrics errored: ` +
      `${first.slice(0, 160)})`,
    pass: slowest <= options.goalMs && errored === run.errors.length && run.caseMs.length > 0,
  };
}

/**
 * How long one request to a judge that never answers takes to fail under `policy`, in
 * simulated ms: the real retry loop runs with `setTimeout` (its attempt timers), the waits and
 * the clock on a virtual time that jumps to the next timer whenever nothing else can run.
 */
async function timeToErrorOnVirtualClock(policy: Partial<RetryPolicy>): Promise<number> {
  const realSetTimeout = globalThis.setTimeout;
  const realClearTimeout = globalThis.clearTimeout;
  const timers = new Map<number, { at: number; run: () => void }>();
  let now = 0;
  let nextId = 0;
  const setVirtualTimeout = (run: () => void, delayMs = 0) => {
    nextId += 1;
    timers.set(nextId, { at: now + Math.max(0, delayMs), run });
    return nextId;
  };
  globalThis.setTimeout = setVirtualTimeout as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((id: number) => {
    timers.delete(id);
  }) as unknown as typeof clearTimeout;
  try {
    const sleep: Sleep = ({ delayMs }) =>
      new Promise((resolve) => setVirtualTimeout(() => resolve(), delayMs));
    let failedAt: number | null = null;
    const request = withRetries({
      judgeName: "hung",
      policy,
      sleep,
      now: () => now,
      run: () => new Promise<never>(() => {}),
    }).then(
      () => {
        throw new Error("a judge that never answers answered");
      },
      () => {
        failedAt = now;
      },
    );
    while (failedAt === null) {
      // Let everything that can run now run, then jump to the next timer.
      await new Promise((resolve) => setImmediate(resolve));
      if (failedAt !== null) break;
      const next = [...timers].sort(([, a], [, b]) => a.at - b.at)[0];
      if (next === undefined) throw new Error("the retry loop is waiting on no timer");
      timers.delete(next[0]);
      now = next[1].at;
      next[1].run();
    }
    await request;
    return failedAt;
  } finally {
    globalThis.setTimeout = realSetTimeout;
    globalThis.clearTimeout = realClearTimeout;
  }
}

function formatMs(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${(ms / 60_000).toFixed(2)} min`;
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({ options: { cases: { type: "string" } } });
  const cases = values.cases === undefined ? undefined : Number(values.cases);
  if (cases !== undefined && !(Number.isInteger(cases) && cases > 0)) {
    throw new Error(`--cases must be a whole number of 1 or more; got "${values.cases}".`);
  }
  reportAlone(await measureHungJudge(cases === undefined ? {} : { cases }));
}
