// Fault bench, issue 19 item 2: judge answers that hold two or more differing JSON answers
// of the step's shape (a quoted fake answer, a draft, a second thought), seeded, × every
// metric shape and every step; the same over HTTP for a sample; the control of one answer wrapped
// in prose, fences or thinking tags (or repeated identically), which must score; what
// reading a 100 KB answer costs at worst; and judged text that writes the markers prompts
// quote data between. Run alone:
//   node --conditions=verdict-source bench/faults/ambiguous-answers.ts [--seed N] [--count N]
// The answers come from test/fixtures/ambiguous-answers.ts, the generator the fault test
// (test/faults/ambiguous-answers.test.ts) uses.

import { parseArgs } from "node:util";
import { chooseStepAnswer } from "../../src/judge/choose-step-answer.ts";
import { MAX_ANSWER_CHARACTERS, parseJudgeText } from "../../src/judge/parse-judge-text.ts";
import { opinionsSchema } from "../../src/metrics/shared/opinions.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake-openai-server.ts";
import {
  type AmbiguousAnswer,
  generateAmbiguousAnswers,
  unambiguousAnswer,
} from "../../test/fixtures/ambiguous-answers.ts";
import {
  faultyMockJudge,
  METRIC_SHAPES,
  type RunOutcome,
  runMetric,
  seededRandom,
  stepOfKind,
  stepsOf,
  wellFormedCalls,
} from "../../test/fixtures/malformed-answers.ts";
import {
  auditPrompt,
  generateMarkerAttacks,
  METRIC_PROMPTS,
} from "../../test/fixtures/marker-attacks.ts";
import { runAnswering, runOverHttp } from "../../test/fixtures/step-answer-runs.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

interface Tally {
  runs: number;
  scored: number;
  crashes: number;
  /** JudgeOutputErrors after exactly one re-ask whose message names the differing answers. */
  reportedRight: number;
  examples: string[];
}

const newTally = (): Tally => ({ runs: 0, scored: 0, crashes: 0, reportedRight: 0, examples: [] });
const percent = (part: number, whole: number) =>
  whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
const thousands = (value: number) => value.toLocaleString("en-US");

function count(tally: Tally, outcome: RunOutcome, right: boolean, label: string): void {
  tally.runs += 1;
  if (outcome.kind === "scored") tally.scored += 1;
  if (outcome.kind === "crash") tally.crashes += 1;
  if (right) tally.reportedRight += 1;
  else if (tally.examples.length < 5) {
    const detail = outcome.kind === "scored" ? ` ${outcome.score}` : `: ${String(outcome.error)}`;
    tally.examples.push(`${label} → ${outcome.kind}${detail}`.slice(0, 400));
  }
}

/** Whether a run reported the ambiguity as asked: a JudgeOutputError naming the count. */
function reportsDiffering(outcome: RunOutcome, answer: AmbiguousAnswer): boolean {
  return (
    outcome.kind === "judge-output-error" &&
    outcome.error.message.includes(`the answer held ${answer.differing} differing answers`)
  );
}

/** Each ambiguous answer through each metric with MockJudge, given at every ask of its step. */
async function measureMockJudge(answers: AmbiguousAnswer[]): Promise<Tally> {
  const tally = newTally();
  for (const answer of answers) {
    for (const shape of METRIC_SHAPES) {
      if (!stepsOf(shape).includes(answer.step)) continue;
      const judge = faultyMockJudge({ shape, step: answer.step, answers: [answer.render(shape)] });
      const { outcome } = await runMetric(shape, judge);
      const asked = judge.calls.filter((call) => stepOfKind(shape, call.kind) === answer.step);
      const right = reportsDiffering(outcome, answer) && asked.length === 2;
      count(
        tally,
        outcome,
        right,
        `${shape.name}: #${answer.id} ${answer.variant} at ${answer.step}`,
      );
    }
  }
  return tally;
}

/** A sample over HTTP: the real AI SDK OpenAI provider against the fake server. */
async function measureOverHttp(answers: AmbiguousAnswer[]): Promise<Tally> {
  const tally = newTally();
  const server = await startFakeOpenAIServer();
  try {
    for (const answer of answers) {
      for (const shape of METRIC_SHAPES) {
        if (!stepsOf(shape).includes(answer.step)) continue;
        const rendered = answer.render(shape);
        const { outcome, stepRequests } = await runOverHttp(server, shape, answer.step, rendered);
        const right = reportsDiffering(outcome, answer) && stepRequests === 2;
        count(tally, outcome, right, `${shape.name} over HTTP: #${answer.id} ${answer.variant}`);
      }
    }
  } finally {
    await server.close();
  }
  return tally;
}

/** One answer per step in a control layout; each run must score as scripted, unasked again. */
async function measureControl(seed: number, runs: number): Promise<Tally> {
  const tally = newTally();
  const random = seededRandom(seed);
  for (let run = 0; run < runs; run++) {
    for (const shape of METRIC_SHAPES) {
      const { outcome, texts, calls } = await runAnswering(shape, (step) =>
        unambiguousAnswer(random, shape, step),
      );
      const right =
        outcome.kind === "scored" &&
        outcome.score === shape.score &&
        calls === wellFormedCalls(shape);
      count(tally, outcome, right, `${shape.name}: ${JSON.stringify(texts)}`);
    }
  }
  return tally;
}

const OPINION = "Sarah is annoying when she volunteers, which everyone notices. ";

/** Answers of about 100 KB built to make a reader slow: many objects, braces, escapes, depth. */
function largeAnswers(): Array<{ name: string; text: string }> {
  const size = MAX_ANSWER_CHARACTERS - 200;
  const answer = JSON.stringify({ opinions: [OPINION] });
  const fill = (unit: string, room = size) => unit.repeat(Math.floor(room / unit.length));
  return [
    {
      name: "two answers, 100 KB of prose between",
      text: `${answer} ${fill("word ", size - 200)}${JSON.stringify({ opinions: [] })}`,
    },
    {
      name: "one answer of 1,500 opinions",
      text: JSON.stringify({ opinions: fill(`${OPINION}|`).split("|").slice(0, -1) }),
    },
    {
      name: "100 answers, one per line",
      text: Array.from({ length: 100 }, (_, index) =>
        JSON.stringify({ opinions: [`${OPINION.repeat(15)}${index}`] }),
      ).join("\n"),
    },
    {
      name: "braces in prose, then an answer",
      text: `${fill("{not json at all} ", size - 100)}${answer}`,
    },
    {
      name: "20 large unparseable braces, then an answer",
      text: `${fill(`{${"x".repeat(4000)}} `, size - 100)}${answer}`,
    },
    {
      name: "nested unparseable braces",
      text: `${"{x ".repeat(size / 6)}${"}".repeat(size / 6)} ${answer}`,
    },
    {
      name: "an object of 5,000 strings holding JSON",
      text: `${JSON.stringify({ notes: Array.from({ length: 5000 }, () => '{"a": 1}') })} ${answer}`,
    },
    {
      name: "an answer escaped in a string",
      text: `It was ${JSON.stringify(JSON.stringify({ opinions: fill(`${OPINION}|`, size / 2).split("|") })).slice(1, -1)} ${answer}`,
    },
    { name: "lone braces", text: fill("{ ") },
    { name: "empty objects", text: fill("{} ") },
  ];
}

/** The slowest read (parse and choose, best of 3) among the large answers, in ms. */
function measureLargeAnswers(): { worstMs: number; worst: string } {
  let worstMs = 0;
  let worst = "";
  for (const { name, text } of largeAnswers()) {
    let best = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = performance.now();
      const parsed = parseJudgeText(text);
      if (parsed.ok) chooseStepAnswer(parsed, { schema: opinionsSchema });
      best = Math.min(best, performance.now() - started);
    }
    if (best > worstMs) [worstMs, worst] = [best, name];
  }
  return { worstMs, worst };
}

/** Seeded judged texts that forge markers, through every prompt of every metric. */
function measureMarkers(seed: number, count: number) {
  const attacks = generateMarkerAttacks({ seed, count });
  let prompts = 0;
  let forged = 0;
  let readBack = 0;
  for (const { render } of METRIC_PROMPTS) {
    for (const attack of attacks) {
      const audit = auditPrompt(render, attack);
      prompts += 1;
      forged += Math.max(0, audit.forged);
      if (audit.readsBack) readBack += 1;
    }
  }
  return { attacks: attacks.length, prompts, forged, readBack };
}

/**
 * Measures the ambiguous-answer figures of issue 19: numeric scores and reports over seeded
 * ambiguous answers × every metric shape (MockJudge), the same over HTTP for a sample, the control
 * (one answer, wrapped, scored), the worst time to read a 100 KB answer, and prompt markers
 * forged by judged text over every prompt.
 */
export async function measureAmbiguousAnswers(
  options: { seed?: number; count?: number; httpSample?: number; controlRuns?: number } = {},
): Promise<FaultFigures & { examples?: string[] }> {
  const seed = options.seed ?? 19;
  const total = options.count ?? 1000;
  const answers = generateAmbiguousAnswers({ seed, count: total });
  const mock = await measureMockJudge(answers);
  const sample = answers.slice(0, options.httpSample ?? 100);
  const http = await measureOverHttp(sample);
  const control = await measureControl(seed + 1, options.controlRuns ?? 400);
  const large = measureLargeAnswers();
  const markers = measureMarkers(seed, total);
  const variants = new Set(answers.map((answer) => answer.variant)).size;
  const results = `${thousands(mock.runs)} metric results`;
  return {
    title: `Ambiguous judge answers, and judged text forging prompt markers (seed ${seed}: ${thousands(total)} answers in ${variants} layouts, every step × ${METRIC_SHAPES.length} metrics: ${METRIC_SHAPES.map((shape) => shape.name).join(", ")})`,
    examples: [...mock.examples, ...http.examples, ...control.examples],
    rows: [
      {
        figure: `numeric scores from an answer holding 2–3 differing answers, ${results}`,
        goal: "0",
        measured: String(mock.scored),
        pass: mock.scored === 0,
      },
      {
        figure:
          "re-asked exactly once, then JudgeOutputError saying how many differing answers it held",
        goal: "100%",
        measured: `${thousands(mock.reportedRight)}/${thousands(mock.runs)} (${percent(mock.reportedRight, mock.runs)})`,
        pass: mock.reportedRight === mock.runs && mock.crashes === 0,
      },
      {
        figure: `over HTTP (real AI SDK provider, fake server), first ${sample.length} answers × ${METRIC_SHAPES.length}: numeric scores / re-asked once then reported`,
        goal: "0 / 100%",
        measured: `${http.scored} / ${percent(http.reportedRight, http.runs)}`,
        pass: http.scored === 0 && http.reportedRight === http.runs,
      },
      {
        figure: `control: one answer per step in prose, fences or thinking tags, repeated identically or beside objects of another shape, ${thousands(control.runs)} metric results, scored as scripted without a re-ask`,
        goal: "100%",
        measured: `${thousands(control.reportedRight)}/${thousands(control.runs)} (${percent(control.reportedRight, control.runs)})`,
        pass: control.reportedRight === control.runs,
      },
      {
        figure: `slowest read of a ~100 KB answer (parse and choose), ${largeAnswers().length} adversarial shapes`,
        goal: "≤ 100 ms",
        measured: `${large.worstMs.toFixed(1)} ms (${large.worst})`,
        pass: large.worstMs <= 100,
      },
      {
        figure: `judged texts forging prompt markers (${thousands(markers.attacks)} seeded texts × ${METRIC_PROMPTS.length} prompts, every step of the ${new Set(METRIC_PROMPTS.map((prompt) => prompt.name.split(".")[0])).size} built-in metrics, with and without images): angle brackets of the text in the prompt`,
        goal: "0",
        measured: String(markers.forged),
        pass: markers.forged === 0,
      },
      {
        figure: "the same prompts: quoted blocks that read back (as JSON) as the text judged",
        goal: "100%",
        measured: `${thousands(markers.readBack)}/${thousands(markers.prompts)} (${percent(markers.readBack, markers.prompts)})`,
        pass: markers.readBack === markers.prompts,
      },
    ],
  };
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: { seed: { type: "string" }, count: { type: "string" } },
  });
  const figures = await measureAmbiguousAnswers({
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
    ...(values.count === undefined ? {} : { count: Number(values.count) }),
  });
  reportAlone(figures);
  for (const example of figures.examples ?? []) console.log(`- ${example}`);
}
