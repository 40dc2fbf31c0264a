import { describe, expect, it } from "vitest";
import { calibrationReport } from "../../../test/fixtures/calibration.ts";
import { registerSecretValues } from "../../secrets/secret-registry.ts";
import { renderCalibrationConsoleReport } from "./calibration-console-report.ts";
import { renderCalibrationJson } from "./calibration-json-report.ts";

const widths = (text: string) => text.split("\n").map((line) => Array.from(line).length);

describe("renderCalibrationConsoleReport", () => {
  it("prints the figures with their intervals, the matrix, the thresholds and the wrong rows", () => {
    const text = renderCalibrationConsoleReport({ report: calibrationReport() });
    expect(text).toContain("verdict calibration · Toxicity against human labels");
    expect(text).toContain('labels.jsonl · 10 rows · positive = label "1", negative = "0"');
    expect(text).toContain("Positive  flagged by Toxicity (score > 0.50)");
    expect(text).toContain(
      "Run       run-1 · completed\nSpent     24 judge calls (6 more from the cache) · $0.0123",
    );
    expect(text).toContain("  Accuracy    80.0%   95% CI 49.0–94.0% (Wilson)");
    expect(text).toContain("  Cohen's κ   0.60    95% CI 0.10–1.00");
    expect(text).toContain("  ROC AUC     0.80");
    expect(text).toMatch(/ {2}people: positive {19}4 {17}1\n {2}people: negative {19}1 {17}4/);
    expect(text).toContain("  for κ   0.50   κ 0.60  F1 0.80  accuracy 80.0%  (current)");
    expect(text).toContain("Rows the metric got wrong: 2\n  row 3, line 3: people positive,");
    expect(text).toContain("  q-7 (line 7): people negative, metric positive, score 1.00");
    expect(text).toContain('    output  What a <b>lovely</b> day & a "nice" walk.');
    expect(text).not.toContain("fake judge");
    expect(text).not.toContain("not scored");
  });

  it("fits 80 columns (or the width given), cutting long text to one line", () => {
    const long = "An answer that goes on and on\nacross lines ".repeat(20);
    const report = calibrationReport({
      data: { ...calibrationReport().data, source: `data/${"nested/".repeat(20)}labels.jsonl` },
    });
    const example = report.disagreements[0];
    if (example === undefined) throw new Error("the fixture has a disagreement");
    report.disagreements = [{ ...example, actualOutput: long, reason: long }];
    expect(Math.max(...widths(renderCalibrationConsoleReport({ report })))).toBeLessThanOrEqual(80);
    expect(
      Math.max(...widths(renderCalibrationConsoleReport({ report, width: 60 }))),
    ).toBeLessThanOrEqual(60);
    expect(renderCalibrationConsoleReport({ report })).toMatch(/output {2}An answer that .*…\n/);
  });

  it("says when scores are fake, when rows are missing, and what was shown of the wrong rows", () => {
    const text = renderCalibrationConsoleReport({
      report: calibrationReport({
        fakeJudge: true,
        status: "interrupted",
        rows: { total: 12, scored: 10, unscored: 2 },
        disagreementCount: 30,
        unscored: [
          { row: 11, line: 11, name: "row 11", error: "Judge said \u001b[31mno\u001b[0m." },
        ],
      }),
    });
    expect(text).toContain("! Scores come from verdict's fake judge");
    expect(text).toContain("! 2 of 12 rows were not scored and are left out of the figures.");
    expect(text).toContain('The run ended\n  "interrupted".');
    expect(text).toContain("Rows the metric got wrong: 30 (the 2 most confident below)");
    expect(text).toContain("  row 11, line 11: Judge said <U+001B>[31mno<U+001B>[0m.");
    expect(text).toContain("  Cohen's κ   0.60    95% CI 0.10–1.00");
  });

  it("masks secrets from the data or the judge", () => {
    const key = "Wq7pLm3nXr8Tv2Bc6Hd0Jk4Fg1Sa9Ue5Yz";
    const forget = registerSecretValues([key]);
    try {
      const report = calibrationReport();
      const example = report.disagreements[0];
      if (example === undefined) throw new Error("the fixture has a disagreement");
      report.disagreements = [{ ...example, reason: `The key ${key} leaked.` }];
      expect(renderCalibrationConsoleReport({ report })).not.toContain(key);
    } finally {
      forget();
    }
  });
});

describe("renderCalibrationJson", () => {
  it("marks the file as a verdict calibration and keeps every field", () => {
    const report = calibrationReport({ fakeJudge: true });
    const document = JSON.parse(renderCalibrationJson({ report }));
    expect(Object.keys(document).slice(0, 3)).toEqual(["format", "version", "notice"]);
    expect(document).toMatchObject({ format: "verdict-calibration", version: 1 });
    const { format: _format, version: _version, notice: _notice, ...rest } = document;
    expect(rest).toEqual(report);
    expect(JSON.parse(renderCalibrationJson({ report: calibrationReport() }))).not.toHaveProperty(
      "notice",
    );
  });
});
