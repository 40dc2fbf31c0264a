import { describe, expect, it } from "vitest";
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
});
