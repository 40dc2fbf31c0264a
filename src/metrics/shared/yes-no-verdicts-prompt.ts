import {
  DATA_NOTICE,
  exactCountRule,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  REASONED_YES_NO_VERDICTS_ANSWER,
  YES_NO_VERDICTS_ANSWER,
} from "./prompt-text.ts";

/**
 * The verdict prompt of a metric that judges given items yes/no (the safety metrics' extracted
 * statements; Contextual Precision's nodes, Contextual Recall's sentences, Hallucination's
 * contexts): the task, the rubric and how to decide, a worked example, the count to return (one
 * verdict per item, in order), the judged data as quoted blocks, and the JSON to answer with.
 */
export function yesNoVerdictsPrompt(options: {
  /** What is judged, one sentence. */
  task: string;
  /** What the judge must know beyond the items (the role, the domain); `false` for nothing. */
  setting?: string | false;
  rubric: string;
  /** What "yes" and "no" mean, and when a reason is given, when the rubric does not say. */
  decision?: string;
  /** `Example` / `Statements: [...]` / `Answer: {...}` lines. */
  example: string;
  items: readonly string[];
  /** One item, for the count line: "statement". */
  itemName: string;
  /** Whether the data refers to images (adds the rules for them). */
  multimodal?: boolean;
  /** The judged data as quoted blocks. @default the items, quoted as `statements` */
  data?: readonly string[];
  /** Whether every verdict has a reason (else "no" verdicts may have none). @default false */
  reasonEach?: boolean;
}): string {
  return joinSections(
    options.task,
    options.setting,
    options.rubric,
    options.decision,
    options.example,
    exactCountRule(options.items.length, options.itemName),
    options.multimodal && MULTIMODAL_RULES,
    DATA_NOTICE,
    ...(options.data ?? [quoteList("statements", options.items)]),
    options.reasonEach ? REASONED_YES_NO_VERDICTS_ANSWER : YES_NO_VERDICTS_ANSWER,
  );
}
