// Fault figures for issue 9, item 1: does a rate-limited run still score every case?
// 300 cases × Toxicity, Bias and Answer Relevancy through evaluate() with its defaults (retry
// policy, maxConcurrent 20, the SQLite store in a fresh VERDICT_HOME per run), over the AI
// SDK's OpenAI provider and real HTTP to the fake server, whose seeded faults answer 30% of
// calls 429 with `retry-after-ms` (25 ms by default, so that the whole bench takes a minute or
// two; a real provider asks for seconds) — alone, then with 5% 500s and 2% dropped connections.
//   node --conditions=verdict-source bench/faults/rate-limits.ts [--seeds 5] [--cases 300]
//     [--retry-after-ms 25] [--hint retry-after-ms|retry-after|openai-reset|anthropic-reset]
//     [--latency 2]

import { parseArgs } from "node:util";
import {
  type FakeFaults,
  type FakeOpenAIServer,
  type FakeRateLimitHint,
  startFakeOpenAIServer,
} from "verdict/testing";
import {
  definedOnly,
  type FaultFigures,
  isMainModule,
  numberFlag,
  reportAlone,
} from "../fault-figures.ts";
import { runThreeMetrics, type ScoredRun, scoredRow, sum } from "../fault-run.ts";
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
interface RunFigures extends ScoredRun {
  requests: number;
  rateLimited: number;
  hardFailures: number;
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
  const run = await runThreeMetrics({ server, faults, cases: settings.cases });
  const { byStatus } = run.stats;
  return {
    ...run,
    requests: run.stats.requests,
    rateLimited: (byStatus["429"] ?? 0) + (byStatus["503"] ?? 0),
    hardFailures: (byStatus["500"] ?? 0) + (byStatus.dropped ?? 0),
  };
}

function rowsOf(options: {
  scenario: string;
  runs: RunFigures[];
  settings: RateLimitBenchOptions;
}): FaultFigures["rows"] {
  const { scenario, runs } = options;
  const mean = (values: number[]) => Math.round(sum(values) / Math.max(1, values.length));
  const wall = runs.map((run) => run.wallMs / 1000);
  return [
    scoredRow({ scenario, runs }),
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
  const figures = await measureRateLimits({
    ...definedOnly({
      seeds: numberFlag(values.seeds, "seeds"),
      cases: numberFlag(values.cases, "cases"),
      retryAfterMs: numberFlag(values["retry-after-ms"], "retry-after-ms"),
      latencyMs: numberFlag(values.latency, "latency"),
      hint: values.hint as FakeRateLimitHint | undefined,
    }),
  });
  reportAlone(figures);
}
