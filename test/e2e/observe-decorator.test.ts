// `observe` as a standard (TC39) method decorator, in a class compiled by tsc the way a
// user's project compiles it. A whole-program test: it runs the TypeScript compiler.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, parse, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ToxicityMetric } from "../../src/metrics/toxicity/toxicity-metric.ts";
import { MockJudge } from "../../src/testing/mock-judge.ts";
import { observe } from "../../src/tracing/observe.ts";
import { collectTrace, type LiveSpan } from "../../src/tracing/span-context.ts";
import { projectRoot } from "./run-node.ts";

const decoratedAgentSource = `
import type { observe as Observe } from "OBSERVE_PATH";
import type { ToxicityMetric } from "METRIC_PATH";

export function defineAgent(options: { observe: typeof Observe; metric: ToxicityMetric }) {
  const { observe, metric } = options;
  class Agent {
    prefix = "answer";

    @observe({ type: "agent", metrics: [metric] })
    async run(question: string): Promise<string> {
      return \`\${this.prefix}: \${this.search(question).join(" ")}\`;
    }

    @observe
    search(question: string): string[] {
      return [\`about \${question}\`];
    }

    @observe({ name: "renamed" })
    static describe(): string {
      return "agent";
    }
  }
  return Agent;
}
`;

/** Type-checks and compiles TypeScript source with tsc (standard decorators), then imports it. */
async function compileWithTsc(source: string): Promise<unknown> {
  const directory = mkdtempSync(join(tmpdir(), "verdict-decorators-"));
  try {
    const sourcePath = join(directory, "agent.ts");
    const importPath = (file: string) =>
      relative(directory, join(projectRoot, file)).split("\\").join("/");
    writeFileSync(
      sourcePath,
      source
        .replace("OBSERVE_PATH", importPath("src/tracing/observe.ts"))
        .replace("METRIC_PATH", importPath("src/metrics/toxicity/toxicity-metric.ts")),
    );
    const compiled = spawnSync(
      process.execPath,
      [
        join(projectRoot, "node_modules/typescript/bin/tsc"),
        ...["--target", "es2023", "--module", "nodenext", "--moduleResolution", "nodenext"],
        ...["--strict", "--exactOptionalPropertyTypes", "--skipLibCheck"],
        ...["--allowImportingTsExtensions", "--rewriteRelativeImportExtensions"],
        ...["--types", "node", "--typeRoots", join(projectRoot, "node_modules/@types")],
        ...["--rootDir", parse(directory).root, "--outDir", join(directory, "out"), sourcePath],
      ],
      { encoding: "utf8", cwd: directory },
    );
    expect(compiled.stdout + compiled.stderr).toBe("");
    expect(compiled.status).toBe(0);
    const emitted = join(directory, "out", relative(parse(directory).root, directory), "agent.js");
    return await import(pathToFileURL(emitted).href);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The tree's shape: names, with children. */
function shape(spans: readonly LiveSpan[]): unknown[] {
  return spans.map((span) =>
    span.children.length === 0 ? span.name : { [span.name]: shape(span.children) },
  );
}

describe("observe", () => {
  it("works as a standard method decorator, with and without options, keeping `this`", async () => {
    // Vitest's transform and Node's type stripping leave decorators alone (and V8 has none
    // yet), so the class is compiled the way a user's project compiles it: by tsc, which
    // also checks the decorator's types.
    const { defineAgent } = (await compileWithTsc(decoratedAgentSource)) as {
      defineAgent: (options: { observe: typeof observe; metric: ToxicityMetric }) => {
        new (): { run(question: string): Promise<string>; search(question: string): string[] };
        describe(): string;
      };
    };
    const toxicity = new ToxicityMetric({ model: new MockJudge() });
    const Agent = defineAgent({ observe, metric: toxicity });
    const agent = new Agent();
    expect(agent.search("x")).toEqual(["about x"]);
    const { trace, output } = await collectTrace({
      run: async () => `${await agent.run("shoes")} (${Agent.describe()})`,
    });
    expect(output).toBe("answer: about shoes (agent)");
    expect(shape(trace.spans)).toEqual([{ run: ["search"] }, "renamed"]);
    expect(trace.spans[0]?.type).toBe("agent");
    expect(trace.spans[0]?.input).toEqual(["shoes"]);
    expect(trace.spans[0]?.metrics).toEqual([toxicity]);
    expect(trace.spans[1]?.type).toBe("custom");
  });
});
