import { DATA_NOTICE, joinSections, quoteList } from "./prompt-text.ts";

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
  const count = options.items.length;
  const items = count === 1 ? `is 1 ${options.itemName}` : `are ${count} ${options.itemName}s`;
  return joinSections(
    options.task,
    options.setting,
    options.rubric,
    options.decision,
    options.example,
    `There ${items}. Return exactly ${count} verdict${count === 1 ? "" : "s"}, one per ${options.itemName}, in the same order.`,
    DATA_NOTICE,
    quoteList("statements", options.items),
    'Answer with only a JSON object: {"verdicts": [{"verdict": "yes" or "no", "reason": "…" or null}, …]}',
  );
}
