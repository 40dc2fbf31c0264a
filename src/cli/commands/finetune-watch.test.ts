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
  });

  it("refuses an unknown metric or an empty list, saying which names it takes", () => {
    expect(() => parseMetricList({ list: "toxicity,fluency", judge: undefined })).toThrow(
      '--metrics names an unknown metric "fluency": use toxicity, bias, relevancy, faithfulness and summarization (comma-separated).',
    );
    expect(() => parseMetricList({ list: " , ", judge: undefined })).toThrow(
      "--metrics needs at least one metric",
    );
  });
});
