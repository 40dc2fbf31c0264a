import type {
  JudgeBatchEvent,
  RunEndEvent,
  RunnerEvent,
  RunReporter,
} from "../results/runner-events.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import {
  formatBatchState,
  formatClock,
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPlural,
  MISSING_VALUE,
} from "./format.ts";
import { truncateText } from "./truncate-text.ts";

/** Options of {@link createProgressReporter}. */
export interface ProgressReporterOptions {
  /** @default process.stderr */
  stream?: NodeJS.WritableStream;
  /**
   * Redraw one line in place (terminal) or print plain lines (CI logs).
   * @default stream.isTTY
   */
  isTTY?: boolean;
  /**
   * Not on a terminal: the least time between two progress lines.
   * @default 5000
   */
  intervalMs?: number;
  /** Current time in ms. @default Date.now */
  now?: () => number;
}

/** A progress reporter; `stop()` ends its output early (e.g. on SIGINT) and ignores later events. */
export type ProgressReporter = RunReporter & { stop(): void };

const BAR_WIDTH = 20;
// Thousands of cached cases can finish in a second; a terminal needs no more than 10 frames.
const TERMINAL_FRAME_MS = 100;
const TERMINAL_REFRESH_MS = 1000;
const CLEAR_TO_END_OF_LINE = "\u001b[K";

/**
 * Shows how far a run is: on a terminal, one line redrawn in place with a bar, counts, rate,
 * elapsed time, ETA, judge calls and cost, and the provider batches waited for (status and
 * counts); elsewhere (CI logs), a plain line at most every `intervalMs`, a line when a batch
 * is submitted, changes status or ends, and a last line when the run ends. It never throws and its timers do not keep
 * the process alive.
 * @example
 * const progress = createProgressReporter();
 * await evaluate({ testCases, metrics, reporters: [progress, createConsoleReporter()] });
 */
export function createProgressReporter(options: ProgressReporterOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const isTTY = options.isTTY ?? (stream as { isTTY?: unknown }).isTTY === true;
  const intervalMs = options.intervalMs ?? 5000;
  const now = options.now ?? Date.now;

  let total = 0;
  // False while the run still learns its size (a Vitest run collecting files): shown as "12+".
  let totalFinal = true;
  let finished = 0;
  // Rate and ETA count only cases finished by this process, whether or not `finished` includes
  // resumed ones.
  let finishedHere = 0;
  let judgeCalls = 0;
  let costUsd: number | null = 0;
  let startedAt: number | null = null;
  let lastOutputAt = Number.NEGATIVE_INFINITY;
  let lineOpen = false;
  let pendingProgress = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  /** Provider batches not ended yet, by id, as last reported. */
  const batches = new Map<string, JudgeBatchEvent>();

  const write = (text: string) => {
    try {
      stream.write(redactSecretText(text));
    } catch {
      // A closed stream must not fail the run that is being reported on.
    }
  };
  const clearTimer = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const startTimer = (callback: () => void, delayMs: number, repeat: boolean) => {
    const guarded = () => {
      try {
        callback();
      } catch {
        // Same as write(): progress output is never worth an uncaught exception.
      }
    };
    timer = repeat ? setInterval(guarded, delayMs) : setTimeout(guarded, delayMs);
    timer.unref();
  };

  /** `final`: the run is over, so an ETA means nothing and the elapsed time is the run's. */
  const progressText = (final: { durationMs: number } | null) => {
    const elapsedMs =
      final?.durationMs ?? (startedAt === null ? 0 : Math.max(0, now() - startedAt));
    const rate = elapsedMs > 0 ? finishedHere / (elapsedMs / 1000) : 0;
    const percent = total > 0 ? Math.min(100, Math.floor((finished / total) * 100)) : 100;
    const parts = [
      totalFinal
        ? `${formatCount(finished)}/${formatCount(total)} test cases (${percent}%)`
        : `${formatCount(finished)}/${formatCount(total)}+ test cases`,
    ];
    if (final !== null) parts[0] += ` in ${formatDuration(elapsedMs)}`;
    parts.push(`${rate.toFixed(1)}/s`);
    if (final === null) {
      if (isTTY) parts.push(`${formatClock(elapsedMs)} elapsed`);
      const remainingMs = ((total - finished) / rate) * 1000;
      const knowsEnd = totalFinal && rate > 0 && finished < total;
      parts.push(`ETA ${knowsEnd ? formatClock(remainingMs) : MISSING_VALUE}`);
    }
    parts.push(formatPlural(judgeCalls, "judge call"));
    parts.push(costUsd === null ? "cost unknown" : formatCostUsd(costUsd));
    if (final === null && isTTY) {
      for (const batch of batches.values()) parts.push(formatBatchState(batch));
    }
    return parts.join(" · ");
  };

  const drawBar = (final: { durationMs: number } | null = null) => {
    const filled = total > 0 ? Math.min(BAR_WIDTH, Math.round((finished / total) * BAR_WIDTH)) : 0;
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
    const line = fitToWidth(`verdict ${bar} ${progressText(final)}`, stream);
    write(`\r${line}${CLEAR_TO_END_OF_LINE}`);
    lineOpen = true;
    lastOutputAt = now();
  };

  const printLine = () => {
    write(`verdict: ${progressText(null)}\n`);
    lastOutputAt = now();
    pendingProgress = false;
  };

  const onRunEnd = (event: RunEndEvent) => {
    clearTimer();
    const { summary } = event.result;
    judgeCalls = summary.judgeCalls;
    costUsd = summary.costUsd;
    if (!totalFinal) total = Math.max(total, summary.testCases.total);
    // A count known up front may be of tests, not cases (a test asserting twice is two cases):
    // never end on "4/3".
    total = Math.max(total, finished);
    totalFinal = true;
    if (total === 0) {
      write(`verdict: no test cases to evaluate${statusSuffix(summary.status)}\n`);
      return;
    }
    const final = { durationMs: summary.durationMs };
    if (isTTY) {
      drawBar(final);
      write(`${statusSuffix(summary.status)}\n`);
    } else {
      write(`verdict: ${progressText(final)}${statusSuffix(summary.status)}\n`);
    }
    lineOpen = false;
  };

  const handle = (event: RunnerEvent) => {
    if (event.type === "run-start") {
      clearTimer();
      total = event.totalTestCases;
      totalFinal = event.totalFinal ?? true;
      finished = event.resumedTestCases;
      finishedHere = 0;
      judgeCalls = 0;
      costUsd = 0;
      startedAt = now();
      if (total === 0) return;
      if (isTTY) {
        drawBar();
        startTimer(() => drawBar(), TERMINAL_REFRESH_MS, true);
      } else {
        const resumed =
          event.resumedTestCases > 0 ? ` (${formatCount(event.resumedTestCases)} resumed)` : "";
        // A Vitest run learns its metrics as tests run: no count is better than a wrong one.
        const metrics = event.metricNames.length;
        const withMetrics = metrics === 0 ? "" : ` with ${formatPlural(metrics, "metric")}`;
        const more = totalFinal ? "" : " so far (more as files are collected)";
        write(
          `verdict: evaluating ${formatPlural(total, "test case")}${more}${resumed}${withMetrics}\n`,
        );
        lastOutputAt = now();
      }
    } else if (event.type === "test-case-end") {
      finished = event.finished;
      finishedHere += 1;
      if (event.totalTestCases !== undefined) total = event.totalTestCases;
      if (event.totalFinal !== undefined) totalFinal = event.totalFinal;
      total = Math.max(total, finished);
      judgeCalls = event.judgeCalls;
      costUsd = event.costUsd;
      const sinceLastOutput = now() - lastOutputAt;
      if (isTTY) {
        if (sinceLastOutput >= TERMINAL_FRAME_MS || finished >= total) drawBar();
      } else if (sinceLastOutput >= intervalMs || finishedHere === 1) {
        // The first case is shown at once: the run works, and its pace is known.
        printLine();
      } else {
        pendingProgress = true;
        // Without it, the last cases of a burst would stay unreported until the next one.
        if (timer === null) {
          startTimer(
            () => {
              timer = null;
              if (pendingProgress) printLine();
            },
            intervalMs - sinceLastOutput,
            false,
          );
        }
      }
    } else if (event.type === "judge-batch") {
      onBatch(event);
    } else if (event.type === "run-end") {
      onRunEnd(event);
    }
  };

  const onBatch = (event: JudgeBatchEvent) => {
    const key = event.batchId ?? "";
    const previous = batches.get(key);
    if (event.event === "ended" || event.event === "direct") batches.delete(key);
    else batches.set(key, event);
    if (isTTY) {
      if (lineOpen) drawBar();
      return;
    }
    // In a log, a line for what changes: a new batch, a new status, the end, a fallback.
    if (event.event === "status" && previous?.providerStatus === event.providerStatus) return;
    const what =
      event.event === "direct"
        ? (event.message ?? `${formatPlural(event.lines, "request")} sent directly`)
        : `${event.event === "status" ? "batch" : `batch ${event.event}`}: ${formatBatchState(event)} (${event.judge})`;
    write(`verdict: ${what}\n`);
    lastOutputAt = now();
  };

  return {
    onEvent(event) {
      if (stopped) return;
      try {
        handle(event);
      } catch {
        // A malformed event must not fail the run; the console report still tells the outcome.
      }
    },
    stop() {
      stopped = true;
      clearTimer();
      if (lineOpen) write("\n");
      lineOpen = false;
    },
  };
}

function statusSuffix(status: string): string {
  return status === "completed" || status === "running" ? "" : ` · ${status}`;
}

/** A line longer than the terminal wraps, and `\r` then redraws only its last part. */
function fitToWidth(line: string, stream: NodeJS.WritableStream): string {
  const columns = (stream as { columns?: unknown }).columns;
  if (typeof columns !== "number" || columns <= 1) return line;
  return truncateText(line, columns - 1);
}
