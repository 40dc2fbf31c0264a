// Fault figures for issue 19, item 5: does the judge cache keep the answers of one server from
// another server with the same model name? Two fake OpenAI-compatible servers; a cached run of
// N cases × Toxicity, Bias and Answer Relevancy against the first, then the same run against
// the second (same VERDICT_HOME, so the same cache), the server named by OPENAI_BASE_URL,
// VERDICT_BASE_URL, OLLAMA_BASE_URL or a provider instance's baseURL; then the first again, to
// show the cache still serves its own server.
//   node --conditions=verdict-source bench/faults/cache-endpoints.ts [--cases 100]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createOpenAI } from "@ai-sdk/openai";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  type EvaluationResult,
  evaluate,
  type ModelSpec,
  ToxicityMetric,
} from "verdict";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "verdict/testing";
import { generateCases } from "../bench-cases.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";
import { realisticJudge } from "../realistic-judge.ts";

const DEFAULT_CASES = 100;

/** How a judge is pointed at a server: a model and the environment it is resolved in. */
type Placement = (server: FakeOpenAIServer) => { model: ModelSpec; env?: NodeJS.ProcessEnv };

const PLACEMENTS: Array<{ how: string; at: Placement }> = [
  {
    how: "OPENAI_BASE_URL",
    at: (server) => ({ model: "gpt-4.1", env: { OPENAI_BASE_URL: server.url } }),
  },
  {
    how: "VERDICT_BASE_URL",
    at: (server) => ({ model: "openai-compatible:gpt-4.1", env: { VERDICT_BASE_URL: server.url } }),
  },
  {
    how: "OLLAMA_BASE_URL",
    at: (server) => ({ model: "ollama:llama3.1", env: { OLLAMA_BASE_URL: server.url } }),
  },
  {
    how: "createOpenAI({ baseURL })",
    at: (server) => ({
      model: createOpenAI({ baseURL: server.url, apiKey: "sk-bench" })("gpt-4.1"),
    }),
  },
];

/**
 * For each way of naming the server: answers the second server's run reused from the first
 * server's (goal 0), the calls it made, and the answers a repeat on the first server reused.
 */
export async function measureCacheEndpoints(
  options: { cases?: number } = {},
): Promise<FaultFigures> {
  const cases = options.cases ?? DEFAULT_CASES;
  const servers = await Promise.all([
    startFakeOpenAIServer({ respond: realisticJudge }),
    startFakeOpenAIServer({ respond: realisticJudge }),
  ]);
  const [first, second] = servers;
  const rows: FaultFigures["rows"] = [];
  try {
    for (const placement of PLACEMENTS) {
      const home = mkdtempSync(join(tmpdir(), "verdict-bench-cache-endpoints-"));
      try {
        first.reset();
        second.reset();
        const run = (server: FakeOpenAIServer) =>
          runCached({ ...placement.at(server), home, cases });
        const atFirst = await run(first);
        const atSecond = await run(second);
        const again = await run(first);
        // A run pays once for each distinct request (identical ones of different cases are
        // shared in flight or hit the cache within the run, as timing has it): what the first
        // server's answers saved the second run is the calls it did not make.
        const reused = atFirst.summary.judgeCalls - atSecond.summary.judgeCalls;
        rows.push({
          figure: `same model name, server named by ${placement.how}: answers reused from the other server`,
          goal: "0",
          measured:
            `${reused} (the other server was asked ${second.stats().requests} times, the ` +
            `first ${atFirst.summary.judgeCalls}; cache hits within each run: ` +
            `${atFirst.summary.cacheHits} and ${atSecond.summary.cacheHits})`,
          pass: reused === 0 && second.stats().requests === atFirst.summary.judgeCalls,
        });
        rows.push({
          figure: `same model name, server named by ${placement.how}: the first server's answers reused by a repeat on it`,
          goal: `all ${atFirst.summary.judgeCalls}, 0 calls`,
          measured: `${atFirst.summary.judgeCalls - again.summary.judgeCalls} reused, ${again.summary.judgeCalls} calls`,
          pass: again.summary.judgeCalls === 0,
        });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
  return {
    title: `The judge cache across endpoints: ${cases} cases × 3 metrics, cache on, one VERDICT_HOME`,
    rows,
  };
}

function runCached(options: {
  model: ModelSpec;
  env?: NodeJS.ProcessEnv;
  home: string;
  cases: number;
}): Promise<EvaluationResult> {
  return evaluate({
    testCases: generateCases(options.cases),
    metrics: [
      new ToxicityMetric({ model: options.model }),
      new BiasMetric({ model: options.model }),
      new AnswerRelevancyMetric({ model: options.model }),
    ],
    ignoreErrors: true,
    display: "none",
    showProgress: false,
    handleInterrupt: false,
    env: { OPENAI_API_KEY: "sk-bench", VERDICT_HOME: options.home, ...options.env },
  });
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({ options: { cases: { type: "string" } } });
  const cases = values.cases === undefined ? undefined : Number(values.cases);
  if (cases !== undefined && !(Number.isInteger(cases) && cases > 0)) {
    throw new Error(`--cases must be a whole number of 1 or more; got "${values.cases}".`);
  }
  reportAlone(await measureCacheEndpoints(cases === undefined ? {} : { cases }));
}
