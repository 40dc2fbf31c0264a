// Keeps every code block of the README and of docs/*.md honest, as a reader would use them:
// each TypeScript block type-checks against the sources (one tsc run for all of them, with
// the project's strict settings and global stand-ins for what a block leaves to the reader),
// and each `verdict` command line shown (in shell, YAML and plain blocks, and in inline code)
// names a command and long flags that `verdict <command> --help` lists. Shell, YAML, JSON,
// Python and plain-text blocks are not TypeScript; a TypeScript block opts out only with an
// `<!-- not type-checked: reason -->` line before its fence, and this test lists those.
// A whole-program test: it runs tsc and the CLI.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../e2e/run-node.ts";
import {
  CliHelpChecker,
  type CodeBlock,
  readCodeBlocks,
  readPage,
  TYPESCRIPT_LANGUAGES,
  typeCheckBlocks,
  verdictInvocations,
} from "../fixtures/markdown-code-blocks.ts";

const PAGES = [
  "README.md",
  ...readdirSync(join(projectRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

// What the pages' examples call but leave to the reader ("your app", "your model"): global
// declarations, so that a block that declares its own shadows them.
const STAND_INS = `
declare function myApp(input: string): Promise<string>;
declare function app(input: string): Promise<string>;
declare function search(question: string): Promise<string[]>;
declare function searchDocs(question: string): Promise<string[]>;
declare function llm(question: string, chunks: string[]): Promise<string>;
declare function callLLM(question: string, chunks: string[]): Promise<string>;
declare const myClient: {
  complete(prompt: string, options?: { jsonSchema?: object }): Promise<string>;
};
declare const testCase: import("verdict").LLMTestCase;
declare const testCases: import("verdict").LLMTestCase[];
declare const dataset: import("verdict").EvaluationDataset;
// A TensorFlow.js model and its training data (docs/fine-tuning.md).
declare const model: {
  stopTraining: boolean;
  fit(xs: unknown, ys: unknown, options: { epochs: number; callbacks: unknown }): Promise<unknown>;
};
declare const xs: unknown;
declare const ys: unknown;
declare function answerWith(trained: typeof model, input: string): Promise<string>;
declare function trainOneEpoch(): number;
`;

// The reader's own modules that docs/contracts.md imports: a store and a metric.
const MODULES = {
  "src/file-store.ts": `import type { Store } from "verdict";
export declare class FileStore {
  static open(options: { folder: string }): Promise<Store>;
}
`,
  "src/policy-metric.ts": `import type { BaseMetric, BaseMetricOptions } from "verdict";
export declare class PolicyTemplate {}
export declare const PolicyMetric: new (
  options: BaseMetricOptions<PolicyTemplate>,
) => BaseMetric<PolicyTemplate>;
`,
};

const blocks: CodeBlock[] = PAGES.flatMap((page) => readCodeBlocks(page));
// One `--help` run per command, shared by the tests.
const checker = new CliHelpChecker();
const typeScript = blocks.filter((block) => TYPESCRIPT_LANGUAGES.includes(block.language));

describe("the code blocks of the README and docs/", () => {
  it("type-checks every TypeScript block against the sources", () => {
    const checked = typeScript.filter((block) => block.notTypeChecked === null);
    expect(checked.length).toBeGreaterThan(40);
    expect(typeCheckBlocks({ blocks: checked, standIns: STAND_INS, modules: MODULES })).toBe("");
  });

  it("lists the TypeScript blocks that opt out, each with its reason", () => {
    const optedOut = typeScript
      .filter((block) => block.notTypeChecked !== null)
      .map((block) => `${block.page}:${block.line}: ${block.notTypeChecked}`);
    for (const entry of optedOut) expect(entry).toMatch(/: \S.{9,}$/);
    expect(optedOut).toEqual([]);
  });

  it("has no TypeScript hidden in a block without a language", () => {
    const untagged = blocks
      .filter((block) => block.language === "")
      .filter((block) => /^\s*(import |export |const |await |test\()/m.test(block.code))
      .map((block) => `${block.page}:${block.line}`);
    expect(untagged).toEqual([]);
  });

  it("shows only verdict commands and long flags that --help lists", () => {
    const invocations = PAGES.flatMap((page) => verdictInvocations(page));
    expect(invocations.length).toBeGreaterThan(50);
    expect(invocations.flatMap((invocation) => checker.problems(invocation))).toEqual([]);
  });

  it("lists every command's long flags in docs/cli.md", () => {
    const page = readPage("docs/cli.md");
    const missing = checker.commands().flatMap(({ command, flags }) =>
      flags
        .filter((flag) => flag.startsWith("--") && !["--help", "--version"].includes(flag))
        .filter((flag) => !new RegExp(`${flag}(?![\\w-])`).test(page))
        .map((flag) => `verdict ${command.join(" ")} ${flag}`),
    );
    expect(missing).toEqual([]);
  });
});

describe("the checks of the code blocks", () => {
  it("would catch a block that does not type-check, at its page and line", () => {
    const page = "docs/example.md";
    const text = [
      "Intro.",
      "",
      "```ts",
      'import { ToxicityMetric } from "verdict";',
      "",
      "new ToxicityMetric({ treshold: 0.5 });",
      "```",
    ].join("\n");
    const output = typeCheckBlocks({ blocks: readCodeBlocks(page, text) });
    expect(output).toMatch(/^docs\/example\.md line 6, column \d+: error TS2561: .*treshold/m);
  });

  it("would catch an unknown command, subcommand or long flag, in blocks and inline code", () => {
    const page = "docs/example.md";
    const text = [
      "Run `verdict test run evals/ --shard 1/2 --no-such-flag` or `npx verdict compare a b --max-drop 0.1`.",
      "",
      "```sh",
      "VERDICT_MODEL=fake npx verdict test run evals/ --judge fake --skip-missing   # a comment --bogus",
      "npx verdict store migrate|exports",
      "verdict frobnicate --fast",
      "npm install verdict vitest",
      "```",
      "",
      "```",
      "verdict merge <files…>       merge the reports",
      "  --allow-missing-shards --shard-list",
      "```",
    ].join("\n");
    const problems = verdictInvocations(page, text).flatMap((invocation) =>
      checker.problems(invocation),
    );
    expect(problems).toEqual([
      'docs/example.md:4: "--skip-missing" is not a flag of verdict test run',
      'docs/example.md:5: "verdict store migrate|exports" is not a command (migrate, export, import)',
      expect.stringMatching(/^docs\/example\.md:6: "verdict frobnicate" is not a command/),
      'docs/example.md:11: "--shard-list" is not a flag of verdict merge',
      'docs/example.md:1: "--no-such-flag" is not a flag of verdict test run',
    ]);
  });
});
