// Runs the conformance set through the real metrics with one judge and says, per metric, how
// often the metric decided as deepeval documents: on pass/fail at the default threshold, and on
// the score (in the example's range, with the items it must extract and flag, and its coarse
// class). Each example is one test case; the metric runs without its reason step (the
// expectations need only extraction and verdicts). The judge's answers can be recorded and
// replayed (recorded-judge.ts).
import {
  ConfigError,
  JudgeCallError,
  type JudgeModel,
  type MetricDetails,
  type MetricRunResult,
  type ModelSpec,
} from "verdict";
import { resolveJudge } from "../../src/judge/resolve-model.ts";
import { agreesWith, describeObservation, type Observation } from "./class-agreement.ts";
import {
  type ConformanceExample,
  type ConformanceMetric,
  type ExpectedClass,
  METRIC_CLASSES,
} from "./conformance-set.ts";
import { createMetric } from "./create-metric.ts";
import {
  checkExpectations,
  describeExpectations,
  type ObservedResult,
} from "./user-expectations.ts";

/** One example's outcome. */
export interface ExampleOutcome {
  id: string;
  metric: ConformanceMetric;
  expected: ExpectedClass;
  /** What the metric decided, in the example's terms ("toxic", "2 statements", …). */
  observed: string;
  /** The coarse class and every stated expectation hold; `null` when the metric failed. */
  agrees: boolean | null;
  /** Pass/fail agrees; `null` when the example states none. A failed metric disagrees. */
  passAgrees: boolean | null;
  /** The score is in range, the expected items are extracted and flagged, the class holds. */
  scoreAgrees: boolean;
  /** The example's user-level expectations in words ("score 1, fails, flags \"garbage\""). */
  expectation: string;
  /** What disagreed, one phrase each. */
  misses: string[];
  /** The score, pass/fail and items, as the metric gave them (`null` score: it failed). */
  result: ObservedResult;
  items: readonly string[];
  verdicts: readonly string[];
  error: string | null;
  judgeCalls: number;
  costUsd: number | null;
}

/** Agreement on one dimension: how many examples state it, how many agree. */
export interface Agreement {
  checked: number;
  agree: number;
  /** `agree / checked`; `null` when no example states it. */
  agreement: number | null;
}

/** Agreement of one metric over its examples. */
export interface MetricAgreement {
  metric: ConformanceMetric;
  examples: number;
  /** Examples on which everything agrees. */
  agree: number;
  /** Examples the metric failed on (counted as disagreeing). */
  errors: number;
  /** `agree / examples`. */
  agreement: number;
  /** Pass/fail at the default threshold, over the examples that state it. */
  pass: Agreement;
  /** Score in range, expected items, and class, over every example. */
  score: Agreement;
}

/** The whole run. */
export interface ConformanceReport {
  judge: string;
  /** True when the judge was verdict's fake judge: the figures test plumbing only. */
  fakeJudge: boolean;
  perMetric: MetricAgreement[];
  outcomes: ExampleOutcome[];
  judgeCalls: number;
  /** Summed judge cost in USD; `null` when the judge reports none. */
  costUsd: number | null;
}

/**
 * What the verdicts judge: the last list of texts before `verdicts` among the details (the
 * opinions, statements or extracted items; the claims, not the truths, of Faithfulness and
 * Summarization; the nodes, sentences or contexts of the RAG metrics).
 */
function itemsOf(details: MetricDetails): readonly string[] {
  let items: readonly string[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (key === "verdicts") break;
    if (Array.isArray(value)) items = value.map(String);
  }
  return items;
}

/** What the metric extracted and judged: of the example's item when it names one. */
function observe(example: ConformanceExample, details: MetricDetails): Observation {
  const verdicts = (details.verdicts ?? []) as ReadonlyArray<Record<string, unknown>>;
  const verdictOf = (item: Record<string, unknown>) => String(item.verdict);
  if (example.item === undefined) {
    const coverage = details.coverageVerdicts as
      | Array<{ originalVerdict: string; summaryVerdict: string }>
      | undefined;
    return {
      items: itemsOf(details),
      verdicts: verdicts.map(verdictOf),
      ...(coverage
        ? {
            coverage: coverage.map((answers) => ({
              original: answers.originalVerdict,
              summary: answers.summaryVerdict,
            })),
          }
        : {}),
    };
  }
  if (example.metric === "Contextual Relevancy") {
    const own = verdicts.filter((verdict) => verdict.node === example.item);
    return { items: own.map((verdict) => String(verdict.statement)), verdicts: own.map(verdictOf) };
  }
  const items = itemsOf(details);
  const index = example.item - 1;
  const verdict = verdicts[index];
  return {
    items: items[index] === undefined ? [] : [items[index]],
    verdicts: verdict === undefined ? [] : [verdictOf(verdict)],
  };
}

/** Errors that no other example would survive either: a bad model name or key. */
function isFatal(error: Error): boolean {
  return (
    error instanceof ConfigError ||
    (error instanceof JudgeCallError && error.kind === "configuration")
  );
}

/** The verdict that counts against the output: a step's own, else the metric's direction's. */
function flaggedVerdictOf(result: MetricRunResult): string {
  const own = result.data.steps?.find((step) => step.flaggedVerdict !== undefined);
  return own?.flaggedVerdict ?? (result.data.lowerIsBetter ? "yes" : "no");
}

function outcomeOf(example: ConformanceExample, result: MetricRunResult): ExampleOutcome {
  const observation = observe(example, result.details ?? {});
  const failed = result.error !== null;
  const flagged = flaggedVerdictOf(result);
  const observed: ObservedResult = {
    score: failed ? null : result.data.score,
    pass: failed ? null : result.data.success,
    items: observation.items,
    flagged: observation.items.filter((_, index) => observation.verdicts[index] === flagged),
  };
  const checks = checkExpectations(example, observed);
  const classAgrees = !failed && agreesWith(example.expected, observation);
  const misses =
    classAgrees || failed ? checks.misses : [`not ${example.expected}`, ...checks.misses];
  const scoreAgrees = classAgrees && checks.score;
  return {
    id: example.id,
    metric: example.metric,
    expected: example.expected,
    observed: failed ? "error" : describeObservation(example, observation),
    agrees: failed ? null : scoreAgrees && checks.pass !== false,
    passAgrees: checks.pass,
    scoreAgrees,
    expectation: describeExpectations(example),
    misses,
    result: observed,
    items: observation.items,
    verdicts: observation.verdicts,
    error: result.error ? result.error.message : null,
    judgeCalls: result.data.judgeCalls,
    costUsd: result.data.evaluationCost,
  };
}

function agreementOf(checked: number, agree: number): Agreement {
  return { checked, agree, agreement: checked === 0 ? null : agree / checked };
}

/** Agreement per metric, in the order of the set's metrics. */
export function tallyAgreement(outcomes: readonly ExampleOutcome[]): MetricAgreement[] {
  return (Object.keys(METRIC_CLASSES) as ConformanceMetric[]).flatMap((metric) => {
    const own = outcomes.filter((outcome) => outcome.metric === metric);
    if (own.length === 0) return [];
    const agree = own.filter((outcome) => outcome.agrees === true).length;
    const errors = own.filter((outcome) => outcome.agrees === null).length;
    const passStated = own.filter((outcome) => outcome.passAgrees !== null);
    return [
      {
        metric,
        examples: own.length,
        agree,
        errors,
        agreement: agree / own.length,
        pass: agreementOf(
          passStated.length,
          passStated.filter((outcome) => outcome.passAgrees === true).length,
        ),
        score: agreementOf(own.length, own.filter((outcome) => outcome.scoreAgrees).length),
      },
    ];
  });
}

/**
 * Runs every example through its metric with `model`, `concurrency` examples at a time, and
 * tallies agreement per metric. A bad model name or key stops the run (it throws that error);
 * any other failure is recorded on its example and the run goes on.
 */
export async function runConformance(options: {
  model: ModelSpec;
  examples: readonly ConformanceExample[];
  concurrency?: number;
  onOutcome?: (outcome: ExampleOutcome) => void;
  /**
   * Wraps the judge for one example (to record its answers, or to answer from a recording):
   * each example then gets a metric of its own, so that every judge call is the example's.
   */
  wrapJudge?: (judge: JudgeModel, example: string) => JudgeModel;
}): Promise<ConformanceReport> {
  const { model, examples, wrapJudge } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const judge = wrapJudge === undefined ? null : await resolveJudge({ model });
  // One metric per metric and options: examples with the same ones share it.
  const metrics = new Map<string, ReturnType<typeof createMetric>>();
  const metricFor = (example: ConformanceExample) => {
    if (judge !== null && wrapJudge !== undefined) {
      return createMetric(example, wrapJudge(judge, example.id));
    }
    const key = JSON.stringify([example.metric, example.options ?? {}]);
    let metric = metrics.get(key);
    if (!metric) {
      metric = createMetric(example, model);
      metrics.set(key, metric);
    }
    return metric;
  };

  const outcomes: ExampleOutcome[] = new Array(examples.length);
  let judgeName = typeof model === "string" ? model : "custom judge";
  let fatal: Error | null = null;
  let next = 0;
  const worker = async () => {
    while (fatal === null && next < examples.length) {
      const index = next++;
      const example = examples[index] as ConformanceExample;
      const { expectedOutput, context, retrievalContext } = example;
      const result = await metricFor(example).run(
        {
          name: example.id,
          input: example.input,
          actualOutput: example.text,
          ...(expectedOutput === undefined ? {} : { expectedOutput }),
          ...(context === undefined ? {} : { context }),
          ...(retrievalContext === undefined ? {} : { retrievalContext }),
        },
        { testCaseName: example.id },
      );
      if (result.error && isFatal(result.error)) {
        fatal ??= result.error;
        return;
      }
      if (result.data.evaluationModel) judgeName = result.data.evaluationModel;
      const outcome = outcomeOf(example, result);
      outcomes[index] = outcome;
      options.onOutcome?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, examples.length) }, worker));
  if (fatal) throw fatal;

  const perMetric = tallyAgreement(outcomes);
  const costs = outcomes.map((outcome) => outcome.costUsd);
  return {
    judge: judgeName,
    fakeJudge: judgeName === "fake",
    perMetric,
    outcomes,
    judgeCalls: outcomes.reduce((sum, outcome) => sum + outcome.judgeCalls, 0),
    costUsd: costs.every((cost) => cost === null)
      ? null
      : costs.reduce<number>((sum, cost) => sum + (cost ?? 0), 0),
  };
}
