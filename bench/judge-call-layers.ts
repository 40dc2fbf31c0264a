// Where the CPU of one judge call goes, layer by layer, against the fake server at 0 ms
// (in a child process): node:http with keep-alive, a bare fetch() of the same request, the AI SDK's generateText(),
// verdict's judge (judge.generate()), and a whole evaluate() divided by its judge calls.
//   node --conditions=verdict-source bench/judge-call-layers.ts [--calls 2000] [--concurrency 20]
//        [--cases 300] [--repeats 3]   (each figure is the median of the repeats)
// Writes bench/results/layers.json and layers.md. See bench/README.md.
import { writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, Output } from "ai";
import {
  AnswerRelevancyMetric,
  BiasMetric,
  evaluate,
  ToxicityMetric,
  ToxicityTemplate,
} from "verdict";
import { z } from "zod";
// An internal layer, measured on its own: the sources, not the public entry.
import { resolveJudge } from "../src/judge/resolve-model.ts";
import { generateCases } from "./bench-cases.ts";
import { startFakeServerChild } from "./fake-server-child.ts";
import { cpuSince } from "./measure.ts";

if (!import.meta.resolve("verdict").endsWith("/src/index.ts")) {
  throw new Error(
    "Run with the sources: node --conditions=verdict-source bench/judge-call-layers.ts",
  );
}

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "20" },
    cases: { type: "string", default: "300" },
    warmup: { type: "string", default: "200" },
    repeats: { type: "string", default: "3" },
    out: { type: "string", default: fileURLToPath(new URL("./results", import.meta.url)) },
  },
});
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);
const warmup = Number(values.warmup);
const repeats = Number(values.repeats);
const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

// One distinct prompt per call (the opinion step of a generated case), so nothing is shared.
const answers = generateCases(calls + warmup).map((testCase) => String(testCase.actualOutput));
const prompts = answers.map((actualOutput, index) =>
  ToxicityTemplate.generateOpinions({
    actualOutput: `${actualOutput} #${index}`,
    multimodal: false,
  }),
);
const schema = z.object({ opinions: z.array(z.string()) });
const strictSchema = {
  type: "object",
  properties: { opinions: { type: "array", items: { type: "string" } } },
  required: ["opinions"],
  additionalProperties: false,
} as const;

const server = await startFakeServerChild({ latencyMs: 0, judge: "realistic" });
const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench" };
const openai = createOpenAI({ baseURL: server.url, apiKey: env.OPENAI_API_KEY });
const judge = await resolveJudge({ model: "gpt-4.1", env });

const requestBody = (prompt: string) =>
  JSON.stringify({
    model: "gpt-4.1",
    input: [{ role: "user", content: [{ type: "input_text", text: prompt }] }],
    text: { format: { type: "json_schema", name: "answer", schema: strictSchema, strict: true } },
  });
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const postWithHttp = (prompt: string) =>
  new Promise<unknown>((resolve, reject) => {
    const body = requestBody(prompt);
    const outgoing = httpRequest(
      `${server.url}/responses`,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: "Bearer sk-bench",
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
        incoming.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });

type Layer = { name: string; what: string; call: (prompt: string) => Promise<unknown> };
const layers: Layer[] = [
  {
    name: "node:http",
    what: "http.request() with a keep-alive agent, the same body, JSON.parse of the answer",
    call: postWithHttp,
  },
  {
    name: "fetch",
    what: "fetch() POST /v1/responses with the same body, then response.json()",
    call: async (prompt) => {
      const response = await fetch(`${server.url}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
        body: requestBody(prompt),
      });
      return response.json();
    },
  },
  {
    name: "AI SDK generateText",
    what: "generateText() with @ai-sdk/openai (Responses API) and Output.object(jsonSchema)",
    call: (prompt) =>
      generateText({
        model: openai("gpt-4.1"),
        prompt,
        output: Output.object({ schema: jsonSchema(strictSchema) }),
        maxRetries: 0,
      }),
  },
  {
    name: "verdict judge.generate",
    what: 'resolveJudge({ model: "gpt-4.1" }).generate(): verdict\'s AI SDK judge',
    call: (prompt) => judge.generate({ prompt, schema, jsonSchema: strictSchema }),
  },
];

async function pool(items: string[], call: (prompt: string) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await call(items[next++] as string);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

type Row = {
  layer: string;
  what: string;
  calls: number;
  wallMsPerCall: number;
  cpuUsPerCall: number;
};
type Sample = { calls: number; wallMs: number; cpuMs: number };

async function measureLayer(layer: Layer): Promise<Sample> {
  await pool(prompts.slice(0, warmup), layer.call);
  await server.reset();
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  await pool(prompts.slice(warmup), layer.call);
  const wallMs = performance.now() - wallStart;
  return { calls: (await server.stats()).requests, wallMs, cpuMs: cpuSince(cpuStart).totalMs };
}

// The whole stack: evaluate() over cases, per judge call it made.
const cases = generateCases(Number(values.cases) + 20);
const metrics = () => [
  new ToxicityMetric({ model: "gpt-4.1" }),
  new BiasMetric({ model: "gpt-4.1" }),
  new AnswerRelevancyMetric({ model: "gpt-4.1" }),
];
const quiet = {
  display: "none",
  showProgress: false,
  handleInterrupt: false,
  store: false,
} as const;
const evaluateLayer = {
  name: "verdict evaluate()",
  what: `evaluate() of ${cases.length - 20} cases × Toxicity, Bias, Answer Relevancy, per judge call`,
};
async function measureEvaluate(): Promise<Sample> {
  await evaluate({ testCases: cases.slice(0, 20), metrics: metrics(), env, ...quiet });
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const result = await evaluate({
    testCases: cases.slice(20),
    metrics: metrics(),
    maxConcurrent: concurrency,
    env,
    ...quiet,
  });
  const wallMs = performance.now() - wallStart;
  return { calls: result.summary.judgeCalls, wallMs, cpuMs: cpuSince(cpuStart).totalMs };
}

const samples = new Map<string, Sample[]>();
for (let repeat = 0; repeat < repeats; repeat++) {
  for (const layer of layers) {
    const sample = await measureLayer(layer);
    samples.set(layer.name, [...(samples.get(layer.name) ?? []), sample]);
  }
  const sample = await measureEvaluate();
  samples.set(evaluateLayer.name, [...(samples.get(evaluateLayer.name) ?? []), sample]);
  console.log(
    `repeat ${repeat + 1}: ${[...samples.entries()]
      .map(([name, list]) => {
        const last = list.at(-1) as Sample;
        return `${name} ${((1000 * last.cpuMs) / last.calls).toFixed(0)} µs`;
      })
      .join(", ")}`,
  );
}
const rows: Row[] = [...layers, evaluateLayer].map((layer) => {
  const list = samples.get(layer.name) ?? [];
  return {
    layer: layer.name,
    what: layer.what,
    calls: list[0]?.calls ?? 0,
    wallMsPerCall: median(list.map((sample) => sample.wallMs / sample.calls)),
    cpuUsPerCall: median(list.map((sample) => (1000 * sample.cpuMs) / sample.calls)),
  };
});
agent.destroy();
await server.stop();

const lines = [
  "| layer | what | calls | wall ms/call | CPU µs/call | added by this layer, µs |",
  "|---|---|---|---|---|---|",
  ...rows.map(
    (row, index) =>
      `| ${row.layer} | ${row.what} | ${row.calls} | ${row.wallMsPerCall.toFixed(3)} | ${row.cpuUsPerCall.toFixed(0)} | ${
        index === 0 ? "–" : (row.cpuUsPerCall - (rows[index - 1] as Row).cpuUsPerCall).toFixed(0)
      } |`,
  ),
];
const heading = `# CPU per judge call, layer by layer\n\n${new Date().toISOString()} · Node ${process.version} · fake server at 0 ms in a child process · ${concurrency} at a time · after ${warmup} warm-up calls per layer (20 cases for evaluate()); median of ${repeats} repeats.\n`;
console.log(`\n${lines.join("\n")}`);
writeFileSync(join(values.out, "layers.md"), `${heading}\n${lines.join("\n")}\n`);
writeFileSync(
  join(values.out, "layers.json"),
  `${JSON.stringify({ node: process.version, rows }, null, 2)}\n`,
);
