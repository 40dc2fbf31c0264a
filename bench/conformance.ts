// Conformance with deepeval: runs the documented classifications of verdict's metrics
// (test/fixtures/conformance/*.json, see docs/metric-conformance.md) through the metrics with
// a real judge and reports agreement per metric. Not part of `npm test`.
//   npm run conformance -- --model openai:gpt-4.1
//   npm run conformance -- --model fake            # plumbing only: the fake judge reads nothing
//   npm run conformance -- --model openai:gpt-4.1 --min-agreement 0.9 --record run.json
//   npm run conformance -- --replay run.json --min-agreement 0.9   # offline, no judge
//   node --conditions=verdict-source bench/conformance.ts --help
// Exit codes: 0 done, 1 agreement below --min-agreement, 2 usage or judge configuration error
// (a replay missing an answer included), 3 some example left unscored.
import { existsSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { parseArgs } from "node:util";
import {
  CONFORMANCE_DIR,
  loadConformanceSet,
  METRIC_CLASSES,
} from "./conformance/conformance-set.ts";
import { formatConformanceReport, shortfalls } from "./conformance/format-conformance-report.ts";
import {
  createRecording,
  type JudgeWrapper,
  readRecording,
  recordingJudge,
  replayJudge,
  type StaleAnswer,
  writeRecording,
} from "./conformance/recorded-judge.ts";
import { runConformance } from "./conformance/run-conformance.ts";

const METRIC_NAMES = Object.keys(METRIC_CLASSES)
  .map((name) => (name.includes(" ") ? `"${name}"` : name))
  .join(", ");
const USAGE = `Usage: npm run conformance -- --model MODEL [options]
       npm run conformance -- --replay FILE [options]
  --model MODEL        the judge: any model verdict accepts ("openai:gpt-4.1", "anthropic:…",
                       "ollama:…", …), with its key in the environment or .env; "fake" runs the
                       built-in fake judge, for plumbing only (its figures mean nothing)
  --min-agreement X    exit 1 when, for any metric, the share of examples agreeing on pass/fail
                       or on the score (in range, with the items to flag) is below X (0–1)
  --record FILE        write the judge's answers to FILE (request key → answer, secrets masked)
  --replay FILE        answer from a recording instead of a judge: no network, no key
  --metric NAME        only this metric's examples (${METRIC_NAMES})
  --concurrency N      examples judged at once (default 4)
  --json FILE          also write every example's outcome as JSON
  --help               this text`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values: {
  model?: string | undefined;
  "min-agreement"?: string | undefined;
  record?: string | undefined;
  replay?: string | undefined;
  metric?: string | undefined;
  concurrency?: string | undefined;
  json?: string | undefined;
  help?: boolean | undefined;
};
try {
  ({ values } = parseArgs({
    options: {
      model: { type: "string" },
      "min-agreement": { type: "string" },
      record: { type: "string" },
      replay: { type: "string" },
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
const replayFile = values.replay?.trim();
if (!model && !replayFile) {
  fail('--model is required: pass a judge such as "openai:gpt-4.1", or "fake" (or --replay FILE).');
}
if (replayFile !== undefined && values.record !== undefined) {
  fail("--record and --replay go apart: record a run with a judge, then replay the file.");
}
if (replayFile !== undefined && !existsSync(replayFile)) {
  fail(`--replay ${replayFile}: no such file; pass a file written by --record.`);
}
const minAgreementText = values["min-agreement"];
const minAgreement = minAgreementText === undefined ? null : Number(minAgreementText);
if (minAgreement !== null && !(minAgreement >= 0 && minAgreement <= 1)) {
  fail(`--min-agreement must be a share from 0 to 1, such as 0.9; got "${minAgreementText}".`);
}
const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  fail(`--concurrency must be a whole number of at least 1; got "${values.concurrency}".`);
}

let examples = loadConformanceSet();
if (values.metric !== undefined) {
  const wanted = values.metric.trim().toLowerCase();
  examples = examples.filter((example) => example.metric.toLowerCase() === wanted);
  if (examples.length === 0) {
    fail(`--metric "${values.metric}" has no examples: use one of ${METRIC_NAMES}.`);
  }
}

try {
  const recording = replayFile === undefined ? null : readRecording(replayFile);
  const judgeName = recording?.judge ?? (model as string);
  process.stdout.write(
    `verdict conformance · judge ${judgeName}${replayFile === undefined ? "" : ` (replayed from ${replayFile})`} · ${examples.length} examples from ${relative(process.cwd(), CONFORMANCE_DIR) || "."}\n\n`,
  );
  const stale: StaleAnswer[] = [];
  const recorded = values.record === undefined ? null : createRecording(model as string);
  let wrapJudge: JudgeWrapper | undefined;
  if (recording !== null && replayFile !== undefined) {
    wrapJudge = (_judge, example) => replayJudge(recording, example, stale, replayFile);
  } else if (recorded !== null) {
    wrapJudge = (judge, example) => recordingJudge(judge, example, recorded);
  }
  const report = await runConformance({
    // A replay never reaches a judge: the name only labels the report.
    model:
      recording === null ? (model as string) : { name: recording.judge, generate: unreachable },
    examples,
    concurrency,
    ...(wrapJudge === undefined ? {} : { wrapJudge }),
  });
  if (recorded !== null && values.record !== undefined) {
    recorded.judge = report.judge;
    writeRecording(values.record, recorded);
  }
  process.stdout.write(
    `${formatConformanceReport(report, { stale, ...(replayFile === undefined ? {} : { replayFile }) })}\n`,
  );
  if (values.record !== undefined)
    process.stdout.write(`Recorded the judge's answers in ${values.record}.\n`);
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.json}.\n`);
  }
  const below = minAgreement === null ? [] : shortfalls(report, minAgreement);
  if (below.length > 0) {
    process.stdout.write(
      `\nBelow --min-agreement ${minAgreement}: ${below.map((row) => `${row.metric} ${row.dimension} ${(row.agreement * 100).toFixed(0)}%`).join(", ")}.\n`,
    );
    process.exitCode = 1;
  } else if (report.outcomes.some((outcome) => outcome.agrees === null)) {
    process.exitCode = 3;
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 2;
}

async function unreachable(): Promise<never> {
  throw new Error("A replay answers from its recording; no judge is called.");
}
