// The regression statistics on simulated runs (issue 12): a few seeds here, 200 in
// bench/compare-power.ts. 500 paired cases; the judge flips 3% of verdicts in each run.
import { describe, expect, it } from "vitest";
import { flaggedShare } from "../../test/fixtures/simulated-comparisons.ts";

describe("verdict compare's paired tests on simulated runs", () => {
  it("flag a true 5-point pass-rate drop in most seeds, and a zero change rarely", () => {
    expect(flaggedShare({ seeds: 20, drop: 0.05, noise: 0.03 })).toBeGreaterThanOrEqual(0.85);
    expect(flaggedShare({ seeds: 20, drop: 0, noise: 0.03, firstSeed: 1000 })).toBeLessThanOrEqual(
      0.1,
    );
    // The plain rule (--no-stats) fails about half the comparisons of equal runs.
    expect(
      flaggedShare({ seeds: 20, drop: 0, noise: 0.03, firstSeed: 1000, alpha: null }),
    ).toBeGreaterThan(0.3);
  });
});
