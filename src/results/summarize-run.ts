import { caseStatus, type MetricStatus, metricStatus, metricsOfCase } from "./case-metrics.ts";
import type {
  EvaluationSummary,
  FlakyCase,
  JudgeSpending,
  MetricSummary,
  RunStatus,
  TestResult,
} from "./evaluation-result.ts";
import { usesFakeJudge } from "./fake-judge-notice.ts";
import { snapshotSpending } from "./spending.ts";
import { BOOTSTRAP_RESAMPLES, bootstrapMeanInterval, wilsonInterval } from "./statistics.ts";

/**
 * Bootstrap draws per metric at most: a run of 10,000 cases gets 200 resamples instead of 2,000
 * (at that size the interval is as narrow as the data allows, and the summary stays ~10 ms).
 */
const MAX_BOOTSTRAP_DRAWS = 2_000_000;
const MIN_BOOTSTRAP_RESAMPLES = 200;

/** Per-metric aggregates over every trial of every case, in the order metrics first appear. */
export function summarizeMetrics(testResults: readonly TestResult[]): MetricSummary[] {
  const tally = new RunTally({ order: "added" });
  for (const result of testResults) tally.add(result);
  return tally.metricSummaries();
}

/**
 * Cases of a `repeat` run with some trials passed and some not, in run order, each with a 95%
 * Wilson interval of its pass rate; its place counted from 1 in run (index) order.
 */
export function findFlakyCases(testResults: readonly TestResult[]): FlakyCase[] {
  const tally = new RunTally({ order: "added" });
  for (const result of testResults) tally.add(result);
  return tally.flakyCases();
}

// Most serious first: a run made of parts ended as badly as its worst part.
const STATUS_SEVERITY: readonly RunStatus[] = [
  "failed",
  "quota-exhausted",
  "budget-exhausted",
  "interrupted",
  "running",
  "completed",
];

/**
 * The status of a run made of parts (CI shards, merged reports): the worst of theirs.
 * @example
 * worstRunStatus(["completed", "interrupted"]); // "interrupted"
 */
export function worstRunStatus(statuses: readonly RunStatus[]): RunStatus {
  return STATUS_SEVERITY.find((candidate) => statuses.includes(candidate)) ?? "completed";
}

/** The totals of a run from its results and what it spent on the judge. */
export function summarizeRun(options: {
  status: RunStatus;
  testResults: readonly TestResult[];
  /** Cases in the run, unscored ones included. @default testResults.length */
  total?: number;
  spending: JudgeSpending;
  durationMs: number;
}): EvaluationSummary {
  const tally = new RunTally({ order: "added" });
  for (const result of options.testResults) tally.add(result);
  return tally.summarize(options);
}

/** What the tally keeps of one metric: its scores by case, and how its results ended. */
interface MetricTally {
  lowerIsBetter: boolean;
  /** Where it first appeared: the case's order key, then its place among the case's metrics. */
  firstKey: number;
  firstPlace: number;
  /** The case's order key and the score of each scored result, side by side (flat numbers). */
  scoreKeys: number[];
  scores: number[];
  count: Record<MetricStatus, number>;
}

/**
 * A run's totals kept as its cases finish, in any order, without keeping the cases: a few
 * numbers per case (each metric's score and status, the case's index and success). What
 * `summarizeRun` computes from a list of results, for a run too large to keep them. With
 * `order: "index"` (default) the cases count in index order whatever order they finished in;
 * with `"added"`, in the order added (`summarizeRun`'s list order).
 * @example
 * const tally = new RunTally();
 * tally.add(result); // as each case finishes
 * const summary = tally.summarize({ status: "completed", total, spending, durationMs });
 */
export class RunTally {
  private readonly order: "index" | "added";
  private readonly metrics = new Map<string, MetricTally>();
  /** Each case's index, in the order added: a flaky case's place is its rank among them. */
  private readonly indices: number[] = [];
  private readonly flaky: Array<Omit<FlakyCase, "position"> & { sequence: number }> = [];
  private readonly judges = new Set<string>();
  private failed = 0;
  private errored = 0;
  private fake = false;

  constructor(options: { order?: "index" | "added" } = {}) {
    this.order = options.order ?? "index";
  }

  /** How many results were added. */
  get count(): number {
    return this.indices.length;
  }

  /** Counts one finished case (each case once). */
  add(result: TestResult): void {
    const sequence = this.indices.length;
    const key = this.order === "index" ? result.index : sequence;
    this.indices.push(result.index);
    if (result.success === false) this.failed += 1;
    if (caseStatus(result) === "errored") this.errored += 1;
    const trials = result.trials.length;
    if (trials >= 2 && result.passedTrials > 0 && result.passedTrials < trials) {
      this.flaky.push({
        sequence,
        name: result.name,
        passedTrials: result.passedTrials,
        trials,
        passRateInterval: wilsonInterval({ successes: result.passedTrials, trials }) as [
          number,
          number,
        ],
      });
    }
    if (!this.fake && usesFakeJudge([result])) this.fake = true;
    metricsOfCase(result).forEach((metric, position) => {
      if (metric.evaluationModel !== null) this.judges.add(metric.evaluationModel);
      let entry = this.metrics.get(metric.name);
      if (entry === undefined) {
        entry = {
          lowerIsBetter: metric.lowerIsBetter,
          firstKey: key,
          firstPlace: position,
          scoreKeys: [],
          scores: [],
          count: { passed: 0, failed: 0, errored: 0, "score-only": 0 },
        };
        this.metrics.set(metric.name, entry);
      } else if (key < entry.firstKey || (key === entry.firstKey && position < entry.firstPlace)) {
        // Cases finish in any order: a metric's place is that of its earliest case.
        entry.firstKey = key;
        entry.firstPlace = position;
        entry.lowerIsBetter = metric.lowerIsBetter;
      }
      if (metric.score !== null) {
        entry.scoreKeys.push(key);
        entry.scores.push(metric.score);
      }
      entry.count[metricStatus(metric)] += 1;
    });
  }

  /** Per-metric aggregates, in the order metrics first appear. */
  metricSummaries(): MetricSummary[] {
    const ordered = [...this.metrics.entries()].sort(
      ([, left], [, right]) => left.firstKey - right.firstKey || left.firstPlace - right.firstPlace,
    );
    return ordered.map(([name, entry]) => {
      // In case order (stable within a case): the bootstrap draws from the scores in the
      // order a list of results gives them, whatever order the cases finished in.
      const { scoreKeys } = entry;
      const order = scoreKeys.map((_, position) => position);
      order.sort(
        (left, right) => (scoreKeys[left] as number) - (scoreKeys[right] as number) || left - right,
      );
      const scores = order.map((position) => entry.scores[position] as number);
      const { count } = entry;
      const judged = count.passed + count.failed + count.errored;
      const resamples = Math.max(
        MIN_BOOTSTRAP_RESAMPLES,
        Math.min(BOOTSTRAP_RESAMPLES, Math.floor(MAX_BOOTSTRAP_DRAWS / Math.max(1, scores.length))),
      );
      return {
        name,
        lowerIsBetter: entry.lowerIsBetter,
        meanScore:
          scores.length === 0
            ? null
            : scores.reduce((sum, score) => sum + score, 0) / scores.length,
        passRate: judged === 0 ? null : count.passed / judged,
        meanScoreInterval: bootstrapMeanInterval({ values: scores, resamples }),
        passRateInterval: wilsonInterval({ successes: count.passed, trials: judged }),
        passed: count.passed,
        failed: count.failed,
        errored: count.errored,
        scoreOnly: count["score-only"],
      };
    });
  }

  /**
   * Cases with some trials passed and some not, in index order, each with a 95% Wilson
   * interval of its pass rate; its place counted from 1 among all cases in index order.
   */
  flakyCases(): FlakyCase[] {
    // A flaky case's place is counted from 1 among all cases in index order (ties in the
    // order they were added).
    if (this.flaky.length === 0) return [];
    const { indices } = this;
    // Cases by (index, order added): the sequence numbers sorted by that pair.
    const before = (left: number, right: number) =>
      (indices[left] as number) - (indices[right] as number) || left - right;
    const sorted = indices.map((_, sequence) => sequence).sort(before);
    const placeOf = (sequence: number) => {
      let low = 0;
      let high = sorted.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (before(sorted[middle] as number, sequence) < 0) low = middle + 1;
        else high = middle;
      }
      return low + 1;
    };
    return [...this.flaky]
      .sort((left, right) => before(left.sequence, right.sequence))
      .map(({ sequence, ...flaky }) => ({
        name: flaky.name,
        position: placeOf(sequence),
        passedTrials: flaky.passedTrials,
        trials: flaky.trials,
        passRateInterval: flaky.passRateInterval,
      }));
  }

  /** The run's summary: what `summarizeRun` gives for the same results. */
  summarize(options: {
    status: RunStatus;
    /** Cases in the run, unscored ones included. @default the cases added */
    total?: number;
    spending: JudgeSpending;
    durationMs: number;
  }): EvaluationSummary {
    const counted = this.indices.length;
    const total = options.total ?? counted;
    const flakyCases = this.flakyCases();
    return {
      status: options.status,
      metrics: this.metricSummaries(),
      testCases: {
        total,
        passed: counted - this.failed,
        failed: this.failed,
        unscored: total - counted,
        errored: this.errored,
      },
      judges: [...this.judges].sort(),
      ...snapshotSpending(options.spending),
      durationMs: options.durationMs,
      ...(flakyCases.length > 0 ? { flakyCases } : {}),
      ...(this.fake ? { fakeJudge: true as const } : {}),
    };
  }
}
