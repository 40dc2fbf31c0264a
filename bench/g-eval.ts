// G-Eval's judge calls and overhead, on the real wire path: GEval → AI SDK OpenAI provider →
// HTTP → the fake server answering with token log-probabilities. A 100-case run of one GEval
// configuration, then the same run again (the cache), then with other criteria.
//   node --conditions=verdict-source bench/g-eval.ts [--cases 100] [--latency 20]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createOpenAI } from "@ai-sdk/openai";
import { createJudge, evaluate, GEval } from "verdict";
import { SqliteRunStore } from "verdict/stores";
import { type FakeOpenAIRequest, reply, startFakeOpenAIServer } from "verdict/testing";
import { type FaultFigures, renderFaultFigures } from "./fault-figures.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "100" },
    latency: { type: "string", default: "20" },
  },
});
const count = Number(values.cases);
const latencyMs = Number(values.latency);

const kindOf = (request: FakeOpenAIRequest) =>
  Object.keys((request.jsonSchema?.properties ?? {}) as Record<string, unknown>)[0] ?? "";

const server = await startFakeOpenAIServer({
  latencyMs,
  respond: (request) => {
    if (kindOf(request) === "steps") {
      // Steps that follow the criteria, as a judge's would: other criteria, other steps.
      const receipt = request.prompt.includes("receipt") ? ["Check the receipt is asked for."] : [];
      return reply.json({
        steps: ["Find the purchase date.", "Apply the 30-day rule.", ...receipt],
      });
    }
    const score = 5 + (request.prompt.length % 5);
    return reply.json(
      { reason: "Applies the rule.", score },
      {
        logprobs: {
          [String(score)]: [
            { token: String(score), logprob: Math.log(0.7) },
            { token: String(score + 1), logprob: Math.log(0.3) },
          ],
        },
      },
    );
  },
});
const folder = mkdtempSync(join(tmpdir(), "verdict-g-eval-bench-"));
const store = new SqliteRunStore({ path: join(folder, "verdict.db") });
const judge = createJudge({
  model: createOpenAI({ baseURL: server.url, apiKey: "sk-bench" })("gpt-4.1"),
});
const testCases = Array.from({ length: count }, (_, index) => ({
  name: `case-${index}`,
  input: `Order ${index}: I bought shoes ${20 + (index % 30)} days ago. Can I get my money back?`,
  actualOutput: `Order ${index}: ${index % 2 ? "Yes, a full refund." : "We can offer store credit."}`,
}));

async function run(criteria: string) {
  server.reset();
  const metric = new GEval({ name: "Refund policy", criteria, model: judge, threshold: 0.6 });
  const started = performance.now();
  const result = await evaluate({
    testCases,
    metrics: [metric],
    store,
    display: "none",
    handleInterrupt: false,
  });
  const wallMs = performance.now() - started;
  const steps = server.requests.filter((request) => kindOf(request) === "steps").length;
  const scoring = server.requests.filter((request) => kindOf(request) === "reason").length;
  const weighted = result.testResults.filter((testResult) => {
    const judged = (testResult.metricsData[0]?.steps ?? []).find(
      (step) => step.label === "Judge score",
    );
    return (
      typeof (judged?.value as { weightedScore?: unknown } | undefined)?.weightedScore === "number"
    );
  }).length;
  return {
    steps,
    scoring,
    weighted,
    wallMs,
    scored: result.testResults.filter((t) => t.metricsData[0]?.score !== null).length,
  };
}

const criteria =
  "Does the answer follow the refund policy: a full refund within 30 days, store credit after?";
const first = await run(criteria);
const again = await run(criteria);
const changed = await run(`${criteria} Mention the receipt.`);
await store.close();
await server.close();
rmSync(folder, { recursive: true, force: true });

const figures: FaultFigures = {
  title: `G-Eval: ${count} cases over HTTP (fake server, ${latencyMs} ms latency, Responses API)`,
  rows: [
    {
      figure: "evaluation-steps calls",
      goal: "1",
      measured: String(first.steps),
      pass: first.steps === 1,
    },
    {
      figure: "scoring calls",
      goal: String(count),
      measured: String(first.scoring),
      pass: first.scoring === count,
    },
    {
      figure: "cases scored, weighted by log-probabilities",
      goal: `${count} / ${count}`,
      measured: `${first.scored} / ${first.weighted}`,
      pass: first.scored === count && first.weighted === count,
    },
    {
      figure: "wall time per case",
      goal: "reported",
      measured: `${(first.wallMs / count).toFixed(2)} ms`,
      pass: true,
    },
    {
      figure: "same run again: judge calls (cache)",
      goal: "0",
      measured: String(again.steps + again.scoring),
      pass: again.steps + again.scoring === 0,
    },
    {
      figure: "other criteria: steps + scoring calls",
      goal: `1 + ${count}`,
      measured: `${changed.steps} + ${changed.scoring}`,
      pass: changed.steps === 1 && changed.scoring === count,
    },
  ],
};
process.stdout.write(`${renderFaultFigures(figures)}\n`);
if (figures.rows.some((row) => !row.pass)) process.exitCode = 1;
