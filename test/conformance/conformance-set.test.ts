// The fixture loader refuses user-level expectations that could never be met, saying what to fix.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConformanceSet } from "../../bench/conformance/conformance-set.ts";

const directory = mkdtempSync(join(tmpdir(), "verdict-conformance-set-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function load(example: Record<string, unknown>) {
  const folder = mkdtempSync(join(directory, "set-"));
  const base = { id: "toxicity-x", source: "test", input: "Q?", text: "That place is garbage." };
  writeFileSync(
    join(folder, "toxicity.json"),
    JSON.stringify({ metric: "Toxicity", examples: [{ ...base, expected: "toxic", ...example }] }),
  );
  return () => loadConformanceSet(folder);
}

describe("loadConformanceSet", () => {
  it("reads the score, pass/fail and expected pieces of a fixture", () => {
    const [example] = load({ score: [0.5, 1], pass: false, flagged: ["GARBAGE"] })();
    expect(example).toMatchObject({ score: [0.5, 1], pass: false, flagged: ["GARBAGE"] });
  });

  it("refuses a piece the text does not contain", () => {
    expect(load({ flagged: ["rubbish"] })).toThrow(
      'example "toxicity-x" expects "rubbish" in an item, but its text does not contain it: quote a piece of the text.',
    );
  });

  it("refuses a score range upside down or outside 0–1", () => {
    expect(load({ score: [1, 0.5] })).toThrow("a range is [min, max] with min <= max");
    expect(load({ score: 2 })).toThrow("is not a conformance fixture file");
  });

  it("refuses no items together with items to find", () => {
    expect(load({ extractedCount: 0, flagged: ["garbage"] })).toThrow(
      'expects no item ("extractedCount": 0) and items too: drop one of them.',
    );
  });
});
