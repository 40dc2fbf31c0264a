import { describe, expect, it } from "vitest";
import { FaithfulnessMetric } from "../../metrics/faithfulness/faithfulness-metric.ts";
import { MisuseMetric } from "../../metrics/misuse/misuse-metric.ts";
import { NonAdviceMetric } from "../../metrics/non-advice/non-advice-metric.ts";
import { PIILeakageMetric } from "../../metrics/pii-leakage/pii-leakage-metric.ts";
import { RoleViolationMetric } from "../../metrics/role-violation/role-violation-metric.ts";
import { SummarizationMetric } from "../../metrics/summarization/summarization-metric.ts";
import { MockJudge, type MockJudgeCall } from "../../testing/mock-judge.ts";
import { toStepViews } from "./step-tables.ts";

describe("a metric's steps as the case page shows them", () => {
  it("joins extracted items with their verdicts into one table, whatever the item is called", () => {
    const views = toStepViews({
      verboseLogs: "",
      steps: [
        { label: "Claims", value: ["The sky is green."] },
        { label: "Verdicts", value: [{ verdict: "no", reason: "It is blue.", confidence: 0.9 }] },
      ],
    });
    expect(views).toEqual([
      {
        label: "Claims and Verdicts",
        columns: ["claim", "verdict", "reason", "confidence"],
        rows: [["The sky is green.", "no", "It is blue.", "0.9"]],
      },
    ]);
  });

  it("keeps the verdict a step says counts against the output, joined or alone", () => {
    const contexts = { label: "Contexts", value: ["Paris is in France.", "It has 2M people."] };
    const verdicts = {
      label: "Verdicts",
      value: [{ verdict: "yes" }, { verdict: "no", reason: "Not 5M." }],
      flaggedVerdict: "no",
    };
    const [joined] = toStepViews({ verboseLogs: "", steps: [contexts, verdicts] });
    expect(joined).toMatchObject({ label: "Contexts and Verdicts", flaggedVerdict: "no" });
    const [alone] = toStepViews({ verboseLogs: "", steps: [verdicts] });
    expect(alone).toMatchObject({ label: "Verdicts", flaggedVerdict: "no" });
    const [plain] = toStepViews({
      verboseLogs: "",
      steps: [contexts, { ...verdicts, flaggedVerdict: undefined }],
    });
    expect(plain).not.toHaveProperty("flaggedVerdict");
  });

  it("keeps lists of different lengths apart, and shows other values as text", () => {
    const views = toStepViews({
      verboseLogs: "",
      steps: [
        { label: "Opinions", value: ["a", "b"] },
        { label: "Verdicts", value: [{ verdict: "yes" }] },
        { label: "Score", value: 0.5 },
        { label: "Note", value: "plain words" },
        { label: "Nothing", value: [] },
      ],
    });
    expect(views).toEqual([
      { label: "Opinions", columns: ["opinion"], rows: [["a"], ["b"]] },
      { label: "Verdicts", columns: ["verdict"], rows: [["yes"]] },
      { label: "Score", text: "0.5" },
      { label: "Note", text: "plain words" },
      { label: "Nothing", columns: ["nothing"], rows: [] },
    ]);
  });

  it("reads verbose logs of older results back, and shows logs in another form as text", () => {
    expect(
      toStepViews({
        verboseLogs: 'Statements:\n[\n  "s"\n]\n\nVerdicts:\n[\n  {\n    "verdict": "idk"\n  }\n]',
      }),
    ).toEqual([
      { label: "Statements and Verdicts", columns: ["statement", "verdict"], rows: [["s", "idk"]] },
    ]);
    expect(toStepViews({ verboseLogs: "free text\n\nmore: text" })).toEqual([
      { label: "Steps", text: "free text\n\nmore: text" },
    ]);
    expect(toStepViews({ verboseLogs: "Broken:\n[not json" })).toEqual([
      { label: "Steps", text: "Broken:\n[not json" },
    ]);
    expect(toStepViews({ verboseLogs: "  " })).toEqual([]);
  });

  it.each([
    ["PII Leakage", () => new PIILeakageMetric(), "statement"],
    ["Role Violation", () => new RoleViolationMetric({ role: "tutor" }), "violation"],
    ["Non-Advice", () => new NonAdviceMetric({ adviceTypes: ["medical"] }), "advice"],
    ["Misuse", () => new MisuseMetric({ domain: "maths" }), "misuse"],
  ] as const)("shows %s's items with their verdicts as one table", async (_name, make, column) => {
    const judge = new MockJudge({
      answers: (call) =>
        call.kind === "verdicts"
          ? { verdicts: [{ verdict: "yes", reason: "Flagged." }, "no"] }
          : call.kind === "reason"
            ? { reason: "The score is what it is because of A." }
            : { [call.kind]: ["A.", "B."] },
    });
    const { data } = await make().run(
      { input: "q", actualOutput: "A. B." },
      { judge, testCaseName: "q" },
    );
    const [view, ...others] = toStepViews(data);
    expect(others).toEqual([]);
    expect(view).toMatchObject({
      columns: [column, "verdict", "reason"],
      rows: [
        ["A.", "yes", "Flagged."],
        ["B.", "no", ""],
      ],
    });
  });

  it("shows Faithfulness and Summarization claims beside their verdicts, questions beside their answers", async () => {
    const judge = new MockJudge({
      answers: (call: MockJudgeCall) =>
        ({
          truths: { truths: ["The lane opens in May."] },
          claims: { claims: ["The lane opens in May.", "It cost a fortune."] },
          verdicts: { verdicts: [{ verdict: "yes" }, { verdict: "idk", reason: "Cost unknown." }] },
          questions: { questions: ["Does the lane open in May?"] },
          answers: { answers: ["yes"] },
          reason: { reason: "The score is 0.50 because of the cost claim." },
        })[call.kind] ?? {},
    });
    const testCase = {
      input: "The lane opens in May.",
      actualOutput: "The lane opens in May. It cost a fortune.",
      retrievalContext: ["The lane opens in May."],
    };
    const faithfulness = await new FaithfulnessMetric({ model: judge }).run(testCase);
    expect(toStepViews(faithfulness.data).map((view) => view.label)).toEqual([
      "Truths",
      "Claims and Verdicts",
    ]);
    const summarization = await new SummarizationMetric({ model: judge, n: 1 }).run(testCase);
    const views = toStepViews(summarization.data);
    expect(views.map((view) => view.label)).toEqual([
      "Truths",
      "Claims and Alignment verdicts",
      "Assessment questions and Coverage verdicts",
      "Score breakdown",
    ]);
    expect(views[1]).toMatchObject({
      columns: ["claim", "verdict", "reason"],
      rows: [
        ["The lane opens in May.", "yes", ""],
        ["It cost a fortune.", "idk", "Cost unknown."],
      ],
    });
    expect(views[2]).toEqual({
      label: "Assessment questions and Coverage verdicts",
      columns: ["assessment question", "original", "summary", "verdict"],
      rows: [["Does the lane open in May?", "yes", "yes", "covered"]],
    });
  });
});
