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
  judgedText,
  loadConformanceSet,
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
    if ("statements" in properties) return reply.json({ statements: [find(text).text] });
    const items = (quoted(request.prompt, "opinions") ?? quoted(request.prompt, "statements")) as
      | string[]
      | undefined;
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
    // The fake judge extracts one item per step and never says "yes" to these three metrics:
    // it agrees exactly with the examples that expect nothing flagged, one statement, or an
    // ambiguous statement.
    const quiet = ["not toxic", "not biased", "one statement", "ambiguous"];
    for (const metric of ["Toxicity", "Bias", "Answer Relevancy"]) {
      const row = report?.perMetric.find((candidate) => candidate.metric === metric);
      expect(row?.examples).toBe(count(metric, () => true));
      expect(row?.agree).toBe(count(metric, (example) => quiet.includes(example.expected)));
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
      ["Contextual Relevancy", 1],
      ["Contextual Precision", 1],
      ["Contextual Recall", 1],
      ["Hallucination", 1],
    ]);
    expect(stdout).not.toContain("Disagreements");
    // No reason step: opinions are asked once per text, verdicts once per text with opinions;
    // Contextual Relevancy asks once per node, the other RAG metrics once per case.
    const requests = examples.reduce((sum, example) => {
      if (example.metric === "Contextual Relevancy") {
        return sum + (example.retrievalContext ?? []).filter((node) => /\w/.test(node)).length;
      }
      if (example.item !== undefined) return sum + 1;
      return sum + (example.expected === "no opinion" ? 1 : 2);
    }, 0);
    expect(server.stats().requests).toBe(requests);
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
