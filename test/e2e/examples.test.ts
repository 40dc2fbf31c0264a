// The examples run as a user runs them: `node examples/…` in a child process. The
// "verdict-source" export condition makes `import "verdict"` load the current sources.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runNode } from "./run-node.ts";

async function run(options: { args: string[]; env: NodeJS.ProcessEnv }) {
  const started = runNode(options);
  const code = await started.exited;
  return { code, ...started.output() };
}

/** The environment without any judge configuration. */
function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(OPENAI|ANTHROPIC|GOOGLE|AZURE|OLLAMA|VERDICT)_/.test(key)) env[key] = value;
  }
  return env;
}

describe("examples", () => {
  it("run against the fake judge with no key and no network", async () => {
    const home = mkdtempSync(join(tmpdir(), "verdict-examples-"));
    const result = await run({
      args: ["examples/with-fake-judge.ts"],
      env: { ...bareEnv(), VERDICT_HOME: home },
    }).finally(() => rmSync(home, { recursive: true, force: true }));
    expect(result.stderr).not.toMatch(/error|warning/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Toxicity: score");
    expect(result.stdout).toContain("Bias: score");
    expect(result.stdout).toContain("Answer Relevancy: score");
    expect(result.stdout).toContain("Judge: openai:gpt-4.1");
    expect(result.stdout).toContain("Aggregate metrics");
    expect(result.stdout).toContain("6/6 examples ran against the fake judge.");
  });

  it("say in one line what to set when no judge is configured", async () => {
    const result = await run({ args: ["examples/toxicity.ts"], env: bareEnv() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("No judge configured:");
    expect(result.stderr).toContain("OPENAI_API_KEY");
  });
});
