/**
 * How every report (console, HTML, JUnit, progress bar, `verdict compare`/`view`, assertion
 * errors) prints numbers and text: one function per kind of value, so that the same number
 * reads the same wherever it appears.
 *
 * It imports nothing, so the dashboard's browser app (src/view/app/) formats with it too;
 * `truncateText`, which masks secrets first, lives in truncate-text.ts.
 */

/** What a report shows in place of a value it does not have: a score, a rate, an ETA. */
export const MISSING_VALUE = "–";

// Characters that act instead of showing: C0 controls (but newline and tab), DEL, C1 controls,
// and the bidi controls (U+061C, U+200E/F, U+202A–E, U+2066–9), which reorder the text after
// them on screen, so that a name can read "invoice.exe" while it is "invoice\u202Etxt.exe".
const HIDDEN_CHARACTERS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// In a name, which reports print on one line, line breaks and tabs are hidden characters too.
const HIDDEN_IN_NAMES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * A run's status in words that say what the run did, never whether its tests passed: a run
 * can finish every case and still fail, so a report shows this beside its pass/fail verdict
 * and the two cannot read as a contradiction ("run finished" beside "✗ FAIL", never
 * "COMPLETED").
 */
export function describeRunStatus(
  status:
    | "running"
    | "completed"
    | "interrupted"
    | "quota-exhausted"
    | "budget-exhausted"
    | "failed",
): string {
  switch (status) {
    case "running":
      return "run in progress";
    case "completed":
      return "run finished: every case ran";
    case "interrupted":
      return "run interrupted before every case ran";
    case "quota-exhausted":
      return "run stopped: the judge's quota ran out";
    case "budget-exhausted":
      return "run stopped: its budget ran out";
    case "failed":
      return "run stopped by an error";
    default:
      return `run ${String(status)}`;
  }
}

/** What {@link describeRunStatus} is, for a tooltip or a screen reader. */
export const RUN_STATUS_MEANING =
  "Whether the run went through all its cases; whether they passed is the test verdict.";

/** `1,234`, the same in every locale. */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** `"1 judge call"`, `"1,234 judge calls"`: the count, then the noun, plural unless 1. */
export function formatPlural(value: number, noun: string): string {
  return `${formatCount(value)} ${noun}${value === 1 ? "" : "s"}`;
}

/** A score or threshold with two decimals, like `0.50`; {@link MISSING_VALUE} when there is none. */
export function formatScore(value: number | null): string {
  return value === null ? MISSING_VALUE : value.toFixed(2);
}

/**
 * `"score 0.80 > threshold 0.50"`: two decimals, more (up to six) when the two would otherwise
 * print alike although they differ.
 */
export function formatScoreAgainstThreshold(score: number, threshold: number): string {
  const sign = score > threshold ? ">" : score < threshold ? "<" : "=";
  let digits = 2;
  while (digits < 6 && score !== threshold && score.toFixed(digits) === threshold.toFixed(digits)) {
    digits += 1;
  }
  return `score ${score.toFixed(digits)} ${sign} threshold ${threshold.toFixed(digits)}`;
}

/** A pass rate from 0 to 1 as a percentage with one decimal, like `66.7%`; {@link MISSING_VALUE} when there is none. */
export function formatPassRate(rate: number | null): string {
  return rate === null ? MISSING_VALUE : `${(rate * 100).toFixed(1)}%`;
}

/** A p-value like `p = 0.012`, or `p < 0.001`. */
export function formatPValue(pValue: number): string {
  return pValue < 0.001 ? "p < 0.001" : `p = ${pValue.toFixed(3)}`;
}

/** A score interval like `0.55–0.70`; `""` when there is none. */
export function formatScoreInterval(
  interval: readonly [number, number] | null | undefined,
): string {
  return interval ? `${interval[0].toFixed(2)}–${interval[1].toFixed(2)}` : "";
}

/** A rate interval like `65.2–89.5%`; `""` when there is none. */
export function formatRateInterval(interval: readonly [number, number] | null | undefined): string {
  return interval ? `${(interval[0] * 100).toFixed(1)}–${(interval[1] * 100).toFixed(1)}%` : "";
}

/**
 * A training measurement (a loss, an accuracy, a learning rate) with four significant digits,
 * like `0.2358`, `12.35` or `3.000e-5`; whole numbers as they are.
 */
export function formatMeasurement(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 1e-3 && Math.abs(value) < 1e6
    ? String(Number(value.toPrecision(4)))
    : value.toExponential(3);
}

/** A difference of two pass rates in percentage points, like `33.3 pts` (no sign). */
export function formatRatePoints(difference: number): string {
  return `${(difference * 100).toFixed(1)} pts`;
}

/** USD like `$0.0123`; `<$0.0001` for a cost too small to show; `"unknown"` when `null`. */
export function formatCostUsd(costUsd: number | null): string {
  if (costUsd === null) return "unknown";
  // A few cached tokens cost less than the last digit shown: "$0.0000" would read as free.
  if (costUsd > 0 && costUsd < 0.00005) return "<$0.0001";
  return `$${costUsd.toFixed(4)}`;
}

/** Input and output tokens, like `1,200 in · 80 out`; {@link MISSING_VALUE} when both are unknown. */
export function formatTokens(inputTokens: number | null, outputTokens: number | null): string {
  if (inputTokens === null && outputTokens === null) return MISSING_VALUE;
  return `${formatCount(inputTokens ?? 0)} in · ${formatCount(outputTokens ?? 0)} out`;
}

/** How long something took, like `0.4s`, `12.3s`, `2m 05s` or `1h 02m 03s`. */
export function formatDuration(durationMs: number): string {
  const milliseconds = Math.max(0, durationMs);
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)}s`;
  const { hours, minutes, seconds } = splitSeconds(milliseconds);
  if (hours === 0) return `${minutes}m ${seconds}s`;
  return `${hours}h ${String(minutes).padStart(2, "0")}m ${seconds}s`;
}

/**
 * A running time on a clock face, `m:ss` or from an hour on `h:mm:ss`, as progress bars show
 * elapsed time and ETA; {@link MISSING_VALUE} when it is not finite (no rate yet).
 */
export function formatClock(durationMs: number): string {
  if (!Number.isFinite(durationMs)) return MISSING_VALUE;
  const { hours, minutes, seconds } = splitSeconds(Math.max(0, durationMs));
  if (hours === 0) return `${minutes}:${seconds}`;
  return `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
}

function splitSeconds(milliseconds: number): { hours: number; minutes: number; seconds: string } {
  const totalSeconds = Math.round(milliseconds / 1000);
  return {
    hours: Math.floor(totalSeconds / 3600),
    minutes: Math.floor((totalSeconds % 3600) / 60),
    seconds: String(totalSeconds % 60).padStart(2, "0"),
  };
}

/** Text on one line: every run of white space (newlines too) becomes one space, ends trimmed. */
export function toOneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** How a hidden character is shown: `<U+202E>`, its code point as Unicode writes it. */
export function showCodePoint(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * Shows the characters that would act instead of showing as `<U+XXXX>` — C0 and C1 controls
 * (but newline and tab), DEL, and the bidi controls such as the right-to-left override
 * U+202E — so that text from test cases or the judge can neither move a terminal's cursor or
 * change its colours, nor reorder or hide what a reader sees. `\r\n` becomes `\n`; a lone
 * `\r` is shown as `<U+000D>`. Every report (console, HTML, JUnit, the dashboard) uses it.
 * @example
 * showControlCharacters("invoice\u202Etxt.exe"); // "invoice<U+202E>txt.exe"
 */
export function showControlCharacters(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(HIDDEN_CHARACTERS, showCodePoint);
}

// SGR sequences, which only set colours and styles: `ESC [ … m`.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching colour codes is the point
const COLOUR_CODES = /\u001b\[[0-9;]*m/g;

/**
 * Text without the colour codes a tool wrote into it (Vite's parser colours its errors):
 * dropped rather than shown as `<U+001B>[31m`. Other control sequences stay, for
 * {@link showControlCharacters} to show.
 * @example
 * stripColourCodes("\u001b[31m[PARSE_ERROR]\u001b[0m Unexpected token"); // "[PARSE_ERROR] Unexpected token"
 */
export function stripColourCodes(text: string): string {
  return text.replace(COLOUR_CODES, "");
}

/**
 * A name as reports print it on one line — run id and identifier, case, metric, file, tag:
 * as {@link showControlCharacters}, and line breaks and tabs shown as `<U+000A>`, `<U+0009>`
 * too, so that a name cannot draw a line of the report that is not there.
 */
export function showName(text: string): string {
  return text.replace(HIDDEN_IN_NAMES, showCodePoint);
}

/**
 * A provider batch as progress shows it: `"batch_abc in_progress 1,200/2,000 done, 3 failed"`
 * (counts when the provider gave them, else the number of requests).
 */
export function formatBatchState(batch: {
  batchId: string | null;
  providerStatus: string | null;
  lines: number;
  counts: { total: number; completed: number; failed: number } | null;
}): string {
  const { counts } = batch;
  const done =
    counts === null || counts.total === 0
      ? formatPlural(batch.lines, "request")
      : `${formatCount(counts.completed)}/${formatCount(counts.total)} done` +
        (counts.failed > 0 ? `, ${formatCount(counts.failed)} failed` : "");
  return [batch.batchId ?? "batch", batch.providerStatus ?? MISSING_VALUE, done].join(" ");
}
