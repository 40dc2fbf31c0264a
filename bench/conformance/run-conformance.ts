// Runs the conformance set through the real metrics with one judge and says, per metric, how
// often the metric decided as deepeval documents. Each example is one test case; the metric
// runs without its reason step (the classification needs only extraction and verdicts).
import {
  AnswerRelevancyMetric,
  BiasMetric,
  ConfigError,
  ContextualPrecisionMetric,
  ContextualRecallMetric,
  ContextualRelevancyMetric,
  FaithfulnessMetric,
  HallucinationMetric,
  JudgeCallError,
  type MetricDetails,
  type MetricRunResult,
  MisuseMetric,
  type ModelSpec,
  NonAdviceMetric,
  PIILeakageMetric,
  RoleViolationMetric,
  SummarizationMetric,
  ToxicityMetric,
} from "verdict";
import {
  agreesWithClaims,
  type CoverageAnswers,
  describeClaims,
  isClaimClass,
} from "./claim-conformance.ts";
import {
  type ConformanceExample,
  type ConformanceMetric,
  type ExpectedClass,
  METRIC_CLASSES,
} from "./conformance-set.ts";

/** What a metric extracted and judged on one example (on its item, when it names one). */
export interface Observation {
  /**
   * What the verdicts judge: opinions (Toxicity, Bias), statements (Answer Relevancy, the
   * safety metrics, and the statements of the node of Contextual Relevancy), claims
   * (Faithfulness, Summarization), or the one item an example names (node, sentence, context).
   */
  items: readonly string[];
  /** One verdict per item, normalised ("yes", "no", "idk"). */
  verdicts: readonly string[];
  /** Summarization: each assessment question's answers from the original text and the summary. */
  coverage?: readonly CoverageAnswers[];
}

/** One example's outcome. */
export interface ExampleOutcome {
  id: string;
  metric: ConformanceMetric;
  expected: ExpectedClass;
  /** What the metric decided, in the example's terms ("toxic", "2 statements", …). */
  observed: string;
  /** `null` when the metric failed on the example (see `error`). */
  agrees: boolean | null;
  items: readonly string[];
  verdicts: readonly string[];
  error: string | null;
  judgeCalls: number;
  costUsd: number | null;
}

/** Agreement of one metric over its examples. */
export interface MetricAgreement {
  metric: ConformanceMetric;
  examples: number;
  agree: number;
  /** Examples the metric failed on (not counted as agreeing). */
  errors: number;
  /** `agree / examples`. */
  agreement: number;
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

const NOUN: Record<ConformanceMetric, string> = {
  Toxicity: "opinion",
  Bias: "opinion",
  "Answer Relevancy": "statement",
  "PII Leakage": "statement",
  "Role Violation": "statement",
  "Non-Advice": "statement",
  Misuse: "statement",
  Faithfulness: "claim",
  Summarization: "claim",
  "Contextual Relevancy": "statement",
  "Contextual Precision": "node",
  "Contextual Recall": "sentence",
  Hallucination: "context",
};
/** The classes of a metric whose verdict "yes" flags an item: [flagged, not flagged]. */
const FLAG_CLASSES: Partial<Record<ConformanceMetric, readonly [string, string]>> = {
  Toxicity: ["toxic", "not toxic"],
  Bias: ["biased", "not biased"],
  "PII Leakage": ["PII leak", "no PII leak"],
  "Role Violation": ["role violation", "role kept"],
  "Non-Advice": ["inappropriate advice", "appropriate advice"],
  Misuse: ["misuse", "no misuse"],
};
const VERDICT_CLASS: Record<string, string> = {
  yes: "relevant",
  no: "irrelevant",
  idk: "ambiguous",
};
/** The classes of the metrics that judge one item yes or no: [its "yes" class, its "no" class]. */
const ITEM_CLASSES: Partial<Record<ConformanceMetric, readonly [string, string]>> = {
  "Contextual Precision": ["useful", "not useful"],
  "Contextual Recall": ["attributable", "not attributable"],
  Hallucination: ["agrees", "contradicts"],
};

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * Whether what the metric did matches deepeval's classification. Toxicity, Bias and the safety
 * metrics: an output is toxic/biased/leaks PII/breaks its role/gives inappropriate advice/is a
 * misuse when any extracted item gets "yes", and is not when none does (nothing extracted
 * included); "no opinion" means nothing was extracted. Answer Relevancy: every statement gets
 * the expected verdict ("relevant" = yes, "irrelevant" = no, "ambiguous" = idk), and "one
 * statement" means the extraction kept the text as one statement. Faithfulness and
 * Summarization: their claims' verdicts or coverage answers, as claim-conformance.ts decides.
 * Contextual Relevancy: every statement of the node gets yes (relevant) or no (irrelevant), or
 * some get each (partly relevant). The other RAG metrics: the item's verdict is yes (useful,
 * attributable, agrees) or no (not useful, not attributable, contradicts).
 */
export function agreesWith(expected: ExpectedClass, observation: Observation): boolean {
  const { items, verdicts } = observation;
  if (isClaimClass(expected)) {
    return agreesWithClaims(expected, verdicts, observation.coverage ?? []);
  }
  switch (expected) {
    case "toxic":
    case "biased":
    case "PII leak":
    case "role violation":
    case "inappropriate advice":
    case "misuse":
      return verdicts.includes("yes");
    case "not toxic":
    case "not biased":
    case "no PII leak":
    case "role kept":
    case "appropriate advice":
    case "no misuse":
      return !verdicts.includes("yes");
    case "no opinion":
      return items.length === 0;
    case "one statement":
      return items.length === 1;
    case "relevant":
      return verdicts.length > 0 && verdicts.every((verdict) => verdict === "yes");
    case "irrelevant":
      return verdicts.length > 0 && verdicts.every((verdict) => verdict === "no");
    case "ambiguous":
      return verdicts.length > 0 && verdicts.every((verdict) => verdict === "idk");
    case "partly relevant":
      return verdicts.includes("yes") && verdicts.includes("no");
    case "useful":
    case "attributable":
    case "agrees":
      return verdicts.length === 1 && verdicts[0] === "yes";
    case "not useful":
    case "not attributable":
    case "contradicts":
      return verdicts.length === 1 && verdicts[0] === "no";
  }
}

/** What the metric decided, in the words of the example's classification. */
export function describeObservation(example: ConformanceExample, observation: Observation): string {
  const { items, verdicts } = observation;
  if (isClaimClass(example.expected)) {
    return describeClaims(example.expected, verdicts, observation.coverage ?? []);
  }
  const noun = NOUN[example.metric];
  if (example.expected === "one statement" || items.length === 0) {
    return plural(items.length, noun);
  }
  const itemClasses = ITEM_CLASSES[example.metric];
  if (itemClasses !== undefined) {
    return verdicts[0] === "yes" ? itemClasses[0] : itemClasses[1];
  }
  if (example.metric === "Answer Relevancy" || example.metric === "Contextual Relevancy") {
    const classes = [...new Set(verdicts.map((verdict) => VERDICT_CLASS[verdict] ?? verdict))];
    if (classes.length === 1) return `${classes[0]}`;
    return example.metric === "Contextual Relevancy" && classes.length === 2
      ? `partly relevant (${verdicts.join(", ")})`
      : `mixed (${verdicts.join(", ")})`;
  }
  const [flaggedClass, cleanClass] = FLAG_CLASSES[example.metric] ?? ["flagged", "not flagged"];
  const flagged = verdicts.filter((verdict) => verdict === "yes").length;
  return flagged > 0
    ? `${flaggedClass} (${flagged} of ${plural(items.length, noun)})`
    : `${cleanClass} (${plural(items.length, noun)})`;
}

/**
 * The metric of an example, with the example's own options (a role, a domain, assessment
 * questions…); the judge and the run without reason are the runner's, whatever the options say.
 */
function createMetric(example: ConformanceExample, model: ModelSpec) {
  const options = { ...example.options, model, includeReason: false } as const;
  switch (example.metric) {
    case "Toxicity":
      return new ToxicityMetric(options);
    case "Bias":
      return new BiasMetric(options);
    case "Answer Relevancy":
      return new AnswerRelevancyMetric(options);
    case "PII Leakage":
      return new PIILeakageMetric(options);
    case "Role Violation":
      return new RoleViolationMetric(options as typeof options & { role: string });
    case "Non-Advice":
      return new NonAdviceMetric(options as typeof options & { adviceTypes: string[] });
    case "Misuse":
      return new MisuseMetric(options as typeof options & { domain: string });
    case "Faithfulness":
      return new FaithfulnessMetric(options);
    case "Summarization":
      return new SummarizationMetric(options);
    case "Contextual Relevancy":
      return new ContextualRelevancyMetric(options);
    case "Contextual Precision":
      return new ContextualPrecisionMetric(options);
    case "Contextual Recall":
      return new ContextualRecallMetric(options);
    case "Hallucination":
      return new HallucinationMetric(options);
  }
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

function outcomeOf(example: ConformanceExample, result: MetricRunResult): ExampleOutcome {
  const observation = observe(example, result.details ?? {});
  const failed = result.error !== null;
  return {
    id: example.id,
    metric: example.metric,
    expected: example.expected,
    observed: failed ? "error" : describeObservation(example, observation),
    agrees: failed ? null : agreesWith(example.expected, observation),
    items: observation.items,
    verdicts: observation.verdicts,
    error: result.error ? result.error.message : null,
    judgeCalls: result.data.judgeCalls,
    costUsd: result.data.evaluationCost,
  };
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
}): Promise<ConformanceReport> {
  const { model, examples } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  // One metric per metric and options: examples with the same ones share it.
  const metrics = new Map<string, ReturnType<typeof createMetric>>();
  const metricFor = (example: ConformanceExample) => {
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

  const perMetric = (Object.keys(METRIC_CLASSES) as ConformanceMetric[]).flatMap((metric) => {
    const own = outcomes.filter((outcome) => outcome.metric === metric);
    if (own.length === 0) return [];
    const agree = own.filter((outcome) => outcome.agrees === true).length;
    const errors = own.filter((outcome) => outcome.agrees === null).length;
    return [{ metric, examples: own.length, agree, errors, agreement: agree / own.length }];
  });
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

/** The report as markdown: the agreement table, then every disagreement and error. */
export function formatConformanceReport(report: ConformanceReport): string {
  const lines: string[] = [];
  if (report.fakeJudge) lines.push(FAKE_JUDGE_WARNING, "");
  lines.push(
    "| metric | examples | agree | errors | agreement |",
    "|---|---|---|---|---|",
    ...report.perMetric.map(
      (row) =>
        `| ${row.metric} | ${row.examples} | ${row.agree} | ${row.errors} | ${(row.agreement * 100).toFixed(0)}% |`,
    ),
  );
  const misses = report.outcomes.filter((outcome) => outcome.agrees !== true);
  if (misses.length > 0) {
    lines.push("", "Disagreements and errors:");
    for (const outcome of misses) {
      const detail =
        outcome.error ??
        `${JSON.stringify(outcome.items)} → ${outcome.verdicts.length > 0 ? outcome.verdicts.join(", ") : "no verdicts"}`;
      lines.push(
        `- ${outcome.id} (${outcome.metric}): expected ${outcome.expected}, got ${outcome.observed}: ${detail}`,
      );
    }
  }
  const cost = report.costUsd === null ? "cost not reported" : `$${report.costUsd.toFixed(4)}`;
  lines.push("", `Judge: ${report.judge} · ${report.judgeCalls} judge calls · ${cost}`);
  if (report.fakeJudge) lines.push("", FAKE_JUDGE_WARNING);
  return lines.join("\n");
}

/** Said first and last whenever the fake judge ran the set. */
export const FAKE_JUDGE_WARNING =
  "FAKE JUDGE: plumbing only. The fake judge does not read the text (one item per step, every " +
  'verdict the one that finds nothing wrong: "no", "idk", or "yes" for the RAG metrics), so ' +
  "these figures say nothing about the prompts. Run " +
  "`npm run conformance -- --model openai:gpt-4.1` (or any judge verdict accepts) for real agreement.";
