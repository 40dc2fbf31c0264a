// The built-in metrics a name stands for, in one place for every command that takes one:
// calibrate() and `verdict calibrate` (--metric), `verdict finetune watch` (--metrics).
import type { ModelSpec } from "../judge/resolve-model.ts";
import { AnswerRelevancyMetric } from "./answer-relevancy/answer-relevancy-metric.ts";
import type { BaseMetric } from "./base-metric.ts";
import { BiasMetric } from "./bias/bias-metric.ts";
import { ContextualPrecisionMetric } from "./contextual-precision/contextual-precision-metric.ts";
import { ContextualRecallMetric } from "./contextual-recall/contextual-recall-metric.ts";
import { ContextualRelevancyMetric } from "./contextual-relevancy/contextual-relevancy-metric.ts";
import { FaithfulnessMetric } from "./faithfulness/faithfulness-metric.ts";
import { HallucinationMetric } from "./hallucination/hallucination-metric.ts";
import { PIILeakageMetric } from "./pii-leakage/pii-leakage-metric.ts";
import { SummarizationMetric } from "./summarization/summarization-metric.ts";
import { ToxicityMetric } from "./toxicity/toxicity-metric.ts";

/**
 * The built-in metrics known by name. Role Violation, Non-Advice and Misuse need an option of
 * their own (`role`, `adviceTypes`, `domain`), which a name cannot carry.
 */
export type BuiltInMetricName =
  | "toxicity"
  | "bias"
  | "relevancy"
  | "faithfulness"
  | "summarization"
  | "pii-leakage"
  | "role-violation"
  | "non-advice"
  | "misuse"
  | "contextual-relevancy"
  | "contextual-precision"
  | "contextual-recall"
  | "hallucination";

/** What a metric made from its name is given: its threshold and its judge. */
export interface NamedMetricOptions {
  threshold?: number;
  model?: ModelSpec;
}

const BUILT_BY_NAME = {
  toxicity: (options) => new ToxicityMetric(options),
  bias: (options) => new BiasMetric(options),
  relevancy: (options) => new AnswerRelevancyMetric(options),
  faithfulness: (options) => new FaithfulnessMetric(options),
  summarization: (options) => new SummarizationMetric(options),
  "pii-leakage": (options) => new PIILeakageMetric(options),
  "contextual-relevancy": (options) => new ContextualRelevancyMetric(options),
  "contextual-precision": (options) => new ContextualPrecisionMetric(options),
  "contextual-recall": (options) => new ContextualRecallMetric(options),
  hallucination: (options) => new HallucinationMetric(options),
} satisfies Partial<Record<BuiltInMetricName, (options: NamedMetricOptions) => BaseMetric<object>>>;

/** What a metric its name cannot build needs, for the error that asks for a metric object. */
export interface NeededOption {
  /** The metric's display name: "Role Violation". */
  metric: string;
  /** The option it needs: "role". */
  option: string;
  /** The metric object to make instead: `new RoleViolationMetric({ role: "…" })`. */
  example: string;
  /** A name to export it under from a module: "roleViolation". */
  exportName: string;
}

const OPTION_NEEDED: Record<
  Exclude<BuiltInMetricName, keyof typeof BUILT_BY_NAME>,
  NeededOption
> = {
  "role-violation": {
    metric: "Role Violation",
    option: "role",
    example: 'new RoleViolationMetric({ role: "helpful customer service agent" })',
    exportName: "roleViolation",
  },
  "non-advice": {
    metric: "Non-Advice",
    option: "adviceTypes",
    example: 'new NonAdviceMetric({ adviceTypes: ["financial"] })',
    exportName: "nonAdvice",
  },
  misuse: {
    metric: "Misuse",
    option: "domain",
    example: 'new MisuseMetric({ domain: "financial" })',
    exportName: "misuse",
  },
};

// Spellings beyond the name with spaces or underscores for its hyphens (`pii_leakage`,
// `Contextual Recall`), which every name takes.
const ALIASES: Record<string, BuiltInMetricName> = {
  "answer-relevancy": "relevancy",
  answerrelevancy: "relevancy",
  summarisation: "summarization",
};

/** The names a metric is made from alone, in the order messages list them. */
export const NAMES_BUILT_BY_NAME = Object.keys(BUILT_BY_NAME) as BuiltInMetricName[];

/**
 * The built-in metric `name` names, whatever its case and whether words are joined by
 * hyphens, underscores or spaces (`"toxicity"`, `"Answer Relevancy"`, `"pii_leakage"`);
 * `null` when it names none.
 */
export function builtInMetricName(name: string): BuiltInMetricName | null {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  if (Object.hasOwn(BUILT_BY_NAME, key) || Object.hasOwn(OPTION_NEEDED, key)) {
    return key as BuiltInMetricName;
  }
  return Object.hasOwn(ALIASES, key) ? (ALIASES[key] as BuiltInMetricName) : null;
}

/**
 * The metric `name` stands for, made with `options`; for a metric that needs an option of its
 * own, what it needs (the caller says how to give it a metric object instead).
 */
export function createNamedMetric(
  name: BuiltInMetricName,
  options: NamedMetricOptions = {},
): BaseMetric<object> | { needs: NeededOption } {
  if (Object.hasOwn(OPTION_NEEDED, name)) {
    return { needs: OPTION_NEEDED[name as keyof typeof OPTION_NEEDED] };
  }
  return BUILT_BY_NAME[name as keyof typeof BUILT_BY_NAME](options);
}
