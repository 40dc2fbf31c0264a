import { parse } from "csv/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLiveFormula, spreadsheetCellArbitrary } from "../../test/fixtures/spreadsheet-cells.ts";
import { restoreFormulaCell } from "./formula-cell.ts";
import { renderCsv } from "./render-csv.ts";

// Any line break outside quotes ends a row, as in spreadsheets.
const parseStrictly = (text: string) =>
  parse(text, { record_delimiter: ["\r\n", "\n", "\r"] }) as string[][];

describe("renderCsv", () => {
  it("quotes cells with a comma, a quote or any line break, and ends every row", () => {
    expect(
      renderCsv({
        rows: [
          ["a", "b,c", 'say "hi"'],
          ["x\ny", "p\rq", "m\r\nn"],
        ],
      }),
    ).toBe('a,"b,c","say ""hi"""\r\n"x\ny","p\rq","m\r\nn"\r\n');
    expect(renderCsv({ rows: [["a"], [""]], recordDelimiter: "\n" })).toBe('a\n""\n');
  });

  it("writes numbers and booleans as values, nothing as an empty cell, text behind ' when it could run", () => {
    expect(
      renderCsv({ rows: [[-0.5, 3, true, null, undefined, "-0.5", Number.NEGATIVE_INFINITY]] }),
    ).toBe("-0.5,3,true,,,'-0.5,'-Infinity\r\n");
  });

  it("reads back as the rows written, with every formula neutralised", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(spreadsheetCellArbitrary, { minLength: 3, maxLength: 3 }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.constantFrom("\r\n" as const, "\n" as const),
        (rows, recordDelimiter) => {
          const parsed = parseStrictly(renderCsv({ rows, recordDelimiter }));
          expect(parsed.map((row) => row.map(restoreFormulaCell))).toEqual(rows);
          expect(parsed.flat().filter(isLiveFormula)).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
