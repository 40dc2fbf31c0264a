import type { VerdictChange } from "./find-changes.ts";
import { formatCount, showName } from "./format.ts";
import { diffWords, formatWordDiff } from "./word-diff.ts";

/** Changed cases whose outputs `verdict compare` prints, at most. */
export const MAX_OUTPUTS_SHOWN = 20;
/** Characters of each output (and of the diff) printed. */
const MAX_OUTPUT_LENGTH = 1_000;

/**
 * The outputs of the cases that changed verdict, as `verdict compare` prints them: each case
 * once (however many of its metrics changed), its baseline and candidate outputs and their
 * word diff (`[-removed-]{+added+}`), then each changed metric's two reasons. Long texts are
 * cut. The texts come from stored results and reports, masked when they were written (this
 * module loads nothing that needs Node: the dashboard's types reach it through compare-runs).
 * Nothing when no case changed.
 */
export function renderChangedOutputs(changes: readonly VerdictChange[]): string[] {
  const byCase = new Map<string, VerdictChange[]>();
  for (const change of changes) {
    const key = `${change.baselineIndex}\u0000${change.candidateIndex}`;
    byCase.set(key, [...(byCase.get(key) ?? []), change]);
  }
  if (byCase.size === 0) return [];
  const cases = [...byCase.values()];
  const shown = cases.slice(0, MAX_OUTPUTS_SHOWN);
  const lines = [
    `Outputs of the test cases that changed verdict (baseline, then candidate; [-removed-] {+added+} words):`,
  ];
  for (const group of shown) {
    const first = group[0] as VerdictChange;
    const same = first.baselineOutput === first.candidateOutput;
    lines.push(
      "",
      `  ${showName(first.testCase)}`,
      ...field("baseline output", first.baselineOutput),
      ...(same
        ? ["    candidate output: the same"]
        : field("candidate output", first.candidateOutput)),
    );
    const diff = same ? null : diffWords(first.baselineOutput, first.candidateOutput);
    if (diff !== null) lines.push(...field("word diff", formatWordDiff(diff)));
    for (const change of group) {
      lines.push(
        `    ${showName(change.metric)} ${change.from} → ${change.to}:`,
        ...field("  baseline reason", change.baselineReason),
        ...field("  candidate reason", change.candidateReason),
      );
    }
  }
  if (cases.length > shown.length) {
    lines.push(
      "",
      `  (${formatCount(cases.length - shown.length)} more changed cases not shown: open the comparison in verdict view)`,
    );
  }
  lines.push("");
  return lines;
}

/** `    label: text`, its further lines indented under it. */
function field(label: string, text: string | null): string[] {
  if (text === null) return [`    ${label}: (none)`];
  const [first = "", ...rest] = cut(text, MAX_OUTPUT_LENGTH).split("\n");
  return [`    ${label}: ${first}`, ...rest.map((line) => `      ${line}`)];
}

/** At most `maxLength` code points, `…` added when cut. */
function cut(text: string, maxLength: number): string {
  const characters = Array.from(text);
  if (characters.length <= maxLength) return text;
  return `${characters
    .slice(0, maxLength - 1)
    .join("")
    .trimEnd()}…`;
}
