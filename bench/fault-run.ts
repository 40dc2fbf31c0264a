// One run of the fault scenarios that score cases through the fake server (rate limits, cut
// answers): evaluate() of the three metrics over the generated cases with the defaults, a fresh
// VERDICT_HOME, and the figures every such scenario reports.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AnswerRelevancyMetric, BiasMetric, evaluate, ToxicityMetric } from "verdict";
import type { FakeFaults, FakeOpenAIServer, FakeOpenAIServerStats } from "verdict/testing";
import { generateCases } from "./bench-cases.ts";
import type { FaultFigures } from "./fault-figures.ts";

/** What one run scored, how long it took, and what the server counted. */
export interface ScoredRun {
  scored: number;
  results: number;
  wallMs: number;
  /** The first error of a metric left unscored, if any. */
  firstError: string | null;
  stats: FakeOpenAIServerStats;
}

/**
 * Runs `cases` generated cases × Toxicity, Bias and Answer Relevancy with `model` through
 * evaluate()'s defaults (errors kept), against `server` under `faults`.
 */
export async function runThreeMetrics(options: {
  server: FakeOpenAIServer;
  faults: FakeFaults | undefined;
  cases: number;
  /** @default "gpt-4.1" */
  model?: string;
  /** Where the model finds the server. @default { OPENAI_BASE_URL: server.url } */
  env?: NodeJS.ProcessEnv;
}): Promise<ScoredRun> {
  const { server, cases } = options;
  const model = options.model ?? "gpt-4.1";
  server.setFaults(options.faults);
  server.reset();
  const home = mkdtempSync(join(tmpdir(), "verdict-bench-faults-"));
  const started = performance.now();
  let scored = 0;
  let firstError: string | null = null;
  try {
    const result = await evaluate({
      testCases: generateCases(cases),
      metrics: [
        new ToxicityMetric({ model }),
        new BiasMetric({ model }),
        new AnswerRelevancyMetric({ model }),
      ],
      ignoreErrors: true,
      display: "none",
      showProgress: false,
      handleInterrupt: false,
      env: {
        ...(options.env ?? { OPENAI_BASE_URL: server.url }),
        OPENAI_API_KEY: "sk-bench",
        VERDICT_HOME: home,
      },
    });
    const metrics = result.testResults.flatMap((testResult) => testResult.metricsData);
    scored = metrics.filter((metric) => metric.score !== null).length;
    firstError = metrics.find((metric) => metric.score === null)?.error ?? null;
  } catch (error) {
    firstError = `evaluate() threw: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const wallMs = performance.now() - started;
  const stats = server.stats();
  server.setFaults(undefined);
  return { scored, results: cases * 3, wallMs, firstError, stats };
}

/** The row every scoring scenario leads with: the share of metric results scored, goal 100%. */
export function scoredRow(options: {
  scenario: string;
  runs: ScoredRun[];
}): FaultFigures["rows"][0] {
  const { scenario, runs } = options;
  const scored = sum(runs.map((run) => run.scored));
  const results = sum(runs.map((run) => run.results));
  const perSeed = runs.map((run) => percent(run.scored / run.results)).join(", ");
  const firstError = runs.find((run) => run.firstError !== null)?.firstError;
  return {
    figure: `${scenario}: metric results scored`,
    goal: "100%",
    measured:
      `${percent(scored / results)} (${scored}/${results}; per seed ${perSeed})` +
      (firstError ? `; first loss: ${firstError.slice(0, 240)}` : ""),
    pass: scored === results,
  };
}

/** The sum of `values`. */
export const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
/** A share as a percentage with one decimal, e.g. `"99.5%"`. */
export const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
