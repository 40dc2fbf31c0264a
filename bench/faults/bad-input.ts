// Fault bench, issue 9 items 5–7: a seeded corpus of bad input (invalid test cases, odd
// metadata, bad images of every kind, invisible outputs, bad RAG fields, broken dataset files)
// run through evaluate() with every built-in metric (the built-in fake judge answering),
// image() and EvaluationDataset.fromFile. Counts what reaches the user raw or unnamed, good
// cases lost beside bad ones, and bad cases given a score.
//   node --conditions=verdict-source bench/faults/bad-input.ts

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AnswerRelevancyMetric,
  type BaseMetric,
  BiasMetric,
  ContextualPrecisionMetric,
  ContextualRecallMetric,
  ContextualRelevancyMetric,
  EvaluationDataset,
  evaluate,
  FaithfulnessMetric,
  HallucinationMetric,
  image,
  MisuseMetric,
  NonAdviceMetric,
  PIILeakageMetric,
  RoleViolationMetric,
  SummarizationMetric,
  ToxicityMetric,
} from "verdict";
import { MemoryRunStore } from "verdict/stores";
import {
  BAD_CASES,
  BAD_DATASETS,
  BAD_IMAGE_CALLS,
  BAD_RAG_CASES,
  isRawError,
  seededRandom,
} from "../../test/fixtures/bad-inputs.ts";
import { PNG_BYTES } from "../../test/fixtures/images.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const GOOD_PER_RUN = 20;
const BAD_PER_RUN = 30;
const quiet = { display: "none" as const, handleInterrupt: false };
// The built-in fake judge answers every step of every metric: no key, no network.
const model = "fake";

/** The metrics of the general runs: every built-in metric that judges input and output. */
const outputMetrics = (): BaseMetric<object>[] =>
  [
    new ToxicityMetric({ model }),
    new BiasMetric({ model }),
    new AnswerRelevancyMetric({ model }),
    new PIILeakageMetric({ model }),
    new RoleViolationMetric({ model, role: "museum guide" }),
    new NonAdviceMetric({ model, adviceTypes: ["financial"] }),
    new MisuseMetric({ model, domain: "travel" }),
    new FaithfulnessMetric({ model }),
    new SummarizationMetric({ model }),
  ] as unknown as BaseMetric<object>[];

/** The metrics of the RAG runs. */
const ragMetrics = (): BaseMetric<object>[] =>
  [
    new ContextualRelevancyMetric({ model }),
    new ContextualPrecisionMetric({ model }),
    new ContextualRecallMetric({ model }),
    new HallucinationMetric({ model }),
  ] as unknown as BaseMetric<object>[];

interface Tally {
  badInputs: number;
  raw: string[];
  unnamed: string[];
  goodCases: number;
  goodLost: number;
  badCases: number;
  badScored: number;
  stoppedRuns: number;
  stoppedNamingFirst: number;
  /** RAG metric results that must score, and those of them that did not. */
  ragScoredResults: number;
  ragScoresLost: number;
  /** RAG metric results that must error, and those of them given a score. */
  ragErroredResults: number;
  ragErrorsScored: number;
}

function describeThrown(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: typeof error, message: String(error) };
}

async function measureRuns(tally: Tally, folder: string): Promise<void> {
  for (const seed of SEEDS) {
    const random = seededRandom(seed);
    type Entry = {
      value: unknown;
      name: string;
      expect: "good" | "errored" | "scored";
      kind: string;
    };
    const entries: Entry[] = [];
    for (let index = 0; index < GOOD_PER_RUN; index++) {
      const name = `s${seed}-good-${index}`;
      const input = index % 4 === 0 ? ["What is this? ", image(PNG_BYTES)] : `Question ${index}`;
      entries.push({
        value: {
          name,
          input,
          actualOutput: `Answer ${index}.`,
          retrievalContext: [`Source ${index}: the answer is ${index}.`],
        },
        name,
        expect: "good",
        kind: "good",
      });
    }
    for (let index = 0; index < BAD_PER_RUN; index++) {
      const bad = BAD_CASES[Math.floor(random() * BAD_CASES.length)] as (typeof BAD_CASES)[number];
      const name = `s${seed}-bad-${index}`;
      let value: unknown;
      try {
        value = bad.make(folder, name);
      } catch (error) {
        // A bad case that cannot even be made must fail clearly where it is made.
        const { name: errorName, message } = describeThrown(error);
        if (isRawError(message, errorName)) tally.raw.push(`${bad.kind}: ${message}`);
        continue;
      }
      entries.push({ value, name, expect: bad.expect, kind: bad.kind });
    }
    for (let index = entries.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [entries[index], entries[other]] = [entries[other] as Entry, entries[index] as Entry];
    }
    tally.badInputs += entries.filter((entry) => entry.expect !== "good").length;
    const metrics = outputMetrics();
    const testCases = entries.map((entry) => entry.value) as never;
    try {
      const result = await evaluate({
        testCases,
        metrics,
        ignoreErrors: true,
        store: new MemoryRunStore(),
        ...quiet,
      });
      for (const [index, entry] of entries.entries()) {
        const data = result.testResults[index]?.metricsData ?? [];
        const scored = data.length > 0 && data.every((metric) => typeof metric.score === "number");
        if (entry.expect === "errored") {
          tally.badCases++;
          if (data.some((metric) => typeof metric.score === "number")) tally.badScored++;
          for (const metric of data) {
            const message = metric.error ?? "";
            if (isRawError(message)) tally.raw.push(message);
            else if (
              !message.includes(`testCases[${index}]`) &&
              !message.includes(`"${entry.name}"`)
            ) {
              tally.unnamed.push(message);
            }
          }
        } else {
          tally.goodCases++;
          if (!scored) tally.goodLost++;
        }
      }
    } catch (error) {
      const { name, message } = describeThrown(error);
      tally.raw.push(`evaluate() with ignoreErrors threw ${name}: ${message}`);
      tally.goodLost += entries.filter((entry) => entry.expect !== "errored").length;
    }
    // Without ignoreErrors: the run stops with an error naming the first invalid case.
    try {
      await evaluate({ testCases, metrics, store: false, ...quiet });
    } catch (error) {
      tally.stoppedRuns++;
      const { name, message } = describeThrown(error);
      if (isRawError(message, name)) tally.raw.push(message);
      // Blank outputs are found by the metrics, after the up-front check of every case.
      const firstInvalid = entries.findIndex(
        (entry) => entry.expect === "errored" && !BLANK_OUTPUT.test(entry.kind),
      );
      if (
        message.startsWith(`Test case #${firstInvalid} `) &&
        message.includes(`testCases[${firstInvalid}]`)
      ) {
        tally.stoppedNamingFirst++;
      } else tally.unnamed.push(`stopped run: ${message}`);
    }
  }
}

/**
 * Per seed, good RAG cases mixed with every kind of bad RAG field, through the four RAG
 * metrics: a metric that lacks what it judges errors naming the case, the others score it.
 * Counted per metric result.
 */
async function measureRagRuns(tally: Tally, folder: string): Promise<void> {
  for (const seed of SEEDS) {
    const random = seededRandom(seed);
    const entries = BAD_RAG_CASES.map((bad, position) => {
      const name = `s${seed}-bad-rag-${position}`;
      return { value: bad.make(folder, name), name, errored: bad.errored };
    });
    for (let index = 0; index < GOOD_PER_RUN / 4; index++) {
      const name = `s${seed}-good-rag-${index}`;
      entries.push({
        value: {
          name,
          input: index % 2 === 0 ? ["What does this policy say? ", image(PNG_BYTES)] : "Refunds?",
          actualOutput: `Refunds are accepted within 30 days (${index}).`,
          expectedOutput: "Refunds are accepted within 30 days. Shipping is free.",
          context: ["Refunds are accepted within 30 days of delivery."],
          retrievalContext: [
            `Refunds are accepted within 30 days (${index}).`,
            "Shipping is free.",
          ],
        },
        name,
        errored: [],
      });
    }
    for (let index = entries.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [entries[index], entries[other]] = [
        entries[other] as (typeof entries)[number],
        entries[index] as (typeof entries)[number],
      ];
    }
    tally.badInputs += entries.filter((entry) => entry.errored.length > 0).length;
    const result = await evaluate({
      testCases: entries.map((entry) => entry.value) as never,
      metrics: ragMetrics(),
      ignoreErrors: true,
      store: false,
      ...quiet,
    });
    for (const [index, entry] of entries.entries()) {
      for (const data of result.testResults[index]?.metricsData ?? []) {
        const errored = entry.errored === "all" || entry.errored.includes(data.name);
        if (!errored) {
          tally.ragScoredResults++;
          if (typeof data.score !== "number") tally.ragScoresLost++;
          continue;
        }
        tally.ragErroredResults++;
        if (typeof data.score === "number") tally.ragErrorsScored++;
        const message = data.error ?? "";
        if (isRawError(message)) tally.raw.push(message);
        else if (!message.includes(`testCases[${index}]`) && !message.includes(`"${entry.name}"`)) {
          tally.unnamed.push(message);
        }
      }
    }
  }
}

// Kinds of bad case found by a metric (MissingTestCaseParamsError), not before the run.
const BLANK_OUTPUT = /output/;

function measureImageCalls(tally: Tally): void {
  for (let round = 0; round < 4; round++) {
    for (const { kind, call } of BAD_IMAGE_CALLS) {
      tally.badInputs++;
      try {
        call();
        tally.badScored++;
        tally.unnamed.push(`image() accepted ${kind}`);
      } catch (error) {
        const { name, message } = describeThrown(error);
        if (isRawError(message, name)) tally.raw.push(`${kind}: ${message}`);
        else if (!message.startsWith("image(")) tally.unnamed.push(message);
      }
    }
  }
}

async function measureDatasets(tally: Tally, folder: string): Promise<void> {
  for (let round = 0; round < 4; round++) {
    for (const entry of BAD_DATASETS) {
      tally.badInputs++;
      const path = join(folder, `r${round}-${entry.name}`);
      writeFileSync(path, entry.content);
      try {
        await EvaluationDataset.fromFile({ path });
        tally.badScored++;
        tally.unnamed.push(`${entry.kind}: loaded without error`);
      } catch (error) {
        const { name, message } = describeThrown(error);
        const where = entry.line === null ? `${path}: ` : `${path}:${entry.line}`;
        if (isRawError(message, name)) tally.raw.push(`${entry.kind}: ${message}`);
        else if (!message.startsWith(where)) tally.unnamed.push(`${entry.kind}: ${message}`);
      }
    }
  }
}

/** Runs the bad-input corpus and returns the figures of issue 9 for it. */
export async function measureBadInput(): Promise<FaultFigures> {
  const folder = mkdtempSync(join(tmpdir(), "verdict-bad-input-bench-"));
  const tally: Tally = {
    badInputs: 0,
    raw: [],
    unnamed: [],
    goodCases: 0,
    goodLost: 0,
    badCases: 0,
    badScored: 0,
    stoppedRuns: 0,
    stoppedNamingFirst: 0,
    ragScoredResults: 0,
    ragScoresLost: 0,
    ragErroredResults: 0,
    ragErrorsScored: 0,
  };
  try {
    await measureRuns(tally, folder);
    await measureRagRuns(tally, folder);
    measureImageCalls(tally);
    await measureDatasets(tally, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const examples = (list: string[]) =>
    list.length === 0 ? "" : ` (e.g. ${JSON.stringify(list[0]?.slice(0, 80))})`;
  return {
    title: `Bad input: ${tally.badInputs} bad inputs (${SEEDS.length} seeded runs of ${GOOD_PER_RUN} good + ${BAD_PER_RUN} bad cases through ${outputMetrics().length} metrics, ${SEEDS.length} RAG runs of ${GOOD_PER_RUN / 4} good + ${BAD_RAG_CASES.length} bad cases through the ${ragMetrics().length} RAG metrics, ${BAD_IMAGE_CALLS.length * 4} image() calls, ${BAD_DATASETS.length * 4} dataset files)`,
    rows: [
      {
        figure: "bad inputs in the corpus",
        goal: "≥ 200",
        measured: String(tally.badInputs),
        pass: tally.badInputs >= 200,
      },
      {
        figure:
          "raw errors reaching the user (TypeError, CsvError, URIError, Cannot read properties…)",
        goal: "0",
        measured: `${tally.raw.length}${examples(tally.raw)}`,
        pass: tally.raw.length === 0,
      },
      {
        figure: "errors not naming their case, file or call",
        goal: "0",
        measured: `${tally.unnamed.length}${examples(tally.unnamed)}`,
        pass: tally.unnamed.length === 0,
      },
      {
        figure: "good cases lost alongside bad ones",
        goal: "0",
        measured: `${tally.goodLost} of ${tally.goodCases}`,
        pass: tally.goodLost === 0,
      },
      {
        figure: "bad cases (and bad images, datasets) scored with a number or accepted",
        goal: "0",
        measured: `${tally.badScored} of ${tally.badCases} cases + ${BAD_IMAGE_CALLS.length * 4 + BAD_DATASETS.length * 4} others`,
        pass: tally.badScored === 0,
      },
      {
        figure:
          "RAG metric results: scored where the metric has what it judges / errored naming the case where not",
        goal: "100% / 100%",
        measured: `${tally.ragScoredResults - tally.ragScoresLost}/${tally.ragScoredResults} / ${tally.ragErroredResults - tally.ragErrorsScored}/${tally.ragErroredResults}`,
        pass: tally.ragScoresLost === 0 && tally.ragErrorsScored === 0,
      },
      {
        figure: "runs without ignoreErrors stopped naming their first invalid case",
        goal: `${SEEDS.length} of ${SEEDS.length}`,
        measured: `${tally.stoppedNamingFirst} of ${tally.stoppedRuns}`,
        pass: tally.stoppedNamingFirst === SEEDS.length,
      },
    ],
  };
}

if (isMainModule(import.meta.url)) reportAlone(await measureBadInput());
