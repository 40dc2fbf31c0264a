import { describe, expect, it } from "vitest";
import {
  describeBudgetStop,
  largerCaps,
  resumeEvaluateHint,
  resumeTestRunHint,
} from "./describe-budget-stop.ts";

const budget = { maxCostUsd: 0.5, maxTokens: null, spentCostUsd: 0.48, spentTokens: 190_000 };

describe("the line a run stopped by its budget ends with", () => {
  it("says what was spent of which cap, what finished, and how to go on", () => {
    expect(
      describeBudgetStop({ budget, finished: 76, total: 200, resume: "Resume with more." }),
    ).toBe(
      "Stopped by the budget: spent $0.4800 of $0.5000, and the next judge call could have passed it. 76/200 test cases finished and stored, 124 left unscored. Resume with more.",
    );
    expect(
      describeBudgetStop({
        budget: { ...budget, maxCostUsd: null, maxTokens: 200_000 },
        finished: 3,
        total: 3,
        resume: "",
      }),
    ).toContain(
      "spent 190,000 of 200,000 tokens, and the next judge call could have passed it. 3/3 test cases finished and stored.",
    );
  });

  it("suggests caps that finish the run at the pace so far, with a quarter to spare", () => {
    // $0.48 for 76 cases: $1.26 for 200, $1.58 with the spare, rounded up to $2.
    expect(largerCaps({ budget, finished: 76, total: 200 })).toEqual({
      maxCostUsd: 2,
      maxTokens: null,
    });
    // Nothing finished: at least twice the cap.
    expect(largerCaps({ budget, finished: 0, total: 10 }).maxCostUsd).toBeGreaterThanOrEqual(1);
    expect(resumeEvaluateHint({ budget, finished: 76, total: 200, identifier: "nightly" })).toBe(
      'Resume with a larger budget: evaluate({ identifier: "nightly", resume: true, budget: { maxCostUsd: 2 }, … }).',
    );
    expect(resumeTestRunHint({ budget, finished: 76, total: 200, identifier: "night ly" })).toBe(
      "Resume with a larger budget: verdict test run --identifier 'night ly' --resume --max-cost 2 (with the same paths and flags).",
    );
    expect(
      resumeTestRunHint({ budget, finished: 76, total: 200, identifier: undefined }),
    ).toContain("name it (--identifier) to resume it");
  });
});
