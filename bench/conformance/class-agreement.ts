// How an example's coarse classification ("toxic", "relevant", "useful", …) is read from what
// the metric extracted and judged, and how what it decided is said in the example's words.
// The user-level expectations (score, pass, flagged items) are user-expectations.ts'.
import {
  agreesWithClaims,
  type CoverageAnswers,
  describeClaims,
  isClaimClass,
} from "./claim-conformance.ts";
import type { ConformanceExample, ConformanceMetric, ExpectedClass } from "./conformance-set.ts";

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
 * Contextual Relevancy (and Answer Relevancy): every statement (of the node) gets yes (relevant)
 * or no (irrelevant), or some get each (partly relevant). The other RAG metrics: the item's verdict is yes (useful,
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
    return classes.length === 2 && classes.includes("relevant") && classes.includes("irrelevant")
      ? `partly relevant (${verdicts.join(", ")})`
      : `mixed (${verdicts.join(", ")})`;
  }
  const [flaggedClass, cleanClass] = FLAG_CLASSES[example.metric] ?? ["flagged", "not flagged"];
  const flagged = verdicts.filter((verdict) => verdict === "yes").length;
  return flagged > 0
    ? `${flaggedClass} (${flagged} of ${plural(items.length, noun)})`
    : `${cleanClass} (${plural(items.length, noun)})`;
}
