import {
  DATA_NOTICE,
  exactCountRule,
  joinSections,
  quoteList,
  YES_NO_VERDICTS_ANSWER,
} from "./prompt-text.ts";

/**
 * The verdict prompt of a metric that flags items yes/no: the task, the rubric and how to
 * decide, a worked example, the count to return (one verdict per item, in order), the items
 * as quoted data, and the JSON to answer with.
 */
export function yesNoVerdictsPrompt(options: {
  /** What is judged, one sentence. */
  task: string;
  /** What the judge must know beyond the items (the role, the domain); `false` for nothing. */
  setting?: string | false;
  rubric: string;
  /** What "yes" and "no" mean, and when a reason is given. */
  decision: string;
  /** `Example` / `Statements: [...]` / `Answer: {...}` lines. */
  example: string;
  items: readonly string[];
  /** One item, for the count line: "statement". */
  itemName: string;
}): string {
  return joinSections(
    options.task,
    options.setting,
    options.rubric,
    options.decision,
    options.example,
    exactCountRule(options.items.length, options.itemName),
    DATA_NOTICE,
    quoteList("statements", options.items),
    YES_NO_VERDICTS_ANSWER,
  );
}
