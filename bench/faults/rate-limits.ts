// Fault figures for issue 9, item 1: does a rate-limited run still score every case?
// 300 cases × Toxicity, Bias and Answer Relevancy through evaluate() with its defaults (retry
// policy, maxConcurrent 20, the SQLite store in a fresh VERDICT_HOME per run), over the AI
// SDK's OpenAI provider and real HTTP to the fake server, whose seeded faults answer 30% of
// calls 429 with `retry-after-ms` (25 ms by default, so that the whole bench takes a minute or
// two; a real provider asks for seconds) — alone, then with 5% 500s and 2% dropped connections.
//   node --conditions=verdict-source bench/faults/rate-limits.ts [--seeds 5] [--cases 300]
//     [--retry-after-ms 25] [--hint retry-after-ms|retry-after|openai-reset|anthropic-reset]
//     [--latency 2]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AnswerRelevancyMetric, BiasMetric, evaluate, ToxicityMetric } from "verdict";
import {
  type FakeFaults,
  type FakeOpenAIServer,
  type FakeRateLimitHint,
  startFakeOpenAIServer,
} from "verdict/testing";
import { generateCases } from "../bench-cases.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";
import { realisticJudge } from "../realistic-judge.ts";

/** The figures of one fault scenario, as the lead's runner merges them. */

/** What to measure; every field has the default the figures are quoted with. */
export interface RateLimitBenchOptions {
  seeds: number;
  cases: number;
  retryAfterMs: number;
  hint: FakeRateLimitHint;
  /** The fake server's delay before each answer. */
  latencyMs: number;
}

const DEFAULTS: RateLimitBenchOptions = {
  seeds: 5,
  cases: 300,
  retryAfterMs: 25,
  hint: "retry-after-ms",
  latencyMs: 2,
};

/** One evaluate() run under one seed's faults. */
interface RunFigures {
  seed: number;
  scored: number;
  results: number;
  requests: number;
  rateLimited: number;
  hardFailures: number;
  wallMs: number;
  /** The first error of a metric left unscored, if any. */
  firstError: string | null;
}

/**
 * Runs both scenarios over `seeds` seeds and returns the figures: share of metric results
 * scored (goal 100%), plus the 429s, hard failures and wall time it took.
 */
export async function measureRateLimits(
  options: Partial<RateLimitBenchOptions> = {},
): Promise<FaultFigures> {
  const settings = { ...DEFAULTS, ...options };
  const server = await startFakeOpenAIServer({
    respond: realisticJudge,
    latencyMs: settings.latencyMs,
  });
  try {
    const base = {
      rateLimit: 0.3,
      retryAfterMs: settings.retryAfterMs,
      rateLimitHint: settings.hint,
    };
    const scenarios: Array<{ name: string; faults: Omit<FakeFaults, "seed"> }> = [
      { name: "30% 429", faults: base },
      { name: "30% 429 + 5% 500 + 2% dropped", faults: { ...base, serverError: 0.05, drop: 0.02 } },
    ];
    const rows: FaultFigures["rows"] = [];
    for (const scenario of scenarios) {
      const runs: RunFigures[] = [];
      for (let seed = 1; seed <= settings.seeds; seed++) {
        runs.push(await measureRun({ server, faults: { seed, ...scenario.faults }, settings }));
      }
      rows.push(...rowsOf({ scenario: scenario.name, runs, settings }));
    }
    return {
      title:
        `Rate limits: ${settings.cases} cases × 3 metrics, ${settings.seeds} seeds, 429s carrying ` +
        `${settings.hint} = ${settings.retryAfterMs} ms` +
        `${settings.retryAfterMs < 1000 ? " (short, so the bench runs fast; providers ask for seconds)" : ""}, ` +
        `${settings.latencyMs} ms server latency, evaluate() defaults`,
      rows,
    };
  } finally {
    await server.close();
  }
}

async function measureRun(options: {
  server: FakeOpenAIServer;
  faults: FakeFaults;
  settings: RateLimitBenchOptions;
}): Promise<RunFigures> {
  const { server, faults, settings } = options;
  server.setFaults(faults);
  server.reset();
  const home = mkdtempSync(join(tmpdir(), "verdict-bench-faults-"));
  const started = performance.now();
  const figures: RunFigures = {
    seed: faults.seed,
    scored: 0,
    results: settings.cases * 3,
    requests: 0,
    rateLimited: 0,
    hardFailures: 0,
    wallMs: 0,
    firstError: null,
  };
  try {
    const result = await evaluate({
      testCases: generateCases(settings.cases),
      metrics: [
        new ToxicityMetric({ model: "gpt-4.1" }),
        new BiasMetric({ model: "gpt-4.1" }),
        new AnswerRelevancyMetric({ model: "gpt-4.1" }),
      ],
      ignoreErrors: true,
      display: "none",
      showProgress: false,
      handleInterrupt: false,
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench", VERDICT_HOME: home },
    });
    const metrics = result.testResults.flatMap((testResult) => testResult.metricsData);
    figures.scored = metrics.filter((metric) => metric.score !== null).length;
    figures.firstError = metrics.find((metric) => metric.score === null)?.error ?? null;
  } catch (error) {
    figures.firstError = `evaluate() threw: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    figures.wallMs = performance.now() - started;
    rmSync(home, { recursive: true, force: true });
  }
  const stats = server.stats();
  figures.requests = stats.requests;
  figures.rateLimited = (stats.byStatus["429"] ?? 0) + (stats.byStatus["503"] ?? 0);
  figures.hardFailures = (stats.byStatus["500"] ?? 0) + (stats.byStatus.dropped ?? 0);
  return figures;
}

function rowsOf(options: {
  scenario: string;
  runs: RunFigures[];
  settings: RateLimitBenchOptions;
}): FaultFigures["rows"] {
  const { scenario, runs } = options;
  const scored = sum(runs.map((run) => run.scored));
  const results = sum(runs.map((run) => run.results));
  const perSeed = runs.map((run) => percent(run.scored / run.results)).join(", ");
  const errors = runs.filter((run) => run.firstError !== null);
  const firstError = errors[0]?.firstError;
  const mean = (values: number[]) => Math.round(sum(values) / Math.max(1, values.length));
  const wall = runs.map((run) => run.wallMs / 1000);
  return [
    {
      figure: `${scenario}: metric results scored`,
      goal: "100%",
      measured:
        `${percent(scored / results)} (${scored}/${results}; per seed ${perSeed})` +
        (firstError ? `; first loss: ${firstError.slice(0, 240)}` : ""),
      pass: scored === results,
    },
    {
      figure: `${scenario}: retries per run (429s / 500s + drops / requests)`,
      goal: "reported",
      measured:
        `${mean(runs.map((run) => run.rateLimited))} / ${mean(runs.map((run) => run.hardFailures))} / ` +
        `${mean(runs.map((run) => run.requests))} (mean of ${runs.length} seeds)`,
      pass: true,
    },
    {
      figure: `${scenario}: wall time per run`,
      goal: "reported",
      measured: `${(sum(wall) / wall.length).toFixed(1)} s mean, ${Math.max(...wall).toFixed(1)} s max`,
      pass: true,
    },
  ];
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      seeds: { type: "string" },
      cases: { type: "string" },
      "retry-after-ms": { type: "string" },
      hint: { type: "string" },
      latency: { type: "string" },
    },
  });
  const number = (text: string | undefined, name: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`--${name} must be a number of 0 or more; got "${text}".`);
    }
    return value;
  };
  const figures = await measureRateLimits({
    ...definedOnly({
      seeds: number(values.seeds, "seeds"),
      cases: number(values.cases, "cases"),
      retryAfterMs: number(values["retry-after-ms"], "retry-after-ms"),
      latencyMs: number(values.latency, "latency"),
      hint: values.hint as FakeRateLimitHint | undefined,
    }),
  });
  reportAlone(figures);
}

function definedOnly<T extends object>(
  value: T,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<{ [K in keyof T]: Exclude<T[K], undefined> }>;
}
