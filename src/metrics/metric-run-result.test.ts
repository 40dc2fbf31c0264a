import { describe, expect, it } from "vitest";
import { JudgeLedger } from "../judge/judge-ledger.ts";
import type { VerboseStep } from "./metric-context.ts";
import { toMetricRunResult } from "./metric-run-result.ts";

const metric = { name: "Toxicity", threshold: 0.5, strictMode: false, lowerIsBetter: true };

function resultOf(steps: VerboseStep[]) {
  return toMetricRunResult({
    metric,
    success: true,
    outcome: { score: 0, reason: "The score is 0.00 because nothing is toxic.", error: null },
    evaluationModel: "judge",
    totals: new JudgeLedger().totals(),
    steps,
    verbose: false,
  }).data;
}

const opinionSteps = (): VerboseStep[] => [
  { label: "Opinions", value: ["It is great.", "It is slow."] },
  {
    label: "Verdicts",
    value: [
      { verdict: "no", reason: null },
      { verdict: "no", reason: "Criticism put politely." },
    ],
  },
];

const OPINION_LOGS = [
  "Opinions:",
  "[",
  '  "It is great.",',
  '  "It is slow."',
  "]",
  "",
  "Verdicts:",
  "[",
  "  {",
  '    "verdict": "no",',
  '    "reason": null',
  "  },",
  "  {",
  '    "verdict": "no",',
  '    "reason": "Criticism put politely."',
  "  }",
  "]",
].join("\n");

describe("toMetricRunResult", () => {
  it("writes the steps as verbose logs, in the result's place for them", () => {
    const data = resultOf(opinionSteps());
    expect(data.verboseLogs).toBe(OPINION_LOGS);
    expect(Object.keys(data)).toEqual([
      "name",
      "threshold",
      "success",
      "score",
      "reason",
      "strictMode",
      "lowerIsBetter",
      "evaluationModel",
      "error",
      "evaluationCost",
      "inputTokens",
      "outputTokens",
      "verboseLogs",
      "judgeCalls",
      "cachedJudgeCalls",
      "sharedJudgeCalls",
      "saved",
      "steps",
      "calls",
    ]);
    expect(resultOf([]).verboseLogs).toBe("");
  });

  it("writes the verbose logs from the result's steps as they are read, not from a copy kept beside them", () => {
    const data = resultOf(opinionSteps());
    const opinions = data.steps?.[0];
    if (opinions === undefined) throw new Error("no steps");
    opinions.value = ["It is great."];
    expect(data.verboseLogs).toBe(
      `Opinions:\n[\n  "It is great."\n]\n\n${OPINION_LOGS.split("\n\n")[1]}`,
    );
  });

  it("is the same plain data to JSON, spreads, structured clones and equality checks", () => {
    const data = resultOf(opinionSteps());
    const plain = JSON.parse(JSON.stringify(data));
    expect(plain.verboseLogs).toBe(OPINION_LOGS);
    expect(Object.keys(plain)).toEqual(Object.keys(data));
    expect({ ...data }).toStrictEqual(plain);
    expect(structuredClone(data)).toStrictEqual(plain);
    expect(data).toStrictEqual(plain);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it("keeps verbose logs assigned to it", () => {
    const data = resultOf(opinionSteps());
    data.verboseLogs = "trimmed";
    expect(data.verboseLogs).toBe("trimmed");
    expect(JSON.parse(JSON.stringify(data)).verboseLogs).toBe("trimmed");
  });

  it("writes steps its stored copy cuts or converts as they were", () => {
    const long = "x".repeat(12_000);
    const data = resultOf([
      { label: "Statements", value: [long] },
      { label: "Counts", value: new Map([["yes", 2]]) },
    ]);
    expect(data.verboseLogs).toBe(`Statements:\n[\n  "${long}"\n]\n\nCounts:\n{}`);
    expect(data.steps?.[0]?.value).toEqual([expect.stringMatching(/more characters\]$/)]);
    expect(data.steps?.[1]?.value).toEqual([["yes", 2]]);
  });
});
