// Keeps docs/metric-conformance.md honest: every conformance fixture has a row in its table
// (same text, same classification), and every piece of prompt text a row cites really occurs
// in the prompt it names, as verdict renders it. A prompt edit that drops a rubric line or a
// worked example the page relies on fails here, and so does a fixture nobody mapped.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgedText, loadConformanceSet } from "../../bench/conformance/conformance-set.ts";
import { AnswerRelevancyTemplate } from "../../src/metrics/answer-relevancy/prompts.ts";
import { BiasTemplate } from "../../src/metrics/bias/prompts.ts";
import { ContextualPrecisionTemplate } from "../../src/metrics/contextual-precision/prompts.ts";
import { ContextualRecallTemplate } from "../../src/metrics/contextual-recall/prompts.ts";
import { ContextualRelevancyTemplate } from "../../src/metrics/contextual-relevancy/prompts.ts";
import { HallucinationTemplate } from "../../src/metrics/hallucination/prompts.ts";
import { ToxicityTemplate } from "../../src/metrics/toxicity/prompts.ts";
import { projectRoot } from "../e2e/run-node.ts";

const PAGE = "docs/metric-conformance.md";
const page = readFileSync(join(projectRoot, PAGE), "utf8");

interface Row {
  cells: string[];
  line: number;
}

const lines = page.split("\n");
const cellsOf = (line: string) =>
  line
    .slice(1, -1)
    .split(" | ")
    .map((cell) => cell.trim());

/**
 * The rows of the tables under `heading` (up to the next `## ` heading) whose first column is
 * `firstColumn`, as trimmed cells (header and rule left out); only the first table when
 * `firstOnly`.
 */
function tablesUnder(heading: string, firstColumn: string, firstOnly = false): Row[] {
  const start = lines.indexOf(heading);
  if (start === -1) throw new Error(`${PAGE} has no "${heading}" heading`);
  const rows: Row[] = [];
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.startsWith("## ")) break;
    if (!line.startsWith("|")) continue;
    const wanted = cellsOf(line)[0] === firstColumn;
    for (index += 2; index < lines.length && lines[index]?.startsWith("|"); index++) {
      if (wanted) rows.push({ cells: cellsOf(lines[index] as string), line: index + 1 });
    }
    if (wanted && firstOnly) break;
  }
  return rows;
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

// Rendered with placeholder data, so a cited piece can only match the prompt's own text.
const DATA = "PLACEHOLDER";
function renderedPrompts(multimodal: boolean): Record<string, string> {
  const shared = { multimodal };
  return {
    "ToxicityTemplate.generateOpinions": ToxicityTemplate.generateOpinions({
      ...shared,
      actualOutput: DATA,
    }),
    "ToxicityTemplate.generateVerdicts": ToxicityTemplate.generateVerdicts({
      ...shared,
      opinions: [DATA],
    }),
    "BiasTemplate.generateOpinions": BiasTemplate.generateOpinions({
      ...shared,
      actualOutput: DATA,
    }),
    "BiasTemplate.generateVerdicts": BiasTemplate.generateVerdicts({ ...shared, opinions: [DATA] }),
    "AnswerRelevancyTemplate.generateStatements": AnswerRelevancyTemplate.generateStatements({
      ...shared,
      actualOutput: DATA,
    }),
    "AnswerRelevancyTemplate.generateVerdicts": AnswerRelevancyTemplate.generateVerdicts({
      ...shared,
      input: DATA,
      statements: [DATA],
    }),
    "ContextualRelevancyTemplate.generateVerdicts": ContextualRelevancyTemplate.generateVerdicts({
      ...shared,
      input: DATA,
      context: DATA,
    }),
    "ContextualPrecisionTemplate.generateVerdicts": ContextualPrecisionTemplate.generateVerdicts({
      ...shared,
      input: DATA,
      expectedOutput: DATA,
      retrievalContext: [DATA],
    }),
    "ContextualRecallTemplate.generateVerdicts": ContextualRecallTemplate.generateVerdicts({
      ...shared,
      sentences: [DATA],
      retrievalContext: [DATA],
    }),
    "HallucinationTemplate.generateVerdicts": HallucinationTemplate.generateVerdicts({
      ...shared,
      actualOutput: DATA,
      contexts: [DATA],
    }),
  };
}

/** Which prompts may cover an example of each metric. */
const METRIC_TEMPLATES: Record<string, string> = {
  Toxicity: "ToxicityTemplate",
  Bias: "BiasTemplate",
  "Answer Relevancy": "AnswerRelevancyTemplate",
  "Contextual Relevancy": "ContextualRelevancyTemplate",
  "Contextual Precision": "ContextualPrecisionTemplate",
  "Contextual Recall": "ContextualRecallTemplate",
  Hallucination: "HallucinationTemplate",
};

// The tables of the first metrics, and those of each later metric's section.
const LATER = "## Conformance of the RAG, summarization and safety metrics";
const examples = loadConformanceSet();
const setRows = [
  ...tablesUnder("## Conformance set", "example", true),
  ...tablesUnder(LATER, "example"),
];
const otherRows = [
  ...tablesUnder("## Documented, but not in the conformance set", "classification", true),
  ...tablesUnder(LATER, "classification"),
];

describe(PAGE, () => {
  it("has one row per conformance fixture, with the fixture's metric, classification and text", () => {
    const byId = new Map(setRows.map((row) => [row.cells[0], row]));
    expect(setRows).toHaveLength(byId.size);
    for (const example of examples) {
      const row = byId.get(example.id);
      expect(row, `${example.id} has no row in ${PAGE}`).toBeDefined();
      // The text the classification is about: the output, or the item the example names.
      expect(row?.cells.slice(1, 4), `${PAGE} line ${row?.line}`).toEqual([
        example.metric,
        example.expected,
        judgedText(example),
      ]);
    }
    expect([...byId.keys()].sort()).toEqual(examples.map((example) => example.id).sort());
  });

  it("covers each fixture with a worked example or rubric line of a prompt of its metric", () => {
    const prompts = renderedPrompts(false);
    for (const example of examples) {
      const row = setRows.find((candidate) => candidate.cells[0] === example.id) as Row;
      const cited = citations(row.cells[4] ?? "");
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
      const cited = citations(row.cells[3] ?? "");
      expect(cited.length, `${PAGE} line ${row.line} cites no prompt text`).toBeGreaterThan(0);
      for (const { prompt, text } of cited) expect(prompts[prompt]).toContain(text);
    }
  });

  it("cites the Sarah sentence's coverage as a rubric line and a worked example", () => {
    const row = setRows.find((candidate) => candidate.cells[0] === "toxicity-sarah") as Row;
    const kinds = citations(row.cells[4] ?? "").map((citation) => citation.kind);
    expect(kinds).toContain("rubric");
    expect(kinds).toContain("worked example");
  });
});
