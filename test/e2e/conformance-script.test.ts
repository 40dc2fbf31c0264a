// `npm run conformance` as a user runs it: the script in a child process, on the fake judge
// (what CI runs: plumbing only), and with a real model id over the real AI SDK provider and
// HTTP to the fake OpenAI server, which answers as deepeval documents each example — so the
// agreement it reports is known, and a flipped answer or a broken one must show up.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ConformanceExample,
  expectedScoreRange,
  ITEMS_OF,
  loadConformanceSet,
  METRIC_CLASSES,
} from "../../bench/conformance/conformance-set.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import {
  deepevalLikeJudge,
  isolatedEnvironment,
  runConformanceScript,
} from "../fixtures/deepeval-like-judge.ts";

const examples = loadConformanceSet();
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
  return isolatedEnvironment(directory, extra);
}

function runScript(args: string[], env: NodeJS.ProcessEnv) {
  return runConformanceScript(directory, args, env);
}

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
  return example.expected === "no opinion" || example.extractedCount === 0 ? 1 : 2;
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
    // Its one item never holds a piece of the text, and it scores the clean end of each
    // metric's scale (0 for the lower-is-better ones, 1 for the others, 0 for Faithfulness that
    // counts its "idk" against the output); so it also disagrees with every example that
    // expects items, a count other than one, or another score.
    const lowerIsBetter = ["Toxicity", "Bias", "Misuse", "Hallucination"];
    const agrees = (example: ConformanceExample) => {
      const penalized = example.options?.penalizeAmbiguousClaims === true;
      const clean = lowerIsBetter.includes(example.metric) || penalized ? 0 : 1;
      const [min, max] = expectedScoreRange(example) ?? [clean, clean];
      return (
        (ITEMS_OF[example.metric] === undefined ? quiet : ragClean).includes(example.expected) &&
        example.extracted === undefined &&
        example.flagged === undefined &&
        (example.extractedCount ?? 1) === 1 &&
        (example.pass ?? !penalized) === !penalized &&
        min <= clean &&
        clean <= max
      );
    };
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
