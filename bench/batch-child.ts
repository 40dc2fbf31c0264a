// One evaluate({ batch }) run of the batch benchmark in its own process, so that it can be
// killed while it waits and resumed by another. Env: CASES, RESUME ("1"), POLL_MS, plus
// OPENAI_BASE_URL / OPENAI_API_KEY / VERDICT_HOME. Prints one JSON line of figures.
import { AnswerRelevancyMetric, BiasMetric, evaluate, ToxicityMetric } from "verdict";
import { generateCases } from "./bench-cases.ts";

const pollMs = Number(process.env.POLL_MS ?? "250");
const result = await evaluate({
  testCases: generateCases(Number(process.env.CASES ?? "2000")),
  metrics: [
    new ToxicityMetric({ model: "gpt-4.1" }),
    new BiasMetric({ model: "gpt-4.1" }),
    new AnswerRelevancyMetric({ model: "gpt-4.1" }),
  ],
  identifier: "batch-bench",
  resume: process.env.RESUME === "1",
  batch: { pollIntervalMs: pollMs, maxPollIntervalMs: pollMs * 4 },
  display: "none",
});
const { summary } = result;
console.log(
  JSON.stringify({
    status: summary.status,
    scored: summary.testCases.total - summary.testCases.unscored,
    judgeCalls: summary.judgeCalls,
    cacheHits: summary.cacheHits,
    costUsd: summary.costUsd,
  }),
);
