import { parse } from "csv/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluationResult, metricData, testResult } from "../../test/fixtures/results.ts";
import {
  isCellOrNeutralised,
  isLiveFormula,
  spreadsheetCellArbitrary,
} from "../../test/fixtures/spreadsheet-cells.ts";
import { renderCsvReport } from "./csv-report.ts";

describe("renderCsvReport", () => {
  it("writes one row per case, a column group per metric, and reads back exactly", () => {
    const result = evaluationResult({
      testResults: [
        testResult({
          name: 'quotes " and, commas',
          index: 0,
          input: "line one\nline two",
          tags: ["a", "b"],
          file: "evals/x.eval.ts",
          durationMs: 12,
          metricsData: [metricData({ score: 0.25, reason: "Fine." })],
        }),
        testResult({
          name: "score only",
          index: 1,
          metricsData: [metricData({ threshold: null, success: null, score: 0.5 })],
        }),
        testResult({ name: "nothing run", index: 2, metricsData: [] }),
      ],
    });
    const rows = parse(renderCsvReport({ result })) as string[][];
    expect(rows[0]).toEqual([
      "position",
      "name",
      "status",
      "file",
      "tags",
      "input",
      "actualOutput",
      "expectedOutput",
      "durationMs",
      "Toxicity score",
      "Toxicity threshold",
      "Toxicity success",
      "Toxicity reason",
      "Toxicity error",
    ]);
    expect(rows[1]).toEqual([
      "1",
      'quotes " and, commas',
      "passed",
      "evals/x.eval.ts",
      "a|b",
      "line one\nline two",
      "Hello there",
      "",
      "12",
      "0.25",
      "0.5",
      "true",
      "Fine.",
      "",
    ]);
    expect(rows[2]?.slice(0, 3)).toEqual(["2", "score only", "scored"]);
    expect(rows[2]?.slice(9, 12)).toEqual(["0.5", "", ""]);
    expect(rows[3]?.slice(0, 3)).toEqual(["3", "nothing run", "unscored"]);
  });

  it("keeps text a spreadsheet would run as a formula as text", () => {
    const result = evaluationResult({
      testResults: [
        testResult({
          name: "=cmd|' /C calc'!A0",
          input: "+1",
          actualOutput: "@SUM(A1)",
          expectedOutput: "-2",
          metricsData: [metricData({ score: 0.1, reason: "=1+1" })],
        }),
      ],
    });
    const [, row] = parse(renderCsvReport({ result })) as string[][];
    expect(row?.slice(1, 2)).toEqual(["'=cmd|' /C calc'!A0"]);
    expect(row?.slice(5, 8)).toEqual(["'+1", "'@SUM(A1)", "'-2"]);
    expect(row?.[9]).toBe("0.1");
    expect(row?.[12]).toBe("'=1+1");
  });

  it("reads back as the stored rows, one per case, with no formula left to run", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: spreadsheetCellArbitrary,
            output: spreadsheetCellArbitrary,
            reason: spreadsheetCellArbitrary,
          }),
          { minLength: 1, maxLength: 5 },
        ),
        spreadsheetCellArbitrary,
        (cases, metricName) => {
          const result = evaluationResult({
            testResults: cases.map((entry, index) =>
              testResult({
                name: entry.name,
                index,
                actualOutput: entry.output,
                metricsData: [metricData({ name: `m${metricName}`, reason: entry.reason })],
              }),
            ),
          });
          // Any line break outside quotes ends a row, as in spreadsheets (csv-parse would
          // otherwise settle on the first one it meets).
          const rows = parse(renderCsvReport({ result }), {
            record_delimiter: ["\r\n", "\n", "\r"],
          }) as string[][];
          expect(rows).toHaveLength(cases.length + 1);
          expect(isCellOrNeutralised(rows[0]?.[12] ?? "", `m${metricName} reason`)).toBe(true);
          for (const [index, entry] of cases.entries()) {
            const row = rows[index + 1] ?? [];
            expect(row).toHaveLength(14);
            expect(isCellOrNeutralised(row[1] ?? "", entry.name)).toBe(true);
            expect(isCellOrNeutralised(row[6] ?? "", entry.output)).toBe(true);
            expect(isCellOrNeutralised(row[12] ?? "", entry.reason)).toBe(true);
          }
          expect(rows.flat().filter(isLiveFormula)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
