// The conformance report as people read it (a markdown table per metric, then each
// disagreement with both sides), and the check `--min-agreement` makes of it.
import type { StaleAnswer } from "./recorded-judge.ts";
import type { Agreement, ConformanceReport } from "./run-conformance.ts";
import { describeObserved } from "./user-expectations.ts";

/** Said first and last whenever the fake judge ran the set. */
export const FAKE_JUDGE_WARNING =
  "FAKE JUDGE: plumbing only. The fake judge does not read the text (one item per step, every " +
  'verdict the one that finds nothing wrong: "no", "idk", or "yes" for the RAG metrics), so ' +
  "these figures say nothing about the prompts. Run " +
  "`npm run conformance -- --model openai:gpt-4.1` (or any judge verdict accepts) for real agreement.";

function percent(agreement: Agreement): string {
  return agreement.agreement === null
    ? "—"
    : `${agreement.agree}/${agreement.checked} (${(agreement.agreement * 100).toFixed(0)}%)`;
}

/** A metric below the threshold, on one dimension. */
export interface AgreementShortfall {
  metric: string;
  dimension: "pass/fail" | "score";
  agreement: number;
}

/**
 * Every metric whose pass/fail or score agreement is below `minAgreement` (0–1); a dimension
 * no example of the metric states is not checked.
 */
export function shortfalls(report: ConformanceReport, minAgreement: number): AgreementShortfall[] {
  return report.perMetric.flatMap((row) =>
    (
      [
        ["pass/fail", row.pass],
        ["score", row.score],
      ] as const
    ).flatMap(([dimension, agreement]) =>
      agreement.agreement !== null && agreement.agreement < minAgreement
        ? [{ metric: row.metric, dimension, agreement: agreement.agreement }]
        : [],
    ),
  );
}

/** The report as markdown: the agreement table, then every disagreement and error. */
export function formatConformanceReport(
  report: ConformanceReport,
  extra: { stale?: readonly StaleAnswer[]; replayFile?: string } = {},
): string {
  const lines: string[] = [];
  if (report.fakeJudge) lines.push(FAKE_JUDGE_WARNING, "");
  lines.push(
    "| metric | examples | agree | errors | agreement | pass/fail agreement | score agreement |",
    "|---|---|---|---|---|---|---|",
    ...report.perMetric.map(
      (row) =>
        `| ${row.metric} | ${row.examples} | ${row.agree} | ${row.errors} | ${(row.agreement * 100).toFixed(0)}% | ${percent(row.pass)} | ${percent(row.score)} |`,
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
      if (outcome.error === null) {
        lines.push(
          `  expected: ${outcome.expectation || outcome.expected}`,
          `  observed: ${describeObserved(outcome.result)}`,
          `  differs:  ${outcome.misses.join("; ")}`,
        );
      }
    }
  }
  const stale = extra.stale ?? [];
  if (stale.length > 0) {
    const ids = [...new Set(stale.map((answer) => answer.example))];
    lines.push(
      "",
      `Replayed ${stale.length} answer${stale.length === 1 ? "" : "s"} recorded for a prompt that has changed since (${ids.join(", ")}): these examples are re-scored from the old answers; record them again with a real judge to test the new prompts.`,
    );
  }
  const cost = report.costUsd === null ? "cost not reported" : `$${report.costUsd.toFixed(4)}`;
  const replayed = extra.replayFile === undefined ? "" : ` (replayed from ${extra.replayFile})`;
  lines.push("", `Judge: ${report.judge}${replayed} · ${report.judgeCalls} judge calls · ${cost}`);
  if (report.fakeJudge) lines.push("", FAKE_JUDGE_WARNING);
  return lines.join("\n");
}
