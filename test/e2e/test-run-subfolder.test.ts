// `verdict test run` from a subfolder of a project, as a user types `cd evals && npx verdict
// test run .`: the key and judge in the project root's .env are found, the run goes to the
// root's .verdict/ (no second store in the subfolder), and a case missing its actualOutput is
// named after its test, points at the CLI's -s flag, and the totals do not say "0 unscored"
// while the run exits 3. Judged over real HTTP by the fake OpenAI server.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import { projectRoot, runNode } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");

let server: FakeOpenAIServer;
let project: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  project = makeLinkedProject({ prefix: "verdict-subfolder-" });
  writeFileSync(
    join(project, ".env"),
    `OPENAI_BASE_URL=${server.url}\nOPENAI_API_KEY=sk-from-root-env-file\nVERDICT_MODEL=gpt-4.1\n`,
  );
  mkdirSync(join(project, "evals"));
  writeFileSync(
    join(project, "evals/support.eval.ts"),
    [
      'import { ToxicityMetric } from "verdict";',
      'import { assertTest } from "verdict/vitest";',
      'import { test } from "vitest";',
      "",
      'test("the greeting is polite", async () => {',
      '  await assertTest({ input: "Hi", actualOutput: "Hello, how can I help?" }, [new ToxicityMetric()]);',
      "});",
      "",
      'test("the refund answer", async () => {',
      '  await assertTest({ input: "Can I get a refund?" }, [new ToxicityMetric()]);',
      "});",
      "",
    ].join("\n"),
  );
});

afterAll(async () => {
  await server?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("verdict test run from a subfolder", () => {
  it("uses the root's .env and .verdict/, and names the case that misses its output", async () => {
    const run = await runNode({
      args: [MAIN, "test", "run", "."],
      cwd: join(project, "evals"),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" },
    }).finished;
    expect(run.code, run.stderr).toBe(3);
    // The judge and key came from the root's .env: the fake server answered.
    expect(server.requests.length).toBeGreaterThan(0);
    expect(existsSync(join(project, ".verdict/verdict.db"))).toBe(true);
    expect(existsSync(join(project, "evals/.verdict"))).toBe(false);
    const output = run.stdout.replace(/\s*\|\s*/g, " ").replace(/\s+/g, " ");
    expect(output).toContain('needs "actualOutput" on test case "the refund answer"');
    expect(output).not.toContain('test case "#1"');
    expect(output).toContain("-s (--skip-on-missing-params) with `verdict test run`");
    // Whether the polite case passes is the fake judge's call; the other errored.
    expect(output).toMatch(
      /Test cases: \d passed, \d failed \(2 total\); in 1 of them a metric errored and is unscored/,
    );
    expect(output).not.toMatch(/\b0 unscored\b/);
  });
});
