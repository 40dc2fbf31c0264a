import { describe, expect, it } from "vitest";
import { parseMetricList } from "./finetune-watch.ts";

describe("parseMetricList", () => {
  it("makes the metrics named, in order, each once, with the judge given", () => {
    const metrics = parseMetricList({ list: " Relevancy, toxicity,bias ,toxicity", judge: "fake" });
    expect(metrics.map((metric) => metric.name)).toEqual(["Answer Relevancy", "Toxicity", "Bias"]);
    expect(metrics.map((metric) => metric.model)).toEqual(["fake", "fake", "fake"]);
    expect(
      parseMetricList({ list: "answer-relevancy", judge: undefined }).map((metric) => metric.name),
    ).toEqual(["Answer Relevancy"]);
    expect(
      parseMetricList({ list: "faithfulness,Summarization", judge: "fake" }).map(
        (metric) => metric.name,
      ),
    ).toEqual(["Faithfulness", "Summarization"]);
    expect(
      parseMetricList({ list: "pii_leakage,Hallucination", judge: "fake" }).map(
        (metric) => metric.name,
      ),
    ).toEqual(["PII Leakage", "Hallucination"]);
  });

  it("refuses a metric its name cannot build, or one that does not judge the output, saying why", () => {
    expect(() => parseMetricList({ list: "role-violation", judge: undefined })).toThrow(
      "--metrics cannot build the Role Violation metric from its name: it needs its `role`.",
    );
    expect(() => parseMetricList({ list: "toxicity,contextual-recall", judge: undefined })).toThrow(
      "--metrics names Contextual Recall, which judges the goldens' retrieval context, not the model's output",
    );
  });

  it("refuses an unknown metric or an empty list, saying which names it takes", () => {
    expect(() => parseMetricList({ list: "toxicity,fluency", judge: undefined })).toThrow(
      '--metrics names an unknown metric "fluency": use toxicity, bias, relevancy, faithfulness, summarization, pii-leakage and hallucination (comma-separated).',
    );
    expect(() => parseMetricList({ list: " , ", judge: undefined })).toThrow(
      "--metrics needs at least one metric",
    );
  });
});
