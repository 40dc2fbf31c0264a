import { describe, expect, it } from "vitest";
import { PNG_BYTES } from "../../../test/fixtures/images.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { JudgeOutputError } from "../../errors/judge-output-error.ts";
import type { JudgeModel, JudgeRequest } from "../../judge/judge-model.ts";
import { image, mm } from "../../test-case/image.ts";
import { describeCustomMetricContract } from "../../testing/metric-contract/custom-metric-contract.ts";
import { scriptedJudge } from "../../testing/metric-contract/scripted-metric-contract.ts";
import type { MockAnswer, MockJudgeCall } from "../../testing/mock-judge.ts";
import { FaithfulnessMetric, type FaithfulnessMetricOptions } from "./faithfulness-metric.ts";
import { FaithfulnessTemplate } from "./prompts.ts";

const refund = {
  name: "refund",
  input: "What if these shoes don't fit?",
  actualOutput: "We offer a 30-day full refund at no extra cost. Refunds take 30 days.",
  retrievalContext: [
    "All customers are eligible for a 30 day full refund at no extra cost.",
    "Refunds are processed within 10 days.",
  ],
};
const TRUTHS = [
  "Customers get a 30-day full refund at no extra cost.",
  "Refunds take up to 10 days.",
];
const CLAIMS = ["The shop offers a 30-day full refund at no extra cost.", "Refunds take 30 days."];

const ANSWERS: Record<string, MockAnswer> = {
  truths: { truths: TRUTHS },
  claims: { claims: CLAIMS },
  verdicts: {
    verdicts: [
      { verdict: "yes", reason: null },
      { verdict: "no", reason: "The context says refunds take up to 10 days, not 30." },
    ],
  },
  reason: { reason: "The score is 0.50 because the output shortens the refund time." },
};

describeCustomMetricContract({
  name: "Faithfulness",
  create: (options) => new FaithfulnessMetric(options),
  testCase: refund,
  answer: (call: MockJudgeCall) => ANSWERS[call.kind] ?? new Error(`unexpected ${call.kind}`),
  optionVariants: {
    truthsExtractionLimit: [null, 0, 3],
    penalizeAmbiguousClaims: [false, true],
  },
});

/** Runs the refund case with claims judged `verdicts` (flagged ones with a reason). */
async function scored(verdicts: readonly string[], options: FaithfulnessMetricOptions = {}) {
  const claims = verdicts.map((_, index) => `Claim ${index + 1} of the output.`);
  const judge = scriptedJudge({
    truths: [{ truths: TRUTHS }],
    claims: [{ claims }],
    verdicts: [
      {
        verdicts: verdicts.map((verdict, index) => ({
          verdict,
          reason: verdict === "yes" ? null : `Claim ${index + 1} is "${verdict}".`,
        })),
      },
    ],
    reason: [{ reason: "The score is scripted because the judge said so." }],
  });
  const metric = new FaithfulnessMetric({ ...options, model: judge });
  await metric.measure(refund);
  return { judge, metric, claims };
}

// Each `score` is what deepeval's own FaithfulnessMetric._calculate_score gives the same
// verdicts (its source, run by test/fixtures/deepeval-scores.py):
//   [{"metric": "faithfulness", "verdicts": [...], "penalize": …, "strict": …}, …]
//   → [1, 1.0, 0.75, 0.5, 1.0, 0.0, 0.0, 0, 1.0, 0, 0.6666666666666666]
// `success` is deepeval's is_successful (score >= threshold; threshold 1 in strict mode), and
// the reason is asked of the judge exactly when a claim counts against the output.
const TABLE: Array<{
  label: string;
  verdicts: string[];
  options?: FaithfulnessMetricOptions;
  score: number;
  success: boolean | null;
  /** The flagged reasons the judge is asked to explain; `null`: verdict writes the reason. */
  explains: string[] | null;
  because?: string;
}> = [
  {
    label: "no claims: 1, verdict step skipped",
    verdicts: [],
    score: 1,
    success: true,
    explains: null,
    because:
      "The score is 1.00 because the output makes no claims, so none of them contradicts the retrieval context.",
  },
  {
    label: "all yes",
    verdicts: ["yes", "yes", "yes"],
    score: 1,
    success: true,
    explains: null,
    because:
      "The score is 1.00 because none of the 3 claims in the output contradicts the retrieval context.",
  },
  {
    label: "mixed: idk counts as faithful",
    verdicts: ["yes", "no", "idk", "yes"],
    score: 0.75,
    success: true,
    explains: ['Claim 2 is "no".'],
  },
  {
    label: "mixed, penalizeAmbiguousClaims: idk counts against",
    verdicts: ["yes", "no", "idk", "yes"],
    options: { penalizeAmbiguousClaims: true },
    score: 0.5,
    success: true,
    explains: ['Claim 2 is "no".', '(Ambiguous) Claim 3 is "idk".'],
  },
  {
    label: "all idk",
    verdicts: ["idk", "idk"],
    score: 1,
    success: true,
    explains: null,
    because:
      "The score is 1.00 because none of the 2 claims in the output contradicts the retrieval context (2 not backed by it either way, counted as faithful).",
  },
  {
    label: "all idk, penalizeAmbiguousClaims",
    verdicts: ["idk", "idk"],
    options: { penalizeAmbiguousClaims: true },
    score: 0,
    success: false,
    explains: ['(Ambiguous) Claim 1 is "idk".', '(Ambiguous) Claim 2 is "idk".'],
  },
  {
    label: "all no",
    verdicts: ["no", "no"],
    score: 0,
    success: false,
    explains: ['Claim 1 is "no".', 'Claim 2 is "no".'],
  },
  {
    label: "strict mode: below 1 scores 0, threshold 1",
    verdicts: ["yes", "no", "idk", "yes"],
    options: { strictMode: true, threshold: 0.2 },
    score: 0,
    success: false,
    explains: ['Claim 2 is "no".'],
  },
  {
    label: "strict mode: idk alone keeps 1",
    verdicts: ["yes", "idk"],
    options: { strictMode: true },
    score: 1,
    success: true,
    explains: null,
  },
  {
    label: "strict mode, penalizeAmbiguousClaims: idk scores 0",
    verdicts: ["yes", "idk"],
    options: { strictMode: true, penalizeAmbiguousClaims: true },
    score: 0,
    success: false,
    explains: ['(Ambiguous) Claim 2 is "idk".'],
  },
  {
    label: "higher is better: a score equal to the threshold passes",
    verdicts: ["yes", "no", "idk", "yes"],
    options: { threshold: 0.75 },
    score: 0.75,
    success: true,
    explains: ['Claim 2 is "no".'],
  },
  {
    label: "higher is better: a score below the threshold fails",
    verdicts: ["yes", "no", "yes"],
    options: { threshold: 0.7 },
    score: 2 / 3,
    success: false,
    explains: ['Claim 2 is "no".'],
  },
  {
    label: "threshold null: score only",
    verdicts: ["no", "no"],
    options: { threshold: null },
    score: 0,
    success: null,
    explains: ['Claim 1 is "no".', 'Claim 2 is "no".'],
  },
];

describe("FaithfulnessMetric: deepeval's score, success and reason plan", () => {
  it.each(TABLE)("$label", async (row) => {
    const { judge, metric, claims } = await scored(row.verdicts, row.options);
    expect(metric.error).toBeNull();
    expect(metric.score).toBe(row.score);
    expect(metric.success).toBe(row.success);
    const kinds = ["truths", "claims"];
    if (row.verdicts.length > 0) kinds.push("verdicts");
    if (row.explains !== null) kinds.push("reason");
    expect(judge.calls.map((call) => call.kind)).toEqual(kinds);
    expect(metric.judgeCalls).toBe(kinds.length);
    if (row.explains === null) {
      expect(metric.reason).toMatch(/^The score is \d\.\d\d because .+\.$/);
      if (row.because !== undefined) expect(metric.reason).toBe(row.because);
    } else {
      expect(metric.reason).toBe("The score is scripted because the judge said so.");
      const prompt = judge.callsOfKind("reason")[0]?.prompt ?? "";
      expect(prompt).toContain(`"The score is ${row.score.toFixed(2)} because"`);
      expect(prompt).toContain(JSON.stringify(row.explains, null, 2).replace(/^\[|\]$/g, ""));
    }
    expect(metric.claims).toEqual(claims);
    expect(metric.truths).toEqual(TRUTHS);
    expect(metric.verdicts?.map((verdict) => verdict.verdict)).toEqual(row.verdicts);
  });

  it("re-asks a wrong verdict count once, then reports a JudgeOutputError, never a score", async () => {
    const tooFew = { verdicts: [{ verdict: "yes" }] };
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: CLAIMS }],
      verdicts: [tooFew, tooFew],
    });
    const metric = new FaithfulnessMetric({ model: judge });
    const error = await metric.measure(refund).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JudgeOutputError);
    expect(error).toMatchObject({ metric: "Faithfulness", step: "generateVerdicts" });
    expect((error as Error).message).toContain(
      "expected exactly 2 verdicts, one per claim in the same order, but got 1",
    );
    expect(judge.callsOfKind("verdicts")).toHaveLength(2);
    expect(metric.score).toBeNull();
    expect(metric.success).toBe(false);
  });

  it("uses a right verdict count given on the re-ask", async () => {
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: CLAIMS }],
      verdicts: [{ verdicts: ["yes"] }, { verdicts: ["yes", "idk"] }],
    });
    const metric = new FaithfulnessMetric({ model: judge });
    expect(await metric.measure(refund)).toBe(1);
    expect(judge.callsOfKind("verdicts")[1]?.prompt).toContain("but got 1");
  });
});

describe("FaithfulnessMetric", () => {
  it("asks for the context's facts and the output's claims, then judges the claims against the facts", async () => {
    const judge = scriptedJudge(
      Object.fromEntries(Object.entries(ANSWERS).map(([kind, answer]) => [kind, [answer]])),
    );
    const metric = new FaithfulnessMetric({ model: judge });
    expect(await metric.measure(refund)).toBe(0.5);
    const [truths, claims, verdicts, reason] = judge.calls;
    expect(truths?.prompt).toContain(JSON.stringify(refund.retrievalContext, null, 2));
    expect(truths?.prompt).not.toContain(JSON.stringify(refund.input));
    expect(claims?.prompt).toContain(JSON.stringify(refund.actualOutput));
    expect(verdicts?.prompt).toContain(JSON.stringify(TRUTHS, null, 2));
    expect(verdicts?.prompt).toContain(JSON.stringify(CLAIMS, null, 2));
    expect(verdicts?.prompt).not.toContain(refund.retrievalContext[0]);
    expect(reason?.prompt).toContain("The context says refunds take up to 10 days, not 30.");
    expect(metric.reason).toBe("The score is 0.50 because the output shortens the refund time.");
    expect(
      JSON.parse(metric.verboseLogs.split("\n\n")[0]?.replace(/^Truths:\n/, "") ?? ""),
    ).toEqual(TRUTHS);
    expect(judge.calls.map((call) => call.prompt)).toMatchSnapshot();
  });

  it("explains a contradiction given without a reason by quoting its claim", async () => {
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: CLAIMS }],
      verdicts: [{ verdicts: ["yes", "no"] }],
      reason: [{ reason: "The score is 0.50 because of the refund time." }],
    });
    await new FaithfulnessMetric({ model: judge }).measure(refund);
    expect(judge.callsOfKind("reason")[0]?.prompt).toContain(JSON.stringify(`"${CLAIMS[1]}" (no)`));
  });

  it.each([
    [null, "List every fact each document states."],
    [1, "From each document, list only the single most important fact it states."],
    [3, "From each document, list at most the 3 most important facts it states"],
  ])("truthsExtractionLimit %j asks for %j", async (limit, rule) => {
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: [] }],
    });
    await new FaithfulnessMetric({ model: judge, truthsExtractionLimit: limit }).measure(refund);
    expect(judge.callsOfKind("truths")[0]?.prompt).toContain(rule);
  });

  it("truthsExtractionLimit 0 takes no facts, without asking for them", async () => {
    const judge = scriptedJudge({
      claims: [{ claims: CLAIMS }],
      verdicts: [{ verdicts: ["idk", "idk"] }],
    });
    const metric = new FaithfulnessMetric({ model: judge, truthsExtractionLimit: 0 });
    expect(await metric.measure(refund)).toBe(1);
    expect(judge.calls.map((call) => call.kind)).toEqual(["claims", "verdicts"]);
    expect(judge.calls[1]?.prompt).toContain("<facts>\n[]\n</facts>");
    expect(metric.truths).toEqual([]);
  });

  it("refuses a negative or fractional truthsExtractionLimit and a non-boolean penalizeAmbiguousClaims", () => {
    expect(() => new FaithfulnessMetric({ truthsExtractionLimit: -1 })).toThrow(ConfigError);
    expect(() => new FaithfulnessMetric({ truthsExtractionLimit: 1.5 })).toThrow(
      "`truthsExtractionLimit` must be a whole number of 0 or more, or null for no limit; got 1.5",
    );
    expect(
      () => new FaithfulnessMetric({ penalizeAmbiguousClaims: "yes" as unknown as boolean }),
    ).toThrow("`penalizeAmbiguousClaims` must be true or false");
    expect(() => new FaithfulnessMetric({ penalize_ambiguous_claims: true } as never)).toThrow(
      "verdict spells it `penalizeAmbiguousClaims`",
    );
  });

  it("needs a retrievalContext, before any judge call", async () => {
    const judge = scriptedJudge({});
    const { retrievalContext: _context, ...withoutContext } = refund;
    for (const testCase of [
      withoutContext,
      { ...refund, retrievalContext: [] },
      { ...refund, retrievalContext: [" "] },
    ]) {
      const error = await new FaithfulnessMetric({ model: judge })
        .measure(testCase)
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ metric: "Faithfulness", field: "retrievalContext" });
      expect((error as Error).message).toContain('needs "retrievalContext" on test case "refund"');
    }
    expect(judge.calls).toHaveLength(0);
  });

  it("asks for facts and claims at once, or one after the other with asyncMode: false", async () => {
    const pending: Array<{ kind: string; answer: (value: unknown) => void }> = [];
    const judge: JudgeModel = {
      name: "deferred",
      generate: (request: JudgeRequest) =>
        new Promise((resolve) => {
          const kind = Object.keys((request.jsonSchema as { properties: object }).properties)[0];
          pending.push({ kind: kind ?? "", answer: (value) => resolve(JSON.stringify(value)) });
        }),
    };
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    for (const asyncMode of [true, false]) {
      pending.length = 0;
      const measured = new FaithfulnessMetric({
        model: judge,
        asyncMode,
        includeReason: false,
      }).measure(refund);
      await settle();
      expect(pending.map((call) => call.kind)).toEqual(
        asyncMode ? ["truths", "claims"] : ["truths"],
      );
      pending[0]?.answer({ truths: TRUTHS });
      await settle();
      if (!asyncMode) expect(pending.map((call) => call.kind)).toEqual(["truths", "claims"]);
      pending[1]?.answer({ claims: [] });
      expect(await measured).toBe(1);
    }
  });

  it("sends the output's images with the claim prompt only", async () => {
    const picture = image(PNG_BYTES);
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: ["The picture shows a receipt."] }],
      verdicts: [{ verdicts: ["idk"] }],
    });
    await new FaithfulnessMetric({ model: judge }).measure({
      ...refund,
      actualOutput: mm`Here is your receipt: ${picture}`,
    });
    expect(judge.callsOfKind("claims")[0]?.images).toEqual([picture]);
    expect(judge.callsOfKind("claims")[0]?.prompt).toContain("[image N]");
    expect(judge.callsOfKind("truths")[0]?.images).toEqual([]);
    expect(judge.callsOfKind("verdicts")[0]?.images).toEqual([]);
  });

  it("uses an evaluationTemplate's step and the built-in prompts for the others", async () => {
    const received: unknown[] = [];
    const judge = scriptedJudge({
      truths: [{ truths: TRUTHS }],
      claims: [{ claims: CLAIMS }],
      verdicts: [{ verdicts: ["yes", "yes"] }],
    });
    class Custom extends FaithfulnessTemplate {
      static override generateVerdicts(args: { claims: string[]; truths: string[] }) {
        received.push(args);
        return `CUSTOM ${args.claims.length}`;
      }
    }
    await new FaithfulnessMetric({ model: judge, evaluationTemplate: Custom }).measure(refund);
    expect(judge.callsOfKind("verdicts")[0]?.prompt).toBe("CUSTOM 2");
    expect(received).toEqual([{ claims: CLAIMS, truths: TRUTHS, multimodal: false }]);
    expect(judge.callsOfKind("claims")[0]?.prompt).toBe(
      FaithfulnessTemplate.generateClaims({ actualOutput: refund.actualOutput, multimodal: false }),
    );
  });
});
