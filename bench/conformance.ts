// Conformance with deepeval: runs the documented classifications of the built-in metrics
// (test/fixtures/conformance/*.json, see docs/metric-conformance.md) through the
// metrics with a real judge and reports agreement per metric. Not part of `npm test`.
//   npm run conformance -- --model openai:gpt-4.1
//   npm run conformance -- --model fake            # plumbing only: the fake judge reads nothing
//   node --conditions=verdict-source bench/conformance.ts --help
// Exit codes: 0 done, 2 usage or judge configuration error, 3 some example left unscored.
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { parseArgs } from "node:util";
import {
  CONFORMANCE_DIR,
  loadConformanceSet,
  METRIC_CLASSES,
} from "./conformance/conformance-set.ts";
import { formatConformanceReport, runConformance } from "./conformance/run-conformance.ts";

const USAGE = `Usage: npm run conformance -- --model MODEL [options]
  --model MODEL       the judge: any model verdict accepts ("openai:gpt-4.1", "anthropic:…",
                      "ollama:…", …), with its key in the environment or .env; "fake" runs the
                      built-in fake judge, for plumbing only (its figures mean nothing)
  --metric NAME       only this metric's examples (Toxicity, Bias, "Answer Relevancy",
                      "Contextual Relevancy", "Contextual Precision", "Contextual Recall",
                      Hallucination)
  --concurrency N     examples judged at once (default 4)
  --json FILE         also write every example's outcome as JSON
  --help              this text`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values: {
  model?: string | undefined;
  metric?: string | undefined;
  concurrency?: string | undefined;
  json?: string | undefined;
  help?: boolean | undefined;
};
try {
  ({ values } = parseArgs({
    options: {
      model: { type: "string" },
      metric: { type: "string" },
      concurrency: { type: "string" },
      json: { type: "string" },
      help: { type: "boolean" },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const model = values.model?.trim();
if (!model) fail('--model is required: pass a judge such as "openai:gpt-4.1", or "fake".');
const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  fail(`--concurrency must be a whole number of at least 1; got "${values.concurrency}".`);
}

let examples = loadConformanceSet();
if (values.metric !== undefined) {
  const wanted = values.metric.trim().toLowerCase();
  examples = examples.filter((example) => example.metric.toLowerCase() === wanted);
  if (examples.length === 0) {
    const names = Object.keys(METRIC_CLASSES).map((name) =>
      name.includes(" ") ? `"${name}"` : name,
    );
    fail(`--metric "${values.metric}" has no examples: use one of ${names.join(", ")}.`);
  }
}

process.stdout.write(
  `verdict conformance · judge ${model} · ${examples.length} examples from ${relative(process.cwd(), CONFORMANCE_DIR) || "."}\n\n`,
);
try {
  const report = await runConformance({ model, examples, concurrency });
  process.stdout.write(`${formatConformanceReport(report)}\n`);
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.json}.\n`);
  }
  if (report.outcomes.some((outcome) => outcome.agrees === null)) process.exitCode = 3;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 2;
}
