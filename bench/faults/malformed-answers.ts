// Fault bench: 1,000 seeded malformed judge answers × every metric shape, and a control of
// well-formed answers wrapped in formatting. Run alone:
//   node --conditions=verdict-source bench/faults/malformed-answers.ts [--seed N] [--count N]
// It prints a markdown table. The answers come from test/fixtures/malformed-answers.ts, the
// generator the fault test (test/faults/malformed-answers.test.ts) uses.

import { parseArgs } from "node:util";
import { startFakeOpenAIServer } from "../../src/testing/fake-openai-server.ts";
import {
  faultyMockJudge,
  generateMalformedAnswers,
  type MalformedAnswer,
  METRIC_SHAPES,
  type RunOutcome,
  runMetric,
  seededRandom,
  stepOfKind,
  stepsOf,
  wrappedAnswer,
} from "../../test/fixtures/malformed-answers.ts";
import { runAnswering, runOverHttp } from "../../test/fixtures/step-answer-runs.ts";
import {
  type FaultFigures as BaseFaultFigures,
  isMainModule,
  reportAlone,
} from "../fault-figures.ts";

/** Figures of one fault scenario, for the closing note of issue 9. */
type FaultFigures = BaseFaultFigures & {
  /** The first few outcomes that missed a goal, to say what went wrong (empty when none). */
  examples?: string[];
};

interface Tally {
  runs: number;
  scored: number;
  judgeOutputErrors: number;
  crashes: number;
  /** Judge output errors raised after exactly one re-ask (two calls at the failing step). */
  reaskedOnce: number;
  /** The first few of each bad outcome, to say what went wrong. */
  examples: string[];
}

function newTally(): Tally {
  return { runs: 0, scored: 0, judgeOutputErrors: 0, crashes: 0, reaskedOnce: 0, examples: [] };
}

function count(tally: Tally, outcome: RunOutcome, label: string, scoreExpected: boolean): void {
  tally.runs += 1;
  if (outcome.kind === "scored") tally.scored += 1;
  if (outcome.kind === "judge-output-error") tally.judgeOutputErrors += 1;
  if (outcome.kind === "crash") tally.crashes += 1;
  const bad = outcome.kind === "crash" || (outcome.kind === "scored") !== scoreExpected;
  if (bad && tally.examples.length < 5) {
    const detail = outcome.kind === "crash" ? `: ${String(outcome.error)}` : "";
    tally.examples.push(`${label} → ${outcome.kind}${detail}`);
  }
}

const percent = (part: number, whole: number) =>
  whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
const thousands = (value: number) => value.toLocaleString("en-US");

/** Each malformed answer through each metric with MockJudge: the garbage given at every ask. */
async function measureMockJudge(answers: MalformedAnswer[]): Promise<Tally> {
  const tally = newTally();
  for (const answer of answers) {
    for (const shape of METRIC_SHAPES) {
      if (!stepsOf(shape).includes(answer.step)) continue;
      const rendered = answer.render(shape);
      const judge = faultyMockJudge({ shape, step: answer.step, answers: [rendered] });
      const { outcome } = await runMetric(shape, judge);
      count(
        tally,
        outcome,
        `${shape.name}: #${answer.id} ${answer.family} at ${answer.step}`,
        false,
      );
      const asked = judge.calls.filter((call) => stepOfKind(shape, call.kind) === answer.step);
      if (outcome.kind === "judge-output-error" && asked.length === 2) tally.reaskedOnce += 1;
    }
  }
  return tally;
}

/** Well-formed answers wrapped in formatting, every step; each run must score as scripted. */
async function measureControl(seed: number, runs: number): Promise<Tally> {
  const tally = newTally();
  const random = seededRandom(seed);
  for (let run = 0; run < runs; run++) {
    for (const shape of METRIC_SHAPES) {
      const { outcome, texts } = await runAnswering(shape, (step) =>
        wrappedAnswer(random, shape, step),
      );
      const right = outcome.kind === "scored" && outcome.score === shape.score;
      count(
        tally,
        right ? outcome : { kind: "crash", error: new Error(`gave ${JSON.stringify(outcome)}`) },
        `${shape.name}: ${JSON.stringify(texts).slice(0, 120)}`,
        true,
      );
    }
  }
  return tally;
}

/** A sample over HTTP: the real AI SDK OpenAI provider against the fake server. */
async function measureOverHttp(answers: MalformedAnswer[]): Promise<Tally> {
  const tally = newTally();
  const server = await startFakeOpenAIServer();
  try {
    for (const answer of answers) {
      for (const shape of METRIC_SHAPES) {
        if (!stepsOf(shape).includes(answer.step)) continue;
        const { outcome } = await runOverHttp(server, shape, answer.step, answer.render(shape));
        count(tally, outcome, `${shape.name} over HTTP: #${answer.id} ${answer.family}`, false);
      }
    }
  } finally {
    await server.close();
  }
  return tally;
}

/**
 * Measures the malformed-answer figures of issue 9: crashes and numeric scores over 1,000
 * malformed judge answers × every metric shape (MockJudge), the same over HTTP for a sample, and the
 * control row (well-formed answers wrapped in formatting, all scored).
 */
export async function measureMalformedAnswers(
  options: { seed?: number; count?: number; httpSample?: number; controlRuns?: number } = {},
): Promise<FaultFigures> {
  const seed = options.seed ?? 9;
  const total = options.count ?? 1000;
  const answers = generateMalformedAnswers({ seed, count: total });
  const mock = await measureMockJudge(answers);
  const control = await measureControl(seed + 1, options.controlRuns ?? 300);
  const sample = answers.slice(0, options.httpSample ?? 100);
  const http = await measureOverHttp(sample);
  const families = new Set(answers.map((answer) => answer.family)).size;
  const results = `${thousands(mock.runs)} metric results`;
  return {
    title: `Malformed judge answers (seed ${seed}: ${thousands(total)} answers in ${families} families × ${METRIC_SHAPES.length} metrics: ${METRIC_SHAPES.map((shape) => shape.name).join(", ")})`,
    examples: [...mock.examples, ...http.examples, ...control.examples],
    rows: [
      {
        figure: `crashes (any error but JudgeOutputError), ${results}`,
        goal: "0",
        measured: String(mock.crashes),
        pass: mock.crashes === 0,
      },
      {
        figure: `numeric scores from garbage, ${results}`,
        goal: "0",
        measured: String(mock.scored),
        pass: mock.scored === 0,
      },
      {
        figure: "re-asked exactly once, then JudgeOutputError (metric, step, raw text)",
        goal: "100%",
        measured: `${thousands(mock.reaskedOnce)}/${thousands(mock.runs)} (${percent(mock.reaskedOnce, mock.runs)})`,
        pass: mock.reaskedOnce === mock.runs,
      },
      {
        figure: `over HTTP (real AI SDK provider, fake server), first ${sample.length} answers × ${METRIC_SHAPES.length}: crashes / numeric scores`,
        goal: "0 / 0",
        measured: `${http.crashes} / ${http.scored}`,
        pass: http.crashes === 0 && http.scored === 0,
      },
      {
        figure: `control: well-formed answers wrapped in formatting, ${thousands(control.runs)} metric results, scored as scripted`,
        goal: "100%",
        measured: `${thousands(control.scored)}/${thousands(control.runs)} (${percent(control.scored, control.runs)})`,
        pass: control.scored === control.runs && control.crashes === 0,
      },
    ],
  };
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: { seed: { type: "string" }, count: { type: "string" } },
  });
  const figures = await measureMalformedAnswers({
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
    ...(values.count === undefined ? {} : { count: Number(values.count) }),
  });
  reportAlone(figures);
  for (const example of figures.examples ?? []) console.log(`- ${example}`);
}
