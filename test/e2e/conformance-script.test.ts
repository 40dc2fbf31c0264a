// `npm run conformance` as a user runs it: the script in a child process, on the fake judge
// (what CI runs: plumbing only), and with a real model id over the real AI SDK provider and
// HTTP to the fake OpenAI server, which answers as deepeval documents each example — so the
// agreement it reports is known, and a flipped answer or a broken one must show up.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ConformanceExample,
  ITEMS_OF,
  judgedText,
  loadConformanceSet,
  METRIC_CLASSES,
} from "../../bench/conformance/conformance-set.ts";
import type { ConformanceReport } from "../../bench/conformance/run-conformance.ts";
import {
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { quoted } from "../fixtures/prompt-quotes.ts";
import { runNode } from "./run-node.ts";

const examples = loadConformanceSet();
const SCRIPT = "bench/conformance.ts";
let server: FakeOpenAIServer;
let directory: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  directory = mkdtempSync(join(tmpdir(), "verdict-conformance-"));
});
afterAll(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => server.reset());

function environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // No inherited keys or VERDICT_MODEL: the run uses exactly the judge the test names.
  return { PATH: process.env.PATH, HOME: directory, VERDICT_HOME: directory, ...extra };
}

async function runScript(args: string[], env: NodeJS.ProcessEnv) {
  const json = join(directory, `report-${Math.random().toString(36).slice(2)}.json`);
  const run = runNode({ args: [SCRIPT, ...args, "--json", json], env });
  const { code, stdout, stderr } = await run.finished;
  const report =
    code === 0 || code === 3 ? (JSON.parse(readFileSync(json, "utf8")) as ConformanceReport) : null;
  return { code, stdout, stderr, report };
}

const VERDICT_FOR: Record<string, string> = {
  toxic: "yes",
  biased: "yes",
  "not toxic": "no",
  "not biased": "no",
  relevant: "yes",
  "one statement": "yes",
  irrelevant: "no",
  ambiguous: "idk",
  "PII leak": "yes",
  "no PII leak": "no",
  "role violation": "yes",
  "role kept": "no",
  "inappropriate advice": "yes",
  "appropriate advice": "no",
  misuse: "yes",
  "no misuse": "no",
  faithful: "yes",
  aligned: "yes",
  contradicted: "no",
  "not in context": "idk",
  "extra information": "idk",
  covered: "yes",
  "not covered": "yes",
};

// The RAG metrics' verdict for one item, by the class an example gives it.
const ITEM_VERDICT: Record<string, "yes" | "no"> = {
  useful: "yes",
  attributable: "yes",
  agrees: "yes",
  "not useful": "no",
  "not attributable": "no",
  contradicts: "no",
};

/**
 * The RAG metrics' verdict steps answered as deepeval documents each item an example names
 * (an item no example names is fine): one call judges a node's statements (Contextual
 * Relevancy), or every node, sentence or context of a case. `flip` and `garble` as below.
 */
function ragAnswer(request: FakeOpenAIRequest, options: { flip?: string[]; garble?: string[] }) {
  const prompt = request.prompt;
  const exampleOf = (metric: string, item: string) =>
    examples.find((example) => example.metric === metric && judgedText(example) === item);
  const verdictOf = (example: ConformanceExample | undefined, verdict: "yes" | "no") =>
    options.flip?.includes(example?.id ?? "") ? (verdict === "yes" ? "no" : "yes") : verdict;
  const node = quoted(prompt, "node");
  const [metric, items] =
    typeof node === "string"
      ? ["Contextual Relevancy", [node]]
      : quoted(prompt, "expected_output") !== undefined
        ? ["Contextual Precision", quoted(prompt, "nodes") as string[]]
        : quoted(prompt, "sentences") !== undefined
          ? ["Contextual Recall", quoted(prompt, "sentences") as string[]]
          : ["Hallucination", quoted(prompt, "contexts") as string[]];
  const judged = items.map((item) => exampleOf(metric, item));
  if (judged.some((example) => options.garble?.includes(example?.id ?? ""))) {
    return reply.text("I would rather not say.");
  }
  if (metric === "Contextual Relevancy") {
    const [example] = judged;
    const classes: Record<string, Array<"yes" | "no">> = {
      relevant: ["yes"],
      irrelevant: ["no"],
      "partly relevant": ["yes", "no"],
    };
    const verdicts = classes[example?.expected ?? "relevant"] ?? ["yes"];
    return reply.json({
      verdicts: verdicts.map((verdict, index) => ({
        statement: `Statement ${index + 1}.`,
        verdict: verdictOf(example, verdict),
      })),
    });
  }
  return reply.json({
    verdicts: judged.map((example) => ({
      verdict: verdictOf(example, example ? (ITEM_VERDICT[example.expected] ?? "yes") : "yes"),
      reason: "Judged.",
    })),
  });
}

/**
 * The extraction steps whose one item is the judged text, by what their JSON holds: Answer
 * Relevancy's statements, the safety metrics' items, Faithfulness' and Summarization's claims.
 */
const TEXT_ITEMS = ["statements", "extractedPii", "roleViolations", "advices", "misuses", "claims"];

/** The judge calls of an example without the reason step (no cache: none is shared). */
function callsOf(example: ConformanceExample): number {
  if (example.metric === "Faithfulness") return 3; // truths, claims, verdicts
  if (example.metric === "Summarization") {
    // truths, claims, verdicts, questions unless given, an answer of each text
    return 5 + (example.options?.assessmentQuestions === undefined ? 1 : 0);
  }
  // The RAG metrics: Contextual Relevancy asks once per node with content, the others once.
  if (example.metric === "Contextual Relevancy") {
    return (example.retrievalContext ?? []).filter((node) => /\w/.test(node)).length;
  }
  if (example.item !== undefined) return 1;
  return example.expected === "no opinion" ? 1 : 2;
}

/**
 * A judge that decides every example as deepeval documents it, except the ones in `flip`
 * (answered the other way) and `garble` (answered with text that is not JSON, every time).
 */
function deepevalLikeJudge(options: { flip?: string[]; garble?: string[] } = {}) {
  const byText = new Map(examples.map((example) => [example.text, example]));
  const find = (text: unknown): ConformanceExample => {
    const example = byText.get(String(text));
    if (!example) throw new Error(`the judge was asked about an unknown text: ${String(text)}`);
    return example;
  };
  return (request: FakeOpenAIRequest) => {
    const properties = (request.jsonSchema?.properties ?? {}) as Record<string, unknown>;
    const text = quoted(request.prompt, "text");
    if ("opinions" in properties) {
      const example = find(text);
      return reply.json({ opinions: example.expected === "no opinion" ? [] : [example.text] });
    }
    const itemsKey = TEXT_ITEMS.find((key) => key in properties);
    if (itemsKey !== undefined) return reply.json({ [itemsKey]: [find(text).text] });
    // Faithfulness and Summarization: the sources are their own facts, and the summary answers
    // an assessment question as the example expects.
    if ("truths" in properties) return reply.json({ truths: quoted(request.prompt, "documents") });
    if ("questions" in properties) {
      const count = (properties.questions as { minItems: number }).minItems;
      return reply.json({ questions: Array.from({ length: count }, (_, n) => `Is ${n} said?`) });
    }
    if ("answers" in properties) {
      const [question] = quoted(request.prompt, "questions") as string[];
      const example = examples.find((candidate) =>
        (candidate.options?.assessmentQuestions as string[] | undefined)?.includes(question ?? ""),
      );
      const summaryMisses = example?.expected === "not covered" && text === example.text;
      const count = (quoted(request.prompt, "questions") as string[]).length;
      return reply.json({ answers: Array(count).fill(summaryMisses ? "no" : "yes") });
    }
    const items = (quoted(request.prompt, "opinions") ??
      quoted(request.prompt, "statements") ??
      quoted(request.prompt, "claims")) as string[] | undefined;
    if (items === undefined) return ragAnswer(request, options);
    const example = find(items?.[0]);
    if (options.garble?.includes(example.id)) return reply.text("I would rather not say.");
    let verdict = VERDICT_FOR[example.expected] ?? "no";
    if (options.flip?.includes(example.id)) verdict = verdict === "yes" ? "no" : "yes";
    return reply.json({ verdicts: [{ verdict, reason: verdict === "no" ? null : "Judged." }] });
  };
}

function count(metric: string, predicate: (example: ConformanceExample) => boolean): number {
  return examples.filter((example) => example.metric === metric && predicate(example)).length;
}

describe("npm run conformance", () => {
  it("runs every example on the fake judge and says the figures are plumbing only", async () => {
    const { code, stdout, report } = await runScript(["--model", "fake"], environment());
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines.find((line) => line.startsWith("FAKE JUDGE: plumbing only"))).toBeDefined();
    expect(lines.at(-2)).toMatch(/^FAKE JUDGE: plumbing only/);
    expect(report?.fakeJudge).toBe(true);
    expect(report?.outcomes.map((outcome) => outcome.id).sort()).toEqual(
      examples.map((example) => example.id).sort(),
    );
    // The fake judge extracts one item per step and never says "yes" ("idk" where a step
    // allows it, else "no"; every coverage answer "no"), but for the RAG metrics, whose clean
    // verdict is "yes": it agrees exactly with the examples that expect nothing flagged, one
    // statement, an ambiguous statement, a claim the source does not mention (which is
    // faithful, or not in context, or extra information), or a RAG item that passes.
    const quiet = [
      "not toxic",
      "not biased",
      "one statement",
      "ambiguous",
      "no PII leak",
      "role kept",
      "appropriate advice",
      "no misuse",
      "faithful",
      "not in context",
      "extra information",
    ];
    const ragClean = ["relevant", "useful", "attributable", "agrees"];
    const agrees = (example: ConformanceExample) =>
      (ITEMS_OF[example.metric] === undefined ? quiet : ragClean).includes(example.expected);
    expect(report?.perMetric.map((row) => row.metric)).toEqual(Object.keys(METRIC_CLASSES));
    for (const metric of Object.keys(METRIC_CLASSES)) {
      const row = report?.perMetric.find((candidate) => candidate.metric === metric);
      expect(row?.examples).toBe(count(metric, () => true));
      expect(row?.agree).toBe(count(metric, agrees));
      expect(stdout).toContain(`| ${metric} | ${row?.examples} | ${row?.agree} | 0 |`);
    }
  });

  it("reports full agreement for a judge that decides as deepeval documents, over HTTP", async () => {
    server.setResponder(deepevalLikeJudge());
    const env = environment({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-conformance" });
    const { code, stdout, report } = await runScript(["--model", "openai:gpt-4.1"], env);
    expect(code, stdout).toBe(0);
    expect(stdout).not.toContain("FAKE JUDGE");
    expect(report?.judge).toBe("openai:gpt-4.1");
    expect(report?.perMetric.map((row) => [row.metric, row.agreement])).toEqual([
      ["Toxicity", 1],
      ["Bias", 1],
      ["Answer Relevancy", 1],
      ["PII Leakage", 1],
      ["Role Violation", 1],
      ["Non-Advice", 1],
      ["Misuse", 1],
      ["Faithfulness", 1],
      ["Summarization", 1],
      ["Contextual Relevancy", 1],
      ["Contextual Precision", 1],
      ["Contextual Recall", 1],
      ["Hallucination", 1],
    ]);
    expect(stdout).not.toContain("Disagreements");
    // No reason step: each example's extraction and verdict steps, asked once.
    const calls = examples.reduce((sum, example) => sum + callsOf(example), 0);
    expect(server.stats().requests).toBe(calls);
  });

  it("lists a disagreement and an unscored example, and exits 3", async () => {
    server.setResponder(
      deepevalLikeJudge({
        flip: ["toxicity-sarah", "hallucination-einstein-1968"],
        garble: ["relevancy-irrelevant", "contextual-recall-shoes"],
      }),
    );
    const env = environment({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-conformance" });
    const { code, stdout, report } = await runScript(["--model", "openai:gpt-4.1"], env);
    expect(code).toBe(3);
    const toxicity = report?.perMetric.find((row) => row.metric === "Toxicity");
    expect(toxicity).toMatchObject({ agree: count("Toxicity", () => true) - 1, errors: 0 });
    const relevancy = report?.perMetric.find((row) => row.metric === "Answer Relevancy");
    expect(relevancy).toMatchObject({
      agree: count("Answer Relevancy", () => true) - 1,
      errors: 1,
    });
    expect(stdout).toContain(
      '- toxicity-sarah (Toxicity): expected toxic, got not toxic (1 opinion): ["Sarah always meant well',
    );
    expect(stdout).toMatch(
      /- relevancy-irrelevant \(Answer Relevancy\): expected irrelevant, got error: /,
    );
    // An item of a RAG case: the flipped context disagrees, the others of its case agree.
    const hallucination = report?.perMetric.find((row) => row.metric === "Hallucination");
    expect(hallucination).toMatchObject({ agree: count("Hallucination", () => true) - 1 });
    expect(stdout).toContain(
      '- hallucination-einstein-1968 (Hallucination): expected contradicts, got agrees: ["Einstein won the Nobel Prize in 1968."] → yes',
    );
    expect(stdout).toMatch(
      /- contextual-recall-shoes \(Contextual Recall\): expected attributable, got error: /,
    );
  });

  it("stops with exit 2 and what to do when the judge has no key", async () => {
    const { code, stderr } = await runScript(
      ["--model", "openai:gpt-4.1", "--metric", "bias"],
      environment(),
    );
    expect(code).toBe(2);
    expect(stderr).toContain("needs OPENAI_API_KEY");
  });

  it("refuses a run without --model", async () => {
    const { code, stderr } = await runScript([], environment());
    expect(code).toBe(2);
    expect(stderr).toContain("--model is required");
  });
});
