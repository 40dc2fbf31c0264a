// Fault figures for issue 19, item 3: does a run whose judge answers are cut short after their
// headers (or are 200s whose body is not the provider's JSON) still score every case?
// 300 cases × Toxicity, Bias and Answer Relevancy through evaluate() with its defaults (retry
// policy, maxConcurrent 20, the SQLite store in a fresh VERDICT_HOME per run), over the AI
// SDK's OpenAI provider and real HTTP to the fake server, whose seeded faults cut 10% of the
// answers after their headers — then answer 10% with a proxy's HTML page — through the
// Responses API ("gpt-4.1") and Chat Completions ("openai-compatible:gpt-4.1").
//   node --conditions=verdict-source bench/faults/cut-responses.ts [--seeds 2] [--cases 300]
//     [--share 0.1] [--latency 2]

import { parseArgs } from "node:util";
import { type FakeFaults, type FakeOpenAIServer, startFakeOpenAIServer } from "verdict/testing";
import {
  definedOnly,
  type FaultFigures,
  isMainModule,
  numberFlag,
  reportAlone,
} from "../fault-figures.ts";
import { runThreeMetrics, type ScoredRun, scoredRow, sum } from "../fault-run.ts";
import { realisticJudge } from "../realistic-judge.ts";

/** What to measure; every field has the default the figures are quoted with. */
export interface CutResponsesBenchOptions {
  seeds: number;
  cases: number;
  /** The share of answers broken. */
  share: number;
  /** The fake server's delay before each answer. */
  latencyMs: number;
}

const DEFAULTS: CutResponsesBenchOptions = { seeds: 2, cases: 300, share: 0.1, latencyMs: 2 };

const ENDPOINTS = [
  {
    name: "Responses API",
    model: "gpt-4.1",
    env: (url: string) => ({ OPENAI_BASE_URL: url }),
  },
  {
    name: "Chat Completions",
    model: "openai-compatible:gpt-4.1",
    env: (url: string) => ({ VERDICT_BASE_URL: url }),
  },
] as const;

/**
 * Runs each fault (cut after the headers, a 200 that is not JSON) on each endpoint over
 * `seeds` seeds, after a fault-free run per endpoint for comparison, and returns the figures:
 * share of metric results scored (goal 100%), requests per case and wall time.
 */
export async function measureCutResponses(
  options: Partial<CutResponsesBenchOptions> = {},
): Promise<FaultFigures> {
  const settings = { ...DEFAULTS, ...options };
  const server = await startFakeOpenAIServer({
    respond: realisticJudge,
    latencyMs: settings.latencyMs,
  });
  const percentShare = `${Math.round(settings.share * 100)}%`;
  try {
    const rows: FaultFigures["rows"] = [];
    for (const endpoint of ENDPOINTS) {
      const clean = await measureRun({ server, endpoint, faults: undefined, settings });
      const scenarios: Array<{ name: string; faults: Omit<FakeFaults, "seed">; key: string }> = [
        {
          name: `${percentShare} cut after their headers`,
          faults: { cutAfterHeaders: settings.share },
          key: "cut",
        },
        {
          name: `${percentShare} 200s with an HTML page`,
          faults: { notJson: settings.share },
          key: "not-json",
        },
      ];
      for (const scenario of scenarios) {
        const runs: ScoredRun[] = [];
        for (let seed = 1; seed <= settings.seeds; seed++) {
          runs.push(
            await measureRun({ server, endpoint, faults: { seed, ...scenario.faults }, settings }),
          );
        }
        rows.push(
          ...rowsOf({
            scenario: `${endpoint.name}, ${scenario.name}`,
            broken: scenario.key,
            runs,
            clean,
            settings,
          }),
        );
      }
    }
    return {
      title:
        `Answers cut short or unreadable: ${settings.cases} cases × 3 metrics, ${settings.seeds} ` +
        `seeds, ${settings.latencyMs} ms server latency, evaluate() defaults`,
      rows,
    };
  } finally {
    await server.close();
  }
}

async function measureRun(options: {
  server: FakeOpenAIServer;
  endpoint: (typeof ENDPOINTS)[number];
  faults: FakeFaults | undefined;
  settings: CutResponsesBenchOptions;
}): Promise<ScoredRun> {
  const { server, endpoint } = options;
  return runThreeMetrics({
    server,
    faults: options.faults,
    cases: options.settings.cases,
    model: endpoint.model,
    env: endpoint.env(server.url),
  });
}

function rowsOf(options: {
  scenario: string;
  /** The byStatus key of the broken answers. */
  broken: string;
  runs: ScoredRun[];
  clean: ScoredRun;
  settings: CutResponsesBenchOptions;
}): FaultFigures["rows"] {
  const { scenario, runs, clean, settings } = options;
  const perCase = (run: ScoredRun) => run.stats.requests / settings.cases;
  const wall = runs.map((run) => run.wallMs / 1000);
  return [
    scoredRow({ scenario, runs }),
    {
      figure: `${scenario}: judge requests per case (broken answers per run)`,
      goal: "reported",
      measured:
        `${mean(runs.map(perCase)).toFixed(2)} (fault-free ${perCase(clean).toFixed(2)}; ` +
        `${Math.round(mean(runs.map((run) => run.stats.byStatus[options.broken] ?? 0)))} broken ` +
        `of ${Math.round(mean(runs.map((run) => run.stats.requests)))} requests)`,
      pass: true,
    },
    {
      figure: `${scenario}: wall time per run`,
      goal: "reported",
      measured:
        `${mean(wall).toFixed(1)} s mean, ${Math.max(...wall).toFixed(1)} s max ` +
        `(fault-free ${(clean.wallMs / 1000).toFixed(1)} s)`,
      pass: true,
    },
  ];
}

const mean = (values: number[]) => sum(values) / Math.max(1, values.length);

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      seeds: { type: "string" },
      cases: { type: "string" },
      share: { type: "string" },
      latency: { type: "string" },
    },
  });
  reportAlone(
    await measureCutResponses(
      definedOnly({
        seeds: numberFlag(values.seeds, "seeds"),
        cases: numberFlag(values.cases, "cases"),
        share: numberFlag(values.share, "share"),
        latencyMs: numberFlag(values.latency, "latency"),
      }),
    ),
  );
}
