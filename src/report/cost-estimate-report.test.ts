import { describe, expect, it } from "vitest";
import type { CostEstimate, SpendEstimate } from "../results/cost-estimate.ts";
import { renderCostEstimate } from "./cost-estimate-report.ts";

const spend = (calls: number, costUsd: number | null): SpendEstimate => ({
  judgeCalls: { low: calls / 2, expected: calls, high: calls * 2 },
  inputTokens: { low: 100 * calls, expected: 200 * calls, high: 400 * calls },
  outputTokens: { low: 5 * calls, expected: 10 * calls, high: 50 * calls },
  costUsd: costUsd === null ? null : { low: costUsd / 2, expected: costUsd, high: costUsd * 3 },
  cacheHits: 4,
  sharedCalls: 200,
});

function estimateOf(costUsd: number | null): CostEstimate {
  return {
    testCases: 200,
    trials: 1,
    resumedTestCases: 0,
    metrics: [{ name: "Toxicity", judge: "openai:gpt-4.1", ...spend(400, costUsd) }],
    total: spend(400, costUsd),
    unpricedJudges: costUsd === null ? ["my-judge"] : [],
    batch: false,
    cacheLookedUp: true,
  };
}

describe("renderCostEstimate", () => {
  it("shows each metric's and the total's calls, tokens and cost with their ranges", () => {
    const text = renderCostEstimate({ estimate: estimateOf(0.5), maxCostUsd: 1 });
    expect(text).toContain("Dry run: no judge was called.");
    expect(text).toContain("200 test cases × 1 metric");
    expect(text).toMatch(/\| Toxicity +\| +400 \| +80,000 \| +4,000 \| +\$0\.5000 \|/);
    expect(text).toMatch(
      /\| range +\| +200–800 \| +40,000–160,000 \| +2,000–20,000 \| +\$0\.2500–\$1\.5000 \|/,
    );
    for (const line of text.split("\n").filter((row) => /^[|+]/.test(row))) {
      expect(line.length).toBeLessThanOrEqual(80);
    }
    expect(text).toContain(
      "Free: 4 requests in the judge cache; 200 requests asked twice or more (paid once).",
    );
    expect(text).toContain("Budget $1.0000: the expected cost is 50% of it (25%–150%).");
  });

  it("says when a price is unknown instead of showing a cost", () => {
    const text = renderCostEstimate({ estimate: estimateOf(null) });
    expect(text).toMatch(/\| total +\|.*\| +unknown \|/);
    expect(text).toContain('Cost unknown: verdict has no price for "my-judge".');
  });
});
