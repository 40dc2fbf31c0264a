import type { CostEstimate, EstimateRange, SpendEstimate } from "../results/cost-estimate.ts";
import { renderTable } from "./console/render-table.ts";
import { formatCostUsd, formatCount, formatPlural, showName } from "./format.ts";

/** Options of {@link renderCostEstimate}. */
export interface RenderCostEstimateOptions {
  estimate: CostEstimate;
  /** The run's cost cap, said beside the estimate when given. */
  maxCostUsd?: number | undefined;
  /** Columns to fit the table in. @default 80 */
  width?: number;
}

const whole = (value: number) => formatCount(Math.round(value));

/** `600–1,800`: a range's low and high; one value when they are the same. */
function rangeText(range: EstimateRange, format: (value: number) => string = whole): string {
  const low = format(range.low);
  const high = format(range.high);
  return low === high ? low : `${low}–${high}`;
}

/**
 * A dry run's estimate as plain text: a table of the judge calls, prompt and completion
 * tokens and cost each metric and the run are expected to spend (with the range the estimate
 * is unsure about), then what the cache and shared requests save, and the judges without a
 * known price.
 * @example
 * const estimate = await evaluate({ testCases, metrics, dryRun: true, display: "none" });
 * console.log(renderCostEstimate({ estimate }));
 */
export function renderCostEstimate(options: RenderCostEstimateOptions): string {
  const { estimate } = options;
  const trials = estimate.trials === 1 ? "" : ` × ${formatPlural(estimate.trials, "trial")}`;
  const lines = [
    `Dry run: no judge was called. What ${formatPlural(estimate.testCases, "test case")}${trials} × ${formatPlural(estimate.metrics.length, "metric")} are expected to spend on judge calls, and the range (low–high) it may fall in:`,
  ];
  if (estimate.resumedTestCases > 0) {
    lines.push(
      `${formatPlural(estimate.resumedTestCases, "test case")} the resumed run already finished ${estimate.resumedTestCases === 1 ? "is" : "are"} not counted.`,
    );
  }
  // Two rows each: what is expected, then the range (numbers never wrap).
  const rows = (name: string, spend: SpendEstimate) => [
    [
      name,
      whole(spend.judgeCalls.expected),
      whole(spend.inputTokens.expected),
      whole(spend.outputTokens.expected),
      spend.costUsd === null ? "unknown" : formatCostUsd(spend.costUsd.expected),
    ],
    [
      "range",
      rangeText(spend.judgeCalls),
      rangeText(spend.inputTokens),
      rangeText(spend.outputTokens),
      spend.costUsd === null ? "" : rangeText(spend.costUsd, formatCostUsd),
    ],
  ];
  lines.push(
    ...renderTable({
      columns: [
        { header: "metric", align: "left", wrap: true },
        { header: "calls", align: "right" },
        { header: "input tokens", align: "right" },
        { header: "output tokens", align: "right" },
        { header: "cost", align: "right" },
      ],
      rows: [
        ...estimate.metrics.flatMap((metric) => rows(showName(metric.name), metric)),
        ...rows("total", estimate.total),
      ],
      color: false,
      indent: "",
      width: options.width ?? 80,
    }),
  );
  const { total } = estimate;
  const free: string[] = [];
  if (estimate.cacheLookedUp) {
    free.push(`${formatPlural(total.cacheHits, "request")} in the judge cache`);
  }
  if (total.sharedCalls >= 0.5) {
    free.push(
      `${formatPlural(Math.round(total.sharedCalls), "request")} asked twice or more (paid once)`,
    );
  }
  if (free.length > 0) lines.push(`Free: ${free.join("; ")}.`);
  if (!estimate.cacheLookedUp)
    lines.push("The judge cache was not looked up (cache off, or no store yet).");
  if (estimate.batch) lines.push("Priced at the batch discount (50%) for judges with a batch API.");
  if (estimate.unpricedJudges.length > 0) {
    const names = estimate.unpricedJudges.map((name) => `"${showName(name)}"`).join(", ");
    lines.push(
      `Cost unknown: verdict has no price for ${names}. Give it one (createJudge({ model, prices }), or a JudgeModel's price) to see the cost.`,
    );
  }
  const share =
    options.maxCostUsd === undefined
      ? null
      : describeBudgetShare({ estimate, maxCostUsd: options.maxCostUsd });
  if (share !== null) lines.push(share);
  lines.push(
    "Tokens are estimated at 4 characters a token; steps after the first are estimated from each case's text (see docs/cost.md).",
  );
  return lines.join("\n");
}

/**
 * `Budget $5.0000: the expected cost is 38% of it (20%–95%).`: how an estimate compares with a
 * cost cap; `null` when the cost is unknown.
 */
export function describeBudgetShare(options: {
  estimate: CostEstimate;
  maxCostUsd: number;
}): string | null {
  const cost = options.estimate.total.costUsd;
  if (cost === null) return null;
  const share = (value: number) => `${Math.round((value / options.maxCostUsd) * 100)}%`;
  return `Budget ${formatCostUsd(options.maxCostUsd)}: the expected cost is ${share(cost.expected)} of it (${share(cost.low)}–${share(cost.high)}).`;
}
