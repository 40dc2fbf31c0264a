import { caseOutcome, metricsOfCase } from "../../results/case-metrics.ts";
import type { TestResult } from "../../results/evaluation-result.ts";
import type { CaseRow } from "../case-views.ts";

/** How many characters of input and output a table row carries. */
const ROW_TEXT_LENGTH = 200;

/** The group of a case without a file (`group=file`). */
export const NO_FILE_GROUP = "(no file)";
/** The group of a case without tags (`group=tag`). */
export const UNTAGGED_GROUP = "untagged";

/** A case as the table queries read it: its row, and what sorting and searching look at. */
export interface CaseEntry {
  result: TestResult;
  key: string;
  /** 1-based place in run order. */
  position: number;
  status: CaseRow["status"];
  /** Name, input, outputs, reasons and errors, lower-cased: what `q` searches. */
  haystack: string;
  row: CaseRow;
}

/** The key of a case in URLs: its `index`, unique within a run. */
export function caseKeyOf(result: Pick<TestResult, "index">): string {
  return String(result.index);
}

function clip(text: string): string {
  if (text.length <= ROW_TEXT_LENGTH) return text;
  // Never half a surrogate pair: an emoji cut in two shows as a broken character.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(ROW_TEXT_LENGTH - 1))
    ? ROW_TEXT_LENGTH - 1
    : ROW_TEXT_LENGTH;
  return text.slice(0, end);
}

/** A case's table row. */
export function toCaseRow(result: TestResult, position: number): CaseRow {
  const metrics: CaseRow["metrics"] = {};
  for (const metric of result.metricsData) {
    metrics[metric.name] = {
      score: metric.score,
      success: metric.success,
      threshold: metric.threshold,
      error: metric.error,
    };
  }
  return {
    key: caseKeyOf(result),
    position,
    name: result.name,
    status: caseOutcome(result),
    input: clip(result.input),
    actualOutput: result.actualOutput === null ? null : clip(result.actualOutput),
    expectedOutput: result.expectedOutput === null ? null : clip(result.expectedOutput),
    textLengths: {
      input: result.input.length,
      actualOutput: result.actualOutput?.length ?? null,
      expectedOutput: result.expectedOutput?.length ?? null,
    },
    file: result.file ?? null,
    tags: result.tags ?? [],
    metrics,
    durationMs: result.durationMs ?? null,
  };
}

/** A case's entry (its row and search text); `position` is its 1-based place in run order. */
export function toCaseEntry(result: TestResult, position: number): CaseEntry {
  const parts = [result.name, result.input, result.actualOutput ?? "", result.expectedOutput ?? ""];
  for (const metric of metricsOfCase(result)) {
    if (metric.reason !== null) parts.push(metric.reason);
    if (metric.error !== null) parts.push(metric.error);
  }
  const row = toCaseRow(result, position);
  return {
    result,
    key: row.key,
    position,
    status: row.status,
    haystack: parts.join("\n").toLowerCase(),
    row,
  };
}

/** The groups of a case under `group=file` or `group=tag` (a case has one per tag). */
export function groupsOf(entry: CaseEntry, group: "file" | "tag"): string[] {
  if (group === "file") return [entry.result.file ?? NO_FILE_GROUP];
  const tags = entry.result.tags ?? [];
  return tags.length === 0 ? [UNTAGGED_GROUP] : [...new Set(tags)];
}
