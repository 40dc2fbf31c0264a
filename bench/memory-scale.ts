/**
 * Peak memory of evaluate() over many cases with a judge that costs nothing to call: a
 * JudgeModel in the same process that answers from the JSON schema it is asked for (no HTTP,
 * no provider SDK), so what grows is verdict's own. Prints one markdown row.
 *
 *   node --conditions=verdict-source --expose-gc bench/memory-scale.ts --cases 10000 [--store sqlite|none] [--summary-only] [--stream] [--judge-text text|hash]
 *
 * Run each configuration in a fresh process: peak RSS is the process's high-water mark.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AnswerRelevancyMetric, BiasMetric, evaluate, ToxicityMetric } from "verdict";
import { generateCases, streamCases } from "./bench-cases.ts";
import { startMemorySampler } from "./measure.ts";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "10000" },
    store: { type: "string", default: "none" },
    "summary-only": { type: "boolean", default: false },
    stream: { type: "boolean", default: false },
    concurrency: { type: "string", default: "20" },
    "judge-text": { type: "string", default: "text" },
  },
});
const count = Number(values.cases);

/** Answers each step from its schema's first property: two items, two verdicts, a reason. */
const judge = {
  name: "in-process",
  async generate(request: { jsonSchema: object }) {
    const kind = Object.keys((request.jsonSchema as { properties?: object }).properties ?? {})[0];
    await new Promise((resolve) => setImmediate(resolve));
    if (kind === "verdicts") {
      return JSON.stringify({
        verdicts: [
          { verdict: "no", reason: "It is a plain statement." },
          { verdict: "yes", reason: "It answers the question." },
        ],
      });
    }
    if (kind === "reason") return JSON.stringify({ reason: "The score follows the verdicts." });
    return JSON.stringify({ [kind ?? "items"]: ["The first thing it says.", "The second one."] });
  },
};

// --stream: the cases come from a generator, made as they are taken (none held by the caller).
const testCases = values.stream ? streamCases(count) : generateCases(count);
const home = mkdtempSync(join(tmpdir(), "verdict-memory-"));
const rssBefore = process.memoryUsage().rss / 2 ** 20;
const sampler = startMemorySampler({ intervalMs: 50 });
const started = performance.now();
const result = await evaluate({
  testCases,
  metrics: [
    new ToxicityMetric({ model: judge }),
    new BiasMetric({ model: judge }),
    new AnswerRelevancyMetric({ model: judge }),
  ],
  ...(values.store === "sqlite" ? {} : { store: false as const }),
  env: { VERDICT_HOME: home },
  ...(values["summary-only"] ? { keepResults: false } : {}),
  maxConcurrent: Number(values.concurrency),
  keepJudgeText: values["judge-text"] === "hash" ? "hash" : "text",
  display: "none",
  showProgress: false,
  handleInterrupt: false,
  ignoreErrors: true,
});
const wallMs = performance.now() - started;
const memory = sampler.stop();
(globalThis as { gc?: () => void }).gc?.();
const heapAfterGc = process.memoryUsage().heapUsed / 2 ** 20;
const maxRss = process.resourceUsage().maxRSS / 1024;
rmSync(home, { recursive: true, force: true });
console.log(
  `| ${count} | ${values.stream ? "stream" : "array"} | ${values.store} (judge text: ${values["judge-text"]}) | ${values["summary-only"] ? "summary" : "all"} | ${result.summary.status} | ${rssBefore.toFixed(0)} | ${maxRss.toFixed(0)} | ${memory.heapUsedMb.toFixed(0)} | ${heapAfterGc.toFixed(0)} | ${((wallMs / count) * 1000).toFixed(0)} |`,
);
