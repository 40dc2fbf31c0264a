// Fault bench, issue 9 items 5–7: a seeded corpus of bad input (invalid test cases, odd
// metadata, bad images of every kind, invisible outputs, broken dataset files) run through
// evaluate(), image() and EvaluationDataset.fromFile. Counts what reaches the user raw or
// unnamed, good cases lost beside bad ones, and bad cases given a score.
//   node --conditions=verdict-source bench/faults/bad-input.ts

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AnswerRelevancyMetric, EvaluationDataset, evaluate, image, ToxicityMetric } from "verdict";
import { MemoryRunStore } from "verdict/stores";
import { MockJudge } from "verdict/testing";
import {
  BAD_CASES,
  BAD_DATASETS,
  BAD_IMAGE_CALLS,
  isRawError,
  seededRandom,
} from "../../test/fixtures/bad-inputs.ts";
import { PNG_BYTES } from "../../test/fixtures/images.ts";
import { answer } from "../../test/fixtures/judge-answers.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const GOOD_PER_RUN = 20;
const BAD_PER_RUN = 30;
const quiet = { display: "none" as const, handleInterrupt: false };

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
        value: { name, input, actualOutput: `Answer ${index}.` },
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
    const judge = new MockJudge({ answers: answer });
    const metrics = [
      new ToxicityMetric({ model: judge }),
      new AnswerRelevancyMetric({ model: judge }),
    ];
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
  };
  try {
    await measureRuns(tally, folder);
    measureImageCalls(tally);
    await measureDatasets(tally, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const examples = (list: string[]) =>
    list.length === 0 ? "" : ` (e.g. ${JSON.stringify(list[0]?.slice(0, 80))})`;
  return {
    title: `Bad input: ${tally.badInputs} bad inputs (${SEEDS.length} seeded runs of ${GOOD_PER_RUN} good + ${BAD_PER_RUN} bad cases, ${BAD_IMAGE_CALLS.length * 4} image() calls, ${BAD_DATASETS.length * 4} dataset files)`,
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
        figure: "runs without ignoreErrors stopped naming their first invalid case",
        goal: `${SEEDS.length} of ${SEEDS.length}`,
        measured: `${tally.stoppedNamingFirst} of ${tally.stoppedRuns}`,
        pass: tally.stoppedNamingFirst === SEEDS.length,
      },
    ],
  };
}

if (isMainModule(import.meta.url)) reportAlone(await measureBadInput());
