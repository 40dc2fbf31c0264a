import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FORMULA_TRIGGERS,
  isLiveFormula,
  spreadsheetCellArbitrary,
} from "../../test/fixtures/spreadsheet-cells.ts";
import { couldRunAsFormula, neutraliseFormulaCell, restoreFormulaCell } from "./formula-cell.ts";

const anyText = fc.oneof(
  spreadsheetCellArbitrary,
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
);

describe("neutraliseFormulaCell", () => {
  it("puts one ' before text that could run, whatever line the formula starts on", () => {
    expect(neutraliseFormulaCell("=1+1")).toBe("'=1+1");
    expect(neutraliseFormulaCell("  @SUM(A1)")).toBe("'  @SUM(A1)");
    expect(neutraliseFormulaCell('Sure:\n=HYPERLINK("x")')).toBe('\'Sure:\n=HYPERLINK("x")');
    expect(neutraliseFormulaCell("a\r\n  -2+3")).toBe("'a\r\n  -2+3");
    expect(neutraliseFormulaCell("a\r+2")).toBe("'a\r+2");
    expect(neutraliseFormulaCell("\tx")).toBe("'\tx");
    expect(neutraliseFormulaCell("\u0000x")).toBe("'\u0000x");
    expect(neutraliseFormulaCell("\u200b=1")).toBe("'\u200b=1");
    for (const sign of ["＝", "＋", "－", "＠", "﹣", "−", "–", "⁼", "₊", "➖"]) {
      expect(neutraliseFormulaCell(`${sign}1`)).toBe(`'${sign}1`);
    }
  });

  it("leaves other text as it is, including a ' of its own before ordinary text", () => {
    for (const text of ["", "plain", "a = b", "x-y", "'quoted'", "〜です", "e@mail.test", "1"]) {
      expect(neutraliseFormulaCell(text)).toBe(text);
    }
  });

  it("adds a ' to text that already starts with ' before a formula, so reading strips only ours", () => {
    expect(neutraliseFormulaCell("'=1")).toBe("''=1");
    expect(restoreFormulaCell("''=1")).toBe("'=1");
    expect(restoreFormulaCell("'=1")).toBe("=1");
    expect(restoreFormulaCell("'quoted'")).toBe("'quoted'");
  });

  it("round-trips every text, and what it writes never runs", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const cell = neutraliseFormulaCell(text);
        expect(restoreFormulaCell(cell)).toBe(text);
        expect(isLiveFormula(cell)).toBe(false);
        expect(cell === text || cell === `'${text}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("treats every character that Unicode compatibility maps to = + - @ as a formula sign", () => {
    const missed: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      if (/^[=+\-@]/.test(character.normalize("NFKC")) && !couldRunAsFormula(`${character}1`)) {
        missed.push(`U+${code.toString(16).toUpperCase()}`);
      }
    }
    expect(missed).toEqual([]);
    for (const trigger of FORMULA_TRIGGERS) expect(couldRunAsFormula(`x\n${trigger}`)).toBe(true);
  });
});
