// Keeps docs/metric-conformance.md honest: every conformance fixture has a row in its table
// (same text, same classification), and every piece of prompt text a row cites really occurs
// in the prompt it names, as verdict renders it. A prompt edit that drops a rubric line or a
// worked example the page relies on fails here, and so does a fixture nobody mapped.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgedText, loadConformanceSet } from "../../bench/conformance/conformance-set.ts";
import { projectRoot } from "../e2e/run-node.ts";
import { renderedPrompts } from "../fixtures/rendered-prompts.ts";

const PAGE = "docs/metric-conformance.md";
const page = readFileSync(join(projectRoot, PAGE), "utf8");

interface Row {
  cells: string[];
  /** The table's header cells, so that a cell can be read by its column's name. */
  header: string[];
  line: number;
}

const lines = page.split("\n");
const cellsOf = (line: string) =>
  line
    .slice(1, -1)
    .split(" | ")
    .map((cell) => cell.trim());

/** The rows of the table that starts at line `start` (its header), header and rule left out. */
function tableAt(start: number): Row[] {
  const header = cellsOf(lines[start] as string);
  const rows: Row[] = [];
  for (let index = start + 2; index < lines.length && lines[index]?.startsWith("|"); index++) {
    rows.push({ cells: cellsOf(lines[index] as string), header, line: index + 1 });
  }
  return rows;
}

/** The rows of every table of the page, one list per table. */
function everyTable(): Row[][] {
  const tables: Row[][] = [];
  for (const [index, line] of lines.entries()) {
    if (line.startsWith("|") && !lines[index - 1]?.startsWith("|")) tables.push(tableAt(index));
  }
  return tables;
}

/** A row's cell in the column named `name` ("" when the table has no such column). */
function cell(row: Row, name: string): string {
  const column = row.header.indexOf(name);
  return column === -1 ? "" : (row.cells[column] ?? "");
}

/** A fixture's options as its row shows them: `role: "…", adviceTypes: ["…"]`. */
function optionsText(options: Record<string, unknown> | undefined): string {
  return Object.entries(options ?? {})
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(", ");
}

/** The citations of a cell: `Template.step` › `prompt text`, each with its kind. */
function citations(cell: string): Array<{ kind: string; prompt: string; text: string }> {
  return [...cell.matchAll(/(rubric|worked example): `(\w+\.\w+)` › `([^`]+)`/g)].map(
    ([, kind, prompt, text]) => ({
      kind: kind as string,
      prompt: prompt as string,
      text: text as string,
    }),
  );
}

/** Which prompts may cover an example of each metric. */
const METRIC_TEMPLATES: Record<string, string> = {
  Toxicity: "ToxicityTemplate",
  Bias: "BiasTemplate",
  "Answer Relevancy": "AnswerRelevancyTemplate",
  "PII Leakage": "PIILeakageTemplate",
  "Role Violation": "RoleViolationTemplate",
  "Non-Advice": "NonAdviceTemplate",
  Misuse: "MisuseTemplate",
  Faithfulness: "FaithfulnessTemplate",
  Summarization: "SummarizationTemplate",
  "Contextual Relevancy": "ContextualRelevancyTemplate",
  "Contextual Precision": "ContextualPrecisionTemplate",
  "Contextual Recall": "ContextualRecallTemplate",
  Hallucination: "HallucinationTemplate",
};

const examples = loadConformanceSet();
// Every table of the page, told apart by their columns: the conformance set's (the first
// metrics', then each later section's, with `options` where a metric needs some) start with
// `example`; the documented-but-not-in-the-set ones have `why not a fixture`.
const tables = everyTable();
const setRows = tables.filter((rows) => rows[0]?.header[0] === "example").flat();
const otherRows = tables.filter((rows) => rows[0]?.header.includes("why not a fixture")).flat();

describe(PAGE, () => {
  it("has one row per conformance fixture, with the fixture's metric, options, classification and text", () => {
    const byId = new Map(setRows.map((row) => [cell(row, "example"), row]));
    expect(setRows).toHaveLength(byId.size);
    for (const example of examples) {
      const row = byId.get(example.id) as Row;
      expect(row, `${example.id} has no row in ${PAGE}`).toBeDefined();
      const where = `${PAGE} line ${row.line}`;
      // The text the classification is about: the output, or the item the example names (the
      // RAG metrics' tables call it the judged item).
      const textColumn = row.header.includes("judged item") ? "judged item" : "text";
      expect(
        [cell(row, "metric"), cell(row, "deepeval's classification"), cell(row, textColumn)],
        where,
      ).toEqual([example.metric, example.expected, judgedText(example)]);
      if (example.options !== undefined || row.header.includes("options")) {
        expect(cell(row, "options"), where).toBe(optionsText(example.options));
      }
    }
    expect([...byId.keys()].sort()).toEqual(examples.map((example) => example.id).sort());
  });

  it("covers each fixture with a worked example or rubric line of a prompt of its metric", () => {
    const prompts = renderedPrompts(false);
    for (const example of examples) {
      const row = setRows.find((candidate) => cell(candidate, "example") === example.id) as Row;
      const cited = citations(cell(row, "verdict prompt text that covers it"));
      const where = `${PAGE} line ${row.line} (${example.id})`;
      expect(cited.length, `${where} cites no prompt text`).toBeGreaterThan(0);
      for (const { prompt, text } of cited) {
        expect(prompt.split(".")[0], where).toBe(METRIC_TEMPLATES[example.metric]);
        expect(prompts[prompt], `${where}: unknown prompt ${prompt}`).toBeDefined();
        expect(text.length, `${where}: "${text}" is too short to name a rule`).toBeGreaterThan(15);
        expect(prompts[prompt], `${where}: ${prompt} does not contain "${text}"`).toContain(text);
      }
    }
  });

  it("cites prompt text that occurs in its prompt for the documented cases outside the set", () => {
    expect(otherRows.length).toBeGreaterThan(0);
    const prompts = renderedPrompts(true);
    for (const row of otherRows) {
      const cited = citations(cell(row, "verdict prompt text that covers it"));
      expect(cited.length, `${PAGE} line ${row.line} cites no prompt text`).toBeGreaterThan(0);
      for (const { prompt, text } of cited) expect(prompts[prompt]).toContain(text);
    }
  });

  it("cites the Sarah sentence's coverage as a rubric line and a worked example", () => {
    const row = setRows.find((candidate) => cell(candidate, "example") === "toxicity-sarah") as Row;
    const kinds = citations(cell(row, "verdict prompt text that covers it")).map(
      (citation) => citation.kind,
    );
    expect(kinds).toContain("rubric");
    expect(kinds).toContain("worked example");
  });
});
