import type { JsonValue } from "../../results/json-value.ts";
import type { MetricData, MetricStep } from "../../results/metric-data.ts";
import type { MetricDetailView } from "../case-views.ts";

type StepView = MetricDetailView["steps"][number];

/**
 * The steps of a metric result: its recorded `steps`, or — for results stored before steps
 * were kept — read back from `verboseLogs` (`Label:\n<JSON>` blocks). Text that is not in
 * that form is one text step.
 */
export function stepsOf(metric: Pick<MetricData, "steps" | "verboseLogs">): MetricStep[] | string {
  if (metric.steps !== undefined) return metric.steps;
  const text = metric.verboseLogs;
  if (text.trim() === "") return [];
  const steps: MetricStep[] = [];
  // JSON written with indentation never holds a blank line, so blank lines split the blocks.
  for (const block of text.split("\n\n")) {
    const colon = block.indexOf(":\n");
    if (colon <= 0) return text;
    try {
      steps.push({ label: block.slice(0, colon), value: JSON.parse(block.slice(colon + 2)) });
    } catch {
      return text;
    }
  }
  return steps;
}

function isStringList(value: JsonValue): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isObjectList(value: JsonValue): value is Array<{ [key: string]: JsonValue }> {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === "object" && item !== null && !Array.isArray(item))
  );
}

function isVerdictList(value: JsonValue): value is Array<{ [key: string]: JsonValue }> {
  return isObjectList(value) && value.every((item) => "verdict" in item);
}

/** `"Opinions"` → `"opinion"`: the column of one item. */
function singular(label: string): string {
  const word = label.trim().toLowerCase();
  return word.length > 1 && word.endsWith("s") ? word.slice(0, -1) : word || "item";
}

function cell(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The verdict a step says counts against the output, when it says one. */
function flaggedOf(step: MetricStep): { flaggedVerdict?: string } {
  return step.flaggedVerdict === undefined ? {} : { flaggedVerdict: step.flaggedVerdict };
}

function columnsOf(items: ReadonlyArray<{ [key: string]: JsonValue }>): string[] {
  const columns = new Set<string>();
  for (const item of items) for (const key of Object.keys(item)) columns.add(key);
  return [...columns];
}

/**
 * A metric's steps as the case page shows them: a list of extracted items followed by one
 * verdict per item becomes one table (opinion → verdict → reason); other lists are tables of
 * their own; anything else is text.
 */
export function toStepViews(metric: Pick<MetricData, "steps" | "verboseLogs">): StepView[] {
  const steps = stepsOf(metric);
  if (typeof steps === "string") return [{ label: "Steps", text: steps }];
  const views: StepView[] = [];
  for (let position = 0; position < steps.length; position++) {
    const step = steps[position] as MetricStep;
    const next = steps[position + 1];
    if (
      isStringList(step.value) &&
      next !== undefined &&
      isVerdictList(next.value) &&
      next.value.length === step.value.length
    ) {
      const verdicts = next.value;
      const columns = columnsOf(verdicts);
      const items = step.value;
      views.push({
        label: `${step.label} and ${next.label}`,
        columns: [singular(step.label), ...columns],
        rows: items.map((item, row) => [
          item,
          ...columns.map((column) => cell(verdicts[row]?.[column])),
        ]),
        ...flaggedOf(next),
      });
      position += 1;
    } else if (isStringList(step.value)) {
      views.push({
        label: step.label,
        columns: [singular(step.label)],
        rows: step.value.map((item) => [item]),
      });
    } else if (isObjectList(step.value)) {
      const items = step.value;
      const columns = columnsOf(items);
      views.push({
        label: step.label,
        columns,
        rows: items.map((item) => columns.map((column) => cell(item[column]))),
        ...flaggedOf(step),
      });
    } else {
      const value = step.value;
      views.push({
        label: step.label,
        text: typeof value === "string" ? value : JSON.stringify(value, null, 2),
      });
    }
  }
  return views;
}
